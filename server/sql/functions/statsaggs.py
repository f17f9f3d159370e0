"""PostgreSQL's two-argument statistical aggregates: corr, covar_pop/_samp and regr_*.

All of them work on the pairs (Y, X) where both are non-NULL, with float8 arguments,
and share one accumulation: PostgreSQL's float8_regr_accum, the Youngs-Cramer update
of (N, Sx, Sxx, Sy, Syy, Sxy). It is reproduced step by step, not replaced by a
two-pass formula, because users compare results with PostgreSQL's to the last digit;
each final function then returns NULL exactly where PostgreSQL's does (too few pairs,
a vertical or horizontal line).

>>> finish_stats("regr_slope", [(2.0, 1.0), (4.0, 2.0), (6.0, 3.0)])
2.0
>>> finish_stats("corr", [(1.0, 1.0), (1.0, 2.0)]) is None
True
>>> finish_stats("regr_count", [(None, 1.0)])
0
"""

from __future__ import annotations

import math

STATS_AGGS = frozenset(("corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy", "regr_count",
                        "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy",
                        "regr_syy"))

_NAN = float("nan")


def _accumulate(pairs: list) -> tuple[float, float, float, float, float, float]:
    """float8_regr_accum over (y, x) pairs: returns N, Sx, Sxx, Sy, Syy, Sxy.

    PostgreSQL turns a sum that became infinite into NaN at that step; once infinite a sum
    of squares stays infinite or NaN (and Sxy too), so doing it once at the end is the same
    and keeps the per-pair loop to plain arithmetic."""
    if not pairs:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    y, x = pairs[0]
    n, sx, sy = 1.0, x, y
    sxx = syy = sxy = 0.0
    if math.isnan(x) or math.isinf(x):  # a first Inf or NaN makes the dependent sums NaN
        sxx = sxy = _NAN
    if math.isnan(y) or math.isinf(y):
        syy = sxy = _NAN
    for y, x in pairs[1:]:
        old = n
        n = old + 1.0
        sx += x
        sy += y
        tx = x * n - sx
        ty = y * n - sy
        scale = 1.0 / (n * old)
        sxx += tx * tx * scale
        syy += ty * ty * scale
        sxy += tx * ty * scale
    return n, sx, _finite(sxx), sy, _finite(syy), _finite(sxy)


def _finite(v: float) -> float:
    return _NAN if math.isinf(v) else v


def finish_stats(func: str, vals: list) -> float | int | None:
    """One of STATS_AGGS over its argument tuples (Y, X), as PostgreSQL's final functions."""
    pairs = [v for v in vals if v[0] is not None and v[1] is not None]  # float8s (the planner's)
    if func == "regr_count":
        return len(pairs)
    n, sx, sxx, sy, syy, sxy = _accumulate(pairs)
    if n < 1.0 or func == "covar_samp" and n < 2.0:
        return None
    if func == "regr_sxx":
        return sxx
    if func == "regr_syy":
        return syy
    if func == "regr_sxy":
        return sxy
    if func == "regr_avgx":
        return sx / n
    if func == "regr_avgy":
        return sy / n
    if func == "covar_pop":
        return sxy / n
    if func == "covar_samp":
        return sxy / (n - 1.0)
    if func == "corr":
        if sxx == 0 or syy == 0:
            return None
        return sxy / math.sqrt(sxx * syy)
    if sxx == 0:  # regr_r2, regr_slope, regr_intercept: a vertical line
        return None
    if func == "regr_r2":
        return 1.0 if syy == 0 else (sxy * sxy) / (sxx * syy)
    if func == "regr_slope":
        return sxy / sxx
    if func == "regr_intercept":
        return (sy - sx * sxy / sxx) / n
    raise AssertionError(func)
