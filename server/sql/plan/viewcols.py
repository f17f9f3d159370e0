"""A view's output columns belong to the view, as in PostgreSQL.

`SELECT a, v FROM v` describes `a` as column 1 of the view (RowDescription's table OID and
attribute number, which clients such as pgJDBC read), and the whole row `v` is typed with the
view's row type (`pg_typeof(v)` is `v`), not `record`: the planner inlines the view's query,
whose outputs would otherwise be a SELECT's derived columns or its base tables' columns.
"""

from __future__ import annotations

from typing import Any

from . import nodes as N


def own_columns(cols: list[N.PCol], view: Any) -> None:
    """Makes the visible `cols` of an inlined `view` (a catalog table of kind 'v') its own."""
    attnums = sorted(c.attnum for c in view.columns if not c.dropped)
    vis = [c for c in cols if not c.hidden]
    if len(vis) != len(attnums):
        return
    for c, attnum in zip(vis, attnums, strict=True):
        c.table_oid, c.attnum, c.derived = view.oid, attnum, False
