"""tsquery's comparison operators (tsquery_eq, _lt, ... and tsquery_cmp) as PostgreSQL 15's.

PostgreSQL compares tsqueries by tree (CompareTSQ), not by text: node count,
size, then node by node, with weights and prefix flags left out. So
`'a:*'::tsquery = 'a'` is true and `'a & b' = 'b & a'` is false. The key is
`pgtypes.tsqorder.sort_key` (the one ORDER BY uses); `expr.extops` binds the
operators `= <> < <= > >=` of two tsqueries to these functions.

>>> tsquery_eq("'a':*", "'a'"), tsquery_eq("'a' & 'b'", "'b' & 'a'"), tsquery_cmp("'a'", "'b'")
(True, False, -1)
"""

from __future__ import annotations

from functools import lru_cache

from ...pgtypes import oids as T
from ...pgtypes.tsearch import TSQUERY, query
from ...pgtypes.tsqorder import sort_key
from .registry import register

_Q = [TSQUERY, TSQUERY]


@lru_cache(maxsize=4096)
def _key(q: str) -> bytes:
    return sort_key(query(q))


@register("tsquery_cmp", args=_Q, returns=T.INT4)
def tsquery_cmp(a: str, b: str) -> int:
    """-1, 0 or 1 as CompareTSQ orders the two queries."""
    ka, kb = _key(a), _key(b)
    return (ka > kb) - (ka < kb)


@register("tsquery_eq", args=_Q, returns=T.BOOL)
def tsquery_eq(a: str, b: str) -> bool:
    """The same query tree (weights and prefixes aside)."""
    return _key(a) == _key(b)


@register("tsquery_ne", args=_Q, returns=T.BOOL)
def tsquery_ne(a: str, b: str) -> bool:
    """Not tsquery_eq."""
    return _key(a) != _key(b)


@register("tsquery_lt", args=_Q, returns=T.BOOL)
def tsquery_lt(a: str, b: str) -> bool:
    """Sorts before."""
    return _key(a) < _key(b)


@register("tsquery_le", args=_Q, returns=T.BOOL)
def tsquery_le(a: str, b: str) -> bool:
    """Sorts before or with."""
    return _key(a) <= _key(b)


@register("tsquery_gt", args=_Q, returns=T.BOOL)
def tsquery_gt(a: str, b: str) -> bool:
    """Sorts after."""
    return _key(a) > _key(b)


@register("tsquery_ge", args=_Q, returns=T.BOOL)
def tsquery_ge(a: str, b: str) -> bool:
    """Sorts after or with."""
    return _key(a) >= _key(b)


OPERATORS = {"=": "tsquery_eq", "<>": "tsquery_ne", "<": "tsquery_lt", "<=": "tsquery_le",
             ">": "tsquery_gt", ">=": "tsquery_ge"}
