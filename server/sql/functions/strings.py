"""String functions with PostgreSQL's semantics: lengths in characters, SQL-standard substring
bounds, lpad/rpad truncation, quoting rules, encode/decode formats.

`format`, `quote_*` and the regular-expression functions live in `formatting.py`
and `regex.py`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from ...errors import InvalidParameterValue, ProgramLimitExceeded, SQLError
from ...pgtypes import oids as T
from ..expr.casts import to_text
from .formatting import output_text
from .registry import register

TEXT = T.TEXT


def _negative_length() -> SQLError:
    return SQLError("negative substring length not allowed", sqlstate="22011")


@register("length", args=[TEXT], returns=T.INT4)
def length(s: str) -> int:
    """Returns the number of characters."""
    return len(s)


for _name in ("char_length", "character_length"):
    register(_name, args=[TEXT], returns=T.INT4)(length)
register("length", args=[T.BYTEA], returns=T.INT4)(length)


@register("octet_length", args=[TEXT], returns=T.INT4)
def octet_length(s: str | bytes) -> int:
    """Returns the number of bytes (UTF-8 for text)."""
    return len(s.encode() if isinstance(s, str) else s)


register("octet_length", args=[T.BYTEA], returns=T.INT4)(octet_length)
# NB: bpcharoctetlen counts the padding, where length(bpchar) (through text) drops it
register("octet_length", args=[T.BPCHAR], returns=T.INT4)(octet_length)


@register("bit_length", args=[TEXT], returns=T.INT4)
def bit_length(s: str) -> int:
    """Returns the number of bits."""
    return 8 * octet_length(s)


@register("lower", args=[TEXT], returns=TEXT)
def lower(s: str) -> str:
    """Lower-cases the string."""
    return s.lower()


@register("upper", args=[TEXT], returns=TEXT)
def upper(s: str) -> str:
    """Upper-cases the string."""
    return s.upper()


@register("initcap", args=[TEXT], returns=TEXT)
def initcap(s: str) -> str:
    """Upper-cases the first letter of each alphanumeric run and lower-cases the rest."""
    out, prev_alnum = [], False
    for ch in s:
        out.append(ch.lower() if prev_alnum else ch.upper())
        prev_alnum = ch.isalnum()
    return "".join(out)


@register("substr", args=[TEXT, T.INT4], returns=TEXT)
def substr(s: Any, start: int, count: int | None = None) -> Any:
    """Returns count characters from the 1-based start (SQL's bounds: start may be < 1)."""
    if count is None:
        return s[max(start, 1) - 1:]
    if count < 0:
        raise _negative_length()
    end = start + count
    if end <= 1:
        return s[:0]
    return s[max(start, 1) - 1:end - 1]


register("substr", args=[TEXT, T.INT4, T.INT4], returns=TEXT)(substr)
register("substring", args=[TEXT, T.INT4], returns=TEXT)(substr)
register("substring", args=[TEXT, T.INT4, T.INT4], returns=TEXT)(substr)
for _args in ([T.BYTEA, T.INT4], [T.BYTEA, T.INT4, T.INT4]):
    register("substr", args=_args, returns=T.BYTEA)(substr)
    register("substring", args=_args, returns=T.BYTEA)(substr)


@register("strpos", args=[TEXT, TEXT], returns=T.INT4)
def strpos(s: str, sub: str) -> int:
    """Returns the 1-based position of sub in s, 0 when absent."""
    return s.find(sub) + 1


# NB: position(sub IN s) reaches the registry as position(s, sub), like pg_proc's textpos.
register("position", args=[TEXT, TEXT], returns=T.INT4)(strpos)


@register("replace", args=[TEXT, TEXT, TEXT], returns=TEXT)
def replace(s: str, old: str, new: str) -> str:
    """Replaces every occurrence of old with new."""
    return s.replace(old, new) if old else s


@register("btrim", args=[TEXT], returns=TEXT)
def btrim(s: str, chars: str = " ") -> str:
    """Removes the given characters (spaces by default) from both ends."""
    return s.strip(chars)


@register("ltrim", args=[TEXT], returns=TEXT)
def ltrim(s: str, chars: str = " ") -> str:
    """Removes the given characters from the start."""
    return s.lstrip(chars)


@register("rtrim", args=[TEXT], returns=TEXT)
def rtrim(s: str, chars: str = " ") -> str:
    """Removes the given characters from the end."""
    return s.rstrip(chars)


register("trim", args=[TEXT], returns=TEXT)(btrim)
for _name, _fn in (("btrim", btrim), ("trim", btrim), ("ltrim", ltrim), ("rtrim", rtrim)):
    register(_name, args=[TEXT, TEXT], returns=TEXT)(_fn)


@register("lpad", args=[TEXT, T.INT4], returns=TEXT)
def lpad(s: str, n: int, fill: str = " ") -> str:
    """Pads on the left to n characters with fill, truncating a longer string."""
    if n <= 0:
        return ""
    if len(s) >= n or not fill:
        return s[:n]
    pad = n - len(s)
    return (fill * (pad // len(fill) + 1))[:pad] + s


@register("rpad", args=[TEXT, T.INT4], returns=TEXT)
def rpad(s: str, n: int, fill: str = " ") -> str:
    """Pads on the right to n characters with fill, truncating a longer string."""
    if n <= 0:
        return ""
    if len(s) >= n or not fill:
        return s[:n]
    pad = n - len(s)
    return s + (fill * (pad // len(fill) + 1))[:pad]


register("lpad", args=[TEXT, T.INT4, TEXT], returns=TEXT)(lpad)
register("rpad", args=[TEXT, T.INT4, TEXT], returns=TEXT)(rpad)


@register("left", args=[TEXT, T.INT4], returns=TEXT)
def left(s: str, n: int) -> str:
    """Returns the first n characters (all but the last -n when n < 0)."""
    return s[:n] if n >= 0 else s[:max(len(s) + n, 0)]


@register("right", args=[TEXT, T.INT4], returns=TEXT)
def right(s: str, n: int) -> str:
    """Returns the last n characters (all but the first -n when n < 0)."""
    if n >= 0:
        return s[len(s) - min(n, len(s)):]
    return s[min(-n, len(s)):]


@register("repeat", args=[TEXT, T.INT4], returns=TEXT)
def repeat(s: str, n: int) -> str:
    """Repeats s n times."""
    if n > 0 and len(s) * n > 2**30:
        raise ProgramLimitExceeded("requested length too large")
    return s * max(n, 0)


@register("reverse", args=[TEXT], returns=TEXT)
def reverse(s: str) -> str:
    """Reverses the characters."""
    return s[::-1]


@register("split_part", args=[TEXT, TEXT, T.INT4], returns=TEXT)
def split_part(s: str, sep: str, n: int) -> str:
    """Returns the n-th field (from the end when n < 0) of s split at sep."""
    if n == 0:
        raise InvalidParameterValue("field position must not be zero")
    parts = s.split(sep) if sep else [s]
    if s == "":
        return ""
    idx = n - 1 if n > 0 else len(parts) + n
    return parts[idx] if 0 <= idx < len(parts) else ""


@register("concat", args=None, returns=TEXT, strict=False)
def concat(*args: Any) -> str:
    """Concatenates the text of every non-NULL argument."""
    return "".join(output_text(a) for a in args if a is not None)


@register("concat_ws", args=None, returns=TEXT, strict=False)
def concat_ws(sep: str | None, *args: Any) -> str | None:
    """Joins the text of every non-NULL argument with sep (NULL when sep is)."""
    if sep is None:
        return None
    return to_text(sep).join(output_text(a) for a in args if a is not None)


@register("starts_with", args=[TEXT, TEXT], returns=T.BOOL)
def starts_with(s: str, prefix: str) -> bool:
    """True when s begins with prefix."""
    return s.startswith(prefix)


@register("translate", args=[TEXT, TEXT, TEXT], returns=TEXT)
def translate(s: str, src: str, dst: str) -> str:
    """Replaces each character of src with the one at its position in dst, or drops it."""
    table: dict[int, Any] = {}
    for n, ch in enumerate(src):
        table.setdefault(ord(ch), dst[n] if n < len(dst) else None)
    return s.translate(table)


@register("ascii", args=[TEXT], returns=T.INT4)
def ascii_(s: str) -> int:
    """Returns the code point of the first character (0 for an empty string)."""
    return ord(s[0]) if s else 0


@register("chr", args=[T.INT4], returns=TEXT)
def chr_(n: int) -> str:
    """Returns the character with the code point n."""
    if n == 0:
        raise ProgramLimitExceeded("null character not permitted")
    if n < 0 or n > 0x10FFFF or 0xD800 <= n <= 0xDFFF:
        raise ProgramLimitExceeded(f"requested character too large for encoding: {n}")
    return chr(n)


@register("to_hex", args=[T.INT4], returns=TEXT)
def to_hex4(n: int) -> str:
    """Returns n in hexadecimal (two's complement for negatives)."""
    return format(n & 0xFFFFFFFF, "x")


@register("to_hex", args=[T.INT8], returns=TEXT)
def to_hex8(n: int) -> str:
    """Returns n in hexadecimal (two's complement for negatives)."""
    return format(n & 0xFFFFFFFFFFFFFFFF, "x")


@register("md5", args=[TEXT], returns=TEXT)
def md5(s: str | bytes) -> str:
    """Returns the MD5 digest in hexadecimal."""
    return hashlib.md5(s.encode() if isinstance(s, str) else bytes(s)).hexdigest()


register("md5", args=[T.BYTEA], returns=TEXT)(md5)


@register("sha256", args=[T.BYTEA], returns=T.BYTEA)
def sha256(b: bytes) -> bytes:
    """Returns the SHA-256 digest."""
    return hashlib.sha256(bytes(b)).digest()


def _escape(b: bytes) -> str:
    out = []
    for byte in b:
        if byte == 0x5C:
            out.append("\\\\")
        elif byte == 0 or byte > 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(chr(byte))
    return "".join(out)


@register("encode", args=[T.BYTEA, TEXT], returns=TEXT)
def encode(b: bytes, fmt: str) -> str:
    """Encodes bytes as hex, base64 (76-character lines) or escape text."""
    b = bytes(b)
    kind = fmt.lower()
    if kind == "hex":
        return b.hex()
    if kind == "base64":
        s = base64.b64encode(b).decode()
        return "\n".join(s[i:i + 76] for i in range(0, len(s), 76))
    if kind == "escape":
        return _escape(b)
    raise InvalidParameterValue(f'unrecognized encoding: "{fmt}"')


@register("decode", args=[TEXT, TEXT], returns=T.BYTEA)
def decode(s: str, fmt: str) -> bytes:
    """Decodes hex, base64 or escape text into bytes."""
    kind = fmt.lower()
    try:
        if kind == "hex":
            return bytes.fromhex(s)
        if kind == "base64":
            return base64.b64decode("".join(s.split()), validate=True)
    except (ValueError, binascii.Error):
        raise InvalidParameterValue(f"invalid {kind} data") from None
    if kind == "escape":
        out, i = bytearray(), 0
        while i < len(s):
            if s[i] == "\\" and s[i + 1:i + 2] == "\\":
                out.append(0x5C)
                i += 2
            elif s[i] == "\\" and s[i + 1:i + 4].isdigit() and len(s[i + 1:i + 4]) == 3:
                out.append(int(s[i + 1:i + 4], 8))
                i += 4
            elif s[i] == "\\":
                raise SQLError("invalid input syntax for type bytea", sqlstate="22P02")
            else:
                out.extend(s[i].encode())
                i += 1
        return bytes(out)
    raise InvalidParameterValue(f'unrecognized encoding: "{fmt}"')


@register("num_nonnulls", args=None, returns=T.INT4, strict=False)
def num_nonnulls(*args: Any) -> int:
    """Counts the non-NULL arguments."""
    return sum(a is not None for a in args)


@register("num_nulls", args=None, returns=T.INT4, strict=False)
def num_nulls(*args: Any) -> int:
    """Counts the NULL arguments."""
    return sum(a is None for a in args)




@register("string_to_array", args=[TEXT, TEXT], returns=T.ARRAY_OF[TEXT], strict=False)
def string_to_array(s: str | None, sep: str | None,
                    null: str | None = None) -> list[str | None] | None:
    """Splits s at sep (into characters when sep is NULL); fields equal to null become NULL."""
    if s is None:
        return None
    if s == "":
        return []
    parts: list[str | None]
    if sep is None:
        parts = list(s)
    elif sep == "":
        parts = [s]
    else:
        parts = list(s.split(sep))
    return [None if null is not None and p == null else p for p in parts]


register("string_to_array", args=[TEXT, TEXT, TEXT], returns=T.ARRAY_OF[TEXT],
         strict=False)(string_to_array)


@register("overlay", args=[TEXT, TEXT, T.INT4, T.INT4], returns=TEXT)
def overlay(s: str, new: str, start: int, count: int | None = None) -> str:
    """OVERLAY(s PLACING new FROM start FOR count): replaces count characters from start."""
    if count is None:
        count = len(new)
    if start < 1:
        raise SQLError("negative substring length not allowed", sqlstate="22011")
    return s[:start - 1] + new + s[start - 1 + count:]


register("overlay", args=[TEXT, TEXT, T.INT4], returns=TEXT)(overlay)


@register("pg_client_encoding", args=[], returns=T.NAME, needs_context=True)
def pg_client_encoding(ctx: Any) -> str:
    """Returns the session's client_encoding."""
    return ctx.get_setting("client_encoding") or "UTF8"


for _bits in (224, 384, 512):
    def _sha(b: bytes, _n: int = _bits) -> bytes:
        """Returns the SHA-2 digest."""
        return hashlib.new(f"sha{_n}", bytes(b)).digest()

    register(f"sha{_bits}", args=[T.BYTEA], returns=T.BYTEA)(_sha)
