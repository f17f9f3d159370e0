"""Set-returning functions nested in a select-list expression: `generate_series(1, 3)::int4`.

PostgreSQL's ProjectSet evaluates every set-returning call of the select list,
zipping their rows, and the expressions around them are computed per output
row. The executor's ProjectSet runs top-level calls only, so a nested one is
lifted out: the ProjectSet passes the input columns through and appends one
column per set-returning call, and a Project above it evaluates the original
expressions with each call replaced by its column.
"""

from __future__ import annotations

import dataclasses

from ..expr.bound import E, col
from . import nodes as N

_SRF = "srf"


def has_nested_srf(exprs: list[E]) -> bool:
    """Tells whether a set-returning call sits below the top of some expression."""
    return any(x.kind == _SRF for e in exprs for a in e.args for x in a.walk())


def lift(node: N.Node, cols: list[N.PCol], exprs: list[E]) -> N.Node:
    """Returns Project(ProjectSet(node)) computing `exprs` (see the module doc)."""
    width = len(node.cols)
    inner: list[E] = [col(i, c.type, c.name, c.typmod) for i, c in enumerate(node.cols)]
    inner_cols = [dataclasses.replace(c, hidden=True) for c in node.cols]
    srf = [False] * width

    def out(e: E) -> E:
        if e.kind == _SRF:
            inner.append(e)
            inner_cols.append(N.PCol("?srf?", e.type, e.typmod, hidden=True))
            srf.append(True)
            return col(len(inner) - 1, e.type, e.name, e.typmod)
        if not e.args:
            return e
        return E(e.kind, e.data, [out(a) for a in e.args], e.type, e.typmod, e.name, e.fields)

    top = [out(e) for e in exprs]
    ps = N.ProjectSet(inner_cols, child=node, exprs=inner, srf=srf)
    return N.Project(cols, child=ps, exprs=top)
