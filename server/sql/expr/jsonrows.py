"""json_populate_record(r, j) and jsonb_populate_record(r, j): a row type filled from a JSON object.

Why in expr and not in `functions`: like hstore's populate_record (`expr.hstorerows`),
the result needs the record's field names and types, which only the bound first
argument knows. Each field takes the object's value of its name through the field
type's text input (a JSON string as its contents, a number or boolean as its JSON
text, an array as an array literal for an array field, anything else as JSON
text); a field the object lacks keeps the base record's value, as PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from ...errors import DatatypeMismatch, FeatureNotSupported, InvalidParameterValue
from ...pgtypes import oids as T
from ...pgtypes.jsonbtext import dumps, loads
from ...pgtypes.records import Record
from ..functions.registry import FunctionDef
from . import usertypes
from .bound import E
from .casts import cast_function
from .functions import coerce

ROW_FUNCTIONS = frozenset(("json_populate_record", "jsonb_populate_record"))


def record_fields(e: E) -> tuple[tuple[str, int], ...] | None:
    """The (name, type) of a record-valued expression's fields (None: not a record)."""
    if e.fields is not None:
        return e.fields
    return usertypes.composite_fields(e.rowtype or e.type)


def _identity(v: Any) -> Any:
    return v


def _scalar_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return str(v)
    return dumps(v)


def _array_literal(v: list[Any]) -> str:
    """A JSON array as PostgreSQL's array input reads it (nested arrays as dimensions)."""
    def item(x: Any) -> str:
        if x is None:
            return "NULL"
        if isinstance(x, list):
            return _array_literal(x)
        s = _scalar_text(x)
        return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "{" + ",".join(item(x) for x in v) + "}"


def _field_text(v: Any, type_oid: int) -> str:
    if type_oid in (T.JSON, T.JSONB):
        return dumps(v)
    if isinstance(v, list) and T.ELEMENT_OF.get(type_oid):
        return _array_literal(v)
    if isinstance(v, dict | list):
        return dumps(v)
    return _scalar_text(v)


def _populate(name: str, args: list[E], params: Any) -> E:
    r, j = args[0], args[1]
    jtype = T.JSONB if name.startswith("jsonb") else T.JSON
    if j.type == T.UNKNOWN:
        j = coerce(j, jtype, params=params)
    fields = record_fields(r)
    if fields is None and (r.rowtype or r.type) == T.RECORD:
        raise FeatureNotSupported("input of anonymous composite types is not implemented")
    if fields is None:
        raise DatatypeMismatch("first argument of json_populate_record must be a row type")
    names = [n for n, _ in fields]
    types = tuple(t for _, t in fields)
    ins: list[Callable[[Any], Any]] = [cast_function(T.TEXT, t) or _identity for t in types]

    def impl(rec: Any, doc: Any, *_rest: Any) -> Any:
        old = (None,) * len(names) if rec is None else tuple(rec)
        if doc is None:
            return rec
        obj = loads(doc) if isinstance(doc, str) else doc
        if not isinstance(obj, dict):
            raise InvalidParameterValue("cannot call populate_composite on "
                                        f"{'an array' if isinstance(obj, list) else 'a scalar'}")
        vals = tuple(old[i] if n not in obj else None if obj[n] is None
                     else ins[i](_field_text(obj[n], types[i])) for i, n in enumerate(names))
        return Record(vals, types)

    out = r.rowtype or r.type
    rest = args[2:]
    # NB: a call with out_columns, so that FROM json_populate_record(...) has the record's
    # columns; not folded to a constant (PostgreSQL's is stable), which FROM could not scan
    fd = FunctionDef(name, impl, (r.type, j.type, *(a.type for a in rest)), out, strict=False,
                     volatile=True, out_columns=fields)
    return E("call", fd, [r, j, *rest], out, -1, name, r.fields, r.rowtype)


def row_function(name: str, args: list[E], params: Any) -> E | None:
    """`json_populate_record(r, j [, use_json_as_text])`, `jsonb_populate_record(r, j)`."""
    if name == "json_populate_record" and len(args) in (2, 3):
        return _populate(name, args, params)
    if name == "jsonb_populate_record" and len(args) == 2:
        return _populate(name, args, params)
    return None
