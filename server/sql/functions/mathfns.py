"""Mathematical functions over PostgreSQL's numeric types, with its rounding and errors.

Integers are Python ints, numeric is Decimal, float4/float8 are floats. round()
on numeric rounds half away from zero, on float8 half to even (C's rint), as
in PostgreSQL; numeric results keep PostgreSQL's display scales.
"""

from __future__ import annotations

import math
import random as _random
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from ...errors import DivisionByZero, NumericValueOutOfRange, SQLError
from ...pgtypes import oids as T
from .registry import register

INTS = (T.INT2, T.INT4, T.INT8)
F8, NUM = T.FLOAT8, T.NUMERIC


_NAN = Decimal("NaN")


def _nan(*xs: Any) -> bool:
    """Tells whether a numeric argument is NaN: PostgreSQL propagates it where Python's
    ordered comparisons on a Decimal NaN would raise InvalidOperation."""
    return any(isinstance(x, Decimal) and x.is_nan() for x in xs)


def _invalid_power(msg: str) -> SQLError:
    return SQLError(msg, sqlstate="2201F")


def _log_error(x: Any) -> SQLError:
    what = "zero" if x == 0 else "a negative number"
    return SQLError(f"cannot take logarithm of {what}", sqlstate="2201E")


@register("abs", args=[F8], returns=F8)
def abs_(x: Any) -> Any:
    """Returns the absolute value."""
    return abs(x)


for _t in (NUM, T.FLOAT4):
    register("abs", args=[_t], returns=_t)(abs_)


def _int_abs(oid: int, name: str) -> Any:
    top = {T.INT2: 2**15, T.INT4: 2**31, T.INT8: 2**63}[oid]

    def impl(x: int) -> int:
        """Returns the absolute value (22003 for the type's minimum)."""
        if x == -top:  # abs(-2^31) does not fit, as in PostgreSQL
            raise NumericValueOutOfRange(f"{name} out of range")
        return abs(x)

    return impl


for _t, _name in ((T.INT2, "smallint"), (T.INT4, "integer"), (T.INT8, "bigint")):
    register("abs", args=[_t], returns=_t)(_int_abs(_t, _name))


@register("ceil", args=[F8], returns=F8)
def ceil(x: Any) -> Any:
    """Returns the smallest integer not less than x."""
    if isinstance(x, Decimal):
        return x.to_integral_value(ROUND_CEILING) if x.is_finite() else x
    return math.copysign(math.ceil(x), x) if math.isfinite(x) else x


@register("floor", args=[F8], returns=F8)
def floor(x: Any) -> Any:
    """Returns the largest integer not greater than x."""
    if isinstance(x, Decimal):
        return x.to_integral_value(ROUND_FLOOR) if x.is_finite() else x
    return math.copysign(math.floor(x), x) if math.isfinite(x) else x


for _t in (F8, NUM):
    register("ceiling", args=[_t], returns=_t)(ceil)
register("ceil", args=[NUM], returns=NUM)(ceil)
register("floor", args=[NUM], returns=NUM)(floor)


def _quantize(x: Decimal, places: int, mode: str) -> Decimal:
    if not x.is_finite():
        return x
    if places >= 0:
        return x.quantize(Decimal(1).scaleb(-places), rounding=mode)
    unit = Decimal(1).scaleb(-places)
    return Decimal(int((x / unit).to_integral_value(mode) * unit))


@register("round", args=[F8], returns=F8)
def round_float(x: float) -> float:
    """Rounds to the nearest integer, half to even (C's rint)."""
    return math.copysign(round(x), x) if math.isfinite(x) else x  # keeps -0


@register("round", args=[NUM], returns=NUM)
def round_numeric(x: Decimal, places: int = 0) -> Decimal:
    """Rounds to `places` decimals, half away from zero (negative places round left of the point)."""
    return _quantize(Decimal(x), places, ROUND_HALF_UP)


register("round", args=[NUM, T.INT4], returns=NUM)(round_numeric)


@register("trunc", args=[F8], returns=F8)
def trunc_float(x: float) -> float:
    """Truncates toward zero."""
    return math.copysign(math.trunc(x), x) if math.isfinite(x) else x


@register("trunc", args=[NUM], returns=NUM)
def trunc_numeric(x: Decimal, places: int = 0) -> Decimal:
    """Truncates to `places` decimals."""
    return _quantize(Decimal(x), places, ROUND_DOWN)


register("trunc", args=[NUM, T.INT4], returns=NUM)(trunc_numeric)


@register("mod", args=[T.INT4, T.INT4], returns=T.INT4)
def mod(a: Any, b: Any) -> Any:
    """Returns the remainder of a / b, with the sign of a."""
    if _nan(a, b):
        return _NAN
    if b == 0:
        raise DivisionByZero("division by zero")
    if isinstance(a, int) and isinstance(b, int):
        r = abs(a) % abs(b)  # NB: exact; a / b in floats was wrong past 2**52
        return r if a >= 0 else -r
    da, db = Decimal(a), Decimal(b)
    if da.is_infinite():  # PostgreSQL: Infinity % x is NaN, x % Infinity is x
        return _NAN
    return da if db.is_infinite() else da % db


for _t in (T.INT2, T.INT8, NUM):
    register("mod", args=[_t, _t], returns=_t)(mod)


@register("div", args=[NUM, NUM], returns=NUM)
def div(a: Decimal, b: Decimal) -> Decimal:
    """Returns the integer quotient of a / b, truncated toward zero."""
    if _nan(a, b):
        return _NAN
    if b == 0:
        raise DivisionByZero("division by zero")
    return (Decimal(a) / Decimal(b)).to_integral_value(ROUND_DOWN)


@register("power", args=[F8, F8], returns=F8)
def power(a: Any, b: Any) -> Any:
    """Returns a raised to the power b."""
    if _nan(a, b):  # PostgreSQL: NaN ^ 0 = 1 ^ NaN = 1, any other NaN operand gives NaN
        return Decimal(1) if a == 1 or b == 0 else _NAN
    if a != a or b != b:  # the same for float8
        return 1.0 if a == 1 or b == 0 else math.nan
    if a == 0 and b < 0:
        raise _invalid_power("zero raised to a negative power is undefined")
    if a < 0 and b != int(b):
        raise _invalid_power("a negative number raised to a non-integer power yields a complex "
                             "result")
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        with localcontext() as c:
            c.prec = 40
            r = Decimal(a) ** Decimal(b)
        return r.quantize(Decimal(1).scaleb(-16), rounding=ROUND_HALF_UP)
    try:
        return math.pow(a, b)
    except OverflowError:
        raise NumericValueOutOfRange("value out of range: overflow") from None


register("pow", args=[F8, F8], returns=F8)(power)
register("power", args=[NUM, NUM], returns=NUM)(power)
register("pow", args=[NUM, NUM], returns=NUM)(power)


def _sqrt_scale(x: Decimal) -> int:
    weight = x.adjusted() // 4 if x else 0
    sweight = (weight + 1) * 4 // 2 - 1
    exponent = x.as_tuple().exponent
    dscale = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    return min(max(16 - sweight, dscale, 0), 1000)


@register("sqrt", args=[F8], returns=F8)
def sqrt(x: Any) -> Any:
    """Returns the square root (2201F for a negative argument)."""
    if _nan(x):
        return _NAN
    if x < 0:
        raise _invalid_power("cannot take square root of a negative number")
    if isinstance(x, Decimal) and x.is_infinite():
        return x
    if isinstance(x, Decimal):
        with localcontext() as c:
            c.prec = 1100
            return x.sqrt().quantize(Decimal(1).scaleb(-_sqrt_scale(x)), rounding=ROUND_HALF_UP)
    return math.sqrt(x)


register("sqrt", args=[NUM], returns=NUM)(sqrt)


@register("cbrt", args=[F8], returns=F8)
def cbrt(x: float) -> float:
    """Returns the cube root."""
    return math.cbrt(x)  # libm's cbrt, as PostgreSQL uses (cbrt(27) is 3.0000000000000004)


@register("exp", args=[F8], returns=F8)
def exp(x: float) -> float:
    """Returns e raised to x."""
    try:
        return math.exp(x)  # NB: exp(inf) is inf, not an overflow, as in PostgreSQL
    except OverflowError:
        raise NumericValueOutOfRange("value out of range: overflow") from None


@register("ln", args=[F8], returns=F8)
def ln(x: float) -> float:
    """Returns the natural logarithm."""
    if x <= 0:
        raise _log_error(x)
    return math.log(x)


@register("log", args=[F8], returns=F8)
def log10(x: float) -> float:
    """Returns the base-10 logarithm."""
    if x <= 0:
        raise _log_error(x)
    r = math.log10(x)
    return float(round(r)) if abs(r - round(r)) < 1e-15 else r


register("log10", args=[F8], returns=F8)(log10)


# PostgreSQL's numeric ln/exp/log print NUMERIC_MIN_SIG_DIGITS significant digits, at least the
# argument's scale (numeric.c: estimate_ln_dweight and the rscale rules of numeric_ln/exp/log).
_MIN_SIG, _MAX_SCALE = 16, 1000


def _dscale(x: Decimal) -> int:
    return max(0, -int(x.as_tuple().exponent)) if x.is_finite() else 0


def _ln_dweight(x: Decimal) -> int:
    """Estimates the decimal weight of ln(x), as numeric.c's estimate_ln_dweight does."""
    if Decimal("0.9") <= x <= Decimal("1.1"):
        d = x - 1
        return d.adjusted() if d != 0 else 0
    return int(math.log10(abs(math.log(x)))) if x != 1 else 0


def _scaled(value: Decimal, rscale: int) -> Decimal:
    rscale = min(max(rscale, 0), _MAX_SCALE)
    return value.quantize(Decimal(1).scaleb(-rscale), rounding=ROUND_HALF_UP)


def _ln_num(x: Decimal, rscale: int) -> Decimal:
    with localcontext() as c:
        c.prec = max(rscale, 0) + max(x.adjusted(), 0) + 20
        return Decimal(x).ln()


@register("ln", args=[NUM], returns=NUM)
def ln_numeric(x: Decimal) -> Decimal:
    """Returns the natural logarithm of a numeric, with PostgreSQL's result scale."""
    if _nan(x):
        return _NAN
    if x <= 0:
        raise _log_error(x)
    if x.is_infinite():
        return x
    rscale = max(_MIN_SIG - _ln_dweight(x), _dscale(x))
    with localcontext() as c:
        c.prec = rscale + 40
        return _scaled(_ln_num(x, rscale), rscale)


@register("exp", args=[NUM], returns=NUM)
def exp_numeric(x: Decimal) -> Decimal:
    """Returns e raised to a numeric, with PostgreSQL's result scale."""
    if _nan(x):
        return _NAN
    if x.is_infinite():
        return x if x > 0 else Decimal(0)
    val = max(min(float(x) * 0.434294481903252, _MAX_SCALE), -_MAX_SCALE)
    if val >= 131072:
        raise NumericValueOutOfRange("value overflows numeric format")
    rscale = max(_MIN_SIG - int(val), _dscale(x))
    with localcontext() as c:
        c.prec = max(rscale, 0) + max(int(val), 0) + 20
        return _scaled(Decimal(x).exp(), rscale)


@register("log", args=[NUM, NUM], returns=NUM)
def log_base(b: Decimal, x: Decimal) -> Decimal:
    """Returns the logarithm of x in base b, with PostgreSQL's result scale."""
    if _nan(b, x):
        return _NAN
    if b <= 0 or x <= 0:
        raise _log_error(b if b <= 0 else x)
    if b == 1:
        raise DivisionByZero("division by zero")
    rscale = max(_MIN_SIG - (_ln_dweight(x) - _ln_dweight(b)), _dscale(b), _dscale(x))
    with localcontext() as c:
        c.prec = max(rscale, 0) + 40
        return _scaled(_ln_num(x, rscale + 10) / _ln_num(b, rscale + 10), rscale)


@register("log", args=[NUM], returns=NUM)
def log10_numeric(x: Decimal) -> Decimal:
    """Returns the base-10 logarithm of a numeric (log(10, x))."""
    return log_base(Decimal(10), x)


register("log10", args=[NUM], returns=NUM)(log10_numeric)


@register("sign", args=[F8], returns=F8)
def sign(x: Any) -> Any:
    """Returns -1, 0 or 1 with the sign of x."""
    if _nan(x):
        return _NAN
    s = (x > 0) - (x < 0)
    return Decimal(s) if isinstance(x, Decimal) else float(s)


register("sign", args=[NUM], returns=NUM)(sign)


@register("pi", args=[], returns=F8)
def pi() -> float:
    """Returns π."""
    return math.pi


@register("random", args=[], returns=F8, volatile=True)
def random() -> float:
    """Returns a random number in [0, 1)."""
    return _random.random()


@register("setseed", args=[F8], returns=T.VOID, volatile=True)
def setseed(seed: float) -> None:
    """Seeds random()."""
    if not -1 <= seed <= 1:
        raise SQLError(f"setseed parameter {seed} is out of allowed range [-1,1]",
                       sqlstate="22003")
    _random.seed(seed)


_INT_LIMITS = {T.INT4: (2**31, "integer"), T.INT8: (2**63, "bigint")}


def _int_result(v: int, oid: int) -> int:
    """An integer gcd/lcm as its type holds it: gcd(-2147483648, 0) is 2^31, one past int4."""
    limit, name = _INT_LIMITS[oid]
    if v >= limit:
        raise NumericValueOutOfRange(f"{name} out of range")
    return v


def _numeric_gcd(a: Decimal, b: Decimal) -> Decimal:
    """Euclid's algorithm on the exact values, at the larger display scale of the two, as
    PostgreSQL's numeric gcd: gcd(1.5, 0.25) = 0.25, gcd(12.00, 8) = 4.00.

    >>> _numeric_gcd(Decimal("1.5"), Decimal("0.25")), _numeric_gcd(Decimal("-4.5"), Decimal(0))
    (Decimal('0.25'), Decimal('4.5'))
    """
    scale = Decimal(1).scaleb(min(int(a.as_tuple().exponent), int(b.as_tuple().exponent), 0))
    x, y = abs(a), abs(b)
    with localcontext() as c:
        c.prec = 1000
        while y:
            x, y = y, x % y
        return x.quantize(scale)


def _gcd_lcm(oid: int, lcm: bool) -> Any:
    def fn(a: Any, b: Any) -> Any:
        if oid == NUM:
            x, y = Decimal(a), Decimal(b)
            if not (x.is_finite() and y.is_finite()):  # NaN and infinity: NaN, as PostgreSQL
                return _NAN
            d = _numeric_gcd(x, y)
            if not lcm:
                return d
            if not x or not y:
                return Decimal(0).quantize(d)
            with localcontext() as c:
                c.prec = 1000
                return abs(x * y / d).quantize(d)
        g = math.gcd(a, b)
        return _int_result(abs(a // g * b) if lcm and g else g, oid)

    fn.__doc__ = (f"Returns the {'least common multiple' if lcm else 'greatest common divisor'}"
                  " (22003 past the integer type; NaN for a non-finite numeric).")
    return fn


for _t in (T.INT4, T.INT8, NUM):
    register("gcd", args=[_t, _t], returns=_t)(_gcd_lcm(_t, False))
    register("lcm", args=[_t, _t], returns=_t)(_gcd_lcm(_t, True))


@register("width_bucket", args=[F8, F8, F8, T.INT4], returns=T.INT4)
def width_bucket(x: Any, low: Any, high: Any, count: int) -> int:
    """Returns the bucket (1..count, 0 below, count+1 above) x falls in."""
    if count <= 0:
        raise SQLError("count must be greater than zero", sqlstate="2201G")
    if low == high:
        raise SQLError("lower bound cannot equal upper bound", sqlstate="2201G")
    if low < high:
        if x < low:
            return 0
        if x >= high:
            return count + 1
        return int((x - low) * count / (high - low)) + 1
    if x > low:
        return 0
    if x <= high:
        return count + 1
    return int((low - x) * count / (low - high)) + 1


register("width_bucket", args=[NUM, NUM, NUM, T.INT4], returns=T.INT4)(width_bucket)


def _unary(name: str, fn: Any) -> None:
    def impl(x: float) -> float:
        try:
            return fn(x)
        except ValueError:
            raise NumericValueOutOfRange("input is out of range") from None

    impl.__doc__ = f"Returns {name}(x)."
    register(name, args=[F8], returns=F8)(impl)


for _name, _fn in (("sin", math.sin), ("cos", math.cos), ("tan", math.tan),
                   ("asin", math.asin), ("acos", math.acos), ("atan", math.atan),
                   ("degrees", math.degrees), ("radians", math.radians),
                   ("sinh", math.sinh), ("cosh", math.cosh), ("tanh", math.tanh)):
    _unary(_name, _fn)


@register("atan2", args=[F8, F8], returns=F8)
def atan2(y: float, x: float) -> float:
    """Returns the arc tangent of y/x."""
    return math.atan2(y, x)


@register("scale", args=[NUM], returns=T.INT4)
def scale(x: Decimal) -> int:
    """Returns the number of decimal digits after the point."""
    exponent = x.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


@register("trim_scale", args=[NUM], returns=NUM)
def trim_scale(x: Decimal) -> Decimal:
    """Removes trailing zeros after the decimal point."""
    if not x.is_finite():
        return x
    out = x.normalize()
    exponent = out.as_tuple().exponent
    return out.quantize(Decimal(1)) if isinstance(exponent, int) and exponent > 0 else out


@register("min_scale", args=[NUM], returns=T.INT4)
def min_scale(x: Decimal) -> int:
    """Returns the smallest scale that represents x exactly."""
    return scale(trim_scale(x))


@register("factorial", args=[T.INT8], returns=NUM)
def factorial(n: int) -> Decimal:
    """Returns n!."""
    if n < 0:
        raise SQLError("factorial of a negative number is undefined", sqlstate="2201F")
    return Decimal(math.factorial(n))


# NB: for integer arguments PostgreSQL picks the float8 overloads (float8 is the preferred
# numeric type), so round(5), sqrt(4) and power(2, 3) are double precision. These int8
# overloads make the compiler's cheapest-conversion rule pick the same result type.
def _via_float(fn: Any) -> Any:
    def impl(*args: Any) -> Any:
        return fn(*(float(a) for a in args))

    impl.__doc__ = fn.__doc__
    return impl


for _name, _fn, _nargs in (("round", round_float, 1), ("trunc", trunc_float, 1),
                           ("ceil", ceil, 1), ("ceiling", ceil, 1), ("floor", floor, 1),
                           ("sqrt", sqrt, 1), ("exp", exp, 1), ("ln", ln, 1), ("log", log10, 1),
                           ("log10", log10, 1), ("sign", sign, 1), ("power", power, 2),
                           ("pow", power, 2)):
    register(_name, args=[T.INT8] * _nargs, returns=F8)(_via_float(_fn))
