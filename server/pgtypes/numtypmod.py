"""numeric's type modifier: PostgreSQL's packing of (precision, scale), negative scales too.

PostgreSQL 15 allows a scale from -1000 to 1000 (`numeric(2, -3)` rounds to
thousands: 12345 becomes 12000). The typmod packs it as
`((precision << 16) | (scale & 0x7ff)) + 4`: the scale is an 11-bit two's
complement field, so reading it as `(typmod - 4) & 0xffff` turns -3 into 2045.

>>> typmod(2, -3), typmod(12, 2)
(133121, 786438)
>>> precision_scale(133121), precision_scale(786438)
((2, -3), (12, 2))
>>> try:
...     typmod(2, -1001)
... except InvalidParameterValue as e:
...     print(e.message)
NUMERIC scale -1001 must be between -1000 and 1000
"""

from __future__ import annotations

from ..errors import InvalidParameterValue

MAX_PRECISION = 1000
MIN_SCALE, MAX_SCALE = -1000, 1000


def typmod(precision: int, scale: int = 0) -> int:
    """The atttypmod of numeric(precision, scale); 22023 outside PostgreSQL's limits."""
    if not 1 <= precision <= MAX_PRECISION:
        raise InvalidParameterValue(
            f"NUMERIC precision {precision} must be between 1 and {MAX_PRECISION}")
    if not MIN_SCALE <= scale <= MAX_SCALE:
        raise InvalidParameterValue(
            f"NUMERIC scale {scale} must be between {MIN_SCALE} and {MAX_SCALE}")
    return ((precision << 16) | (scale & 0x7FF)) + 4


def precision_scale(mod: int) -> tuple[int, int]:
    """(precision, scale) of a numeric typmod >= 4 (the scale may be negative)."""
    mod -= 4
    return (mod >> 16) & 0xFFFF, ((mod & 0x7FF) ^ 1024) - 1024
