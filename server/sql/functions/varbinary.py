"""bytea functions: get_byte, set_byte, get_bit, set_bit, bit_length, position, trims, sha2, convert.

Bits are numbered as PostgreSQL numbers them: bit n is bit n % 8 of byte
n // 8, counting from the least significant bit. Index errors are 2202E with
PostgreSQL's message (`index 5 out of valid range, 0..1`). convert_to /
convert_from translate text to and from the encodings the wire supports
(`pgtypes.wirecodec`). Also cot, which Django's ORM calls (cotd is in degtrig.py).

NB: imported after strings.py, so that text overloads of the same names
(position, btrim, overlay) come first in the registry.
"""

from __future__ import annotations

import hashlib
import math

from ...errors import ArraySubscriptError, InvalidParameterValue, SQLError
from ...pgtypes import oids as T
from ...pgtypes.utf8check import decode_utf8, invalid_sequence
from ...pgtypes.wirecodec import CODECS, canonical
from .registry import register

BYTEA, INT4, TEXT, F8 = T.BYTEA, T.INT4, T.TEXT, T.FLOAT8


def _index(n: int, size: int) -> None:
    if not 0 <= n < size:
        raise ArraySubscriptError(f"index {n} out of valid range, 0..{size - 1}")


@register("get_byte", args=[BYTEA, INT4], returns=INT4)
def get_byte(b: bytes, n: int) -> int:
    """Returns byte n (from 0)."""
    _index(n, len(b))
    return b[n]


@register("set_byte", args=[BYTEA, INT4, INT4], returns=BYTEA)
def set_byte(b: bytes, n: int, v: int) -> bytes:
    """Returns the bytes with byte n set to v (its low 8 bits)."""
    _index(n, len(b))
    out = bytearray(b)
    out[n] = v & 0xFF
    return bytes(out)


@register("get_bit", args=[BYTEA, T.INT8], returns=INT4)
def get_bit(b: bytes, n: int) -> int:
    """Returns bit n: bit n % 8 of byte n // 8, from the least significant."""
    _index(n, len(b) * 8)
    return (b[n // 8] >> (n % 8)) & 1


@register("set_bit", args=[BYTEA, T.INT8, INT4], returns=BYTEA)
def set_bit(b: bytes, n: int, v: int) -> bytes:
    """Returns the bytes with bit n set to v (0 or 1)."""
    _index(n, len(b) * 8)
    if v not in (0, 1):
        raise InvalidParameterValue("new bit must be 0 or 1")
    out = bytearray(b)
    out[n // 8] = (out[n // 8] & ~(1 << (n % 8))) | (v << (n % 8))
    return bytes(out)


@register("bit_length", args=[BYTEA], returns=INT4)
def bit_length(b: bytes) -> int:
    """Returns the number of bits."""
    return len(b) * 8


@register("position", args=[BYTEA, BYTEA], returns=INT4)
def position(b: bytes, sub: bytes) -> int:
    """Returns where sub first occurs in b (1-based, 0 if not found); called as
    position(sub in b), which sqlglot hands over haystack first."""
    return bytes(b).find(bytes(sub)) + 1


def _strip(b: bytes, chars: bytes, left: bool, right: bool) -> bytes:
    s, e, cs = 0, len(b), set(chars)
    while left and s < e and b[s] in cs:
        s += 1
    while right and e > s and b[e - 1] in cs:
        e -= 1
    return bytes(b[s:e])


@register("btrim", args=[BYTEA, BYTEA], returns=BYTEA)
def btrim(b: bytes, chars: bytes) -> bytes:
    """Removes the given bytes from both ends."""
    return _strip(b, chars, True, True)


@register("trim", args=[BYTEA, BYTEA], returns=BYTEA)
def trim(b: bytes, chars: bytes) -> bytes:
    """trim(chars from b): removes the given bytes from both ends."""
    return _strip(b, chars, True, True)


@register("ltrim", args=[BYTEA, BYTEA], returns=BYTEA)
def ltrim(b: bytes, chars: bytes) -> bytes:
    """Removes the given bytes from the start."""
    return _strip(b, chars, True, False)


@register("rtrim", args=[BYTEA, BYTEA], returns=BYTEA)
def rtrim(b: bytes, chars: bytes) -> bytes:
    """Removes the given bytes from the end."""
    return _strip(b, chars, False, True)


def _sha(name: str) -> None:
    def digest(b: bytes) -> bytes:
        return hashlib.new(name, bytes(b)).digest()

    digest.__doc__ = f"Returns the {name.upper()} hash of the bytes."
    register(name, args=[BYTEA], returns=BYTEA)(digest)


for _name in ("sha224", "sha256", "sha384", "sha512"):
    _sha(_name)


def _codec(name: str) -> str:
    enc = canonical(name)
    if enc is None:
        raise InvalidParameterValue(f'invalid destination encoding name "{name}"')
    return CODECS[enc] or "utf-8"


@register("convert_to", args=[TEXT, T.NAME], returns=BYTEA)
def convert_to(s: str, enc: str) -> bytes:
    """Returns the text encoded in the given encoding."""
    codec = _codec(enc)
    try:
        return s.encode(codec)
    except UnicodeEncodeError as e:
        ch = e.object[e.start].encode()
        raise SQLError(f"character with byte sequence {' '.join(f'0x{x:02x}' for x in ch)} in "
                       f'encoding "UTF8" has no equivalent in encoding "{canonical(enc)}"',
                       sqlstate="22P05") from None


@register("convert_from", args=[BYTEA, T.NAME], returns=TEXT)
def convert_from(b: bytes, enc: str) -> str:
    """Returns the bytes decoded from the given encoding."""
    codec = _codec(enc)
    if codec in ("utf-8", "utf8"):
        return decode_utf8(b)
    try:
        return bytes(b).decode(codec)
    except UnicodeDecodeError as e:
        raise invalid_sequence(bytes(b), e.start, canonical(enc) or enc) from None


@register("convert", args=[BYTEA, T.NAME, T.NAME], returns=BYTEA)
def convert(b: bytes, src: str, dst: str) -> bytes:
    """Re-encodes the bytes from one encoding to another."""
    return convert_to(convert_from(b, src), dst)


@register("cot", args=[F8], returns=F8)
def cot(x: float) -> float:
    """Returns the cotangent (radians)."""
    t = math.tan(x)
    return math.inf if t == 0 else 1.0 / t


@register("overlay", args=[BYTEA, BYTEA, INT4, INT4], returns=BYTEA)
def overlay(b: bytes, new: bytes, start: int, count: int) -> bytes:
    """Replaces count bytes from position start (1-based) by new."""
    if start < 1 or count < 0:
        raise SQLError("negative substring length not allowed", sqlstate="22011")
    return bytes(b[:start - 1]) + bytes(new) + bytes(b[start - 1 + count:])


@register("overlay", args=[BYTEA, BYTEA, INT4], returns=BYTEA)
def overlay3(b: bytes, new: bytes, start: int) -> bytes:
    """Replaces len(new) bytes from position start (1-based) by new."""
    return overlay(b, new, start, len(new))


@register("bit_count", args=[BYTEA], returns=T.INT8)
def bit_count(b: bytes) -> int:
    """Returns the number of bits set (PostgreSQL 14's popcount of the bytes)."""
    return int.from_bytes(bytes(b), "big").bit_count()


@register("bit_count", args=[T.BIT], returns=T.INT8)
def bit_count_bits(v: str) -> int:
    """Returns the number of 1 bits of a bit string (bits are held as '0'/'1' text)."""
    return v.count("1")


def _bit_index(n: int, v: str) -> None:
    if not 0 <= n < len(v):
        raise ArraySubscriptError(f"bit index {n} out of valid range (0..{len(v) - 1})")


@register("get_bit", args=[T.BIT, INT4], returns=INT4)
@register("get_bit", args=[T.VARBIT, INT4], returns=INT4)
def get_bit_of_bits(v: str, n: int) -> int:
    """bitgetbit: bit n of a bit string, counted from the left from 0."""
    _bit_index(n, v)
    return int(v[n])


@register("set_bit", args=[T.BIT, INT4, INT4], returns=T.BIT)
@register("set_bit", args=[T.VARBIT, INT4, INT4], returns=T.BIT)
def set_bit_of_bits(v: str, n: int, bit: int) -> str:
    """bitsetbit: the bit string with bit n (from the left, from 0) set; a bit of its length."""
    _bit_index(n, v)
    if bit not in (0, 1):
        raise InvalidParameterValue("new bit must be 0 or 1")
    return v[:n] + str(bit) + v[n + 1:]


@register("bit_count", args=[T.VARBIT], returns=T.INT8)
def bit_count_varbits(v: str) -> int:
    """bit_count on bit varying: the same count (PostgreSQL's varbit is binary-coercible to bit)."""
    return v.count("1")
