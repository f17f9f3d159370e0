"""What EXPLAIN prints for the columnar path: the plan that runs, not the one that might.

A `Columnar` node holds two plans for one subtree: the vector form and the row
plan (`plan.py`). Which runs is decided per execution by `cumulo.columnar` and
the data (`run.py`), so EXPLAIN asks this module, through `pgexplain.build`'s
`view` hook, what to print in the node's place:

- under `cumulo.columnar = off` the row plan runs, so only the row plan is
  printed, exactly as without the columnar rule;
- otherwise the `Columnar` / `ColumnarJoin` node is printed with a `Vector:`
  line (the operation, and for a join the tree it joins), and the row plan
  under it: the fallback, which EXPLAIN ANALYZE shows as never executed when
  the vector form ran;
- EXPLAIN ANALYZE adds `Ran:` (the vector form, or the row plan and why) and,
  for an inner join of several inputs, `Join Order:`, the order the run chose
  from the filtered input sizes (`join._inner`), with the rows after each step.

The run-time facts travel in the context's `analyze` figures (`ExecContext.analyze`)
under keys of their own, `("vector", id)`, next to the per-node counts.

    >>> from cumulo.server.sql.plan import nodes as N
    >>> v = N.Values([], rows=[])
    >>> view("off", None)(v) == (v, [])
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...plan import nodes as N
from .plan import Columnar, ColumnarJoin, SourceInner, SourceJoin, inputs_of

View = Callable[[N.Node], tuple[N.Node, list[tuple[str, str]]]]


def note(ctx: Any, obj: Any, line: str) -> None:
    """Records a run-time fact about `obj` (a Columnar node or a join source) for EXPLAIN
    ANALYZE; nothing when no ANALYZE is running."""
    stats = ctx.analyze
    if stats is not None:
        stats.setdefault(("vector", id(obj)), []).append(line)


def view(mode: str, stats: dict[Any, list[Any]] | None) -> View:
    """The `pgexplain.build` hook for a session whose `cumulo.columnar` is `mode`."""

    def fn(node: N.Node) -> tuple[N.Node, list[tuple[str, str]]]:
        if not isinstance(node, Columnar):
            return node, []
        if mode == "off":
            return node.row, []
        spec = node.spec
        joins = spec.source is not None and any(isinstance(s, (SourceInner, SourceJoin))
                                                for s in _sources(spec.source))
        what = ("join" if spec.op == "aggregate" else f"{spec.op} join") if joins else spec.op
        on = spec.table.name if spec.source is None else spec.source.describe()
        details = [("Vector", f"{what} {on}")]
        if stats is not None:
            ran = stats.get(("vector", id(node)))
            if ran:
                details.append(("Ran", "; ".join(ran)))
            if isinstance(node, ColumnarJoin):
                for src in _sources(spec.source):
                    if isinstance(src, SourceInner):
                        for order in stats.get(("vector", id(src)), []):
                            details.append(("Join Order", order))
        return node, details

    return fn


def _sources(src: Any) -> list[Any]:
    out = [src]
    for c in inputs_of(src):
        out += _sources(c)
    return out


__all__ = ["View", "note", "view"]
