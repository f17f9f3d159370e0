"""Frames: the rows flowing between vectorized joins, as row positions into column sources.

A join never copies the columns of its inputs: its output is, per input, an
int64 array of positions (`-1`: the NULL row a LEFT join pads with). A column
is gathered (`Column.take`) only when an operator above reads it: a join key,
a residual, a filter, an aggregate argument. Columns no operator reads are
never touched, so a wide table costs what its read columns cost.

Sources (`Source`: `n` rows, `column(c)`, the SQL type of each column):

- `Stored`: the visible, filtered rows of one table, the packs of every
  region laid end to end. A column is concatenated across packs on first use:
  string dictionaries are merged, numeric scales aligned, and a pack whose
  column is all NULL takes the others' kind.
- `Computed`: a projection's expressions over a frame, evaluated on first use.

    >>> import numpy as np
    >>> from cumulo.server.kivi.columnar import encode
    >>> src = Materialized([encode([10, 20, None])], [23])
    >>> f = Frame.of(src).pad(np.array([2, -1, 0]))
    >>> f.column(0).to_pylist()
    [None, None, 10]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from ....kivi.columnar import Column, encode
from ....kivi.columnar.aggregate import Selected
from ....pgtypes import oids as T
from ....pgtypes.numtypmod import precision_scale
from ...expr.vectorize import Fallback, S, V
from .dictmerge import merged
from .scan import bounded_column

_LIMIT = 2**63


class Source(Protocol):
    n: int
    types: Sequence[int]

    def column(self, c: int) -> Column: ...


def null_column(typ: int, n: int, typmod: int = -1) -> Column:
    """n NULLs of a SQL type, in the kind its stored values would have (an empty input)."""
    valid = np.zeros(n, bool)
    if typ in (T.INT2, T.INT4, T.INT8):
        return Column("i8", np.zeros(n, np.int64), valid)
    if typ in (T.FLOAT4, T.FLOAT8):
        return Column("f8", np.zeros(n, np.float64), valid)
    if typ == T.BOOL:
        return Column("b1", np.zeros(n, bool), valid)
    if typ in (T.TEXT, T.VARCHAR, T.NAME, T.BPCHAR):
        return Column("str", np.zeros(n, np.int32), valid, np.array([], dtype=object))
    if typ == T.DATE:
        return Column("date", np.zeros(n, "datetime64[D]"), valid)
    if typ == T.TIMESTAMP:
        return Column("ts", np.zeros(n, "datetime64[us]"), valid)
    if typ == T.NUMERIC:
        scale = max(precision_scale(typmod)[1], 0) if typmod >= 4 else 0  # NB: numeric(5,-2)
        return Column("dec", np.zeros(n, np.int64), valid, None, None, None, scale)
    raise Fallback(f"an empty input column of type {typ}")


def _placeholder(c: Column) -> bool:
    """An all-NULL pack column: `encode` gives it kind i8 whatever the SQL type."""
    return c.kind == "i8" and c.lo is None and c.valid is not None and not c.valid.any()


def concat(cols: list[Column], typ: int, typmod: int = -1) -> Column:
    """One column from the same column of several packs (kinds reconciled, see module doc)."""
    cols = [_compact(c) for c in cols]
    real = [c for c in cols if not _placeholder(c)]
    if not real:
        n = sum(map(len, cols))
        try:
            return null_column(typ, n, typmod)
        except Fallback:  # a type no kernel reads (the compiler rejects its expressions)
            return cols[0] if len(cols) == 1 else Column("i8", np.zeros(n, np.int64),
                                                         np.zeros(n, bool))
    kinds = {c.kind for c in real}
    if len(cols) == 1:
        return cols[0]
    if "obj" in kinds:  # no kernel reads it; the row code (`rowexpr`) reads its values
        vals = [v for c in cols for v in c.to_pylist()]
        arr = np.empty(len(vals), dtype=object)
        arr[:] = vals
        valid = np.fromiter((v is not None for v in vals), bool, len(vals))
        return Column("obj", arr, None if valid.all() else valid)
    if len(kinds) != 1:
        raise Fallback(f"a column of kinds {sorted(kinds)}")
    (kind,) = kinds
    proto = real[0]
    scale = max(c.scale for c in real) if kind == "dec" else 0
    dictionary = None
    union = None
    if kind == "str":
        dictionary, union = _union([c.dictionary for c in real])
    parts: list[np.ndarray] = []
    valids: list[np.ndarray] = []
    any_null = False
    for c in cols:
        if _placeholder(c):
            parts.append(np.zeros(len(c), proto.values.dtype))
            valids.append(np.zeros(len(c), bool))
            any_null = True
            continue
        v = c.values
        if kind == "dec" and c.scale != scale:
            v = _rescale(c, scale)
        elif kind == "str" and c.dictionary is not dictionary:
            assert c.dictionary is not None and dictionary is not None
            v = _positions(c.dictionary, union, dictionary)[v] if len(c.dictionary) else v
        parts.append(v)
        valids.append(np.ones(len(c), bool) if c.valid is None else c.valid)
        any_null = any_null or c.valid is not None
    los = [c.lo for c in real if c.lo is not None]
    his = [c.hi for c in real if c.hi is not None]
    return Column(kind, np.concatenate(parts), np.concatenate(valids) if any_null else None,
                  dictionary, min(los) if los else None, max(his) if his else None, scale)


def _union(dicts: list[Any]) -> tuple[np.ndarray, dict[int, np.ndarray] | None]:
    """The sorted union of sorted string dictionaries, and each one's positions in it by its
    id (None when the union is the first one). Arrow hashes and sorts the strings in C:
    sorting Python objects (`np.unique`) took seconds over 100,000 distinct names. The same
    packs' dictionaries are merged once, not per query (`dictmerge`).

    >>> d, _ = _union([np.array(["b", "é"], dtype=object),
    ...                np.array(["a", "b", "Z"], dtype=object)])
    >>> d.tolist()
    ['Z', 'a', 'b', 'é']
    """
    first = dicts[0]
    if all(d is first for d in dicts) or not any(len(d) for d in dicts):
        return first, None
    union, at = merged(dicts)
    return union, {id(d): a for d, a in zip(dicts, at, strict=True)}


def _positions(d: np.ndarray, union: dict[int, np.ndarray] | None,
               dictionary: np.ndarray) -> np.ndarray:
    """Where each string of dictionary d sits in the union."""
    if union is None:
        return np.searchsorted(dictionary, d).astype(np.int32)
    return union[id(d)]


def _rescale(c: Column, scale: int) -> np.ndarray:
    f = 10 ** (scale - c.scale)
    if c.lo is not None and max(abs(int(c.lo.scaleb(scale))), abs(int(c.hi.scaleb(scale)))) \
            >= _LIMIT:
        raise Fallback("numeric out of int64 after rescaling")
    return c.values * f


def from_vector(v: V | S, n: int) -> Column:
    """A computed value as a column of n rows (a scalar is repeated)."""
    if isinstance(v, S):
        c = encode([v.value])
        if c.kind == "obj":
            raise Fallback("a constant of no vector kind")
        return c.take(np.zeros(n, np.intp))
    return bounded_column(v)


SPARSE = 32  # a frame reading fewer than 1/SPARSE of a source's rows gathers them by pack


class Stored:
    """The selected rows of one table's packs, end to end; columns concatenated on demand."""

    def __init__(self, selected: list[Selected], types: Sequence[int],
                 typmods: Sequence[int], stored: int) -> None:
        self.selected = selected
        self.types = types
        self.typmods = typmods
        self.stored = stored  # columns past this one (ctid) have no stored values
        self.n = sum(map(len, selected))
        self._cols: dict[int, Column] = {}

    def column(self, c: int) -> Column:
        col = self._cols.get(c)
        if col is None:
            if c >= self.stored:
                raise Fallback("a hidden column")
            if not self.selected:
                col = null_column(self.types[c], 0, self.typmods[c])
            else:
                col = concat([s.column(c) for s in self.selected], self.types[c],
                             self.typmods[c])
            self._cols[c] = col
        return col

    def packwise(self, c: int) -> bool:
        """Whether column c is best read pack by pack (`reduce.by_pack`): a stored column
        of several packs not concatenated yet."""
        return c not in self._cols and c < self.stored and len(self.selected) > 1

    def sparse(self, c: int, idx: np.ndarray) -> bool:
        """Whether `gather(c, idx)` beats concatenating the whole column first: a few rows
        (a join's result, an aggregate's arguments after it) of several packs."""
        return c not in self._cols and c < self.stored and len(self.selected) > 1 \
            and 0 < SPARSE * len(idx) < self.n

    def gather(self, c: int, idx: np.ndarray) -> Column:
        """Column c at positions idx (-1: NULL), taken from each pack's column, never the
        whole column (TPC-H Q5 reads 865 of lineitem's 600,572 prices)."""
        pad = idx < 0
        anypad = bool(pad.any())
        pos = np.where(pad, 0, idx) if anypad else idx
        sizes = [len(s) for s in self.selected]
        ends = np.cumsum(sizes)
        which = np.searchsorted(ends, pos, side="right")
        ordered = bool((which[1:] >= which[:-1]).all())  # (a filter's positions are)
        order = np.arange(len(pos)) if ordered else np.argsort(which, kind="stable")
        bounds = np.searchsorted(which if ordered else which[order], np.arange(len(sizes) + 1))
        pieces = []
        for i, s in enumerate(self.selected):
            a, b = int(bounds[i]), int(bounds[i + 1])
            if a == b:
                continue
            local = pos[order[a:b]] - (int(ends[i]) - sizes[i])
            pieces.append(s.pack.column(c).take(local if s.idx is None else s.idx[local]))
        col = concat(pieces, self.types[c], self.typmods[c])
        if not ordered:
            back = np.empty(len(order), np.int64)
            back[order] = np.arange(len(order), dtype=np.int64)
            col = col.take(back)
        if anypad:
            col.valid = ~pad if col.valid is None else col.valid & ~pad
        return _compact(col)


class Materialized:
    """Columns already built (tests, small inputs)."""

    def __init__(self, cols: list[Column], types: Sequence[int]) -> None:
        self.cols = cols
        self.types = types
        self.n = len(cols[0]) if cols else 0

    def column(self, c: int) -> Column:
        return self.cols[c]


class Rows:
    """Rows (tuples) of a row executor; a column is encoded on first use."""

    def __init__(self, rows: list[tuple], types: Sequence[int], typmods: Sequence[int]) -> None:
        self.rows = rows
        self.types = types
        self.typmods = typmods
        self.n = len(rows)
        self._cols: dict[int, Column] = {}

    def column(self, c: int) -> Column:
        col = self._cols.get(c)
        if col is None:
            if not self.rows:
                col = null_column(self.types[c], 0, self.typmods[c])
            else:
                col = encode([r[c] for r in self.rows])
                if col.kind == "i8" and col.lo is None and self.types[c] != T.INT8:
                    col = null_column(self.types[c], self.n, self.typmods[c])  # all NULL
            self._cols[c] = col
        return col


class Computed:
    """A projection: expression k (compiled vector code) over the rows of a frame."""

    def __init__(self, frame: Frame, fns: list[Callable[..., V | S]], types: Sequence[int],
                 typmods: Sequence[int], ctx: Any) -> None:
        self.frame = frame
        self.fns = fns
        self.types = types
        self.typmods = typmods
        self.ctx = ctx
        self.n = frame.n
        self._cols: dict[int, Column] = {}

    def column(self, c: int) -> Column:
        col = self._cols.get(c)
        if col is None:
            if self.n == 0:
                col = null_column(self.types[c], 0, self.typmods[c])
            else:
                col = from_vector(self.fns[c](self.frame.column, self.ctx), self.n)
            self._cols[c] = col
        return col


def _compose(outer: np.ndarray | None, idx: np.ndarray) -> np.ndarray:
    """Positions `idx` (-1: padding) of a frame whose own positions into a source are `outer`."""
    if outer is None:
        return idx
    if not len(outer):
        return np.full(len(idx), -1, np.int64)
    out = outer[idx]
    if idx.size and idx.min() < 0:
        out[idx < 0] = -1
    return out


class Frame:
    """Rows as positions into sources: `parts` [(source, positions or None: all)], and the
    frame's column j is column `colmap[j][1]` of part `colmap[j][0]`."""

    __slots__ = ("n", "parts", "colmap", "_cols")

    def __init__(self, n: int, parts: list[tuple[Source, np.ndarray | None]],
                 colmap: list[tuple[int, int]]) -> None:
        self.n = n
        self.parts = parts
        self.colmap = colmap
        self._cols: dict[int, Column] = {}

    @classmethod
    def of(cls, src: Source) -> Frame:
        """Every row of a source, its columns in order."""
        return cls(src.n, [(src, None)], [(0, c) for c in range(len(src.types))])

    def __len__(self) -> int:
        return self.n

    @property
    def width(self) -> int:
        return len(self.colmap)

    def column(self, j: int) -> Column:
        col = self._cols.get(j)
        if col is None:
            p, c = self.colmap[j]
            src, idx = self.parts[p]
            if idx is not None and isinstance(src, Stored) and src.sparse(c, idx):
                col = src.gather(c, idx)
            else:
                col = src.column(c)
                if idx is not None:
                    col = _gather(col, idx)
            self._cols[j] = col
        return col

    def take(self, idx: np.ndarray) -> Frame:
        """The rows at positions idx (each >= 0)."""
        return Frame(len(idx), [(s, _compose(o, idx)) for s, o in self.parts], self.colmap)

    def pad(self, idx: np.ndarray) -> Frame:
        """The rows at idx, -1 giving a row of NULLs (a LEFT join's unmatched side)."""
        return self.take(idx)

    def beside(self, other: Frame) -> Frame:
        """This frame's columns, then other's (same row count): a join's output."""
        assert self.n == other.n
        k = len(self.parts)
        return Frame(self.n, self.parts + other.parts,
                     self.colmap + [(p + k, c) for p, c in other.colmap])

    def reorder(self, cols: list[int]) -> Frame:
        """The frame with columns cols (in that order)."""
        return Frame(self.n, self.parts, [self.colmap[j] for j in cols])


def _gather(col: Column, idx: np.ndarray) -> Column:
    return _compact(_gather_rows(col, idx))


def _compact(col: Column) -> Column:
    """A string column whose dictionary is far larger than its rows, with a dictionary of the
    values it holds: string kernels (LIKE) work per dictionary entry."""
    d = col.dictionary
    if col.kind != "str" or d is None or len(d) <= 4 * len(col) + 64:
        return col
    used, codes = np.unique(col.values, return_inverse=True)
    return Column("str", codes.astype(np.int32).reshape(-1), col.valid, d[used],
                  col.lo, col.hi, col.scale)


def _gather_rows(col: Column, idx: np.ndarray) -> Column:
    if not len(idx):
        return col.take(idx)
    pad = idx < 0
    if not pad.any():
        return col.take(idx)
    if not len(col):  # every row is padding
        return Column(col.kind, np.zeros(len(idx), col.values.dtype), np.zeros(len(idx), bool),
                      col.dictionary, col.lo, col.hi, col.scale)
    safe = np.where(pad, 0, idx)
    out = col.take(safe)
    out.valid = ~pad if out.valid is None else out.valid & ~pad
    return out


__all__ = ["Computed", "Frame", "Materialized", "Rows", "Stored", "concat", "from_vector",
           "null_column"]
