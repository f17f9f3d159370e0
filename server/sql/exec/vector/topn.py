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
    """The stored rows (as tuples) that may be among the first LIMIT + OFFSET rows.

    A sort key that is a plain column is ranked over the whole pack with the filter's mask
    (`among`), not over the selected rows gathered first (finding the mask's positions and
    copying the column cost more than the ranking: `bench htap`'s top-N), and every pack
    after the first keeps only rows at least as good as the k-th best seen so far (`Cut`).
    """
    k = wanted(spec, ctx)
    key = spec.keys[0]
    fn = compiled(spec, "key", lambda: compile_vector(key.expr))
    plain = key.expr.kind == "col"  # NB: no error can come from a row the filter left out
    out: list[tuple] = []
    if k == 0:
        return out
    cut = Cut(k)
    for sel in packs:
        p = sel.pack
        whole = plain and sel.mask is not None
        v = fn(p.column if whole else sel.column, ctx)
        if not isinstance(v, V):
            raise Fallback("constant sort key")
        chosen = pick(v, k, key.desc, key.nulls_first, sel.mask if whole else None, cut)
        idx = chosen if whole or sel.idx is None else sel.idx[chosen]
        if len(idx) == 0:
            continue
        out.extend(p.rows_at(idx))
    return out


class Cut:
    """The k best ranks of ordinary values (numbers, not NULL or NaN) chosen so far, in
    `pick`'s rank space (smaller is better); `at` is the k-th once k were seen. A row
    ranked above it cannot be among the first k: k rows before it are already chosen.
    Only kinds whose values compare across packs (not strings: their codes are per pack,
    nor numerics, whose scale may differ) keep a cut.

        >>> import numpy as np
        >>> c = Cut(2); c.add("i8", np.array([5, 3])); int(c.at)
        5
        >>> c.add("i8", np.array([4])); int(c.at), c.usable("i8"), c.usable("str")
        (4, True, False)
    """

    KINDS = ("i8", "f8", "date", "ts")

    def __init__(self, k: int) -> None:
        self.k = k
        self.kind: str | None = None
        self.best = np.empty(0)
        self.at: Any = None

    def usable(self, kind: str) -> bool:
        return kind in self.KINDS and self.kind in (None, kind)

    def add(self, kind: str, ranks: np.ndarray) -> None:
        if not self.usable(kind) or not len(ranks):
            return
        self.kind = kind
        best = np.concatenate([self.best, ranks]) if len(self.best) else ranks
        if len(best) > self.k:
            best = np.partition(best, self.k - 1)[: self.k]
        self.best = best
        if len(best) >= self.k:
            self.at = best.max()


def pick(v: V, k: int, desc: bool, nulls_first: bool, among: np.ndarray | None = None,
         cut: Cut | None = None) -> np.ndarray:
    """Positions (into v) of the rows that can be among the first k by this key; with
    `among`, only of the rows it marks; with `cut`, also by the packs ranked before."""
    n = len(v.values)
    if n <= k and among is None:
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
    if among is not None:
        nan, null, normal = nan & among, null & among, normal & among
    # classes in output order: numbers, then NaN (PG: NaN above all), NULLs per NULLS FIRST
    if desc:
        vals = -vals.astype(np.float64) if v.kind == "f8" else -vals
    use_cut = cut is not None and cut.usable(v.kind)
    if use_cut and cut is not None and cut.at is not None:
        normal &= vals <= cut.at
    order = [nan, normal] if desc else [normal, nan]
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
            if cls is normal and use_cut and cut is not None:
                cut.add(v.kind, vals[cls])
        else:
            sub = vals[cls]
            at = np.partition(sub, need - 1)[need - 1]
            top = cls & (vals <= at)
            chosen |= top
            if use_cut and cut is not None:
                cut.add(v.kind, vals[top])
            need = 0
        if need <= 0:
            break
    return np.flatnonzero(chosen)


__all__ = ["Cut", "candidates", "pick", "wanted"]
