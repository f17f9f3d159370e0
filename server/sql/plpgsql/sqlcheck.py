"""CREATE FUNCTION's check of a SQL-language body (PostgreSQL's fmgr_sql_validator).

With check_function_bodies on (the default; pg_dump turns it off), PostgreSQL analyses
each statement of a SQL function's body at CREATE, so a missing column is 42703 then, not
at the first call, and checks the final statement against the declared result
(check_sql_fn_retval): it must return rows (a SELECT, or INSERT / UPDATE / DELETE ...
RETURNING), one column for a scalar result, of a type the result takes by an implicit or
assignment cast, else 42P13 "return type mismatch" with a DETAIL saying which. An error
without a cursor position gets the CONTEXT `SQL function "f"`. Bodies with polymorphic
arguments are only parsed, as PostgreSQL's. Utility statements are not analysed here (PostgreSQL
looks at them when they run), so a SELECT of the table a CREATE TABLE before it makes is
42P01 at CREATE, as in PostgreSQL.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...errors import SQLError
from ...pgtypes import oids as T
from ..catalog.model import Function
from ..expr.commontype import assignable
from ..expr.types import type_name
from ..parse import split_statements
from .interp import Interp, Var

if TYPE_CHECKING:
    from ..session import SQLSession

_PLANNED = re.compile(r"[\s(]*(?:SELECT|INSERT|UPDATE|DELETE|WITH|VALUES|TABLE)\b", re.I)
_RETURNS_ROWS = "Function's final statement must be SELECT or INSERT/UPDATE/DELETE RETURNING."


def _unused(*_: Any) -> Any:  # pragma: no cover - the checker analyses through the router
    raise AssertionError("not called")


def check_sql_body(s: SQLSession, fn: Function) -> None:
    """Raises PostgreSQL's CREATE-time errors of `fn`'s SQL body (see above)."""
    if (s.get_setting("check_function_bodies") or "on") == "off":
        return
    if any(type_name(t).startswith("any") for t in fn.arg_types):
        return  # NB: polymorphic: PostgreSQL only parses the body
    interp = Interp(s, _unused)
    interp.options = {"variable_conflict": "use_column"}
    interp.routine = fn.name
    scope = interp.scopes[-1]
    for i, (name, oid) in enumerate(zip(fn.arg_names, fn.arg_types, strict=True)):
        var = Var(None, oid)
        if name:
            scope[name] = var
        scope[f"${i + 1}"] = var
    body = "SELECT " + fn.body[len("RETURN "):] if fn.atomic and fn.body.startswith("RETURN ") \
        else fn.body
    last = None
    try:
        for text in split_statements(body):
            if not _PLANNED.match(text):  # NB: a utility statement is analysed as it runs
                last = None
                continue
            last = interp.analyse_only(text)
    except SQLError as e:
        if e.position:
            e.position = None  # NB: PostgreSQL points into the CREATE statement instead
        elif not e.where:
            e.where = f'SQL function "{fn.name}"'
        raise
    if last is None or fn.kind != "f" or fn.returns == T.VOID or fn.out_types \
            or fn.returns == T.RECORD or fn.returns >= 16384:
        return
    cols = last.columns or []
    detail = None
    if not cols:
        detail = _RETURNS_ROWS
    elif len(cols) != 1:
        detail = "Final statement must return exactly one column."
    elif not assignable(cols[0].type_oid, fn.returns):
        detail = f"Actual return type is {type_name(cols[0].type_oid)}."
    if detail is not None:
        raise SQLError(f"return type mismatch in function declared to return "
                       f"{type_name(fn.returns)}", sqlstate="42P13", detail=detail,
                       where=f'SQL function "{fn.name}"')
