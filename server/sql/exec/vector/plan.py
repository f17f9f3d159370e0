"""Plan nodes of the columnar path, chosen by the optimizer rule `optimizer.columnar`.

`Columnar` wraps a subtree the vectorized operators can compute. It keeps the
row plan of that subtree as its child (`row`), which the later rules go on
optimizing like any other plan, and a `VectorSpec` (not a plan node, so no
rule rewrites it) saying how to compute the same rows from column packs. The
executor chooses at run time: `SET cumulo.columnar = off` runs `row`; `on`
and `auto` run the vector form unless the transaction has its own writes on
the table, or the data make a kernel unsafe (`vectorize.Fallback`), or the
storage nodes are remote. Either way the output is the same.

A `VectorSpec` whose `source` is set computes its aggregate or top-N over a join
tree instead of one table (`Source*` below, executed by `join`): hash equi-joins of
filtered scans, inner ones as one n-ary join ordered at run time by the input
sizes, LEFT, semi and anti joins (NOT IN's null-aware one too) as written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...expr.bound import E
from ...plan import nodes as N


@dataclass(eq=False)
class VectorSpec:
    """How to compute a subtree from column packs: one table, a predicate, an operation.

    `op` "aggregate": partial aggregates (`group_by`, `aggs`, as `kivi.api.AggSpec`, over
    stored columns and the computed columns `exprs`) finished by `merge`, a private pushed
    `Aggregate` over `partials`.
    `op` "topn": the rows that can reach the first `limit` by the first sort key are
    picked per pack, then `above` (the subtree's own row operators, over `rows`)
    sorts, limits and projects them exactly as the row path would.
    `op` "sort" (over a join tree only): every joined row, then `above` sorts and projects.
    """

    table: Any
    pred: E | None
    op: str
    group_by: tuple[int, ...] = ()
    aggs: tuple[tuple[str, int | None], ...] = ()
    merge: N.Node | None = None
    partials: N.Node | None = None
    keys: list[N.SortKey] = field(default_factory=list)
    limit: E | None = None
    offset: E | None = None
    above: N.Node | None = None
    rows: N.Node | None = None
    # the predicate bounds the first primary-key column: under `auto`, a range the zone maps
    # say is small runs on the row path, which reads only that key range
    key_range: bool = False
    # computed columns (aggregate keys and arguments that are expressions): column
    # `base + k` of a pack is `exprs[k]` evaluated over it
    exprs: list[E] = field(default_factory=list)
    base: int = 0
    # a join tree the aggregate reads instead of `table` (see the module doc)
    source: Any = None
    # computed columns whose numeric values may have several scales: aligned to the largest
    # (arguments of SUM / AVG without GROUP BY, whose result has that scale in PostgreSQL)
    scaled: frozenset[int] = frozenset()
    # COUNT(DISTINCT x) only (`optimizer.columnar._distinct`): the partial rows are the
    # distinct (keys, x); the counts per group are taken from them directly
    count_distinct: bool = False
    # numerics of several scales under GROUP BY (`rowexpr.compile_scaled`): computed column
    # k (a key here) holds the per-row scales of computed column row_scales[k]; `rescale`
    # pairs (partial sum, partial MAX of those scales): each group's sum is set to its scale
    row_scales: dict[int, int] = field(default_factory=dict)
    rescale: tuple[tuple[int, int], ...] = ()

    def describe(self) -> str:
        """One line for EXPLAIN-like output and tests."""
        what = self.table.name if self.source is None else self.source.describe()
        parts = [f"Vector {self.op} {what}"]
        if self.pred is not None:
            parts.append(f"filter={self.pred!r}")
        if self.op == "aggregate":
            parts.append(f"group={list(self.group_by)} aggs={list(self.aggs)}")
        return " ".join(parts)


@dataclass(eq=False)
class SourceScan:
    """The visible rows of a table passing `pred`; `types` of every column slot (ctid last)."""

    table: Any
    pred: E | None
    types: list[int]
    typmods: list[int]

    def describe(self) -> str:
        return self.table.name


@dataclass(eq=False)
class SourceRows:
    """The rows of a plan node run by its own executor (a `Columnar` aggregate feeding a join,
    as TPC-H Q18's `l_orderkey IN (... GROUP BY ... HAVING ...)`), as columns."""

    node: N.Node
    types: list[int]
    typmods: list[int]

    def describe(self) -> str:
        return type(self.node).__name__


@dataclass(eq=False)
class SourceFilter:
    child: Any
    pred: E

    def describe(self) -> str:
        return self.child.describe()


@dataclass(eq=False)
class SourceProject:
    child: Any
    exprs: list[E]

    def describe(self) -> str:
        return self.child.describe()


@dataclass(eq=False)
class SourceInner:
    """An inner join of several inputs, columns concatenated in `inputs` order.

    `edges` are the equi-join keys: (i, j, key over input i, key over input j), each
    expression over its input's own columns. `residuals`: (the inputs a conjunct reads,
    the conjunct over the concatenated columns), applied once those inputs are joined.
    """

    inputs: list[Any]
    widths: list[int]
    edges: list[tuple[int, int, E, E]]
    residuals: list[tuple[frozenset[int], E]]
    # per input, the columns of its table's primary key (None: not a table): keys that
    # cover them match at most one row of that input, so joining it does not multiply rows
    unique: list[frozenset[int] | None] = field(default_factory=list)

    def describe(self) -> str:
        return "(" + " ⋈ ".join(i.describe() for i in self.inputs) + ")"


@dataclass(eq=False)
class SourceJoin:
    """A LEFT, semi or anti join: keys over each side, a residual over left + right."""

    left: Any
    right: Any
    kind: str
    left_keys: list[E]
    right_keys: list[E]
    residual: E | None
    width: int  # of the left input
    # NOT IN's anti join (one key, no residual): a NULL on the right rejects every left row,
    # a NULL on the left is rejected unless the right is empty
    null_aware: bool = False

    def describe(self) -> str:
        sym = {"left": "⟕", "semi": "⋉", "anti": "▷"}[self.kind]
        return f"({self.left.describe()} {sym} {self.right.describe()})"


def inputs_of(src: Any) -> list[Any]:
    """The sources a join-tree source reads, by its class (scans and rows read none).

    >>> inputs_of(SourceFilter(SourceProject(None, []), None))  # doctest: +ELLIPSIS
    [SourceProject(child=None, exprs=[])]
    """
    if isinstance(src, (SourceFilter, SourceProject)):
        return [src.child]
    if isinstance(src, SourceJoin):
        return [src.left, src.right]
    if isinstance(src, SourceInner):
        return list(src.inputs)
    assert isinstance(src, (SourceScan, SourceRows)), src
    return []


@dataclass(eq=False)
class Columnar(N.Node):
    """A subtree computed by vectorized operators when the executor may (see module doc)."""

    row: N.Node = None  # type: ignore[assignment]  # set by the rule
    spec: VectorSpec = None  # type: ignore[assignment]


@dataclass(eq=False)
class ColumnarJoin(Columnar):
    """A Columnar aggregate or top-N over a join tree (`spec.source`): EXPLAIN names it."""


@dataclass(eq=False)
class Prepared(N.Node):
    """Rows the Columnar executor computed for this execution (partials, top-N candidates)."""

    aggregate: Any = None  # the AggSpec of partial rows, read by the pushed Aggregate's merge


__all__ = ["Columnar", "ColumnarJoin", "Prepared", "SourceFilter", "SourceInner", "SourceJoin",
           "SourceProject", "SourceRows", "SourceScan", "VectorSpec", "inputs_of"]
