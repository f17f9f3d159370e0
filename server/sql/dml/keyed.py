"""UPDATE and DELETE by full primary key: the candidate rows read in one call, not the executor.

`UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2` finds its
row through the query `SELECT ctid, <columns>, (abalance + $1)::int FROM ...
WHERE aid = $2` (update.py), which plans as Project(PointGet with keys). The
executor runs that as a generator pipeline (`CompiledPlan.execute`, `run`,
`run_project`, `run_point_get` and its compiled key function) around what is one
`Txn.get` and one projection: for an OLTP statement the pipeline costs more
than the read. `KeyedRows` does the same read and the same projection (the
Project node's own compiled function, so every expression, cast and error is
the executor's), with no generators. Any other plan shape (a filter on top, an
index, an expression in a key, hidden columns) keeps the general path.

    >>> from ..expr.bound import E, col
    >>> from ..plan import nodes as N
    >>> class Table:
    ...     space = 7
    >>> get = N.PointGet([], table=Table(), keys=[[E("param", 1)]], with_keys=True)
    >>> KeyedRows.of(N.Project([], child=get, exprs=[col(0, 23)])) is not None
    True
    >>> KeyedRows.of(N.Project([], child=N.PointGet([], table=Table(), keys=[[E("func", "f")]],
    ...                                                with_keys=True), exprs=[])) is None
    True
    >>> KeyedRows.of(get) is None
    True
"""

from __future__ import annotations

from decimal import getcontext
from typing import Any

from ...kivi.keycodec import element_encoder, encode_element
from ..exec.runner import compiled
from ..expr import codegen as cg
from ..expr import runtime as rt
from ..plan import nodes as N
from ..plan.builder import visible
from ..plan.pointread import KeyParts, encoded_keys, key_parts, single_param


class KeyedRows:
    """The key parts and the Project node of a Project(PointGet with keys) plan."""

    __slots__ = ("space", "keys", "project", "fn", "param")

    def __init__(self, space: int, keys: KeyParts, project: N.Project) -> None:
        self.space = space
        self.keys = keys  # per lookup, per key column: (is a parameter, $n or the constant)
        self.project = project
        self.fn: Any = None  # the Project node's compiled function, once asked for (`read`)
        self.param = single_param(keys)  # `read`'s shortcut (as `PointRead.param`), or -1

    @classmethod
    def of(cls, root: N.Node) -> KeyedRows | None:
        """The KeyedRows of a plan root, or None when the plan is any other shape."""
        if type(root) is not N.Project or type(root.child) is not N.PointGet:
            return None
        get = root.child
        if not get.with_keys or not get.keys or len(visible(root.cols)) != len(root.cols):
            return None
        keys = key_parts(get)
        return None if keys is None else cls(get.table.space, keys, root)

    def read(self, ctx: Any) -> list[tuple[Any, ...]]:
        """The plan's rows at ctx's transaction (own writes included), as `plan.execute(ctx)`
        would yield them in its one batch."""
        param = self.param
        if param >= 0:  # NB: one key of one parameter: no comprehension (`PointRead.keys_of`)
            value = ctx.params[param]
            if value is None:
                return []  # NB: a NULL key matches nothing, as `encoded_keys` leaves it out
            enc = element_encoder(type(value))  # NB: `encode_key((value,))` in one call
            key = enc(value) if enc is not None else encode_element(value)
            row = ctx.txn.get_one(self.space, key)  # NB: `get` of one key, no list in or out
            if row is None:
                return []
            batch = [(*row, key)]
        else:
            encoded = encoded_keys(self.keys, ctx.params)
            if not encoded:
                return []
            rows = ctx.txn.get(self.space, encoded)
            batch = [(*r, k) for r, k in zip(rows, encoded, strict=True) if r is not None]
            if not batch:
                return []
        if getcontext().prec < rt.NUMERIC_PRECISION:  # NB: `rt.numeric_context`, inline
            rt.numeric_context()
        ctx.outer = []  # NB: as CompiledPlan.execute sets them up
        ctx.plan_cache = {}
        fn = self.fn
        if fn is None:  # NB: the executor's own (runner.compiled), kept here: no lookup per run
            node = self.project
            fn = self.fn = compiled(node, "proj", lambda: cg.project_function(node.exprs))
        return fn(batch, ctx)
