"""PostgreSQL 15's pg_proc rows for the aggregates and window functions Cumulo runs.

They are planned by name (plan.aggregates), not registered as functions, so pg_proc had no
row for them: psql's `\\daS`, `\\dfS` and tools listing the aggregates (prokind 'a') and
window functions (prokind 'w') found none. Recorded from a throwaway PostgreSQL 15 with their
OIDs, argument and result types, strictness and volatility (`prosrc` as PostgreSQL shows it).
Left out: min/max of anyenum and xid8 (types Cumulo lacks) and the ordered-set aggregates: their arguments print with `ORDER BY`, which needs
pg_aggregate's aggnumdirectargs, which Cumulo does not list.

>>> next(r for r in AGG_PROCS if r[1] == "count" and not r[2])[:5]
(2803, 'count', (), 20, 'a')
"""

from __future__ import annotations

from typing import Any

from ..functions.registry import FunctionDef

# (oid, proname, proargtypes, prorettype, prokind, proisstrict, provolatile, prosrc)
AGG_PROCS: tuple[tuple[int, str, tuple[int, ...], int, str, bool, str, str], ...] = (
    (2335, 'array_agg', (2776,), 2277, 'a', False, 'i', 'aggregate_dummy'),
    (4053, 'array_agg', (2277,), 2277, 'a', False, 'i', 'aggregate_dummy'),
    (2100, 'avg', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2101, 'avg', (23,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2102, 'avg', (21,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2103, 'avg', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2104, 'avg', (700,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2105, 'avg', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2106, 'avg', (1186,), 1186, 'a', False, 'i', 'aggregate_dummy'),
    (2517, 'bool_and', (16,), 16, 'a', False, 'i', 'aggregate_dummy'),
    (2518, 'bool_or', (16,), 16, 'a', False, 'i', 'aggregate_dummy'),
    (2829, 'corr', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2147, 'count', (2276,), 20, 'a', False, 'i', 'aggregate_dummy'),
    (2803, 'count', (), 20, 'a', False, 'i', 'aggregate_dummy'),
    (2827, 'covar_pop', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2828, 'covar_samp', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (3104, 'cume_dist', (), 701, 'w', False, 'i', 'window_cume_dist'),
    (3102, 'dense_rank', (), 20, 'w', False, 'i', 'window_dense_rank'),
    (2519, 'every', (16,), 16, 'a', False, 'i', 'aggregate_dummy'),
    (3112, 'first_value', (2283,), 2283, 'w', True, 'i', 'window_first_value'),
    (3175, 'json_agg', (2283,), 114, 'a', False, 's', 'aggregate_dummy'),
    (3267, 'jsonb_agg', (2283,), 3802, 'a', False, 's', 'aggregate_dummy'),
    (3106, 'lag', (2283,), 2283, 'w', True, 'i', 'window_lag'),
    (3107, 'lag', (2283, 23), 2283, 'w', True, 'i', 'window_lag_with_offset'),
    (3108, 'lag', (5077, 23, 5077), 5077, 'w', True, 'i', 'window_lag_with_offset_and_default'),
    (3113, 'last_value', (2283,), 2283, 'w', True, 'i', 'window_last_value'),
    (3109, 'lead', (2283,), 2283, 'w', True, 'i', 'window_lead'),
    (3110, 'lead', (2283, 23), 2283, 'w', True, 'i', 'window_lead_with_offset'),
    (3111, 'lead', (5077, 23, 5077), 5077, 'w', True, 'i', 'window_lead_with_offset_and_default'),
    (2050, 'max', (2277,), 2277, 'a', False, 'i', 'aggregate_dummy'),
    (2115, 'max', (20,), 20, 'a', False, 'i', 'aggregate_dummy'),
    (2116, 'max', (23,), 23, 'a', False, 'i', 'aggregate_dummy'),
    (2117, 'max', (21,), 21, 'a', False, 'i', 'aggregate_dummy'),
    (2118, 'max', (26,), 26, 'a', False, 'i', 'aggregate_dummy'),
    (2119, 'max', (700,), 700, 'a', False, 'i', 'aggregate_dummy'),
    (2120, 'max', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2122, 'max', (1082,), 1082, 'a', False, 'i', 'aggregate_dummy'),
    (2123, 'max', (1083,), 1083, 'a', False, 'i', 'aggregate_dummy'),
    (2124, 'max', (1266,), 1266, 'a', False, 'i', 'aggregate_dummy'),
    (2125, 'max', (790,), 790, 'a', False, 'i', 'aggregate_dummy'),
    (2126, 'max', (1114,), 1114, 'a', False, 'i', 'aggregate_dummy'),
    (2127, 'max', (1184,), 1184, 'a', False, 'i', 'aggregate_dummy'),
    (2128, 'max', (1186,), 1186, 'a', False, 'i', 'aggregate_dummy'),
    (2129, 'max', (25,), 25, 'a', False, 'i', 'aggregate_dummy'),
    (2130, 'max', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2244, 'max', (1042,), 1042, 'a', False, 'i', 'aggregate_dummy'),
    (2797, 'max', (27,), 27, 'a', False, 'i', 'aggregate_dummy'),
    (3564, 'max', (869,), 869, 'a', False, 'i', 'aggregate_dummy'),
    (4189, 'max', (3220,), 3220, 'a', False, 'i', 'aggregate_dummy'),
    (2051, 'min', (2277,), 2277, 'a', False, 'i', 'aggregate_dummy'),
    (2131, 'min', (20,), 20, 'a', False, 'i', 'aggregate_dummy'),
    (2132, 'min', (23,), 23, 'a', False, 'i', 'aggregate_dummy'),
    (2133, 'min', (21,), 21, 'a', False, 'i', 'aggregate_dummy'),
    (2134, 'min', (26,), 26, 'a', False, 'i', 'aggregate_dummy'),
    (2135, 'min', (700,), 700, 'a', False, 'i', 'aggregate_dummy'),
    (2136, 'min', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2138, 'min', (1082,), 1082, 'a', False, 'i', 'aggregate_dummy'),
    (2139, 'min', (1083,), 1083, 'a', False, 'i', 'aggregate_dummy'),
    (2140, 'min', (1266,), 1266, 'a', False, 'i', 'aggregate_dummy'),
    (2141, 'min', (790,), 790, 'a', False, 'i', 'aggregate_dummy'),
    (2142, 'min', (1114,), 1114, 'a', False, 'i', 'aggregate_dummy'),
    (2143, 'min', (1184,), 1184, 'a', False, 'i', 'aggregate_dummy'),
    (2144, 'min', (1186,), 1186, 'a', False, 'i', 'aggregate_dummy'),
    (2145, 'min', (25,), 25, 'a', False, 'i', 'aggregate_dummy'),
    (2146, 'min', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2245, 'min', (1042,), 1042, 'a', False, 'i', 'aggregate_dummy'),
    (2798, 'min', (27,), 27, 'a', False, 'i', 'aggregate_dummy'),
    (3565, 'min', (869,), 869, 'a', False, 'i', 'aggregate_dummy'),
    (4190, 'min', (3220,), 3220, 'a', False, 'i', 'aggregate_dummy'),
    (3114, 'nth_value', (2283, 23), 2283, 'w', True, 'i', 'window_nth_value'),
    (3105, 'ntile', (23,), 23, 'w', True, 'i', 'window_ntile'),
    (3103, 'percent_rank', (), 701, 'w', False, 'i', 'window_percent_rank'),
    (3101, 'rank', (), 20, 'w', False, 'i', 'window_rank'),
    (2822, 'regr_avgx', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2823, 'regr_avgy', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2818, 'regr_count', (701, 701), 20, 'a', False, 'i', 'aggregate_dummy'),
    (2826, 'regr_intercept', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2824, 'regr_r2', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2825, 'regr_slope', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2819, 'regr_sxx', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2821, 'regr_sxy', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2820, 'regr_syy', (701, 701), 701, 'a', False, 'i', 'aggregate_dummy'),
    (3100, 'row_number', (), 20, 'w', False, 'i', 'window_row_number'),
    (2154, 'stddev', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2155, 'stddev', (23,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2156, 'stddev', (21,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2157, 'stddev', (700,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2158, 'stddev', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2159, 'stddev', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2724, 'stddev_pop', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2725, 'stddev_pop', (23,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2726, 'stddev_pop', (21,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2727, 'stddev_pop', (700,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2728, 'stddev_pop', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2729, 'stddev_pop', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2712, 'stddev_samp', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2713, 'stddev_samp', (23,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2714, 'stddev_samp', (21,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2715, 'stddev_samp', (700,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2716, 'stddev_samp', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2717, 'stddev_samp', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (3538, 'string_agg', (25, 25), 25, 'a', False, 'i', 'aggregate_dummy'),
    (3545, 'string_agg', (17, 17), 17, 'a', False, 'i', 'aggregate_dummy'),
    (2107, 'sum', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2108, 'sum', (23,), 20, 'a', False, 'i', 'aggregate_dummy'),
    (2109, 'sum', (21,), 20, 'a', False, 'i', 'aggregate_dummy'),
    (2110, 'sum', (700,), 700, 'a', False, 'i', 'aggregate_dummy'),
    (2111, 'sum', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2112, 'sum', (790,), 790, 'a', False, 'i', 'aggregate_dummy'),
    (2113, 'sum', (1186,), 1186, 'a', False, 'i', 'aggregate_dummy'),
    (2114, 'sum', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2718, 'var_pop', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2719, 'var_pop', (23,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2720, 'var_pop', (21,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2721, 'var_pop', (700,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2722, 'var_pop', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2723, 'var_pop', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2641, 'var_samp', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2642, 'var_samp', (23,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2643, 'var_samp', (21,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2644, 'var_samp', (700,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2645, 'var_samp', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2646, 'var_samp', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2148, 'variance', (20,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2149, 'variance', (23,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2150, 'variance', (21,), 1700, 'a', False, 'i', 'aggregate_dummy'),
    (2151, 'variance', (700,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2152, 'variance', (701,), 701, 'a', False, 'i', 'aggregate_dummy'),
    (2153, 'variance', (1700,), 1700, 'a', False, 'i', 'aggregate_dummy'),
)


def _planned(*_args: Any) -> Any:
    """Never called: aggregates and window functions are planned by name (plan.aggregates)."""
    raise AssertionError("an aggregate is not called as a plain function")


def definition(name: str, argtypes: tuple[int, ...], ret: int, strict: bool) -> FunctionDef:
    """The signature pg_get_function_arguments / _result print for one of AGG_PROCS."""
    return FunctionDef(name, _planned, argtypes, ret, strict)
