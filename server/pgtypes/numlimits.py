"""numeric's range, as PostgreSQL 15's numeric_in enforces it.

PostgreSQL stores a numeric as base-10000 digits with a 16-bit weight and a 14-bit
display scale, so a value may have at most 131072 digits before the decimal point
and 16383 after it; beyond that numeric_in says `value overflows numeric format`
(22003), and an exponent too large for its parser is invalid input (22P02). Python's
Decimal has no such bounds, so without this check `'1e1000000'::numeric` would be a
million-digit value where PostgreSQL gives an error.

>>> check_numeric(Decimal("1e131071"), "1e131071") == Decimal("1e131071")
True
>>> check_numeric(Decimal("1e131072"), "1e131072")
Traceback (most recent call last):
...
cumulo.server.errors.NumericValueOutOfRange: value overflows numeric format
>>> check_numeric(Decimal("1e-16384"), "1e-16384")
Traceback (most recent call last):
...
cumulo.server.errors.NumericValueOutOfRange: value overflows numeric format
"""

from __future__ import annotations

from decimal import Decimal

from ..errors import InvalidTextRepresentation, NumericValueOutOfRange

MAX_INTEGER_DIGITS = 131072  # (NUMERIC_WEIGHT_MAX + 1) * DEC_DIGITS
MAX_DSCALE = 16383  # NUMERIC_DSCALE_MAX
_MAX_EXPONENT = 2**31 // 2  # numeric_in's INT_MAX / 2 bound on the written exponent


def fits_numeric(d: Decimal) -> bool:
    """True when PostgreSQL's numeric can hold `d` (`check_numeric` raises otherwise)."""
    if not d.is_finite():
        return True
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    return abs(exponent) < _MAX_EXPONENT and -exponent <= MAX_DSCALE and not (
        d and d.adjusted() >= MAX_INTEGER_DIGITS)


def check_numeric(d: Decimal, text: str) -> Decimal:
    """`d` (read from `text`) when PostgreSQL's numeric can hold it; its error otherwise."""
    if not d.is_finite():
        return d
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    if abs(exponent) >= _MAX_EXPONENT:
        raise InvalidTextRepresentation(f'invalid input syntax for type numeric: "{text}"')
    if -exponent > MAX_DSCALE or (d and d.adjusted() >= MAX_INTEGER_DIGITS):
        raise NumericValueOutOfRange("value overflows numeric format")
    return d
