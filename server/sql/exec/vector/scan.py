"""The vectorized scan: a space's packs at the transaction's snapshot, masked by visibility,
zone maps and the compiled predicate, one pack at a time.

Each pack yields a `Selected`: the pack, and the positions of its rows that are
visible and pass the filter (None: all of them). Zone maps (`Column.lo/hi`)
skip a pack whose range cannot satisfy a `column op constant` conjunct before
the predicate's kernels run. Every step is a numpy call over the pack (they
release the GIL); nothing loops per row in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import numpy as np

from ....kivi.columnar import Column, Pack, Snapshot
from ....kivi.columnar.aggregate import Selected
from ...expr.bound import E
from ...expr.codegen import conjuncts
from ...expr.vectorize import Fallback, V, filter_mask

_PRUNABLE = ("=", "<>", "<", "<=", ">", ">=")
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _zone_terms(pred: E | None) -> list[tuple[int, str, E]]:
    out = []
    for c in conjuncts(pred) if pred is not None else []:
        if c.kind != "op" or c.data not in _PRUNABLE:
            continue
        a, b = c.args
        if a.kind == "col" and b.kind in ("const", "param"):
            out.append((a.data, c.data, b))
        elif b.kind == "col" and a.kind in ("const", "param"):
            out.append((b.data, _FLIP[c.data], a))
    return out


def _value(e: E, ctx: Any) -> Any:
    return e.data if e.kind == "const" else ctx.params[e.data - 1]


def _excluded(c: Column, op: str, v: Any) -> bool:
    """Tells whether the zone map proves no row of the column satisfies `col op v`.

    >>> from ....kivi.columnar import encode
    >>> c = encode([0, 0, None])
    >>> _excluded(c, "<>", 0), _excluded(c, "<>", 1), _excluded(c, ">", 0), _excluded(c, "=", 0)
    (True, False, True, False)
    """
    lo, hi = c.lo, c.hi
    if lo is None or v is None or v != v:
        return False
    if c.kind == "f8" or c.kind == "obj":
        return False  # NaN rows are outside the zone map; objects have none
    try:
        if op == "=":
            return bool(v < lo or v > hi)
        if op == "<>":
            # every value is v: pgbench's `abalance <> 0` skips the packs no update reached.
            # NB: Python's equality: values it calls equal are equal in SQL too
            return bool(lo == hi == v)
        if op == "<":
            return bool(lo >= v)
        if op == "<=":
            return bool(lo > v)
        if op == ">":
            return bool(hi <= v)
        return bool(hi < v)
    except TypeError:
        return False


class Computed:
    """Selected rows plus computed columns: column `base + k` is `fns[k]` over the pack."""

    __slots__ = ("sel", "fns", "base", "ctx", "_done")

    def __init__(self, sel: Selected, fns: list[Any], base: int, ctx: Any) -> None:
        self.sel = sel
        self.fns = fns
        self.base = base
        self.ctx = ctx
        self._done: dict[int, Column] = {}

    def __len__(self) -> int:
        return len(self.sel)

    def column(self, j: int) -> Column:
        if j < self.base:
            return self.sel.column(j)
        c = self._done.get(j)
        if c is None:
            v = self.fns[j - self.base](self.sel.column, self.ctx)
            if not isinstance(v, V):
                raise Fallback("a constant aggregate argument")
            c = self._done[j] = bounded_column(v)
        return c


class VectorScan:
    """A compiled scan of one table: predicate kernels and zone-map terms."""

    def __init__(self, pred: E | None) -> None:
        self.mask = filter_mask(pred) if pred is not None else None
        self.zones = _zone_terms(pred)

    def reach(self, snaps: list[Snapshot], ctx: Any) -> int:
        """How many rows the zone maps leave to read (visible or not): a cost estimate."""
        keep = self._keep(ctx)
        return sum(view.pack.n for snap in snaps for view in snap.views_where(keep))

    def _keep(self, ctx: Any) -> Callable[[Pack], bool]:
        """Whether the zone maps leave a pack a row that may satisfy the predicate."""
        zones = [(j, op, _value(e, ctx)) for j, op, e in self.zones]

        def keep(p: Pack) -> bool:
            return not any(_excluded(p.column(j), op, v) for j, op, v in zones)

        return keep

    def packs(self, snaps: list[Snapshot], ctx: Any,
              check: Callable[[], None] | None = None) -> Iterator[Selected]:
        """Yields the selected rows of every pack of the snapshots, pack by pack."""
        keep = self._keep(ctx)
        for snap in snaps:
            for view in snap.views_where(keep):
                if check is not None:
                    check()
                p = view.pack
                m = view.mask
                if self.mask is not None:
                    f = self.mask(p.column, ctx)
                    if f is not None:
                        if len(f) != p.n:
                            if len(f):
                                raise Fallback("mask length")
                            continue
                        m = f if m is None else m & f
                if m is None:
                    yield Selected(p, None)
                elif m.any():
                    # NB: the mask, not its positions: those are found on first use, and
                    # the run-based partials read only the rows left out (`_by_runs`)
                    yield Selected(p, None, m if m.dtype == np.bool_ else m.astype(bool))


__all__ = ["Selected", "VectorScan"]


def bounded_column(v: V) -> Column:
    """A computed vector as a column, with the zone-map bounds an integer or numeric one
    needs (the aggregate kernels bound integer sums by them: the overflow guard)."""
    lo: Any = None
    hi: Any = None
    if v.kind in ("i8", "dec"):
        vals = v.values if v.valid is None else v.values[v.valid]
        if len(vals):
            lo, hi = int(vals.min()), int(vals.max())
            if v.kind == "dec":
                lo, hi = Decimal(lo).scaleb(-v.scale), Decimal(hi).scaleb(-v.scale)
    return Column(v.kind, v.values, v.valid, v.dictionary, lo, hi, v.scale)
