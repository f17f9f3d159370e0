"""A pushed filter (`kivi.api` IR) evaluated over a pack's columns: numpy masks, no row loop.

Why: a node answers a pushed aggregate from its columnar copy (`node._aggregate`),
but until now only without a filter, so `SELECT g, sum(x) FROM t WHERE y > 10
GROUP BY g` in cluster mode (where the SQL layer's vector operators cannot reach
the remote packs) folded every row in Python. With this module the node selects
the rows with a few numpy comparisons per pack and hands them to the same Arrow
aggregate kernels.

SQL's three-valued logic is kept exactly: each subtree gives two masks, *true*
and *null* (unknown), combined by Kleene's rules; a row passes only where the
whole filter is true. What is not supported raises `Unsafe` and the caller folds
the rows instead, with the row filter (`kivi.expr`), which stays the reference:

- comparisons of a column with a constant or a parameter (either side: a
  parameter, `("param", n)`, is the execution's value `params[n - 1]`), on integer, float,
  scaled-decimal, text (through the sorted dictionary's codes), date and
  timestamp columns, with a constant of a matching Python type;
- `and`, `or`, `not`, `is_null`, `is_not_null`, `in` over constants;
- not: `like`, arithmetic, column-to-column comparisons, a float column holding
  NaN or a NaN constant (PostgreSQL orders NaN above every number; numpy does
  not), decimals whose constant does not fall on the column's scale, booleans.

>>> from cumulo.server.kivi.columnar.encode import encode
>>> cols = {0: encode([1, 5, None, 9]), 1: encode(["a", "b", "c", None])}
>>> m = mask(("and", [("cmp", ">", ("col", 0), ("const", 2)),
...                   ("cmp", "<>", ("col", 1), ("const", "c"))]), cols.__getitem__, 4)
>>> m.tolist()
[False, True, False, False]
>>> mask(("cmp", "<=", ("param", 1), ("col", 0)), cols.__getitem__, 4, [5]).tolist()
[False, True, False, True]
"""

from __future__ import annotations

import datetime as dt
import operator
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

import numpy as np

from .aggregate import Selected, Unsafe
from .copy import Snapshot
from .encode import Column

Masks = tuple[np.ndarray, np.ndarray]  # (true, null)
_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le,
    ">": operator.gt, ">=": operator.ge,
}
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_INT_EXACT = 2**53  # an int64 column compared with a float is exact below this


_BOUND = ("const", "param")  # one value per execution


def vectorizable(ir: Any) -> bool:
    """Tells, from the tree's shape alone, whether `mask` may handle it (the column kinds
    and constants are checked as it runs, and may still raise Unsafe)."""
    op = ir[0]
    if op in ("and", "or"):
        return all(vectorizable(x) for x in ir[1])
    if op == "not":
        return vectorizable(ir[1])
    if op in ("is_null", "is_not_null", "in"):
        return bool(ir[1][0] == "col")
    if op == "cmp":
        a, b = ir[2][0], ir[3][0]
        return (a == "col" and b in _BOUND) or (b == "col" and a in _BOUND)
    return False


def selected(snap: Snapshot, ir: Any, params: Sequence[Any] = ()) -> list[Selected]:
    """The rows of a snapshot that are visible and pass the filter, pack by pack."""
    out = []
    for v in snap.views:
        p = v.pack
        m = mask(ir, p.column, p.n, params)
        if v.mask is not None:
            m &= v.mask
        idx = np.flatnonzero(m)
        if len(idx):  # NB: the aggregate kernels expect no empty selection
            out.append(Selected(p, idx))
    return out


def mask(ir: Any, column: Callable[[int], Column], n: int,
         params: Sequence[Any] = ()) -> np.ndarray:
    """The rows (of n) where the filter is true; raises Unsafe when it cannot say exactly."""
    true, _ = _eval(ir, column, n, params)
    return true


def _eval(e: Any, column: Callable[[int], Column], n: int, params: Sequence[Any]) -> Masks:
    op = e[0]
    if op == "and" or op == "or":
        parts = [_eval(x, column, n, params) for x in e[1]]
        if op == "and":
            true = np.logical_and.reduce([t for t, _ in parts])
            false = np.logical_or.reduce([~t & ~u for t, u in parts])
            return true, ~true & ~false
        true = np.logical_or.reduce([t for t, _ in parts])
        null = np.logical_or.reduce([u for _, u in parts]) & ~true
        return true, null
    if op == "not":
        t, u = _eval(e[1], column, n, params)
        return ~t & ~u, u
    if op == "is_null" or op == "is_not_null":
        c = column(_col(e[1]))
        nulls = np.zeros(n, bool) if c.valid is None else ~c.valid
        return (nulls if op == "is_null" else ~nulls), np.zeros(n, bool)
    if op == "cmp":
        _, cmp, a, b = e
        if a[0] in _BOUND and b[0] == "col":
            a, b, cmp = b, a, _FLIP[cmp]
        if a[0] != "col" or b[0] not in _BOUND:
            raise Unsafe("only column-to-constant comparisons are vectorized")
        c = column(a[1])
        nulls = np.zeros(n, bool) if c.valid is None else ~c.valid
        v = b[1] if b[0] == "const" else params[int(b[1]) - 1]
        if v is None:
            return np.zeros(n, bool), np.ones(n, bool)
        return _compare(c, cmp, v) & ~nulls, nulls
    if op == "in":
        c = column(_col(e[1]))
        nulls = np.zeros(n, bool) if c.valid is None else ~c.valid
        vals = list(e[2])
        true = np.zeros(n, bool)
        for v in vals:
            if v is not None:
                true |= _compare(c, "=", v)
        true &= ~nulls
        null = nulls | (~true if None in vals else np.zeros(n, bool))
        return true, null & ~true
    raise Unsafe(f"{op!r} is not vectorized on the node")


def _col(e: Any) -> int:
    if e[0] != "col":
        raise Unsafe("an expression, not a column")
    return int(e[1])


def _compare(c: Column, cmp: str, v: Any) -> np.ndarray:
    """`column cmp v` over every slot (NULL slots hold fillers: the caller masks them)."""
    fn = _OPS[cmp]
    kind, t = c.kind, type(v)
    if kind == "i8" and t is int:
        if not -(2**63) <= v < 2**63:
            raise Unsafe("constant outside int64")
        return np.asarray(fn(c.values, v))
    if kind == "i8" and t is float and v == v:
        if c.lo is not None and max(abs(c.lo), abs(c.hi)) >= _INT_EXACT:
            raise Unsafe("int64 values beyond float precision")
        return np.asarray(fn(c.values.astype(np.float64), v))
    if kind == "f8" and t in (int, float) and v == v:
        if np.isnan(c.values).any():
            raise Unsafe("NaN in the column")
        return np.asarray(fn(c.values, float(v)))
    if kind == "dec" and t in (int, Decimal) and v == v:
        scaled = Decimal(v).scaleb(c.scale)
        if scaled != scaled.to_integral_value() or abs(scaled) >= 2**63:
            raise Unsafe("constant off the column's scale")
        return np.asarray(fn(c.values, int(scaled)))
    if kind == "str" and t is str:
        return _codes(c, cmp, v)
    if kind == "date" and t is dt.date:
        return np.asarray(fn(c.values, np.datetime64(v, "D")))
    if kind == "ts" and t is dt.datetime and v.tzinfo is None:
        return np.asarray(fn(c.values, np.datetime64(v, "us")))
    raise Unsafe(f"{kind} column against a {t.__name__} constant")


def _codes(c: Column, cmp: str, v: str) -> np.ndarray:
    """A text comparison as a comparison of dictionary codes (the dictionary is sorted)."""
    d = c.dictionary
    assert d is not None
    i = int(np.searchsorted(d, v, "left"))
    found = i < len(d) and d[i] == v
    codes = c.values
    if cmp == "=":
        return codes == i if found else np.zeros(len(codes), bool)
    if cmp == "<>":
        return codes != i if found else np.ones(len(codes), bool)
    if cmp == "<":
        return codes < i
    if cmp == "<=":
        return codes < i + found
    if cmp == ">":
        return codes >= i + found
    return codes >= i  # ">="


__all__ = ["mask", "selected", "vectorizable"]
