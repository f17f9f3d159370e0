"""Top-N (`ORDER BY ... LIMIT n`) candidates: per pack, the rows that can reach the first n.

The first sort key is ranked with numpy (`np.partition`), per pack: rows whose
key is at most the pack's n-th smallest (ties included) survive, as do all
rows of the class that straddles the cut (NaN, NULL: placed as PostgreSQL
places them). Only those rows become tuples; the row plan's own Sort, Limit
and Project then finish them, so the order, the ties and the output are
exactly the row path's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ...expr.vectorize import Fallback, V, compile_vector
from ..runner import compiled, value_of
from .plan import VectorSpec
from .scan import Selected


def wanted(spec: VectorSpec, ctx: Any) -> int:
    """LIMIT + OFFSET of this execution."""
    lim = value_of(spec.limit, ctx) if spec.limit is not None else None
    off = value_of(spec.offset, ctx) if spec.offset is not None else 0
    if lim is None or (off or 0) < 0 or lim < 0:
        raise Fallback("no usable LIMIT")
    return lim + (off or 0)


def candidates(spec: VectorSpec, packs: Iterable[Selected], ctx: Any) -> list[tuple]:
    """The stored rows (as tuples) that may be among the first LIMIT + OFFSET rows."""
    k = wanted(spec, ctx)
    key = spec.keys[0]
    fn = compiled(spec, "key", lambda: compile_vector(key.expr))
    out: list[tuple] = []
    if k == 0:
        return out
    for sel in packs:
        p = sel.pack
        v = fn(sel.column, ctx)
        if not isinstance(v, V):
            raise Fallback("constant sort key")
        chosen = pick(v, k, key.desc, key.nulls_first)
        idx = chosen if sel.idx is None else sel.idx[chosen]
        if len(idx) == 0:
            continue
        out.extend(p.rows_at(idx))
    return out


def pick(v: V, k: int, desc: bool, nulls_first: bool) -> np.ndarray:
    """Positions (into v) of the rows that can be among the first k by this key."""
    n = len(v.values)
    if n <= k:
        return np.arange(n)
    if v.kind in ("i8", "dec", "date", "ts", "str", "b1"):
        vals = v.values.astype(np.int64) if v.kind != "f8" else v.values
        vals = vals.view(np.int64) if v.kind in ("date", "ts") else vals
        nan = np.zeros(n, bool)
    elif v.kind == "f8":
        vals = v.values
        nan = np.isnan(vals)
    else:
        raise Fallback(f"top-N over {v.kind}")
    null = np.zeros(n, bool) if v.valid is None else ~v.valid
    normal = ~(nan | null)
    # classes in output order: numbers, then NaN (PG: NaN above all), NULLs per NULLS FIRST
    if desc:
        order = [nan, normal]
        vals = -vals.astype(np.float64) if v.kind == "f8" else -vals
    else:
        order = [normal, nan]
    order = [null, *order] if nulls_first else [*order, null]
    chosen = np.zeros(n, bool)
    need = k
    for cls in order:
        c = int(np.count_nonzero(cls))
        if not c:
            continue
        if c <= need or cls is not normal:
            chosen |= cls
            need -= c
        else:
            sub = vals[cls]
            cut = np.partition(sub, need - 1)[need - 1]
            chosen |= cls & (vals <= cut)
            need = 0
        if need <= 0:
            break
    return np.flatnonzero(chosen)


__all__ = ["candidates", "pick", "wanted"]
