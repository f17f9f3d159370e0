"""Plan nodes of the columnar path, chosen by the optimizer rule `optimizer.columnar`.

`Columnar` wraps a subtree the vectorized operators can compute. It keeps the
row plan of that subtree as its child (`row`), which the later rules go on
optimizing like any other plan, and a `VectorSpec` (not a plan node, so no
rule rewrites it) saying how to compute the same rows from column packs. The
executor chooses at run time: `SET cumulo.columnar = off` runs `row`; `on`
and `auto` run the vector form unless the transaction has its own writes on
the table, or the data make a kernel unsafe (`vectorize.Fallback`), or the
storage nodes are remote. Either way the output is the same.
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

    def describe(self) -> str:
        """One line for EXPLAIN-like output and tests."""
        parts = [f"Vector {self.op} {self.table.name}"]
        if self.pred is not None:
            parts.append(f"filter={self.pred!r}")
        if self.op == "aggregate":
            parts.append(f"group={list(self.group_by)} aggs={list(self.aggs)}")
        return " ".join(parts)


@dataclass(eq=False)
class Columnar(N.Node):
    """A subtree computed by vectorized operators when the executor may (see module doc)."""

    row: N.Node = None  # type: ignore[assignment]  # set by the rule
    spec: VectorSpec = None  # type: ignore[assignment]


@dataclass(eq=False)
class Prepared(N.Node):
    """Rows the Columnar executor computed for this execution (partials, top-N candidates)."""

    aggregate: Any = None  # the AggSpec of partial rows, read by the pushed Aggregate's merge


__all__ = ["Columnar", "Prepared", "VectorSpec"]
