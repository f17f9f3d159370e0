"""EXPLAIN as PostgreSQL 15 prints it: node names, details, TEXT / JSON / YAML, ANALYZE figures.

Users and tools (pgAdmin, explain.depesz.com, auto_explain readers) know
PostgreSQL's layout, so Cumulo's plan is shown in it:

- each plan node maps to PostgreSQL's name (`Seq Scan on t`, `Index Scan
  using t_pkey on t`, `Hash Join`, `HashAggregate`, `Sort`, `Limit`, ...).
  A Filter node is shown as the `Filter:` line of the node under it, as
  PostgreSQL attaches quals to scans and joins; a Project is not a node in
  PostgreSQL's plans, so it is skipped (its ANALYZE figures are its child's).
  A hash join's build side is under a `Hash` node, as in PostgreSQL.
- Cumulo's own choices appear as extra detail lines in the same style:
  `Join Strategy: Bind` (batched key lookups into the inner table),
  `Pushed Aggregate:` (partial aggregates computed in the storage scan),
  `Null Aware: true` (NOT IN's anti join), and nodes PostgreSQL has no
  name for print their class name (`Columnar`).
- `cost=` is in Cumulo's own units: startup 0, total a running sum of the
  estimated rows each node handles (no page costs: KiVi is in memory), so it
  orders plans the way the optimizer does; `rows` is the optimizer's estimate
  and `width` an average row width from the column types.
- ANALYZE adds, per node, `actual time=startup..total rows=r loops=n` with
  time and rows per loop (as PostgreSQL averages them), and the statement's
  `Planning Time` and `Execution Time`. BUFFERS is accepted and adds
  nothing: Cumulo has no shared buffers to count.

Example:
    >>> from cumulo.server.sql.plan import nodes as N
    >>> values = N.Values([N.PCol("x", 23)], rows=[[]])
    >>> render(build(values), "text", costs=False)
    ['Result']
    >>> render(build(values), "text")
    ['Result  (cost=0.00..1.00 rows=1 width=4)']
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any
from xml.sax.saxutils import escape

from ...pgtypes import oids as T
from ..expr.bound import E, col
from ..optimizer.stats import estimate
from . import nodes as N
from .sqlexpr import Names, array_const, sql

FORMATS = ("text", "json", "yaml", "xml")

_WIDTH = {T.BOOL: 1, T.INT2: 2, T.INT4: 4, T.INT8: 8, T.FLOAT4: 4, T.FLOAT8: 8, T.DATE: 4,
          T.TIMESTAMP: 8, T.TIMESTAMPTZ: 8, T.NUMERIC: 8, T.INTERVAL: 16, T.UUID: 16}
_JOIN_TYPE = {"inner": "Inner", "left": "Left", "right": "Right", "full": "Full", "semi": "Semi",
              "anti": "Anti", "cross": "Inner"}


@dataclass
class PNode:
    """One node of PostgreSQL's plan tree, with its properties in PostgreSQL's order."""

    node_type: str
    head: str  # the TEXT format's first line, before the figures
    props: list[tuple[str, Any]] = field(default_factory=list)  # JSON/YAML extra properties
    details: list[tuple[str, str]] = field(default_factory=list)  # "Filter", "(a = 1)"
    rows: float = 1.0
    width: int = 0
    cost: float = 0.0
    stats: list[Any] | None = None
    analyze: bool = False
    children: list[tuple[str, PNode]] = field(default_factory=list)  # (relationship, node)
    subplan_name: str | None = None
    removed: int = 0  # an Append's partitions pruned in this execution (Subplans Removed)
    min_rows: int = 1  # the estimate shown is at least this (a ModifyTable's may be 0)


def _through(e: E, exprs: list[E]) -> E:
    """`e`, which reads a Project's output row, rewritten over the Project's input row."""
    if e.kind == "col":
        return exprs[e.data]
    return dataclasses.replace(e, args=[_through(a, exprs) for a in e.args]) if e.args else e


def _width(cols: list[N.PCol]) -> int:
    w = 0
    for c in cols:
        if c.hidden:
            continue
        if c.type in _WIDTH:
            w += _WIDTH[c.type]
        elif c.typmod > 4 and c.type in (T.VARCHAR, T.BPCHAR):
            w += min(c.typmod - 4, 32)
        else:
            w += 32
    return w


class _Builder:
    def __init__(self, stats: dict | None, costs: bool, verbose: bool,
                 view: Callable[[N.Node], tuple[N.Node, list[tuple[str, str]]]] | None = None,
                 pruned: Callable[[N.Guard], bool] | None = None,
                 params: Sequence[Any] | None = None) -> None:
        self.stats = stats
        self.params = params  # a custom plan's parameter values (sqlexpr.Names.params)
        self.costs = costs
        self.verbose = verbose
        self.view = view
        self.pruned = pruned
        self.aliases: dict[int, str] = {}  # id(scan) -> its alias among partitions kept
        self.subplans: dict[int, int] = {}
        self.pending: list[tuple[int, N.Node]] = []
        self.relations = 0

    def number(self, plan: N.Node) -> int:
        n = self.subplans.get(id(plan))
        if n is None:
            n = self.subplans[id(plan)] = len(self.subplans) + 1
            self.pending.append((n, plan))
        return n

    def names(self, cols: list[N.PCol], scan: bool = False) -> Names:
        return Names(cols, qualify=not scan and self.relations > 1, subplan=self.number,
                     params=self.params)

    # -- the tree ---------------------------------------------------------------------------

    def build(self, node: N.Node, filters: list[Any] | None = None) -> PNode:
        """Returns the PNode of `node`; `filters` are Filter predicates folded into it."""
        mark = len(self.pending)
        extra: list[tuple[str, str]] = []
        while isinstance(node, N.Guard):  # NB: runtime pruning shows no node of its own
            node = node.child
        if self.view is not None:
            node, extra = self.view(node)
        while isinstance(node, N.Project) and not self.verbose:
            for e in node.exprs:  # its sub-plans print under the node it rests on
                sql(e, self.names(node.child.cols))
            if filters:  # NB: a filter over it reads its outputs (FULL JOIN USING's COALESCE)
                filters = [_through(f, node.exprs) for f in filters]
            node = node.child
            if self.view is not None:
                node, extra = self.view(node)
        if isinstance(node, N.Filter):
            return self._filtered(node, filters, mark)
        p = self._node(node)
        p.details += extra
        if filters:
            names = self.names(node.cols, scan=_is_scan(node))
            pred = filters[0] if len(filters) == 1 else None
            text = sql(pred, names) if pred is not None else \
                "(" + " AND ".join(sql(f, names) for f in filters) + ")"
            p.details.append(("Filter", text))
        try:
            p.rows = estimate(node)
        except Exception:  # an estimate is a nicety: never fail EXPLAIN over it
            p.rows = 1.0
        p.width = _width(node.cols)
        if self.stats is not None:
            p.analyze = True
            p.stats = self.stats.get(id(node))
        p.cost = p.rows + sum(c.cost for _, c in p.children)
        for n, plan in self.pending[mark:]:
            sub = self.build(plan)
            sub.subplan_name = f"SubPlan {n}"
            p.children.append(("SubPlan", sub))
        del self.pending[mark:]
        return p

    def _filtered(self, node: N.Filter, filters: list[Any] | None, mark: int) -> PNode:
        """A Filter is its child's `Filter:` line; sub-plans met above it stay pending."""
        kept = self.pending[mark:]
        del self.pending[mark:]
        p = self.build(node.child, [*(filters or []), node.pred])
        for n, plan in kept:
            sub = self.build(plan)
            sub.subplan_name = f"SubPlan {n}"
            p.children.append(("SubPlan", sub))
        return p

    def _kids(self, p: PNode, *kids: tuple[str, N.Node]) -> PNode:
        for rel, k in kids:
            p.children.append((rel, self.build(k)))
        return p

    def _node(self, node: N.Node) -> PNode:
        if isinstance(node, N.Scan):
            return self._scan(node)
        if isinstance(node, N.PointGet) and not node.table.primary_key:  # optimizer.tid_scan
            t, alias = node.table.name, self.alias(node)
            p = PNode("Tid Scan", f"Tid Scan on {t if alias == t else f'{t} {alias}'}",
                      [("Relation Name", t), ("Alias", alias)])
            tid = sql(node.keys[0][0].args[0], self.names(node.cols, scan=True))
            p.details.append(("TID Cond", f"(ctid = {tid})"))
            return p
        if isinstance(node, N.PointGet):
            t, alias = node.table.name, self.alias(node)
            p = PNode("Index Scan", f"Index Scan using {t}_pkey on {t if alias == t else f'{t} {alias}'}",
                      [("Scan Direction", "Forward"), ("Index Name", f"{t}_pkey"),
                       ("Relation Name", t), ("Alias", alias)])
            p.details.append(("Index Cond", self._key_cond(node, node.keys)))
            return p
        if isinstance(node, N.IndexLookup):
            t, alias = node.table.name, self.alias(node)
            p = PNode("Index Scan", f"Index Scan using {node.index.name} on "
                      f"{t if alias == t else f'{t} {alias}'}",
                      [("Scan Direction", "Forward"), ("Index Name", node.index.name),
                       ("Relation Name", t), ("Alias", alias)])
            by_attnum = {c.attnum: c.name for c in node.table.columns}
            exprs = iter(node.index.exprs)
            keys = [by_attnum.get(a, f"#{a}") if a else f"({next(exprs, '?')})"
                    for a in node.index.columns]
            p.details.append(("Index Cond", self._cond(keys, node.lo or [], node.hi or [],
                                                       node.lo_strict, node.hi_strict,
                                                       self.names(node.cols, True))))
            return p
        if isinstance(node, N.VirtualScan):
            name = node.vtable.name
            return PNode("Seq Scan", f"Seq Scan on {name}",
                         [("Relation Name", name), ("Schema", node.vtable.schema), ("Alias", name)])
        if isinstance(node, N.Values):
            if len(node.rows) == 1 and not node.cols:
                return PNode("Result", "Result")
            if len(node.rows) == 1 and all(not r for r in node.rows):
                return PNode("Result", "Result")
            return PNode("Values Scan", 'Values Scan on "*VALUES*"', [("Alias", "*VALUES*")])
        if isinstance(node, N.FunctionScan):
            fname = node.call.data.name if node.call.kind in ("call", "srf") else node.call.kind
            return PNode("Function Scan", f"Function Scan on {fname}",
                         [("Function Name", fname), ("Alias", fname)])
        if isinstance(node, N.Project):  # VERBOSE keeps projections as Result nodes
            p = PNode("Result", "Result")
            names = self.names(node.child.cols)
            p.details.append(("Output", ", ".join(sql(e, names) for e in node.exprs)))
            return self._kids(p, ("Outer", node.child))
        if isinstance(node, N.ProjectSet):
            return self._kids(PNode("ProjectSet", "ProjectSet"), ("Outer", node.child))
        if isinstance(node, N.Sort):
            p = PNode("Sort", "Sort")
            names = self.names(node.child.cols)
            keys = [sql(k.expr, names) + (" DESC" if k.desc else "")
                    + (" NULLS FIRST" if k.nulls_first and not k.desc else "")
                    + (" NULLS LAST" if k.desc and not k.nulls_first else "") for k in node.keys]
            p.details.append(("Sort Key", ", ".join(keys)))
            p.props.append(("Sort Key", keys))
            return self._kids(p, ("Outer", node.child))
        if isinstance(node, N.Limit):
            return self._kids(PNode("Limit", "Limit"), ("Outer", node.child))
        if isinstance(node, N.Distinct):
            p = PNode("Unique", "Unique")
            if node.on:
                names = self.names(node.child.cols)
                p.details.append(("Distinct On", ", ".join(sql(e, names) for e in node.on)))
            return self._kids(p, ("Outer", node.child))
        if isinstance(node, N.Aggregate):
            return self._aggregate(node)
        if isinstance(node, N.Window):
            return self._kids(PNode("WindowAgg", "WindowAgg"), ("Outer", node.child))
        if isinstance(node, N.Join):
            return self._join(node)
        if isinstance(node, N.SetOp):
            return self._setop(node)
        if isinstance(node, N.CTEScan):
            p = PNode("CTE Scan", f"CTE Scan on {node.cte.name}",
                      [("CTE Name", node.cte.name), ("Alias", node.cte.name)])
            n = self.subplans.get(id(node.cte.plan))
            if n is None:
                self.subplans[id(node.cte.plan)] = -1
                sub = self.build(node.cte.plan)
                sub.subplan_name = f"CTE {node.cte.name}"
                p.children.append(("InitPlan", sub))
            return p
        if isinstance(node, N.RecursiveUnion):
            return self._kids(PNode("Recursive Union", "Recursive Union"),
                              ("Outer", node.anchor), ("Inner", node.recursive))
        if isinstance(node, N.WorkTableScan):
            return PNode("WorkTable Scan", "WorkTable Scan")
        name = type(node).__name__  # a node PostgreSQL has no name for (Columnar, LockRows)
        p = PNode(name, name)
        return self._kids(p, *(("Outer", c) for c in node.children))

    def _scan(self, node: N.Scan) -> PNode:
        t = node.table.name
        alias = self.alias(node)
        on = t if alias == t else f"{t} {alias}"
        names = self.names(node.cols, scan=True)
        if node.lo is not None or node.hi is not None or node.reverse:
            head = f"Index Scan{' Backward' if node.reverse else ''} using {t}_pkey on {on}"
            p = PNode("Index Scan", head, [("Scan Direction", "Backward" if node.reverse
                                            else "Forward"), ("Index Name", f"{t}_pkey"),
                                           ("Relation Name", t), ("Alias", alias)])
            if node.lo is not None or node.hi is not None:
                p.details.append(("Index Cond", self._range_cond(node)))
        else:
            p = PNode("Seq Scan", f"Seq Scan on {on}", [("Relation Name", t), ("Alias", alias)])
        shown = node.shown
        if shown:
            p.details.append(("Filter", sql(shown[0], names) if len(shown) == 1 else
                              "(" + " AND ".join(sql(e, names) for e in shown) + ")"))
        elif node.ir is not None:
            p.details.append(("Filter", _ir_text(node.ir, node.cols)))
        if node.aggregate is not None:
            spec = node.aggregate
            groups = ", ".join(node.cols[g].name for g in spec.group_by if g < len(node.cols))
            aggs = ", ".join(f"{f}({node.cols[a].name if isinstance(a, int) and a < len(node.cols) else '*'})"
                             for f, a in spec.aggs)
            p.details.append(("Pushed Aggregate", f"{aggs}" + (f" by {groups}" if groups else "")))
        if node.limit is not None:
            p.details.append(("Pushed Limit", sql(node.limit, names)))
        return p

    def _range_cond(self, node: N.Scan) -> str:
        return self._cond(_pk_names(node), node.lo or [], node.hi or [], node.lo_strict,
                          node.hi_strict, self.names(node.cols, scan=True))

    @staticmethod
    def _cond(keys: list[str], lo: list[Any], hi: list[Any], lo_strict: bool, hi_strict: bool,
              names: Names) -> str:
        """A key range as PostgreSQL's Index Cond: `(k = 1)`, `((a = 1) AND (b >= 2))`."""
        parts = []
        for i in range(max(len(lo), len(hi))):
            col = keys[i] if i < len(keys) else f"key{i + 1}"
            a = lo[i] if i < len(lo) else None
            b = hi[i] if i < len(hi) else None
            if a is not None and b is not None and (a is b or sql(a, names) == sql(b, names)):
                parts.append(f"({col} = {sql(a, names)})")
                continue
            if a is not None:
                op = ">" if lo_strict and i == len(lo) - 1 else ">="
                parts.append(f"({col} {op} {sql(a, names)})")
            if b is not None:
                op = "<" if hi_strict and i == len(hi) - 1 else "<="
                parts.append(f"({col} {op} {sql(b, names)})")
        return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"

    def _key_cond(self, node: N.PointGet, keys: list[list[Any]]) -> str:
        pk = _pk_names(node)
        names = self.names(node.cols, scan=True)
        if len(keys) == 1:
            parts = [f"({c} = {sql(v, names)})" for c, v in zip(pk, keys[0], strict=False)]
            return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"
        if pk and all(len(k) == 1 for k in keys):
            typ = next((c.type_oid for c in node.table.columns
                        if c.attnum == node.table.primary_key[0]), 0)
            arr = array_const([k[0] for k in keys], typ, names) if typ else None
            if arr is not None:  # NB: PostgreSQL folds the list into one array constant
                return f"({pk[0]} = ANY ({arr}))"
            return f"({pk[0]} = ANY (ARRAY[{', '.join(sql(k[0], names) for k in keys)}]))"
        return " OR ".join("(" + ", ".join(sql(v, names) for v in k) + ")" for k in keys)

    def _aggregate(self, node: N.Aggregate) -> PNode:
        names = self.names(node.child.cols)
        if node.groups:
            p = PNode("Aggregate", "HashAggregate", [("Strategy", "Hashed")])
            keys = [sql(g, names) for g in node.groups]
            p.details.append(("Group Key", ", ".join(keys)))
            p.props.append(("Group Key", keys))
        else:
            p = PNode("Aggregate", "Aggregate", [("Strategy", "Plain")])
        if node.pushed:
            p.head = "Finalize " + p.head
            p.props.append(("Partial Mode", "Finalize"))
        return self._kids(p, ("Outer", node.child))

    def _join(self, node: N.Join) -> PNode:
        jt = _JOIN_TYPE.get(node.kind, node.kind.title())
        suffix = "" if node.kind in ("inner", "cross") else f" {jt}"
        if node.algo == "hash":
            side = " Right" if node.build_left and node.kind in ("semi", "anti") else ""
            head = f"Hash{side}{suffix} Join"
            p = PNode("Hash Join", head, [("Join Type", jt + (" Right" if side else ""))])
        elif node.algo == "merge":
            p = PNode("Merge Join", f"Merge{suffix} Join", [("Join Type", jt)])
        else:
            p = PNode("Nested Loop", f"Nested Loop{suffix} Join" if suffix else "Nested Loop",
                      [("Join Type", jt)])
            if node.algo in ("bind", "range"):
                p.details.append(("Join Strategy", "Bind" if node.algo == "bind" else "Range Bind"))
        both = self.names([*node.left.cols, *node.right.cols])
        lnames, rnames = self.names(node.left.cols), self.names(node.right.cols)
        if node.left_keys:
            conds = [f"({sql(a, lnames)} = {sql(b, rnames)})"
                     for a, b in zip(node.left_keys, node.right_keys, strict=True)]
            key = {"hash": "Hash Cond", "merge": "Merge Cond"}.get(node.algo, "Index Cond")
            p.details.append((key, conds[0] if len(conds) == 1 else
                              "(" + " AND ".join(conds) + ")"))
            if node.residual is not None:
                p.details.append(("Join Filter", sql(node.residual, both)))
        elif node.cond is not None:
            p.details.append(("Join Filter", sql(node.cond, both)))
        if node.null_aware:
            p.details.append(("Null Aware", "true"))
        p.children.append(("Outer", self.build(node.left)))
        inner = self.build(node.right)
        if node.algo == "hash":
            hashed = PNode("Hash", "Hash", rows=inner.rows, width=inner.width, cost=inner.cost,
                           stats=inner.stats, analyze=inner.analyze)
            hashed.children.append(("Outer", inner))
            inner = hashed
        p.children.append(("Inner", inner))
        return p

    def alias(self, node: N.Node) -> str:
        """A scan's alias: `_alias`, or its number among the partitions left (`renumber`)."""
        return self.aliases.get(id(node)) or _alias(node)

    def renumber(self, root: N.Node) -> None:
        """PostgreSQL numbers a query's partitions `m_1`, `m_2`... among those EXPLAIN
        shows: with runtime pruning, among the ones this execution keeps."""
        groups: dict[str, list[tuple[N.Node, bool]]] = {}
        for n in N.walk(root):
            if isinstance(n, N.SetOp) and n.op == "union" and n.all and self.pruned is not None:
                for kid in (n.left, n.right):
                    if not isinstance(kid, N.Guard):
                        continue
                    scan = next((x for x in N.walk(kid) if _is_scan(x)), None)
                    if scan is not None:
                        base = _alias(scan).rpartition("_")[0] or _alias(scan)
                        groups.setdefault(base, []).append((scan, self.pruned(kid)))
        for base, scans in groups.items():
            if any(gone for _, gone in scans):
                kept = [x for x, gone in scans if not gone]
                for i, x in enumerate(kept):
                    self.aliases[id(x)] = f"{base}_{i + 1}"

    def _union_keys(self, node: N.SetOp) -> list[str]:
        """A UNION's group key as PostgreSQL prints it: its first branch's output
        expressions, qualified (`t.a`), one that is no column in parentheses (`((t.a + 1))`)."""
        first = node.left
        while isinstance(first, N.SetOp | N.Guard):
            first = first.left if isinstance(first, N.SetOp) else first.child
        if isinstance(first, N.Project):
            names = Names(first.child.cols, qualify=True, subplan=self.number, params=self.params)
            return [sql(e, names) if e.kind == "col" else f"({sql(e, names)})"
                    for e, c in zip(first.exprs, first.cols, strict=False) if not c.hidden]
        names = Names(first.cols, qualify=True, subplan=self.number, params=self.params)
        return [names.column(_col(i, c)) for i, c in enumerate(first.cols) if not c.hidden]

    def _member(self, app: PNode, side: PNode) -> None:
        """Adds a UNION ALL side to its Append: an Append side's members (and pruned count)
        as its own, as PostgreSQL flattens a chain of them."""
        if side.node_type == "Append" and not side.details:
            app.children += side.children
            app.removed += side.removed
        else:
            app.children.append(("Member", side))

    def _setop(self, node: N.SetOp) -> PNode:
        if node.op == "union" and node.all and self.pruned is not None:
            gone = [isinstance(x, N.Guard) and self.pruned(x) for x in (node.left, node.right)]
            if any(gone):  # NB: a partition runtime pruning skips in this execution
                app = PNode("Append", "Append", removed=gone.count(True))
                for kid, out in zip((node.left, node.right), gone, strict=True):
                    if not out:
                        self._member(app, self.build(kid))
                return app
        left, right = self.build(node.left), self.build(node.right)
        if node.op == "union":
            app = PNode("Append", "Append")
            app.children = [("Member", left), ("Member", right)]
            if node.all:  # NB: one Append for a chain of UNION ALLs (or of partitions), as PG
                app.children = []
                self._member(app, left)
                self._member(app, right)
                return app
            p = PNode("Aggregate", "HashAggregate", [("Strategy", "Hashed")])
            keys = self._union_keys(node)
            p.details.append(("Group Key", ", ".join(keys)))
            app.rows, app.width = left.rows + right.rows, _width(node.cols)
            app.cost = left.cost + right.cost + app.rows
            if self.stats is not None:
                app.analyze = True
                app.stats = _sum_stats(left.stats, right.stats)
            p.children.append(("Outer", app))
            return p
        word = node.op.title()
        p = PNode("SetOp", f"HashSetOp {word}{' All' if node.all else ''}",
                  [("Strategy", "Hashed"), ("Command", word + (" All" if node.all else ""))])
        app = PNode("Append", "Append", rows=left.rows + right.rows, width=_width(node.cols),
                    cost=left.cost + right.cost)
        app.children = [("Member", left), ("Member", right)]
        if self.stats is not None:
            app.analyze = True
            app.stats = _sum_stats(left.stats, right.stats)
        p.children.append(("Outer", app))
        return p


def _removed(p: PNode) -> None:
    """PostgreSQL's `Subplans Removed: n` under each Append that runtime pruning cut."""
    if p.removed:
        p.details.insert(0, ("Subplans Removed", str(p.removed)))
    for _, c in p.children:
        _removed(c)


def _col(i: int, c: N.PCol) -> Any:
    return col(i, c.type, c.name, c.typmod)


def _sum_stats(a: list[Any] | None, b: list[Any] | None) -> list[Any] | None:
    if a is None or b is None:
        return a or b
    return [a[0] + b[0], a[1] + b[1], max(a[2], b[2]),
            (a[3] if len(a) > 3 else 0.0)]


def _alias(node: N.Node) -> str:
    """The name the query gave a base table (`FROM nation n`: n), else the table's name."""
    name = node.table.name  # type: ignore[attr-defined]
    return next((c.qualifier for c in node.cols if c.qualifier), name)


def _is_scan(node: N.Node) -> bool:
    return isinstance(node, N.Scan | N.PointGet | N.IndexLookup | N.VirtualScan | N.FunctionScan)


def _pk_names(node: N.Scan | N.PointGet) -> list[str]:
    by_attnum = {c.attnum: c.name for c in node.table.columns}
    return [by_attnum.get(a, f"#{a}") for a in node.table.primary_key]


def _ir_text(ir: Any, cols: list[N.PCol]) -> str:
    """A KiVi filter IR without its SQL source (a plan made before `Scan.shown` existed)."""
    k = ir[0]
    if k in ("and", "or"):
        return "(" + f" {k.upper()} ".join(_ir_text(x, cols) for x in ir[1]) + ")"
    if k == "not":
        return f"(NOT {_ir_text(ir[1], cols)})"
    if k == "col":
        return cols[ir[1]].name if ir[1] < len(cols) else f"${ir[1]}"
    if k == "const":
        v = ir[1]
        return "NULL" if v is None else str(v) if isinstance(v, int | float) else f"'{v}'"
    if k == "cmp":
        return f"({_ir_text(ir[2], cols)} {ir[1]} {_ir_text(ir[3], cols)})"
    if k in ("is_null", "is_not_null"):
        return f"({_ir_text(ir[1], cols)} IS {'NOT ' if k == 'is_not_null' else ''}NULL)"
    if k == "like":
        return f"({_ir_text(ir[1], cols)} ~~ '{ir[2]}')"
    if k == "in":
        return f"({_ir_text(ir[1], cols)} = ANY ('{{{','.join(map(str, ir[2]))}}}'))"
    return str(k)


def build(root: N.Node, stats: dict | None = None, costs: bool = True,
          verbose: bool = False,
          view: Callable[[N.Node], tuple[N.Node, list[tuple[str, str]]]] | None = None,
          pruned: Callable[[N.Guard], bool] | None = None,
          params: Sequence[Any] | None = None) -> PNode:
    """Returns PostgreSQL's plan tree for a Cumulo plan (with ANALYZE figures from `stats`).
    `view(node)` (nodes of higher layers: the columnar path's) gives the node to print in
    node's place and detail lines to add to it; `pruned(guard)` whether this execution
    skips a partition (left out of its Append, counted as PostgreSQL's Subplans Removed);
    `params` the parameter values a custom plan prints in place of `$n`."""
    b = _Builder(stats, costs, verbose, view, pruned, params)
    b.relations = sum(1 for n in N.walk(root)
                      if isinstance(n, N.Scan | N.PointGet | N.IndexLookup | N.VirtualScan))
    b.renumber(root)
    tree = b.build(root)
    _removed(tree)
    return tree


# -- output formats -------------------------------------------------------------------------


def _figures(p: PNode, costs: bool, timing: bool) -> str:
    out = ""
    if costs:
        out += f"  (cost=0.00..{p.cost:.2f} rows={max(int(round(p.rows)), p.min_rows)} " \
            f"width={p.width})"
    if p.analyze:
        st = p.stats
        if not st or not st[2]:
            out += " (never executed)"
        else:
            loops = st[2]
            rows = int(round(st[0] / loops))
            if timing:
                total = st[1] * 1000 / loops
                start = (st[3] if len(st) > 3 else st[1]) * 1000 / loops
                out += f" (actual time={start:.3f}..{total:.3f} rows={rows} loops={loops})"
            else:
                out += f" (actual rows={rows} loops={loops})"
    return out


def render(p: PNode, fmt: str = "text", costs: bool = True, timing: bool = True,
           summary: dict[str, float] | None = None) -> list[str]:
    """Returns EXPLAIN's output rows: one line each for TEXT, one document for JSON / YAML."""
    if fmt == "text":
        lines = _text(p, costs, timing)
        for k, v in (summary or {}).items():
            lines.append(f"{k}: {v:.3f} ms")
        return lines
    doc: dict[str, Any] = {"Plan": _props(p, costs, timing, None)}
    for k, v in (summary or {}).items():
        doc[k] = round(v, 3)
    if fmt == "json":
        return [json.dumps([doc], indent=2)]
    if fmt == "yaml":
        return ["\n".join(_yaml_list([doc], 0))]
    return [_xml(doc)]


def _text(p: PNode, costs: bool, timing: bool) -> list[str]:
    out: list[str] = []

    def visit(n: PNode, head_indent: int, arrow: bool, detail_indent: int) -> None:
        prefix = " " * head_indent + ("->  " if arrow else "")
        out.append(prefix + n.head + _figures(n, costs, timing))
        for k, v in n.details:
            out.append(" " * detail_indent + f"{k}: {v}")
        for rel, c in n.children:
            if rel in ("SubPlan", "InitPlan"):
                out.append(" " * detail_indent + (c.subplan_name or rel))
                visit(c, detail_indent + 2, True, detail_indent + 8)
            else:
                visit(c, detail_indent, True, detail_indent + 6)

    visit(p, 0, False, 2)
    return out


def _props(p: PNode, costs: bool, timing: bool, relationship: str | None) -> dict[str, Any]:
    d: dict[str, Any] = {"Node Type": p.node_type}
    if relationship:
        d["Parent Relationship"] = relationship
    if p.subplan_name:
        d["Subplan Name"] = p.subplan_name
    d["Parallel Aware"] = False
    d["Async Capable"] = False
    for k, v in p.props:
        if k not in ("Sort Key", "Group Key"):
            d[k] = v
    if costs:
        d["Startup Cost"] = 0.0
        d["Total Cost"] = round(p.cost, 2)
        d["Plan Rows"] = max(int(round(p.rows)), p.min_rows)
        d["Plan Width"] = p.width
    if p.analyze:
        st = p.stats
        loops = st[2] if st else 0
        if timing:
            d["Actual Startup Time"] = round((st[3] if st and len(st) > 3 else 0.0) * 1000 / loops, 3) \
                if loops and st else 0.0
            d["Actual Total Time"] = round(st[1] * 1000 / loops, 3) if loops and st else 0.0
        d["Actual Rows"] = int(round(st[0] / loops)) if loops and st else 0
        d["Actual Loops"] = loops
    listed = dict(p.props)
    for k, v in p.details:
        d[k] = listed.get(k, v) if k in ("Sort Key", "Group Key") else v
    kids = [_props(c, costs, timing, rel) for rel, c in p.children]
    if kids:
        d["Plans"] = kids
    return d


def _yaml_scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return str(v)
    return json.dumps(str(v))


def _yaml_list(items: list[Any], indent: int) -> list[str]:
    out: list[str] = []
    pad = " " * indent
    for item in items:
        if isinstance(item, dict):
            lines = _yaml_map(item, indent + 2)
            out.append(pad + "- " + lines[0].lstrip())
            out.extend(lines[1:])
        else:
            out.append(pad + "- " + _yaml_scalar(item))
    return out


def _yaml_map(d: dict[str, Any], indent: int) -> list[str]:
    out: list[str] = []
    pad = " " * indent
    for k, v in d.items():
        if isinstance(v, dict):
            out.append(f"{pad}{k}: ")
            out.extend(_yaml_map(v, indent + 2))
        elif isinstance(v, list):
            out.append(f"{pad}{k}: ")
            out.extend(_yaml_list(v, indent + 2))
        else:
            out.append(f"{pad}{k}: {_yaml_scalar(v)}")
    return out


def _xml(doc: dict[str, Any]) -> str:
    def tag(k: str) -> str:
        return k.replace(" ", "-")

    def body(v: Any, depth: int) -> str:
        pad = "  " * depth
        if isinstance(v, dict):
            return "\n" + "".join(f"{pad}<{tag(k)}>{body(x, depth + 1)}</{tag(k)}>\n"
                                  for k, x in v.items()) + "  " * (depth - 1)
        if isinstance(v, list):
            return "\n" + "".join(f"{pad}<Plan>{body(x, depth + 1)}</Plan>\n"
                                  for x in v) + "  " * (depth - 1)
        if isinstance(v, bool):
            return "true" if v else "false"
        return escape(str(v))

    return ('<explain xmlns="http://www.postgresql.org/2009/explain">\n  <Query>'
            + body(doc, 2) + "</Query>\n</explain>")
