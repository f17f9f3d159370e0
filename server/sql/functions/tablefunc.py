"""tablefunc's `crosstab(source_sql)` and `crosstab(source_sql, category_sql)`: pivot tables,
as PostgreSQL 15's contrib module makes them (CREATE EXTENSION tablefunc).

Both return `record`: the column definition list of the FROM item gives the row
(`AS ct(row_name text, a int, b int)`; 42601 without one, `plan.coldeflist`). The
source query runs when the call does, through the session (`FunctionContext.query`),
as tablefunc runs it through SPI.

- `crosstab(sql)`: the source gives (row_name, category, value) ordered by row_name;
  each run of one row_name makes a row, its values filling the category columns left
  to right in the order they come (the category itself is not read), extra ones
  dropped. The row_name's and values' types must be the columns' (42804, 42601).
- `crosstab(sql, categories_sql)`: the categories query lists one category per output
  column, in order; a source row (row_name, extra columns..., category, value) puts
  its value under its category's column; the extra columns are the first row's of
  its row_name. Values reach the columns through their text, as tablefunc's
  BuildTupleFromCStrings does.

Two NULL row_names are the same row_name, as in tablefunc. A source with no rows gives
no rows, before any check (tablefunc returns early).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ...errors import DatatypeMismatch, InvalidParameterValue, SQLError
from ...pgtypes import oids as T
from ..expr.bound import E
from ..expr.casts import cast_function, to_text
from .registry import FunctionDef

EXTENSION = "tablefunc"
NAMES = frozenset({"crosstab"})

Fields = tuple[tuple[str, int], ...]


def _incompatible() -> SQLError:
    return SQLError("return and sql tuple descriptions are incompatible", sqlstate="42601")


def _reader(source: int, target: int) -> Callable[[Any], Any]:
    """A source value as a column of type `target` (through its text, as tablefunc)."""
    if source == target:
        return lambda v: v
    parse = cast_function(T.TEXT, target)

    def conv(v: Any) -> Any:
        if v is None:
            return None
        text = to_text(v, source)
        return parse(text) if parse is not None else text
    return conv


def crosstab(ctx: Any, sql: str | None, defs: Fields) -> Iterator[tuple[Any, ...]]:
    """`crosstab(text)`: see the module docstring."""
    if sql is None:
        return
    rows, cols = ctx.query(sql)
    if not rows:
        return
    if len(cols) != 3:
        raise InvalidParameterValue("invalid source data SQL statement",
                                    detail="The provided SQL must return 3 columns: rowid, "
                                           "category, and values.")
    if cols[0].type_oid != defs[0][1]:
        raise DatatypeMismatch("invalid return type", detail="SQL rowid datatype does not "
                                                             "match return rowid datatype.")
    if len(defs) < 2 or any(t != cols[2].type_oid for _, t in defs[1:]):
        raise _incompatible()
    width = len(defs) - 1
    i = 0
    while i < len(rows):
        rowid = rows[i][0]
        values: list[Any] = [None] * width
        n = 0
        while i < len(rows) and rows[i][0] == rowid:
            if n < width:
                values[n] = rows[i][2]
            n += 1
            i += 1
        yield (rowid, *values)


def crosstab_categories(ctx: Any, sql: str | None, categories: str | None,
                        defs: Fields) -> Iterator[tuple[Any, ...]]:
    """`crosstab(text, text)`: see the module docstring."""
    if sql is None or categories is None:
        return
    cats, ccols = ctx.query(categories)
    if len(ccols) != 1:
        raise SQLError('provided "categories" SQL must return 1 column of at least one row',
                       sqlstate="42601")
    column = {to_text(c[0], ccols[0].type_oid): k for k, c in enumerate(cats)}
    rows, cols = ctx.query(sql)
    extras = len(cols) - 3
    if extras < 0:
        raise InvalidParameterValue("invalid source data SQL statement",
                                    detail="The provided SQL must return 3  columns; rowid, "
                                           "category, and values.")
    width = 1 + extras + len(column)
    if len(defs) != width:
        raise SQLError("invalid return type", sqlstate="42601",
                       detail=f"Query-specified return tuple has {len(defs)} columns but "
                              f"crosstab returns {width}.")
    head = [_reader(c.type_oid, t) for c, (_, t) in zip(cols[:1 + extras], defs, strict=False)]
    value = [_reader(cols[-1].type_oid, t) for _, t in defs[1 + extras:]]
    i = 0
    while i < len(rows):
        first = rows[i]
        out: list[Any] = [f(v) for f, v in zip(head, first[:1 + extras], strict=True)]
        out += [None] * len(column)
        while i < len(rows) and rows[i][0] == first[0]:
            cat = rows[i][-2]
            k = column.get(to_text(cat, cols[-2].type_oid)) if cat is not None else None
            if k is not None:
                out[1 + extras + k] = value[k](rows[i][-1])
            i += 1
        yield tuple(out)


def crosstab_call(args: list[E], defs: Fields) -> E | None:
    """The bound `FROM crosstab(...) AS ct(...)` (None: not one of tablefunc's forms)."""
    if len(args) not in (1, 2) or any(a.type not in (T.TEXT, T.UNKNOWN, T.VARCHAR)
                                      for a in args):
        return None
    if len(args) == 1:
        def one(ctx: Any, sql: Any) -> Iterator[tuple[Any, ...]]:
            return crosstab(ctx, sql, defs)
        impl: Callable[..., Any] = one
    else:
        def two(ctx: Any, sql: Any, categories: Any) -> Iterator[tuple[Any, ...]]:
            return crosstab_categories(ctx, sql, categories, defs)
        impl = two
    fd = FunctionDef("crosstab", impl, tuple(T.TEXT for _ in args), T.RECORD, strict=False,
                     volatile=True, needs_context=True, set_returning=True, out_columns=defs)
    return E("srf", fd, args, T.RECORD, -1, "crosstab", defs, 0)
