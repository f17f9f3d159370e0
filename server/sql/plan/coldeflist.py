"""Column definition lists: `FROM json_to_record(j) AS x(a int, b text)`.

A function that returns `record` with no row type of its own (json(b)_to_record,
json(b)_to_recordset, tablefunc's crosstab) gets its columns from the alias's column definitions, as
in PostgreSQL; without them it is PostgreSQL's 42601 `a column definition list
is required for functions returning "record"`, at the function's position.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ...errors import DuplicateColumn, SQLError
from ...pgtypes import oids as T
from ..expr import jsonrows, usertypes
from ..expr.binder import Binder
from ..expr.bound import E
from ..expr.functions import coerce
from ..expr.types import datatype_oid
from ..functions import tablefunc

_POPULATE = frozenset(("populate_record", "json_populate_record", "jsonb_populate_record",
                       "json_populate_recordset", "jsonb_populate_recordset"))


def typed_columns(alias: exp.Expr | None) -> tuple[tuple[str, int], ...] | None:
    """The (name, type) of an alias's column definitions (None: plain names, or no alias)."""
    cols = alias.args.get("columns") or [] if isinstance(alias, exp.TableAlias) else []
    if not cols or not all(isinstance(c, exp.ColumnDef) and c.args.get("kind") for c in cols):
        return None
    names = [c.name for c in cols]
    dup = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if dup is not None:
        raise DuplicateColumn(f'column name "{dup}" specified more than once')
    return tuple((c.name, datatype_oid(c.args["kind"])[0]) for c in cols)


def record_call(b: Binder, fn: exp.Expr, defs: tuple[tuple[str, int], ...] | None,
                params: Any, position: int | None) -> E | None:
    """The bound call of a record-returning function described by `defs` (None: not one)."""
    name = fn.name.lower() if isinstance(fn, exp.Anonymous) else ""
    if name in jsonrows.TO_RECORD:
        if defs is None:
            raise _required(position)
        return jsonrows.to_record(name, [b.bind(a) for a in fn.expressions], params, defs)
    if name in tablefunc.NAMES and usertypes.has_extension(tablefunc.EXTENSION):
        args = [coerce(b.bind(a), T.TEXT, params=params) for a in fn.expressions]
        call = tablefunc.crosstab_call(args, defs) if defs is not None else None
        if call is not None:
            return call
        if defs is None and len(args) in (1, 2):
            raise _required(position)
    if name in _POPULATE and fn.expressions and defs is None:
        first = b.bind(fn.expressions[0])
        if first.kind == "row" or (first.rowtype or first.type) == T.RECORD and \
                first.fields is None:  # ROW(...), null::record: no row type of their own
            raise _required(position)
    return None


def _required(position: int | None) -> SQLError:
    err = SQLError('a column definition list is required for functions returning "record"',
                   sqlstate="42601")
    err.position = position
    return err
