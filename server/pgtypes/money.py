"""The money type: a signed 64-bit count of cents, read and printed as PostgreSQL 15 does
with `lc_monetary` = C (the only locale Cumulo has): `$`, `,` every three digits, `.`,
two fraction digits, a leading `-` (or a parenthesised amount) for negatives.

A value is a plain int of cents, so comparisons, ordering, hashing and storage are the
integer's; only text and binary I/O and the operators (`expr.moneyops`) know the scale.

>>> parse_money("$1,234.567"), parse_money("($12.34)"), parse_money("-12")
(123457, -1234, -1200)
>>> format_money(123457), format_money(-5), format_money(0)
('$1,234.57', '-$0.05', '$0.00')
>>> recv_money(send_money(-1234))
-1234
"""

from __future__ import annotations

import struct
from decimal import ROUND_HALF_UP, Decimal

from ..errors import (
    InvalidBinaryRepresentation,
    InvalidTextRepresentation,
    NumericValueOutOfRange,
    SQLError,
)

MONEY = 790
MIN, MAX = -(2 ** 63), 2 ** 63 - 1
_INT8 = struct.Struct("!q")


def _bad(text: str) -> SQLError:
    return InvalidTextRepresentation(f'invalid input syntax for type money: "{text}"')


def parse_money(text: str) -> int:
    """cash_in: currency symbol, sign or parentheses, digits with `,` separators, rounded half
    up at the third fraction digit; 22P02 for anything else, 22003 past int8."""
    s, i, n = text, 0, len(text)

    def spaces(j: int) -> int:
        while j < n and s[j].isspace():
            j += 1
        return j

    i = spaces(i)
    if s.startswith("$", i):
        i = spaces(i + 1)
    sign = 1
    if i < n and s[i] in "-(":
        sign, i = -1, i + 1
    elif i < n and s[i] == "+":
        i += 1
    i = spaces(i)
    if s.startswith("$", i):
        i = spaces(i + 1)
    value, dec, seen_dot = 0, 0, False
    while i < n:
        c = s[i]
        if "0" <= c <= "9" and (not seen_dot or dec < 2):
            value = value * 10 + int(c)
            if value > MAX + 1:
                raise NumericValueOutOfRange(f'value "{text}" is out of range for type money')
            dec += seen_dot
        elif c == "." and not seen_dot:
            seen_dot = True
        elif c != ",":
            break
        i += 1
    if i < n and "5" <= s[i] <= "9":
        value += 1
    while i < n and "0" <= s[i] <= "9":
        i += 1
    value *= 10 ** (2 - dec)
    while i < n:
        c = s[i]
        if c == "-":
            sign = -1
        elif not (c.isspace() or c in ")+$"):
            raise _bad(text)
        i += 1
    value *= sign
    if not MIN <= value <= MAX:
        raise NumericValueOutOfRange(f'value "{text}" is out of range for type money')
    return value


def format_money(cents: int) -> str:
    """cash_out in the C locale."""
    whole, frac = divmod(abs(cents), 100)
    return f"{'-' if cents < 0 else ''}${whole:,}.{frac:02d}"


def to_numeric(cents: int) -> Decimal:
    """cash_numeric: the amount at scale 2 (12.34)."""
    return Decimal(cents).scaleb(-2)


def _bigint(v: int) -> int:
    if not MIN <= v <= MAX:
        raise NumericValueOutOfRange("bigint out of range")
    return v


def from_numeric(v: Decimal) -> int:
    """numeric_cash: the amount times 100, rounded half away from zero (12.345 -> $12.35)."""
    if not v.is_finite():
        raise NumericValueOutOfRange("cannot convert NaN to bigint" if v.is_nan() else
                                     "cannot convert infinity to bigint")
    return _bigint(int((v * 100).quantize(Decimal(1), ROUND_HALF_UP)))


def from_int(v: int) -> int:
    """int4_cash / int8_cash: whole units (12 -> $12.00)."""
    return _bigint(v * 100)


def checked(cents: int) -> int:
    """22003 `money out of range` past int8, as the money operators raise it."""
    if not MIN <= cents <= MAX:
        raise NumericValueOutOfRange("money out of range")
    return cents


def send_money(cents: int) -> bytes:
    """cash_send: the cents as a big-endian int8."""
    return _INT8.pack(cents)


def recv_money(data: bytes) -> int:
    if len(data) != 8:
        raise InvalidBinaryRepresentation("insufficient data left in message")
    return int(_INT8.unpack(data)[0])
