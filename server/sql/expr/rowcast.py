"""`'(3,4)'::t` and `ROW(3, 4)::t`: a value cast to a table's row type.

Every table has a composite row type of its name (pg_class.reltype). Casting text to it
is record_in with the table's column types (each field through its type's input
function, PostgreSQL's malformed-record errors for the rest); casting a row constructor
converts field by field. The result is a record of the table's row type, sent as
PostgreSQL sends `t` (its Records keep their field types).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import CannotCoerce
from ...pgtypes import oids as T
from ...pgtypes import records
from .bound import E
from .casts import cast_function
from .types import STRINGS, type_name


def _field_input(oid: int) -> Callable[[str], Any]:
    fn = cast_function(T.TEXT, oid)
    return fn if fn is not None else str


def row_cast(inner: E, table: Any, name: str) -> E:
    """`inner` cast to `table`'s row type."""
    cols = [c for c in sorted(table.columns, key=lambda c: c.attnum) if not c.dropped]
    fields = tuple((c.name, c.type_oid) for c in cols)
    oids = tuple(o for _, o in fields)
    records.ROW_TYPES.add(table.reltype)
    if inner.type in STRINGS:
        fn: Any = records.text_decoder(oids, _field_input)
    elif inner.kind == "row" and len(inner.args) == len(oids):
        convs = [cast_function(a.type, o) for a, o in zip(inner.args, oids, strict=True)]

        def fn(v: tuple) -> records.Record:
            return records.Record(tuple(x if x is None or f is None else f(x)
                                        for x, f in zip(v, convs, strict=True)), oids)
    elif inner.type == T.RECORD and inner.rowtype == table.reltype:
        return E(inner.kind, inner.data, inner.args, inner.type, inner.typmod, name,
                 inner.fields, inner.rowtype)
    else:
        raise CannotCoerce(f"cannot cast type {type_name(inner.type)} to {table.name}")
    return E("cast", fn, [inner], T.RECORD, -1, name, fields, table.reltype)
