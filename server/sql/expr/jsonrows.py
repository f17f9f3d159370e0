"""json(b)_populate_record(set)(r, j) and json(b)_to_record(set)(j): rows filled from JSON objects.

Why in expr and not in `functions`: like hstore's populate_record (`expr.hstorerows`),
the result needs the record's field names and types, which only the bound first
argument knows. Each field takes the object's value of its name through the field
type's text input (a JSON string as its contents, a number or boolean as its JSON
text, an array as an array literal for an array field, anything else as JSON
text); a field the object lacks keeps the base record's value, as PostgreSQL's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from ...errors import (
    DatatypeMismatch,
    FeatureNotSupported,
    InvalidParameterValue,
    SQLError,
    UndefinedFunction,
)
from ...pgtypes import oids as T
from ...pgtypes.jsonbtext import dumps, loads
from ...pgtypes.records import Record
from ..functions.registry import FunctionDef
from .bound import E
from .functions import coerce
from .rowpopulate import Fields, target, text_inputs

ROW_FUNCTIONS = frozenset(("json_populate_record", "jsonb_populate_record",
                           "json_populate_recordset", "jsonb_populate_recordset",
                           "json_to_record", "jsonb_to_record",
                           "json_to_recordset", "jsonb_to_recordset"))
TO_RECORD = frozenset(("json_to_record", "jsonb_to_record", "json_to_recordset",
                       "jsonb_to_recordset"))


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


def _no_row_type(name: str) -> SQLError:
    return FeatureNotSupported(
        f"could not determine row type for result of {name}",
        hint="Provide a non-null record argument, or call the function in the FROM clause "
        "using a column definition list.")


def _filler(name: str, names: list[str], types: tuple[int, ...],
            ins: list[Callable[[Any], Any]]) -> Callable[[tuple, Any], Record]:
    """A function of (base values, JSON object) -> the record with the object's values."""
    def fill(old: tuple, obj: Any) -> Record:
        if not isinstance(obj, dict):
            raise InvalidParameterValue("cannot call populate_composite on "
                                        f"{'an array' if isinstance(obj, list) else 'a scalar'}")
        return Record(tuple(old[i] if n not in obj else None if obj[n] is None
                            else ins[i](_field_text(obj[n], types[i]))
                            for i, n in enumerate(names)), types)
    return fill


def _rows(name: str, fill: Callable[[tuple, Any], Record], width: int, rec: Any,
          doc: Any) -> Iterator[Record]:
    """json(b)_populate_recordset / json(b)_to_recordset: one record per array element."""
    if doc is None:
        return
    arr = loads(doc) if isinstance(doc, str) else doc
    if not isinstance(arr, list):
        what = "a non-array" if name.startswith("jsonb") else \
            "an object" if isinstance(arr, dict) else "a scalar"
        raise InvalidParameterValue(f"cannot call {name} on {what}")
    old = (None,) * width if rec is None else tuple(rec)
    for obj in arr:
        if not isinstance(obj, dict):
            raise InvalidParameterValue(f"argument of {name} must be an array of objects")
        yield fill(old, obj)


def _json_arg(name: str, j: E, params: Any) -> E:
    if j.type == T.UNKNOWN:
        return coerce(j, T.JSONB if name.startswith("jsonb") else T.JSON, params=params)
    return j


def _call(name: str, impl: Callable[..., Any], args: list[E], fields: Fields, out: int,
          rowtype: int, srf: bool) -> E:
    # NB: a call with out_columns, so that FROM json_populate_record(...) has the record's
    # columns; not folded to a constant (PostgreSQL's is stable), which FROM could not scan
    fd = FunctionDef(name, impl, tuple(a.type for a in args), out, strict=False,
                     volatile=True, set_returning=srf, out_columns=fields)
    return E("srf" if srf else "call", fd, args, out, -1, name, fields, rowtype)


def _populate(name: str, args: list[E], params: Any) -> E:
    r, j, rest = args[0], _json_arg(name, args[1], params), args[2:]
    fields, names, types, ins = target(r, _no_row_type(name), DatatypeMismatch(
        f"first argument of {name} must be a row type"))
    fill = _filler(name, names, types, ins)
    srf = name.endswith("set")

    def one(rec: Any, doc: Any, *_rest: Any) -> Any:
        if doc is None:
            return rec
        obj = loads(doc) if isinstance(doc, str) else doc
        return fill((None,) * len(names) if rec is None else tuple(rec), obj)

    def many(rec: Any, doc: Any, *_rest: Any) -> Iterator[Record]:
        return _rows(name, fill, len(names), rec, doc)

    return _call(name, many if srf else one, [r, j, *rest], fields, r.rowtype or r.type,
                 r.rowtype, srf)


def to_record(name: str, args: list[E], params: Any, defs: Fields) -> E:
    """`FROM json(b)_to_record(set)(j) AS x(a int, b text)`: the record the column definition
    list describes, filled from the JSON object(s)."""
    if len(args) != 1:
        raise UndefinedFunction(f"function {name} does not exist")
    j = _json_arg(name, args[0], params)
    names, types = [n for n, _ in defs], tuple(t for _, t in defs)
    fill = _filler(name, names, types, text_inputs(types))
    none = (None,) * len(names)

    def one(doc: Any) -> Any:
        if doc is None:
            return None
        return fill(none, loads(doc) if isinstance(doc, str) else doc)

    def many(doc: Any) -> Iterator[Record]:
        return _rows(name, fill, len(names), None, doc)

    srf = name.endswith("set")
    return _call(name, many if srf else one, [j], defs, T.RECORD, 0, srf)


def row_function(name: str, args: list[E], params: Any) -> E | None:
    """`json_populate_record(r, j [, use_json_as_text])`, `jsonb_populate_record(r, j)`, their
    `recordset` forms; json(b)_to_record(set) outside FROM has no row type (0A000)."""
    if name in TO_RECORD:
        raise _no_row_type(name)
    if name.startswith("json_") and len(args) in (2, 3):
        return _populate(name, args, params)
    if name.startswith("jsonb_") and len(args) == 2:
        return _populate(name, args, params)
    return None
