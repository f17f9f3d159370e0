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
from ...pgtypes.text import split_array
from .bound import E
from .casts import cast_function
from .types import STRINGS, type_name


def _field_input(oid: int) -> Callable[[str], Any]:
    fn = cast_function(T.TEXT, oid)
    return fn if fn is not None else str


def _register(table: Any) -> None:
    """The wire types of `table`'s rows and arrays of them (`ARRAY['(1)'::t]` goes out `t[]`)."""
    records.ROW_TYPES.add(table.reltype)
    if table.array_type:
        records.ROW_ARRAYS[table.reltype] = table.array_type
        T.ELEMENT_OF.setdefault(table.array_type, table.reltype)  # NB: OIDs are never reused


def row_cast(inner: E, table: Any, name: str) -> E:
    """`inner` cast to `table`'s row type."""
    cols = [c for c in sorted(table.columns, key=lambda c: c.attnum) if not c.dropped]
    fields = tuple((c.name, c.type_oid) for c in cols)
    oids = tuple(o for _, o in fields)
    _register(table)
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


def row_array_cast(inner: E, table: Any, name: str) -> E:
    """`'{"(3,4)"}'::t[]`: array input text cast to an array of `table`'s row type (each
    element through record_in with the table's column types), sent as `t[]`."""
    if inner.type not in STRINGS:
        raise CannotCoerce(f"cannot cast type {type_name(inner.type)} to {table.name}[]")
    cols = [c for c in sorted(table.columns, key=lambda c: c.attnum) if not c.dropped]
    fields = tuple((c.name, c.type_oid) for c in cols)
    _register(table)
    element = records.text_decoder(tuple(o for _, o in fields), _field_input)

    def walk(items: list[Any]) -> list[Any]:
        return [None if x is None else walk(x) if isinstance(x, list) else element(x)
                for x in items]

    return E("cast", lambda v: walk(split_array(str(v))), [inner], table.array_type, -1, name,
             fields, table.array_type)
