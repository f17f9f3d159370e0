"""What populate_record (hstore) and json(b)_populate_record(set) share: the target row.

Both fill a record's fields from key/value pairs, so both need the record's
field names and types (which only the bound first argument knows) and a text
input function per field. PostgreSQL 15 takes the fields from the argument's
row type; an anonymous `ROW(1, 2)` has its own row type too, whose fields are
named f1...fn (`json_populate_record(row(1, 2), '{"f1": 5}')` is `(5,2)`, and
so is hstore's). Only a record with no row type at all (`null::record`) fails,
and each function words that differently, so the caller passes its error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import SQLError
from ...pgtypes import oids as T
from . import usertypes
from .bound import E
from .casts import cast_function

Fields = tuple[tuple[str, int], ...]


def record_fields(e: E) -> Fields | None:
    """The (name, type) of a record-valued expression's fields (None: not a record); an
    anonymous ROW()'s fields are f1...fn, as PostgreSQL names them."""
    if e.fields is not None:
        return e.fields
    named = usertypes.composite_fields(e.rowtype or e.type)
    if named is not None:
        return named
    if e.kind == "row":
        return tuple((f"f{i + 1}", t) for i, t in enumerate(e.data))
    return None


def _identity(v: Any) -> Any:
    return v


def text_inputs(types: tuple[int, ...]) -> list[Callable[[Any], Any]]:
    """Each field type's input function from text (the identity for text itself)."""
    return [cast_function(T.TEXT, t) or _identity for t in types]


def target(r: E, unregistered: SQLError, not_a_row: SQLError
           ) -> tuple[Fields, list[str], tuple[int, ...], list[Callable[[Any], Any]]]:
    """The row `r` populates: its fields, their names, their types and their text inputs.
    `unregistered` is raised for a record without a row type (`null::record`),
    `not_a_row` for an argument that is no record at all."""
    fields = record_fields(r)
    if fields is None and (r.rowtype or r.type) == T.RECORD:
        raise unregistered
    if fields is None:
        raise not_a_row
    types = tuple(t for _, t in fields)
    return fields, [n for n, _ in fields], types, text_inputs(types)
