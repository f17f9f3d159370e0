"""Smaller PostgreSQL 14/15 functions: parse_ident, string_to_table, trim_array, unistr,
normalize / is_normalized, to_regprocedure and to_ascii.

Each follows its C original in PostgreSQL 15 step by step, because the error
that a malformed input gets (and its SQLSTATE) is part of the behaviour:
parse_ident's DETAILs say where the name broke, unistr's surrogate pairs are
42601 while an out-of-range code point is 22023.

    >>> parse_ident('Foo."Bar".baz'), parse_ident('a.b()', False)
    (['foo', 'Bar', 'baz'], ['a', 'b'])
    >>> unistr('d\\\\0061t\\\\+000061'), trim_array([1, 2, 3], 1)
    ('data', [1, 2])
"""

from __future__ import annotations

import string
import unicodedata
from typing import Any

from ...errors import (
    ArraySubscriptError,
    FeatureNotSupported,
    InvalidParameterValue,
    InvalidTextRepresentation,
    SQLError,
    UndefinedObject,
)
from ...pgtypes import oids as T
from .arrays import array_of_first
from .regcasts import labelled, regprocedure_in, regprocedure_out, regtype_in
from .registry import register
from .strings import string_to_array

TEXT, INT4 = T.TEXT, T.INT4
_SPACE = " \t\n\r\f"


def _ident_start(ch: str) -> bool:
    return ch.isascii() and (ch.isalpha() or ch == "_") or not ch.isascii()


def _ident_cont(ch: str) -> bool:
    return _ident_start(ch) or ch.isdigit() and ch.isascii() or ch == "$"


@register("parse_ident", args=[TEXT, T.BOOL], returns=T.ARRAY_OF[TEXT], oid=1268)
def parse_ident(text: str, strict: bool = True) -> list[str]:
    """Splits a qualified SQL identifier into its names, unquoting and down-casing as the
    parser does; with strict false, stops at the first character after a complete name."""

    def bad(detail: str | None = None) -> SQLError:
        return InvalidParameterValue(f"string is not a valid identifier: \"{text}\"",
                                     detail=detail)

    out: list[str] = []
    n, i, after_dot = len(text), 0, False
    while i < n and text[i] in _SPACE:
        i += 1
    while True:
        ch = text[i] if i < n else ""
        if ch == '"':
            name, i = [], i + 1
            while True:
                end = text.find('"', i)
                if end < 0:
                    raise bad("String has unclosed double quotes.")
                name.append(text[i:end])
                if text[end + 1:end + 2] != '"':
                    break
                name.append('"')
                i = end + 2
            i = end + 1
            if not "".join(name):
                raise bad("Quoted identifier must not be empty.")
            out.append("".join(name))
        elif ch and _ident_start(ch):
            start = i
            i += 1
            while i < n and _ident_cont(text[i]):
                i += 1
            word = text[start:i]
            out.append("".join(c.lower() if c.isascii() else c for c in word))
        elif ch == ".":
            raise bad("No valid identifier before \".\".")
        elif after_dot:
            raise bad("No valid identifier after \".\".")
        else:
            raise bad()
        while i < n and text[i] in _SPACE:
            i += 1
        if i < n and text[i] == ".":
            after_dot = True
            i += 1
            while i < n and text[i] in _SPACE:
                i += 1
        elif i >= n:
            return out
        else:
            if strict:
                raise bad()
            return out


register("parse_ident", args=[TEXT], returns=T.ARRAY_OF[TEXT], oid=1268)(parse_ident)


@register("string_to_table", args=[TEXT, TEXT], returns=TEXT, strict=False, set_returning=True,
          oid=6160)
def string_to_table(s: str | None, sep: str | None, null: str | None = None) -> list[str | None]:
    """Yields the fields string_to_array would return (no rows for a NULL string)."""
    return string_to_array(s, sep, null) or []


register("string_to_table", args=[TEXT, TEXT, TEXT], returns=TEXT, strict=False,
         set_returning=True, oid=6161)(string_to_table)


@register("trim_array", args=[T.ANYARRAY, INT4], returns=array_of_first, oid=6172)
def trim_array(arr: list[Any], n: int) -> list[Any]:
    """Removes the last n elements (of the first dimension)."""
    if not 0 <= n <= len(arr):
        raise ArraySubscriptError(
            f"number of elements to trim must be between 0 and {len(arr)}")
    return arr[:len(arr) - n]


def _escape_error() -> SQLError:
    return SQLError("invalid Unicode escape", sqlstate="42601",
                    hint="Unicode escapes must be \\XXXX, \\+XXXXXX, \\uXXXX, or \\UXXXXXXXX.")


def _pair_error() -> SQLError:
    return SQLError("invalid Unicode surrogate pair", sqlstate="42601")


def _hex(s: str) -> bool:
    return all(c in string.hexdigits for c in s)


@register("unistr", args=[TEXT], returns=TEXT, oid=6198)
def unistr(s: str) -> str:
    """Decodes the escapes \\XXXX, \\uXXXX, \\+XXXXXX, \\UXXXXXXXX and \\\\ (UTF-16
    surrogate pairs combine)."""
    out: list[str] = []
    i, n, first = 0, len(s), 0
    while i < n:
        if s[i] != "\\":
            if first:
                raise _pair_error()
            out.append(s[i])
            i += 1
            continue
        if s[i + 1:i + 2] == "\\":
            out.append("\\")
            i += 2
            continue
        if n - i >= 5 and _hex(s[i + 1:i + 5]):
            digits, width = s[i + 1:i + 5], 5
        elif n - i >= 6 and s[i + 1] == "u" and _hex(s[i + 2:i + 6]):
            digits, width = s[i + 2:i + 6], 6
        elif n - i >= 8 and s[i + 1] == "+" and _hex(s[i + 2:i + 8]):
            digits, width = s[i + 2:i + 8], 8
        elif n - i >= 10 and s[i + 1] == "U" and _hex(s[i + 2:i + 10]):
            digits, width = s[i + 2:i + 10], 10
        else:
            raise _escape_error()
        cp = int(digits, 16)
        if not 0 < cp <= 0x10FFFF:
            raise InvalidParameterValue(f"invalid Unicode code point: {cp:04X}")
        if first:
            if not 0xDC00 <= cp <= 0xDFFF:
                raise _pair_error()
            cp, first = 0x10000 + ((first & 0x3FF) << 10) + (cp & 0x3FF), 0
        elif 0xDC00 <= cp <= 0xDFFF:
            raise _pair_error()
        if 0xD800 <= cp <= 0xDBFF:
            first = cp
        else:
            out.append(chr(cp))
        i += width
    if first:
        raise _pair_error()
    return "".join(out)


def _form(form: str) -> str:
    up = form.upper()
    if up not in ("NFC", "NFD", "NFKC", "NFKD"):
        raise InvalidParameterValue(f"invalid normalization form: {form}")
    return up


@register("normalize", args=[TEXT, TEXT], returns=TEXT, oid=4350)
def normalize(s: str, form: str = "NFC") -> str:
    """Returns s in the Unicode normalization form (NFC by default)."""
    return unicodedata.normalize(_form(form), s)  # type: ignore[arg-type]


register("normalize", args=[TEXT], returns=TEXT, oid=4350)(normalize)


@register("is_normalized", args=[TEXT, TEXT], returns=T.BOOL, oid=4351)
def is_normalized(s: str, form: str = "NFC") -> bool:
    """s IS [form] NORMALIZED: whether normalizing s would leave it unchanged."""
    return unicodedata.is_normalized(_form(form), s)  # type: ignore[arg-type]


register("is_normalized", args=[TEXT], returns=T.BOOL, oid=4351)(is_normalized)


@register("to_regprocedure", args=[TEXT], returns=T.REGPROCEDURE, needs_context=True,
          oid=3479)
def to_regprocedure(ctx: Any, text: str) -> Any:
    """Returns the OID of the overload `name(argtypes)`, NULL when there is none."""
    if "(" not in text:
        raise InvalidTextRepresentation("expected a left parenthesis")
    inner = text.partition("(")[2]
    if ")" not in inner:
        raise InvalidTextRepresentation("expected a right parenthesis")
    inner = inner.rsplit(")", 1)[0].strip()
    for arg in inner.split(",") if inner else ():
        regtype_in(ctx, arg.strip())  # NB: an unknown argument type is 42704, not NULL
    return labelled(ctx, regprocedure_in(ctx, text, missing_ok=True), regprocedure_out)


# PostgreSQL's ascii.c tables: the ASCII stand-in of each byte 128..255 of the encoding. They
# apply to the UTF-8 bytes of the text as they are (what PostgreSQL does in a UTF8 database);
# the bytes UTF-8 never holds (C0, C1, F5..FF) show as '?'.
_ASCII_TABLES = {
    "LATIN1": bytes.maketrans(bytes(range(128, 256)),
                            b"                                  cL Y  \"Ca  -R     'u .,      ?"
                            b"??AAAAACEEEEIIII NOOOOOxOUUUUYTBaaaaaaaceeeeiiii nooo???????????"),
    "LATIN2": bytes.maketrans(bytes(range(128, 256)),
                            b"                                 A L LS \"SSTZ-ZZ a,l'ls ,sstz\"zz"
                            b"??AAALCCCEEEEIIDDNNOOOOxRUUUUYTBraaaalccceeeeiiddnnoo???????????"),
    "LATIN9": bytes.maketrans(bytes(range(128, 256)),
                            b"                                  cL YS sCa  -R     Zu .z   EeY?"
                            b"??AAAAACEEEEIIII NOOOOOxOUUUUYTBaaaaaaaceeeeiiii nooo???????????"),
    "WIN1250": bytes.maketrans(bytes(range(128, 256)),
                            b"  ' \"    %S<STZZ `'\"\".--  s>stzz   L A  \"CS  -RZ  ,l'u .,as L\"lz"
                            b"??AAALCCCEEEEIIDDNNOOOOxRUUUUYTBraaaalccceeeeiiddnnoo???????????"),
}
_ENCODINGS = {"SQL_ASCII": 0, "EUC_JP": 1, "EUC_CN": 2, "EUC_KR": 3, "EUC_TW": 4,
              "EUC_JIS_2004": 5, "UTF8": 6, "MULE_INTERNAL": 7, "LATIN1": 8, "LATIN2": 9,
              "LATIN3": 10, "LATIN4": 11, "LATIN5": 12, "LATIN6": 13, "LATIN7": 14,
              "LATIN8": 15, "LATIN9": 16, "LATIN10": 17, "WIN1256": 18, "WIN1258": 19,
              "WIN866": 20, "WIN874": 21, "KOI8R": 22, "WIN1251": 23, "WIN1252": 24,
              "ISO_8859_5": 25, "ISO_8859_6": 26, "ISO_8859_7": 27, "ISO_8859_8": 28,
              "WIN1250": 29, "WIN1253": 30, "WIN1254": 31, "WIN1255": 32, "WIN1257": 33,
              "KOI8U": 34}
_BY_CODE = {v: k for k, v in _ENCODINGS.items()}


def _to_ascii(s: str, encoding: str) -> str:
    table = _ASCII_TABLES.get(encoding)
    if table is None:
        raise FeatureNotSupported(f"encoding conversion from {encoding} to ASCII not supported")
    return s if s.isascii() else s.encode().translate(table).decode("ascii")


@register("to_ascii", args=[TEXT], returns=TEXT, oid=1845)
def to_ascii(s: str) -> str:
    """Converts text of the database encoding (UTF8 here: not supported, as PostgreSQL)."""
    return _to_ascii(s, "UTF8")


@register("to_ascii", args=[TEXT, T.NAME], returns=TEXT, oid=1847)
def to_ascii_name(s: str, name: str) -> str:
    """Converts text from the named encoding to ASCII."""
    key = name.upper().replace("-", "").replace("_", "")
    found = next((k for k in _ENCODINGS if k.replace("_", "") == key), None)
    if found is None:
        raise UndefinedObject(f"{name} is not a valid encoding name")
    return _to_ascii(s, found)


@register("to_ascii", args=[TEXT, INT4], returns=TEXT, oid=1846)
def to_ascii_code(s: str, code: int) -> str:
    """Converts text from the encoding numbered code to ASCII."""
    if code not in _BY_CODE:
        raise UndefinedObject(f"{code} is not a valid encoding code")
    return _to_ascii(s, _BY_CODE[code])
