"""The plan printer shared by EXPLAIN, EXPLAIN ANALYZE and the golden plan tests.

One line per node, children indented by two spaces, in the style of toydb and
CockroachDB: the operator, then its details (table, key range, pushed filter,
join algorithm). With ANALYZE statistics each line ends with the rows the
node produced, its calls, and the time spent inside it (children included).
"""

from __future__ import annotations

from ..expr.bound import render
from ..optimizer.stats import estimate
from . import nodes as N
from .nodeexprs import node_exprs

_ALGO = {"hash": "Hash", "nested": "Nested Loop", "bind": "Bind", "merge": "Merge",
         "range": "Range Bind"}


def describe(node: N.Node) -> str:
    """Returns the one-line description of a node (without children)."""
    name = type(node).__name__
    if isinstance(node, N.Scan):
        parts = [f"Scan {node.table.name}"]
        if node.lo is not None or node.hi is not None:
            lo = ", ".join(map(render, node.lo)) if node.lo is not None else "-inf"
            hi = ", ".join(map(render, node.hi)) if node.hi is not None else "+inf"
            lb = "(" if node.lo_strict else "["
            rb = ")" if node.hi_strict else "]"
            parts.append(f"range={lb}{lo} .. {hi}{rb}")
        if node.projection is not None:
            parts.append(f"columns={list(node.projection)}")
        if node.ir is not None:
            parts.append(f"filter={node.ir!r}")
        if node.limit is not None:
            parts.append(f"limit={render(node.limit)}")
        if node.aggregate is not None:
            parts.append(f"aggregate={node.aggregate.group_by}:{node.aggregate.aggs}")
        if node.with_keys:
            parts.append("keys")
        if node.reverse:
            parts.append("reverse")
        return " ".join(parts)
    if isinstance(node, N.PointGet):
        keys = "; ".join(", ".join(map(render, k)) for k in node.keys)
        return f"PointGet {node.table.name} key=({keys})"
    if isinstance(node, N.IndexLookup):
        lo = ", ".join(map(render, node.lo or []))
        hi = ", ".join(map(render, node.hi or []))
        return f"IndexLookup {node.table.name} index={node.index.name} range=[{lo} .. {hi}]"
    if isinstance(node, N.VirtualScan):
        return f"VirtualScan {node.vtable.schema}.{node.vtable.name}"
    if isinstance(node, N.Values):
        return f"Values rows={len(node.rows)}"
    if isinstance(node, N.FunctionScan):
        return f"FunctionScan {render(node.call)}" + (" ordinality" if node.ordinality else "")
    if isinstance(node, N.Filter):
        return f"Filter {render(node.pred)}"
    if isinstance(node, N.Project | N.ProjectSet):
        return f"{name} " + ", ".join(render(e) for e in node.exprs)
    if isinstance(node, N.Sort):
        keys = ", ".join(render(k.expr) + (" DESC" if k.desc else "") for k in node.keys)
        return f"Sort {keys}"
    if isinstance(node, N.Limit):
        parts = ["Limit"]
        if node.limit is not None:
            parts.append(f"limit={render(node.limit)}")
        if node.offset is not None:
            parts.append(f"offset={render(node.offset)}")
        return " ".join(parts)
    if isinstance(node, N.Distinct):
        return "Distinct" + (" on " + ", ".join(map(render, node.on)) if node.on else "")
    if isinstance(node, N.Aggregate):
        groups = ", ".join(map(render, node.groups))
        aggs = ", ".join(f"{a.func}({', '.join(map(render, a.args))})" for a in node.aggs)
        return f"Aggregate{' (merge partials)' if node.pushed else ''} group=[{groups}] aggs=[{aggs}]"
    if isinstance(node, N.Window):
        return "Window " + ", ".join(c.func for c in node.calls)
    if isinstance(node, N.Join):
        parts = [f"Join {node.kind} algo={node.algo}"]
        if node.kind in ("semi", "anti"):  # as PostgreSQL names them: Hash Semi Join
            right = " Right" if node.build_left and node.algo == "hash" else ""
            parts = [f"{_ALGO[node.algo]}{right} {node.kind.title()} Join"]
            if node.null_aware:
                parts.append("null-aware")
        if node.lateral:
            parts.append("lateral")
        if node.left_keys:
            parts.append("keys=" + ", ".join(
                f"{render(a)}={render(b)}" for a, b in zip(node.left_keys, node.right_keys, strict=True)))
        cond = node.residual if node.left_keys else node.cond
        if cond is not None:
            parts.append(f"on={render(cond)}")
        return " ".join(parts)
    if isinstance(node, N.SetOp):
        return f"SetOp {node.op}{' all' if node.all else ''}"
    if isinstance(node, N.CTEScan):
        return f"CTEScan {node.cte.name}"
    if isinstance(node, N.RecursiveUnion):
        return "RecursiveUnion" + (" all" if node.all else "")
    if isinstance(node, N.WorkTableScan):
        return "WorkTableScan"
    return name


def explain_lines(root: N.Node, stats: dict | None = None, estimates: bool = False) -> list[str]:
    """Returns the plan tree as indented lines: with `estimates`, each node's estimated rows;
    with `stats` (EXPLAIN ANALYZE), its actual rows, loops and time."""
    out: list[str] = []
    seen_ctes: set[int] = set()

    def visit(node: N.Node, depth: int) -> None:
        line = "  " * depth + describe(node)
        if estimates:
            line += f" (rows={estimate(node):.0f})"
        if stats is not None:
            rows, secs, loops = stats.get(id(node), [0, 0.0, 0])[:3]
            line += f" (actual rows={rows} loops={loops} time={secs * 1000:.3f} ms)"
        out.append(line)
        for c in node.children:
            visit(c, depth + 1)
        if isinstance(node, N.CTEScan) and id(node.cte) not in seen_ctes:
            seen_ctes.add(id(node.cte))
            visit(node.cte.plan, depth + 1)
        for e in _subplans(node):
            out.append("  " * (depth + 1) + "SubPlan")
            visit(e, depth + 2)

    visit(root, 0)
    return out


def _subplans(node: N.Node) -> list[N.Node]:
    plans = []
    for v in vars(node).values():
        for e in node_exprs(v):
            for x in e.walk():
                if x.kind in ("subquery", "exists", "array_sub"):
                    plans.append(x.data)
                elif x.kind == "in_sub":
                    plans.append(x.data[0])
    return plans

