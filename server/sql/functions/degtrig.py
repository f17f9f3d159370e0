"""Degree trigonometry (sind .. atan2d) and the inverse hyperbolic functions, as PostgreSQL 15.

Why not `math.sin(math.radians(x))`: PostgreSQL's float.c gives exact answers at
the multiples of 30, 45, 60 and 90 degrees (sind(30) = 0.5, tand(45) = 1) by
reducing the argument to the first quadrant and scaling by the libm result at a
known angle (sin_30, one_minus_cos_60, asin_0_5, acos_0_5, atan_1_0). Porting
that algorithm step by step, with the same libm, gives bit-identical results
everywhere else too (cotd(2.5) = 22.903765548431195, as PostgreSQL prints it).

    >>> sind(30.0), cosd(60.0), tand(45.0), cotd(2.5)
    (0.5, 0.5, 1.0, 22.903765548431195)
    >>> asind(0.5), acosd(-1.0), atand(1.0), atan2d(1.0, -1.0)
    (30.0, 180.0, 45.0, 135.0)
"""

from __future__ import annotations

import math

from ...errors import NumericValueOutOfRange, SQLError
from ...pgtypes import oids as T
from .registry import register

F8 = T.FLOAT8
RADIANS_PER_DEGREE = 0.0174532925199432957692


def _out_of_range() -> SQLError:
    return NumericValueOutOfRange("input is out of range")


def _checked(result: float) -> float:
    if math.isinf(result):
        raise NumericValueOutOfRange("value out of range: overflow")
    return result


def _sind_0_to_30(x: float) -> float:
    return (math.sin(x * RADIANS_PER_DEGREE) / SIN_30) / 2.0


def _cosd_0_to_60(x: float) -> float:
    one_minus_cos_x = 1.0 - math.cos(x * RADIANS_PER_DEGREE)
    return 1.0 - (one_minus_cos_x / ONE_MINUS_COS_60) / 2.0


def _sind_q1(x: float) -> float:
    return _sind_0_to_30(x) if x <= 30.0 else _cosd_0_to_60(90.0 - x)


def _cosd_q1(x: float) -> float:
    return _cosd_0_to_60(x) if x <= 60.0 else _sind_0_to_30(90.0 - x)


SIN_30 = math.sin(30.0 * RADIANS_PER_DEGREE)
ONE_MINUS_COS_60 = 1.0 - math.cos(60.0 * RADIANS_PER_DEGREE)
ASIN_0_5 = math.asin(0.5)
ACOS_0_5 = math.acos(0.5)
ATAN_1_0 = math.atan(1.0)
TAN_45 = _sind_q1(45.0) / _cosd_q1(45.0)
COT_45 = _cosd_q1(45.0) / _sind_q1(45.0)


def _asind_q1(x: float) -> float:
    if x <= 0.5:
        return (math.asin(x) / ASIN_0_5) * 30.0
    return 90.0 - (math.acos(x) / ACOS_0_5) * 60.0


def _acosd_q1(x: float) -> float:
    if x <= 0.5:
        return 90.0 - (math.asin(x) / ASIN_0_5) * 30.0
    return (math.acos(x) / ACOS_0_5) * 60.0


def _reduce(x: float) -> float:
    """fmod(x, 360) after PostgreSQL's NaN/infinity checks (NaN passes through)."""
    if math.isinf(x):
        raise _out_of_range()
    return math.fmod(x, 360.0)


@register("sind", args=[F8], returns=F8, oid=2735)
def sind(x: float) -> float:
    """Returns the sine of x degrees."""
    if math.isnan(x):
        return x
    x, sign = _reduce(x), 1.0
    if x < 0.0:
        x, sign = -x, -sign
    if x > 180.0:
        x, sign = 360.0 - x, -sign
    if x > 90.0:
        x = 180.0 - x
    return _checked(sign * _sind_q1(x))


@register("cosd", args=[F8], returns=F8, oid=2736)
def cosd(x: float) -> float:
    """Returns the cosine of x degrees."""
    if math.isnan(x):
        return x
    x, sign = _reduce(x), 1.0
    if x < 0.0:
        x = -x
    if x > 180.0:
        x = 360.0 - x
    if x > 90.0:
        x, sign = 180.0 - x, -sign
    return _checked(sign * _cosd_q1(x))


def _c_div(a: float, b: float) -> float:
    """a / b as C's IEEE division: a signed infinity (or NaN) for a zero divisor."""
    if b != 0.0:
        return a / b
    if a == 0.0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _odd_quadrant(x: float) -> tuple[float, float]:
    """Reduces x to [0, 90] for tand/cotd, returning it with the result's sign."""
    x, sign = _reduce(x), 1.0
    if x < 0.0:
        x, sign = -x, -sign
    if x > 180.0:
        x, sign = 360.0 - x, -sign
    if x > 90.0:
        x, sign = 180.0 - x, -sign
    return x, sign


@register("tand", args=[F8], returns=F8, oid=2737)
def tand(x: float) -> float:
    """Returns the tangent of x degrees (tand(90) is Infinity; never minus zero)."""
    if math.isnan(x):
        return x
    x, sign = _odd_quadrant(x)
    result = sign * (_c_div(_sind_q1(x), _cosd_q1(x)) / TAN_45)
    return 0.0 if result == 0.0 else result


@register("cotd", args=[F8], returns=F8, oid=2738)
def cotd(x: float) -> float:
    """Returns the cotangent of x degrees (cotd(0) is Infinity; never minus zero)."""
    if math.isnan(x):
        return x
    x, sign = _odd_quadrant(x)
    result = sign * (_c_div(_cosd_q1(x), _sind_q1(x)) / COT_45)
    return 0.0 if result == 0.0 else result


@register("asind", args=[F8], returns=F8, oid=2731)
def asind(x: float) -> float:
    """Returns the arcsine of x in degrees (22003 outside [-1, 1])."""
    if math.isnan(x):
        return x
    if x < -1.0 or x > 1.0:
        raise _out_of_range()
    return _checked(_asind_q1(x) if x >= 0.0 else -_asind_q1(-x))


@register("acosd", args=[F8], returns=F8, oid=2732)
def acosd(x: float) -> float:
    """Returns the arccosine of x in degrees (22003 outside [-1, 1])."""
    if math.isnan(x):
        return x
    if x < -1.0 or x > 1.0:
        raise _out_of_range()
    return _checked(_acosd_q1(x) if x >= 0.0 else 90.0 + _asind_q1(-x))


@register("atand", args=[F8], returns=F8, oid=2733)
def atand(x: float) -> float:
    """Returns the arctangent of x in degrees."""
    if math.isnan(x):
        return x
    return _checked((math.atan(x) / ATAN_1_0) * 45.0)


@register("atan2d", args=[F8, F8], returns=F8, oid=2734)
def atan2d(y: float, x: float) -> float:
    """Returns the arctangent of y/x in degrees, in the quadrant of (x, y)."""
    if math.isnan(y) or math.isnan(x):
        return math.nan
    return _checked((math.atan2(y, x) / ATAN_1_0) * 45.0)


@register("asinh", args=[F8], returns=F8, oid=2465)
def asinh(x: float) -> float:
    """Returns the inverse hyperbolic sine."""
    return math.asinh(x)


@register("acosh", args=[F8], returns=F8, oid=2466)
def acosh(x: float) -> float:
    """Returns the inverse hyperbolic cosine (22003 below 1)."""
    if x < 1.0:
        raise _out_of_range()
    return math.acosh(x)


@register("atanh", args=[F8], returns=F8, oid=2467)
def atanh(x: float) -> float:
    """Returns the inverse hyperbolic tangent (22003 outside [-1, 1]; +-Infinity at +-1)."""
    if x < -1.0 or x > 1.0:
        raise _out_of_range()
    if abs(x) == 1.0:
        return math.copysign(math.inf, x)
    return math.atanh(x)
