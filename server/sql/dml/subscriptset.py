"""`UPDATE t SET h['key'] = value` on an hstore column (hstore 1.8's subscript assignment).

PostgreSQL's hstore subscripting handler stores the value under the key, replacing
what was there, and treats a NULL hstore as empty. That is `coalesce(h, '') ||
hstore('key', value::text)`, which is what the SET item becomes: the rest of UPDATE
(typing, RETURNING, triggers of writes) sees an ordinary `h = ...`. Subscript
assignment to other types (arrays, jsonb) is not done: 0A000 names it, where the
item used to read as a column with no name (42703 `column ""`).
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import FeatureNotSupported, UndefinedColumn
from ...pgtypes import hstore
from ..catalog.model import Table
from ..ddl.names import ident
from ..expr.types import type_name


def subscript_assignment(target: exp.Bracket, value: exp.Expression, table: Table,
                         earlier: list[tuple[int, exp.Expression]],
                         ) -> tuple[exp.Expression, exp.Expression]:
    """(the column, its new value) for `col[sub] = value` in a SET list.

    `earlier` is the SET list's (position, value)s so far: a previous `col[...] = ...` of
    the same column is taken out of it and becomes the base, so that `SET h['a'] = 1,
    h['b'] = 2` sets both keys, as in PostgreSQL."""
    col = target.this
    name = ident(col.this if isinstance(col, exp.Column) else col)
    found = next((c for c in table.live_columns if c.name == name), None)
    if found is None:
        raise UndefinedColumn(f'column "{name}" of relation "{table.name}" does not exist')
    if found.type_oid not in hstore.OIDS or len(target.expressions) != 1 \
            or isinstance(target.expressions[0], exp.Slice):
        raise FeatureNotSupported(
            f"subscript assignment to a column of type {type_name(found.type_oid)} is not "
            "supported")
    text = exp.DataType.build("text")
    empty = exp.Cast(this=exp.Literal.string(""), to=exp.DataType.build(
        "hstore", dialect="postgres", udt=True))
    pair = exp.Anonymous(this="hstore", expressions=[
        exp.Cast(this=target.expressions[0].copy(), to=text), exp.Cast(this=value, to=text)])
    base: exp.Expression = col.copy()
    pos = found.attnum - 1
    for i, (p, _) in enumerate(earlier):
        if p == pos:
            base = earlier.pop(i)[1]
            break
    merged = exp.DPipe(this=exp.Coalesce(this=base, expressions=[empty]),
                       expression=pair, safe=True)
    return col, merged
