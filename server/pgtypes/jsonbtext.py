"""jsonb input: the normalised text form PostgreSQL stores and prints for a jsonb value.

Why here: jsonb values travel as text, so the normalisation PostgreSQL's
jsonb_in does (keys sorted by length then bytes, duplicate keys keep the last
value, `", "` / `": "` spacing, numbers in numeric's text form: `1e3` is
`1000`) has to happen once, when text becomes jsonb; every later reader
(`::text`, `||`, output) then sees PostgreSQL's form.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ..errors import SQLError

_ESC = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
        "\t": "\\t"}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"not JSON: {name}")  # NaN / Infinity are Python's, not JSON's


def loads(s: str) -> Any:
    """Parses JSON text strictly (no NaN/Infinity), numbers as Decimal; ValueError if bad."""
    return json.loads(s, parse_float=Decimal, parse_int=Decimal,
                      parse_constant=_reject_constant)


def _quote(s: str) -> str:
    return '"' + "".join(_ESC.get(c) or (f"\\u{ord(c):04x}" if c < " " else c) for c in s) + '"'


def _number(d: Decimal) -> str:
    if d == 0:
        d = d.copy_abs()  # numeric has no negative zero
    return format(d, "f")


def dumps(v: Any) -> str:
    """Prints a parsed JSON value in jsonb's output form."""
    if isinstance(v, dict):
        keys = sorted(v, key=lambda k: (len(k.encode()), k.encode()))
        return "{" + ", ".join(f"{_quote(k)}: {dumps(v[k])}" for k in keys) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dumps(x) for x in v) + "]"
    if isinstance(v, str):
        return _quote(v)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    return _number(v)


def _has_nul(v: Any) -> bool:
    if isinstance(v, str):
        return "\x00" in v
    if isinstance(v, dict):
        return any("\x00" in k or _has_nul(x) for k, x in v.items())
    if isinstance(v, list):
        return any(_has_nul(x) for x in v)
    return False


def normalize(s: str) -> str:
    """jsonb input text -> its stored/printed form; ValueError if s is not JSON.

    jsonb stores text, which cannot hold NUL, so `\\u0000` is refused as PostgreSQL does.
    """
    v = loads(s)
    if "\\u0000" in s and _has_nul(v):
        raise SQLError("unsupported Unicode escape sequence", sqlstate="22P05",
                       detail="\\u0000 cannot be converted to text.")
    return dumps(v)
