"""What pg_prepared_statements lists: Parse-level and SQL-level (PREPARE) statements.

pgwire keeps the statements a client named in Parse; the session keeps the ones
PREPARE made (`prepared_sql`, plus their `Prepared` record in `prepared_meta`).
PostgreSQL lists both in one view, so the session asks pgwire for its own
through the callable `Session.watch_statements` registers.

The plan counters follow PostgreSQL's plancache.c choice: a statement without
parameters always runs its generic plan; one with parameters runs five custom
plans and then the generic one (PostgreSQL compares costs at that point; for
the plans Cumulo builds the generic plan is never dearer, so it is chosen).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from ..errors import InvalidSQLStatementName, SQLError, SyntaxError_
from ..pgwire.backend import Prepared, Result
from .context import ParamTypes
from .expr.casts import cast_function
from .parse import parse_sql
from .plan.compiler import COMPILER
from .stmt import Stmt

CUSTOM_PLANS_FIRST = 5  # plancache.c: custom plans tried before the generic one
# Errors of evaluating a function or operator, which Cumulo meets when it folds constants at
# analysis but PostgreSQL only when it plans, at EXECUTE (`prepare p as select 1/0` is
# accepted). Literal input errors (22P02 `'x'::int`, 22007, 22008, a literal's 22003 `value
# "1e39" is out of range for type real`) are PostgreSQL's parse analysis: PREPARE fails.
_EVALUATION_STATES = frozenset({"22012", "22023", "2201E", "2201F", "2202E", "22011", "2201B",
                                "2201W", "2201X", "22016"})
_ARITHMETIC_RANGE = frozenset({"integer out of range", "smallint out of range",
                               "bigint out of range"})


def raised_at_execute(err: SQLError) -> bool:
    """True for an error PostgreSQL raises at EXECUTE rather than at PREPARE.

    >>> raised_at_execute(SQLError("division by zero", sqlstate="22012"))
    True
    >>> raised_at_execute(SQLError('invalid input syntax for type integer: "x"', sqlstate="22P02"))
    False
    """
    return err.sqlstate in _EVALUATION_STATES or (
        err.sqlstate == "22003" and err.message in _ARITHMETIC_RANGE)


def deferred(query: str, param_oids: list[int]) -> Stmt:
    """The statement PREPARE keeps when analysing it raised at `raised_at_execute`: never
    valid (version -1), so EXECUTE analyses it again (`SQLSession.revalidate`) and raises
    then, as PostgreSQL does, or runs it if what failed has changed since."""
    def never(s: Any, p: list[Any]) -> Result:
        raise AssertionError("a deferred PREPARE is re-analysed before it runs")

    return Stmt(query, "query", never, None, list(param_oids), -1, tag="SELECT")


def bind_prepared(s: Any, name: str, args: str | None) -> tuple[Stmt, list[Any]]:
    """The statement PREPARE named `name` (re-analysed if stale) and the values of EXECUTE's
    argument list `args` (SQL text, each cast to its parameter's type), counting the
    execution: EXECUTE and EXPLAIN EXECUTE both plan it, as PostgreSQL's GetCachedPlan."""
    stmt = s.prepared_sql.get(name)
    if stmt is None:
        raise InvalidSQLStatementName(f'prepared statement "{name}" does not exist')
    stmt = s.prepared_sql[name] = s.revalidate(stmt)
    values: list[Any] = []
    sel = parse_sql(f"SELECT {args}") if args and args.strip() else None
    given = len(sel.expressions) if sel is not None else 0
    if given != len(stmt.param_oids):
        raise SyntaxError_(f'wrong number of parameters for prepared statement "{name}"',
                           detail=f"Expected {len(stmt.param_oids)} parameters but got {given}.")
    if sel is not None:
        params = ParamTypes()
        ctx = s.exec_context([])
        for i, e in enumerate(sel.expressions):
            want = stmt.param_oids[i] if i < len(stmt.param_oids) else 0
            c = COMPILER.compile_scalar(e, [], s.catalog(), params, s.search_path(), want)
            v = c.fn((), ctx)
            if want and c.type_oid != want and v is not None:
                conv = cast_function(c.type_oid, want)
                v = conv(v) if conv else v
            values.append(v)
    s.prepared_info.executed(name)
    return stmt, values


def protocol_view(s: Any, name: str) -> Prepared | None:
    """PREPARE's statement `name` as a protocol Describe, Bind and Execute take it (None if
    PREPARE made none): PostgreSQL keeps SQL-level and protocol-level prepared statements in
    one namespace, so a client may Describe what PREPARE made. Re-analysed if stale, as
    EXECUTE does; its executions count in pg_prepared_statements' row, which it is."""
    stmt = s.prepared_sql.get(name)
    if stmt is None:
        return None
    stmt = s.prepared_sql[name] = s.revalidate(stmt)
    p: Prepared = s.prepared_info.meta[name]
    p.param_oids, p.columns, p.handle = list(stmt.param_oids), stmt.columns, stmt
    return p


def custom_plan_next(s: Any, name: str) -> bool:
    """Whether the next execution of PREPARE's `name` plans for its values (a custom plan,
    EXPLAIN showing them as constants) rather than generically (`$1`): plancache.c's
    choice under plan_cache_mode, as `plans` counts it."""
    p = s.prepared_info.meta.get(name)
    mode = s.settings.values.get("plan_cache_mode", "auto")
    if p is None or not p.param_oids or mode == "force_generic_plan":
        return False
    return mode == "force_custom_plan" or plans(p)[1] < CUSTOM_PLANS_FIRST


def now() -> dt.datetime:
    """prepare_time: the time the statement was prepared (PostgreSQL's statement start)."""
    return dt.datetime.now(dt.UTC)


def plans(p: Prepared) -> tuple[int, int]:
    """pg_prepared_statements' (generic_plans, custom_plans) of a statement that ran
    `p.executions` times: plancache.c's choice under plan_cache_mode = auto, custom plans
    for the first CUSTOM_PLANS_FIRST runs of a statement with parameters, then the generic
    one. Derived, so that an execution costs a counter's increment (each Execute's).

    >>> p = Prepared("select $1", [23], None, executions=7)
    >>> plans(p), plans(Prepared("select $1", [23], None, executions=3))
    ((2, 5), (0, 3))
    >>> plans(Prepared("select 1", [], None, executions=1))
    (1, 0)
    """
    n = p.executions
    custom = min(n, CUSTOM_PLANS_FIRST) if p.param_oids else 0
    return n - custom, custom


class PreparedStatements:
    """The session's view of every prepared statement, SQL-level and protocol-level."""

    def __init__(self) -> None:
        self.meta: dict[str, Prepared] = {}  # PREPARE name -> its text, time and counters
        self._protocol: Callable[[], list[tuple[str, Prepared]]] | None = None
        self._drop: Callable[[str | None], bool] | None = None

    def watch(self, named: Callable[[], list[tuple[str, Prepared]]],
              drop: Callable[[str | None], bool]) -> None:
        self._protocol, self._drop = named, drop

    def has_protocol(self, name: str) -> bool:
        """A named Parse statement of that name exists (PREPARE of it is 42P05, as in PG)."""
        return self._protocol is not None and any(n == name for n, _ in self._protocol())

    def drop_protocol(self, name: str | None) -> bool:
        """DEALLOCATE name / ALL (None) also drops Parse statements, as in PostgreSQL."""
        return self._drop is not None and self._drop(name)

    def prepared(self, name: str, sql: str, param_oids: list[int]) -> None:
        """Records a PREPARE (the full statement text, as PostgreSQL shows it)."""
        self.meta[name] = Prepared(sql, list(param_oids), None, None, prepared_at=now())

    def executed(self, name: str) -> None:
        p = self.meta.get(name)
        if p is not None:
            p.executions += 1

    def rows(self, sql_names: Any) -> list[tuple[str, Prepared, bool, int, int]]:
        """(name, Prepared, from_sql, generic plans, custom plans) for every live statement;
        `sql_names` are PREPARE's."""
        out = [(n, p, True) for n in sql_names if (p := self.meta.get(n)) is not None]
        if self._protocol is not None:
            out += [(n, p, False) for n, p in self._protocol()]
        return [(n, p, from_sql, *plans(p)) for n, p, from_sql in out]
