"""Plan nodes: the logical plan the builder produces and the physical plan the rules refine.

One tree serves both roles. The builder emits generic nodes (`Scan` with no
key range, `Join` with algorithm "nested"); optimizer rules rewrite them in
place of their parents (a `Filter` over a `Scan` becomes a `Scan` carrying a
KiVi filter, or a `PointGet`; a `Join` gets algorithm "hash"). Each node lists
its output columns (`cols`); expressions inside a node refer to positions in
its input rows. `exec` runs the tree; `plan.explain` prints it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...pgtypes import oids as T
from ..expr.bound import E


@dataclass
class PCol:
    """One output column of a plan node."""

    name: str
    type: int
    typmod: int = -1
    qualifier: str | None = None
    table_oid: int = 0
    attnum: int = 0
    hidden: bool = False  # not expanded by `*` (ctid, dropped columns, USING duplicates)
    dropped: bool = False
    fields: tuple[tuple[str, int], ...] | None = None  # for record columns: (name, type OID)s
    rowtype: int = 0  # a whole table row: the table's row type, sent instead of `record`
    derived: bool = False  # a SELECT's output (a subquery's row is a `record`, not a table's)
    nullable: bool = False  # on the null side of an outer join (its whole row may be NULL)
    result_of: int = 0  # a FROM function's column: -1 its scalar result, else the row type of
    # its `RETURNS t` / `SETOF t` result: what the function's whole row is (expr.binder)
    joined: bool = False  # an input column of a USING join's merged one: in `t.*`, not in `*`
    merged: bool = False  # a USING join's merged column (`j.id` of `USING (id) AS j`)


@dataclass(eq=False)
class Node:
    cols: list[PCol]
    correlated: bool | None = field(default=None, init=False, repr=False)  # exec.subquery

    @property
    def children(self) -> list[Node]:
        return [v for v in vars(self).values() if isinstance(v, Node)]


@dataclass(eq=False)
class Scan(Node):
    """Rows of a base table (all column slots, then the hidden ctid) from `Txn.scan`."""

    table: Any = None
    lo: list[E] | None = None  # key-prefix values for the lower bound (inclusive)
    hi: list[E] | None = None  # key-prefix values for the upper bound (inclusive)
    lo_strict: bool = False
    hi_strict: bool = False
    ir: Any = None  # pushed filter IR (may contain ("param", n) leaves)
    limit: E | None = None
    with_keys: bool = False
    reverse: bool = False
    aggregate: Any = None  # kivi AggSpec when a partial aggregate was pushed
    projection: tuple[int, ...] | None = None  # stored-row columns to return (None: all)
    shown: list[E] = field(default_factory=list)  # the SQL conjuncts `ir` came from (EXPLAIN)


@dataclass(eq=False)
class PointGet(Node):
    """Rows of a base table by full primary key: one `Txn.get` for all keys."""

    table: Any = None
    keys: list[list[E]] = field(default_factory=list)  # one list of PK values per lookup
    with_keys: bool = False


@dataclass(eq=False)
class IndexLookup(Node):
    """Rows of a base table found through a secondary index (prefix or range), then fetched."""

    table: Any = None
    index: Any = None
    lo: list[E] | None = None
    hi: list[E] | None = None
    lo_strict: bool = False
    hi_strict: bool = False
    with_keys: bool = False


@dataclass(eq=False)
class VirtualScan(Node):
    """A pg_catalog / information_schema virtual table."""

    vtable: Any = None


@dataclass(eq=False)
class Values(Node):
    """Literal rows (VALUES, and the single empty row of a FROM-less SELECT)."""

    rows: list[list[E]] = field(default_factory=list)


@dataclass(eq=False)
class FunctionScan(Node):
    """A set-returning function in FROM (generate_series, unnest), optionally WITH ORDINALITY."""

    call: E
    ordinality: bool = False
    multi: bool = False  # the function returns tuples (several out columns)
    # ROWS FROM (f(), g()) and unnest(a, b): further (call, multi) pairs whose rows are zipped
    # with the first call's, the shorter padded with NULLs
    more: list[tuple[E, bool]] = field(default_factory=list)


@dataclass(eq=False)
class Filter(Node):
    child: Node
    pred: E


@dataclass(eq=False)
class Project(Node):
    child: Node
    exprs: list[E] = field(default_factory=list)


@dataclass(eq=False)
class ProjectSet(Node):
    """A select list with set-returning functions: one output row per element, zipped."""

    child: Node
    exprs: list[E] = field(default_factory=list)
    srf: list[bool] = field(default_factory=list)


@dataclass(eq=False)
class SortKey:
    expr: E
    desc: bool = False
    nulls_first: bool = False


@dataclass(eq=False)
class Sort(Node):
    child: Node
    keys: list[SortKey] = field(default_factory=list)


@dataclass(eq=False)
class Limit(Node):
    child: Node
    limit: E | None = None
    offset: E | None = None
    ties: list[E] | None = None  # FETCH ... WITH TIES: the ORDER BY keys that extend the count


@dataclass(eq=False)
class Distinct(Node):
    """DISTINCT (on all columns) or DISTINCT ON (the first row per key, in input order)."""

    child: Node
    on: list[E] | None = None


@dataclass(eq=False)
class AggCall:
    func: str  # count_star, count, sum, avg, min, max, string_agg, array_agg, bool_and, ...
    args: list[E]
    type: int
    distinct: bool = False
    order: list[SortKey] = field(default_factory=list)
    filter: E | None = None
    arg_type: int = T.UNKNOWN


@dataclass(eq=False)
class Aggregate(Node):
    """GROUP BY: output = group keys, then one column per aggregate."""

    child: Node
    groups: list[E] = field(default_factory=list)
    aggs: list[AggCall] = field(default_factory=list)
    pushed: bool = False  # partial aggregates come from the scan


@dataclass(eq=False)
class WinCall:
    func: str
    args: list[E]
    type: int
    partition: list[E] = field(default_factory=list)
    order: list[SortKey] = field(default_factory=list)
    frame_rows: bool = False  # ROWS frame: running aggregates count rows, not peers
    whole: bool = False  # no ORDER BY or an unbounded frame: the aggregate sees the partition
    # Frame bounds relative to the current row: None = UNBOUNDED, 0 = CURRENT ROW (its peers
    # under RANGE), -k = k PRECEDING, +k = k FOLLOWING (ROWS only).
    frame_start: int | None = None
    frame_end: int | None = 0
    # RANGE offset frames (`RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING`): the offsets as
    # expressions, signed by `frame_start`/`frame_end` (-1 preceding, +1 following).
    range_start: E | None = None
    range_end: E | None = None
    arg_type: int = T.UNKNOWN  # before json_agg(t) made the record json: its layout


@dataclass(eq=False)
class Window(Node):
    """Appends one column per window function to each input row."""

    child: Node
    calls: list[WinCall] = field(default_factory=list)


@dataclass(eq=False)
class Join(Node):
    """Inner/left/right/full/cross join, or a semi / anti join. `algo`: nested, hash, merge or bind.

    A semi join (EXISTS, IN) emits each left row once if some right row satisfies `cond`; an
    anti join (NOT EXISTS, NOT IN) emits it if none does. Both output the left columns only,
    while `cond` still reads the concatenated row (left + right). `null_aware` marks the
    anti join of an uncorrelated NOT IN: a NULL on the right rejects every row, a NULL left
    key qualifies only against an empty right side."""

    left: Node
    right: Node
    kind: str = "inner"
    cond: E | None = None  # over the concatenated row (left + right)
    left_keys: list[E] = field(default_factory=list)  # equi-join keys over left rows
    right_keys: list[E] = field(default_factory=list)  # over right rows
    residual: E | None = None
    algo: str = "nested"
    lateral: bool = False  # the right side reads the left row as its outer row
    null_aware: bool = False  # NOT IN's anti join (see above)
    # a semi / anti hash join that hashes its left input and streams the right one (chosen
    # when statistics say the right side is much larger): "Hash Right Semi Join"
    build_left: bool = False
    # algo "range": the first `prefix_keys` keys fix a primary-key prefix of the right table,
    # read by one key-range scan per distinct outer prefix (an index nested loop)
    prefix_keys: int = 0


@dataclass(eq=False)
class SetOp(Node):
    left: Node
    right: Node
    op: str = "union"  # union, intersect, except
    all: bool = False


@dataclass(eq=False)
class Guard(Node):
    """Its child's rows, or none when `skip(exec context)` says so, decided once per
    execution: a partition its parameters rule out (optimizer.partition_prune)."""

    child: Node
    skip: Any = None


@dataclass(eq=False)
class CTEDef:
    name: str
    plan: Node = None  # type: ignore[assignment]  # set by Planner.plan_cte right after
    recursive: bool = False


@dataclass(eq=False)
class CTEScan(Node):
    """Reads a WITH query, materialised once per execution."""

    cte: CTEDef


@dataclass(eq=False)
class RecursiveUnion(Node):
    """WITH RECURSIVE: the anchor, then the recursive term over the work table until empty."""

    anchor: Node
    recursive: Node
    all: bool = False
    worktable: Any = None


@dataclass(eq=False)
class WorkTableScan(Node):
    worktable: Any = None


def same_bound(a: E, b: E) -> bool:
    """True when a scan's lower and upper key bound for one key column are one value (the
    same expression, or equal constants or the same parameter): an equality on the column.

    >>> same_bound(E("const", 3), E("const", 3)), same_bound(E("param", 1), E("const", 1))
    (True, False)
    """
    return a is b or (a.kind in ("const", "param") and b.kind == a.kind and a.data == b.data)


def walk(node: Node):
    """Yields a plan's nodes, parents first."""
    yield node
    for c in node.children:
        yield from walk(c)


def transform(node: Node, fn) -> Node:
    """Rebuilds a plan bottom-up: `fn(node)` sees children already transformed."""
    for k, v in list(vars(node).items()):
        if isinstance(v, Node):
            setattr(node, k, transform(v, fn))
    return fn(node)
