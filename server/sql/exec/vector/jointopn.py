"""Top-N over a join (`ORDER BY ... LIMIT n` with no aggregate between): the vector join finds
the joined rows, the first sort key ranks them, and only the candidates become tuples.
A full sort over a join (`ORDER BY` alone, TPC-H Q20's outer query) turns every joined
row into a tuple: the joins, semi joins and their filters still run as vector code.

The join runs as for an aggregate (`join.evaluate`): its result is a frame of row
positions into each input's packs. `topn.pick` keeps the rows that can be among the
first LIMIT + OFFSET by the first sort key (ties and the NaN / NULL classes included),
and each kept row becomes the tuple the row plan's join would have produced: the stored
row of every input, in the plan's column order, hidden columns (ctid) as NULL, which no
operator above a join reads, and an unmatched LEFT join side as NULLs. The plan's own
Sort, Limit and Project (`VectorSpec.above`) then finish them exactly as the row path does.

A frame column that does not come straight from a stored input (a projection, an
aggregate's rows) has no stored row: such trees keep the row path (`rows_capable`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...expr.vectorize import Fallback, V, compile_vector
from ..runner import compiled
from .frame import Frame, Stored
from .join import evaluate
from .plan import SourceFilter, SourceInner, SourceJoin, SourceScan, VectorSpec
from .topn import pick, wanted


def rows_capable(src: Any) -> bool:
    """Whether every column of src's rows comes from a stored row of a table.

    >>> from cumulo.server.sql.exec.vector.plan import SourceRows
    >>> rows_capable(SourceRows(None, [], [])), rows_capable(SourceScan(None, None, [], []))
    (False, True)
    """
    if isinstance(src, SourceScan):
        return True
    if isinstance(src, SourceFilter):
        return rows_capable(src.child)
    if isinstance(src, SourceInner):
        return all(rows_capable(i) for i in src.inputs)
    if isinstance(src, SourceJoin):
        return rows_capable(src.left) and (src.kind != "left" or rows_capable(src.right))
    return False


def candidates(spec: VectorSpec, ctx: Any) -> list[tuple] | None:
    """The joined rows (tuples in the row plan's layout) that may be among the first
    LIMIT + OFFSET (`op` "sort", a full sort: every row); None when a table has no columnar
    copy here."""
    k = wanted(spec, ctx) if spec.op == "topn" else None
    frame = evaluate(spec.source, ctx)
    if frame is None:
        return None
    if k is None:
        return stored_rows(frame, np.arange(frame.n, dtype=np.int64))
    if k == 0 or frame.n == 0:
        return []
    key = spec.keys[0]
    fn = compiled(spec, "key", lambda: compile_vector(key.expr))
    v = fn(frame.column, ctx)
    if not isinstance(v, V):
        raise Fallback("constant sort key")
    return stored_rows(frame, pick(v, k, key.desc, key.nulls_first))


def stored_rows(frame: Frame, pick: np.ndarray) -> list[tuple]:
    """The rows at positions `pick` of a frame whose columns are blocks of stored inputs."""
    out: list[list[Any]] = [[] for _ in range(len(pick))]
    j = 0
    while j < frame.width:
        p, c = frame.colmap[j]
        src, idx = frame.parts[p]
        if c != 0 or not isinstance(src, Stored):
            raise Fallback("a join column with no stored row")
        width = len(src.types)
        if frame.colmap[j:j + width] != [(p, x) for x in range(width)]:
            raise Fallback("a join input's columns out of order")
        pos = pick if idx is None else idx[pick]
        for r, row in zip(out, _rows_at(src, pos), strict=True):
            if row is None:  # a LEFT join's unmatched side
                r.extend([None] * width)
                continue
            r.extend(row)
            if len(row) < width:  # hidden columns (ctid): read by nothing above a join
                r.extend([None] * (width - len(row)))
        j += width
    return [tuple(r) for r in out]


def _rows_at(src: Stored, pos: np.ndarray) -> list[tuple | None]:
    """The stored rows at positions `pos` of the source's concatenated selections (None
    where pos < 0), read a pack at a time (a compact pack decodes them from its columns)."""
    sels = src.selected
    ends = np.cumsum([len(s) for s in sels])
    out: list[tuple | None] = [None] * len(pos)
    which = np.searchsorted(ends, pos, side="right")
    for i in np.unique(which[pos >= 0]).tolist():
        at = np.flatnonzero((which == i) & (pos >= 0))
        s = sels[i]
        local = pos[at] - (int(ends[i - 1]) if i else 0)
        rows = s.pack.rows_at(local if s.idx is None else s.idx[local])
        for o, row in zip(at.tolist(), rows, strict=True):
            out[o] = row
    return out


__all__ = ["candidates", "rows_capable", "stored_rows"]
