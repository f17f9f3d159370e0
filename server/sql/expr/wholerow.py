"""Whole-row references (`SELECT t FROM t`) and the functions that take a record.

PostgreSQL resolves a bare name first as a column and, failing that, as a
relation of the FROM clause: `t` then means the row of `t`, a composite whose
fields are the relation's visible columns. Here that row is a `row` expression
over those columns, carrying their names, so that `t::text`, `count(t)`,
`t IS NULL` and `row_to_json(t)` see what PostgreSQL sees.

`row_to_json`, `to_json` and `to_jsonb` of a record become `json_build_object`
(`jsonb_build_object`) over the field names and values: that function already
formats numbers, booleans, NULLs, timestamps, arrays and json exactly as
PostgreSQL does, and keeps the fields in column order. A record without names
(`ROW(1, 2)`) gets PostgreSQL's f1, f2, ...

>>> from .bound import col
>>> r = whole_row([col(0, 23, "a"), col(1, 25, "b")], "t")
>>> r.kind, r.name, r.fields
('row', 't', (('a', 23), ('b', 25)))
>>> row_null_test(r, negate=False).kind
'and'
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ...pgtypes import oids as T
from ...pgtypes import records
from ...pgtypes.records import MARKED, OuterRowTypes
from ..functions.jsonfns import jsonb_text, parse, quote, row_json_object, value_json
from .bound import E, const
from .functions import resolve

# The hidden columns that tell an outer join's padded row from a row of NULLs (plan.nullmark).
MARK = "?nullext"  # NB: a name no query can write unquoted, and hidden from `*`
MARK_ATTNUM = -9  # like a system column's: never a field of a whole row
JOIN_ROW = "?joinrow"  # a join alias's (`(u JOIN w) AS j`) row: never NULL as a whole

# Functions of one record argument that build a JSON object of its fields.
JSON_OF_ROW = {"row_to_json": "json_build_object", "to_json": "json_build_object",
               "to_jsonb": "jsonb_build_object"}


# Functions and aggregates that embed a json argument as JSON: a record goes in as its object.
JSON_EMBEDDERS = {"json_agg", "jsonb_agg", "json_build_object", "jsonb_build_object",
                  "json_build_array", "jsonb_build_array", "json_object_agg", "jsonb_object_agg"}


def row_as_json(row: E, params: Any, binary: bool = False, name: str = "row_to_json") -> E:
    """row_to_json(row): PG's compact object, fields in order (`{"a":1,"b":null}`);
    `binary`: to_jsonb(row), printed as jsonb is (`{"a": 1, "b": null}`)."""
    if binary:
        fd, args = resolve("jsonb_build_object", json_object_args(row), params)
        return outer_null(row, E("call", fd, args, T.JSONB, -1, "to_jsonb"))
    _, args = resolve("json_build_object", json_object_args(row), params)
    return outer_null(row, E("pyfunc", (name, row_json_object, False), args, T.JSON, -1, name))


def outer_null(row: E, e: E) -> E:
    """`e`, computed from a whole row, or NULL when that row is null-extended by an outer join
    (`row_to_json(u)` of a missing `u` is NULL in PostgreSQL, not `{"a":null}`)."""
    if not isinstance(row.data, OuterRowTypes):
        return e
    g = row.data.guard
    if g == MARKED:
        test = padded_test(row.args[0].args[1:])
    else:
        test = E("isnull", None, [row.args[g]], T.BOOL) if g >= 0 else row_null_test(row, False)
    return E("case", True, [test, const(None, e.type), e], e.type, e.typmod, e.name)


def embedded_json(e: E, params: Any, binary: bool) -> E:
    """An argument of a JSON_EMBEDDERS function: a record as its JSON object, else itself."""
    if e.kind == "row":
        return row_as_json(e, params, binary)
    return record_as_json(e, binary) if e.type == T.RECORD else e


def record_as_json(e: E, binary: bool = False, name: str = "row_to_json") -> E:
    """row_to_json / to_jsonb of a record-typed value that is not a row expression (a
    subquery's `ROW(a, b) AS r`, a record column): its field names when the scope knows them
    (a whole row passed up), else PostgreSQL's f1, f2, ..."""
    names = tuple(n for n, _ in e.fields) if e.fields else None
    impl = partial(record_json, names, binary)
    return E("pyfunc", (name, impl, True), [e], T.JSONB if binary else T.JSON, -1, name)


def record_json(names: tuple[str, ...] | None, binary: bool, v: tuple) -> str:
    """The JSON object of one record value: `{"f1":1,"f2":null}` (jsonb: `{"f1": 1, ...}`).

    >>> record_json(None, False, (1, None)), record_json(("a",), True, ("x",))
    ('{"f1":1,"f2":null}', '{"a": "x"}')
    """
    keys = names if names and len(names) == len(v) else [f"f{i + 1}" for i in range(len(v))]
    if binary:
        return jsonb_text({k: parse(value_json(x)) for k, x in zip(keys, v, strict=True)})
    return "{" + ",".join(f"{quote(k)}:{value_json(x)}" for k, x in zip(keys, v, strict=True)) + "}"


def whole_row(refs: list[E], name: str, rowtype: int = 0) -> E:
    """The composite value of a relation: its visible columns, in order, by name (`rowtype`:
    the table's row type, which the wire names instead of `record`)."""
    fields = tuple((r.name, r.type) for r in refs)
    return E("row", tuple(r.type for r in refs), refs, T.RECORD, -1, name, fields, rowtype)


def markers(cols: Any, rel: str) -> list[int]:
    """Positions of relation `rel`'s null-extension markers among scope columns `cols` (one
    per outer join that may pad it)."""
    return [i for i, c in enumerate(cols) if c.qualifier == rel and c.name.startswith(MARK)
            and c.attnum == MARK_ATTNUM]


def join_alias_row(cols: Any, rel: str) -> bool:
    """True when `rel` names a parenthesised join (plan.nullmark.mark_join_alias)."""
    return any(c.qualifier == rel and c.name == JOIN_ROW and c.attnum == MARK_ATTNUM
               for c in cols)


def marked_row(row: E, marks: list[E]) -> E:
    """A whole row that is NULL when one of `marks` is (its relation was padded by an outer
    join), `(,)` for a real row of NULLs. The marks ride in the first field, as a `nullext`
    node that evaluates to that field, so every rewrite that renumbers columns renumbers
    them too; a row of no fields stays as it was."""
    if not row.args:
        return row
    f = row.args[0]
    row.args = [E("nullext", None, [f, *marks], f.type, f.typmod, f.name, f.fields, f.rowtype),
                *row.args[1:]]
    row.data = OuterRowTypes(row.data, MARKED)
    return row


def padded_test(marks: list[E]) -> E:
    """True when one of the markers is NULL: the relation's row is an outer join's padding."""
    out = E("isnull", None, [marks[0]], T.BOOL)
    for m in marks[1:]:
        out = E("or", None, [out, E("isnull", None, [m], T.BOOL)], T.BOOL)
    return out


def row_of(args: list[E]) -> E:
    """`ROW(a, b)`: a record that knows its fields' types; a whole row in it is typed with
    its table's row type, which record_send names as PostgreSQL does (not `record`)."""
    return E("row", tuple(a.rowtype or a.type for a in args), args, T.RECORD, -1, "row")


def register_row_array(rowtype: int, array_type: int) -> None:
    """Makes `array_type` (a table's pg_type.typarray) the wire type of arrays of its rows,
    its elements encoding as the row type's (`records.ROW_ARRAYS`)."""
    if rowtype and array_type:
        records.ROW_ARRAYS[rowtype] = array_type
        T.ELEMENT_OF.setdefault(array_type, rowtype)  # NB: OIDs are never reused in a store


def array_rowtype(elements: list[E]) -> int:
    """The wire type of an array of `elements` when they are whole rows of one table
    (`ARRAY[t]`, `array_agg(t)`): the table's array type, as PostgreSQL types it; else 0."""
    types = {e.rowtype for e in elements}
    if len(types) != 1:
        return 0
    return records.ROW_ARRAYS.get(types.pop(), 0)


def element_rowtype(array_rowtype: int) -> int:
    """The row type of an element of an array of whole rows (`(array_agg(t))[1]`), else 0."""
    elem = T.ELEMENT_OF.get(array_rowtype, 0)
    return elem if elem in records.ROW_TYPES else 0


def row_constructor(e: E) -> bool:
    """`ROW(a, b)` or `(a, b)`, not a whole-row reference: PostgreSQL compares two row
    constructors field by field (`(1, NULL) = (1, NULL)` is NULL) and anything else that is
    a record with record_eq / record_cmp (`t = t` is true whatever its fields hold)."""
    return e.kind == "row" and e.fields is None


def field_names(row: E) -> list[str]:
    """A record's field names: its columns' for a whole-row reference, else f1, f2, ..."""
    if row.fields and len(row.fields) == len(row.args):
        return [n for n, _ in row.fields]
    return [f"f{i + 1}" for i in range(len(row.args))]


def json_object_args(row: E) -> list[E]:
    """The (key, value) argument list of json_build_object for a record's fields."""
    out: list[E] = []
    for key, value in zip(field_names(row), row.args, strict=True):
        out.append(const(key, T.TEXT))
        out.append(value)
    return out


def row_null_test(row: E, negate: bool) -> E:
    """`row IS [NOT] NULL`: true when every field is [not] NULL, as the SQL standard says.

    So `(1, NULL) IS NULL` and `(1, NULL) IS NOT NULL` are both false.
    """
    kind = "notnull" if negate else "isnull"
    tests = [E(kind, None, [a], T.BOOL) for a in row.args]
    if not tests:
        return const(not negate, T.BOOL)
    out = tests[0]
    for t in tests[1:]:
        out = E("and", None, [out, t], T.BOOL)
    return out
