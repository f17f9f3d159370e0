"""Runs a parsed PL/pgSQL block against a session: variables, control flow, SQL, exceptions.

Every expression and statement goes to the SQL engine as PostgreSQL's PL/pgSQL
sends it: the text with each variable reference replaced by a parameter (`$n`,
typed as the variable), analysed once per distinct text and variable types
(`_cache`) and run in the session's transaction. A block with an EXCEPTION
clause runs under a savepoint of the transaction: an error rolls its writes
back and runs the first handler whose condition matches, with SQLSTATE and
SQLERRM set. RAISE NOTICE/WARNING/INFO go to the client as notices; RAISE
EXCEPTION is an error (P0001 unless ERRCODE says otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from itertools import count
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from ...errors import (
    FeatureNotSupported,
    QueryCanceled,
    SQLError,
    SyntaxError_,
)
from ...pgtypes import oids as T
from ...pgtypes.records import Record
from ...txn.api import RetryStatement
from ..expr.casts import to_text
from ..expr.types import datatype_oid, type_name
from ..parse import parse_sql
from ..privileges.statements import checker
from ..stmt import Analyse, AnalyseTree
from .assigncast import coerce
from .conflicts import AmbiguousColumn, column_in_scope
from .parser import Block, Decl, Stmt

if TYPE_CHECKING:
    from ..session import SQLSession

_LITERAL = re.compile(r"'(?:[^']|'')*'")  # NB: an untyped literal: typed by its target
FIRST_USER_OID = 16384  # NB: domains, enums, composites: converted by their CAST

# Condition names a handler may name (PostgreSQL's errcodes, the common ones)
CONDITIONS = {
    "unique_violation": "23505", "foreign_key_violation": "23503",
    "not_null_violation": "23502", "check_violation": "23514", "division_by_zero": "22012",
    "undefined_table": "42P01", "undefined_column": "42703", "undefined_function": "42883",
    "undefined_object": "42704", "duplicate_table": "42P07", "duplicate_object": "42710",
    "duplicate_column": "42701", "duplicate_function": "42723", "raise_exception": "P0001",
    "no_data_found": "P0002", "too_many_rows": "P0003", "assert_failure": "P0004",
    "invalid_text_representation": "22P02", "numeric_value_out_of_range": "22003",
    "serialization_failure": "40001", "deadlock_detected": "40P01",
    "lock_not_available": "55P03", "insufficient_privilege": "42501",
    "feature_not_supported": "0A000", "invalid_parameter_value": "22023",
    "string_data_right_truncation": "22001", "datetime_field_overflow": "22008",
    "syntax_error": "42601", "data_exception": "22000", "integrity_constraint_violation": "23000",
    "object_in_use": "55006", "invalid_schema_name": "3F000", "duplicate_schema": "42P06",
    "query_canceled": "57014",
}


# How PostgreSQL's CONTEXT names each kind of statement (`PL/pgSQL function f() line 3 at IF`)
_PLACES = {
    "assign": "assignment", "if": "IF", "loop": "LOOP", "while": "WHILE",
    "for_range": "FOR with integer loop variable", "for_query": "FOR over SELECT rows",
    "exit": "EXIT", "continue": "CONTINUE", "return": "RETURN", "return_next": "RETURN NEXT",
    "return_query": "RETURN QUERY", "perform": "PERFORM", "raise": "RAISE",
    "diagnostics": "GET DIAGNOSTICS", "execute": "EXECUTE", "sql": "SQL statement",
    "null": "NULL", "commit": "COMMIT", "rollback": "ROLLBACK", "call": "CALL",
    "txn_command": "SQL statement",
}

# How a CALL statement runs (`procedures.call_from_plpgsql`, registered when it is imported:
# it makes an `Interp` of its own for the procedure's body)
_CALL: list[Callable[[Interp, str], None]] = []


def register_call(run: Callable[[Interp, str], None]) -> None:
    """Sets how CALL statements run (`procedures`, which sits above this module)."""
    _CALL[:] = [run]


# The statement router (`statement.analyse`, registered when it is imported). PL/pgSQL
# binds variables only in the statements PostgreSQL plans (SELECT, INSERT, UPDATE, DELETE
# ...); any other (CREATE TYPE, COMMENT ON, SET, LISTEN ...) runs as written, through it.
_ROUTER: list[Analyse] = []
_PLANNED = re.compile(r"[\s(]*(?:SELECT|INSERT|UPDATE|DELETE|WITH|VALUES|TABLE|MERGE)\b", re.I)


def register_router(analyse: Analyse) -> None:
    """Sets the router of statements run as written (`statement`, above this module)."""
    _ROUTER[:] = [analyse]


_MODIFIES = re.compile(r"(?:INSERT|UPDATE|DELETE|MERGE)\b")  # a command tag's verb

# What PL/pgSQL refuses to run as SQL: transaction commands other than COMMIT / ROLLBACK
_TXN_COMMAND = re.compile(r"\s*(?:BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|"
                          r"PREPARE\s+TRANSACTION)\b", re.I)


_NEEDS = object()  # NB: `_cache` key head of a query's privilege check (run_sql)


def compile_options(s: SQLSession, block: Block) -> Block:
    """Completes a body's compile options from the session's plpgsql.* settings, as
    PostgreSQL's compiler does (a function compiled once keeps them)."""
    for name in ("print_strict_params", "variable_conflict"):
        if name not in block.options:
            block.options[name] = s.get_setting(f"plpgsql.{name}") or (
                "off" if name == "print_strict_params" else "error")
    return block


def top_level_nonatomic(s: SQLSession) -> bool:
    """Whether a CALL or DO may end the transaction (COMMIT / ROLLBACK in its body): outside a
    transaction block and alone in its Query message, as PostgreSQL's; a nested CALL's
    caller decides instead (`Interp.nonatomic`)."""
    return not s.in_block and not s.implicit_block


class Frame:
    """One running routine, as the CONTEXT of a NOTICE raised below it names it."""

    def context_lines(self) -> list[str]:  # pragma: no cover - each kind says its own
        raise NotImplementedError


# The routines running in this session, innermost last: a RAISE NOTICE's CONTEXT lists them
# all (PostgreSQL's error_context_stack); an error gets its lines as it passes each instead
_FRAMES: ContextVar[tuple[Frame, ...]] = ContextVar("plpgsql_frames", default=())


@contextmanager
def framed(frame: Frame) -> Iterator[None]:
    """Runs the block with `frame` innermost on the routine stack."""
    token = _FRAMES.set((*_FRAMES.get(), frame))
    try:
        yield
    finally:
        _FRAMES.reset(token)


def context_of_frames() -> str:
    """The CONTEXT of a notice raised now: each running routine's lines, innermost first."""
    return "\n".join(line for f in reversed(_FRAMES.get()) for line in f.context_lines())


class OwnError(SQLError):
    """An error of the interpreter's own about a statement (not one the statement raised):
    its CONTEXT names the PL/pgSQL line, not the SQL statement."""


class _Exit(Exception):
    def __init__(self, label: str | None) -> None:
        self.label = label


class _Continue(_Exit):
    pass


class _Return(Exception):
    def __init__(self, value: Any, type_oid: int = 0) -> None:
        self.value = value
        self.type = type_oid  # the expression's type (0: a record, or no value)


@dataclass
class Var:
    value: Any
    type: int
    typmod: int = -1
    type_text: str = ""
    fields: dict[str, tuple[Any, int]] | None = None  # a record's fields
    constant: bool = False
    # the order of declaration (PostgreSQL's datum number): print_strict_params lists by it
    dno: int = field(default_factory=count().__next__)


class Interp(Frame):
    """One execution of a block (a DO statement or a function call)."""

    def __init__(self, s: SQLSession, analyse_tree: AnalyseTree) -> None:
        self.s = s
        self.analyse_tree = analyse_tree  # NB: `statement`'s: the interpreter runs statements
        self.scopes: list[dict[str, Var]] = [{"found": Var(False, T.BOOL)}]
        self.row_count = 0
        self._cache: dict[tuple[Any, ...], Any] = {}
        # a SETOF / TABLE function's rows so far (RETURN NEXT, RETURN QUERY); None: not one
        self.results: list[Any] | None = None
        self.out_names: tuple[str, ...] = ()  # its OUT / TABLE columns (RETURN NEXT;)
        self.out_types: tuple[int, ...] = ()
        self.name = "inline_code_block"  # as the error CONTEXT names it: f(integer), or a DO
        self.routine = ""  # the routine's name, which qualifies its parameters (f.x)
        self._placed: list[SQLError] = []  # the errors whose CONTEXT line this run added
        self.nonatomic = False  # a CALL's or DO's body that may COMMIT / ROLLBACK
        self.subxacts = 0  # the blocks with EXCEPTION clauses being run (savepoints)
        self.line = 0  # the line of the statement running (a nested CALL's CONTEXT)
        self.current: Stmt | None = None  # the statement running (a NOTICE's CONTEXT)
        self._framed = False  # on the routine stack (`_FRAMES`) while its body runs
        self.options: dict[str, str] = {}  # the outermost block's compile options
        self.analysing = False  # the statement running failed before it ran (its analysis)

    def share_cache(self, cache: dict[tuple[Any, ...], Any]) -> None:
        """Analysed statements kept across calls of one function (a trigger runs per row)."""
        self._cache = cache

    # -- variables ---------------------------------------------------------------

    def lookup(self, name: str) -> Var | None:
        for scope in reversed(self.scopes):
            v = scope.get(name)
            if v is not None:
                return v
        return None

    def declare(self, d: Decl) -> None:
        scope = self.scopes[-1]
        tt = " ".join(d.type.split()).lower()
        if tt in ("record",) or tt.endswith("%rowtype"):
            scope[d.name] = Var(None, T.RECORD, type_text="record", fields={})
            return
        if tt == "alias":
            target = self.lookup((d.default or "").strip().lower())
            if target is None:
                raise SyntaxError_(f'variable "{d.default}" does not exist')
            scope[d.name] = target
            return
        typ = self._cache.get(("type", d.type))  # NB: kept with the function's statements
        if typ is None:
            typ = self._cache[("type", d.type)] = _type_of(d.type)
        oid, typmod = typ
        v = Var(None, oid, typmod, d.type)
        scope[d.name] = v
        if d.default is not None:
            v.value = self._domain_checked(self._assigned(d.default, v), v)
        if d.not_null and v.value is None:
            raise SQLError(f'null value cannot be assigned to variable "{d.name}" declared '
                           "NOT NULL", sqlstate="22004")
        v.constant = d.constant

    def assign(self, name: str, value: Any, oid: int,
               fields: dict[str, tuple[Any, int]] | None = None) -> None:
        base, _, field_name = name.partition(".")
        v = self.lookup(base)
        if v is None:
            raise SyntaxError_(f'"{name}" is not a known variable')
        if v.constant:
            raise SQLError(f'variable "{name}" is declared CONSTANT', sqlstate="22005")
        if field_name and v.fields is not None:
            if v.fields and field_name not in v.fields:
                raise SQLError(f'record "{base}" has no field "{field_name}"', sqlstate="42703")
            v.fields[field_name] = (value, oid)
        elif v.type == T.RECORD:
            v.fields = dict(fields or {})
            v.value = value
        elif v.fields is None and (oid != v.type or v.typmod >= 0) and value is not None \
                and v.type < FIRST_USER_OID:
            try:  # NB: SELECT INTO, FOR, CALL ...: after the statement, so not its error
                v.value = coerce(value, oid, v.type, v.typmod)
            except SQLError as e:
                raise OwnError(e.message, sqlstate=e.sqlstate, detail=e.detail,
                               hint=e.hint) from None
        else:
            v.value = value

    # -- SQL -----------------------------------------------------------------------

    def _bind(self, sql: str, given: int = 0
              ) -> tuple[str, exp.Expression | None, list[Any], list[int]]:
        """Parses `sql` and replaces variable references by parameters (after the `given`
        ones; without any, `$n` is the function's n-th argument). Returns the bound text,
        its tree (None when the binding came from the cache), the values and their types.

        Which references became which parameters is kept (`_cache`, shared by the calls of
        one function): a trigger runs its body per row, and parsing is the cost."""
        ck = ("bind", sql, given)
        hit = self._cache.get(ck)
        if hit is not None:
            got = self._values(hit[1])
            if got is not None:
                return hit[0], None, got[0], got[1]
        tree = parse_sql(sql)
        refs: list[tuple[str, ...]] = []
        if not given:
            renumber: dict[str, int] = {}
            for p in list(tree.find_all(exp.Parameter)):
                n = p.this.name if isinstance(p.this, exp.Literal) else ""
                arg = self.lookup(f"${n}") if n else None
                if arg is None:
                    continue
                if n not in renumber:
                    refs.append(("var", f"${n}"))
                    renumber[n] = len(refs)
                p.replace(exp.Parameter(this=exp.Literal.number(renumber[n])))
        base = max(_max_param(tree), given, len(refs))
        if self.lookup("tg_argv") is not None:  # NB: TG_ARGV counts from 0, arrays from 1
            for br in list(tree.find_all(exp.Bracket)):
                if isinstance(br.this, exp.Column) and br.this.name.lower() == "tg_argv" \
                        and len(br.expressions) == 1:
                    br.expressions[0].replace(exp.Add(this=br.expressions[0].copy(),
                                                      expression=exp.Literal.number(1)))

        def param(ref: tuple[str, ...]) -> exp.Expression:
            nonlocal base
            refs.append(ref)
            base += 1
            return exp.Parameter(this=exp.Literal.number(base))

        for col in list(tree.find_all(exp.Column)):
            if _is_set_target(col):
                continue
            if isinstance(col.this, exp.Star) and col.table:  # NEW.*: the record's fields
                rec = self.lookup(col.table.lower())
                if rec is not None and rec.fields is not None:
                    items = [param(("field", col.table.lower(), f)) for f in rec.fields]
                    parent = col.parent
                    if isinstance(parent, exp.Anonymous) and parent.name.lower() == "row" \
                            and parent.expressions == [col]:  # NB: ROW(NEW.*): its fields
                        parent.set("expressions", items)
                    else:
                        col.replace(exp.Tuple(expressions=items))
                continue
            name = col.name if col.this.args.get("quoted") else col.name.lower()
            qual = col.table.lower() if col.table else ""
            if qual and not col.args.get("db"):
                rec = self.lookup(qual)
                if rec is None and qual == self.routine and name in self.scopes[0] \
                        and self.scopes[0][name].fields is None \
                        and not any(t.alias_or_name == qual for t in tree.find_all(exp.Table)):
                    col.replace(param(("var", name)))  # NB: f.x: the routine's parameter x
                elif rec is not None and rec.fields is not None and name in rec.fields:
                    col.replace(param(("field", qual, name)))
                elif rec is not None and rec.fields and qual in ("new", "old"):
                    raise SQLError(f'record "{qual}" has no field "{name}"', sqlstate="42703")
            elif not qual:
                v = self.lookup(name)
                if v is not None and self._column_wins(col, name):
                    continue
                if v is not None and v.fields is None:
                    col.replace(param(("var", name)))
                elif v is not None and v.type == T.RECORD and v.fields:  # NB: NEW as a value
                    col.replace(param(("rec", name)))
        got = self._values(refs)
        assert got is not None  # NB: every reference was just looked up
        text = tree.sql("postgres")
        self._cache[ck] = (text, refs)
        return text, tree, got[0], got[1]

    def _column_wins(self, col: exp.Column, name: str) -> bool:
        """`#variable_conflict` for a name both a variable and a visible column have: the
        column under use_column, 42702 under error, the variable under use_variable."""
        mode = self.options.get("variable_conflict", "use_column")  # NB: a SQL function's
        if mode == "use_variable" or not column_in_scope(col, name, self.s.catalog(),
                                                         self.s.search_path()):
            return False
        if mode == "error":
            raise AmbiguousColumn(name)
        return True

    def _values(self, refs: list[tuple[str, ...]]) -> tuple[list[Any], list[int]] | None:
        """The current values and types of bound references (None: one is gone)."""
        values: list[Any] = []
        oids: list[int] = []
        for ref in refs:
            v = self.lookup(ref[1])
            if v is None:
                return None
            if ref[0] == "var":
                if v.fields is not None:
                    return None
                values.append(v.value)
                oids.append(v.type if v.type != T.RECORD else 0)
            elif ref[0] == "field":
                if v.fields is None or ref[2] not in v.fields:
                    return None
                value, oid = v.fields[ref[2]]
                values.append(value)
                oids.append(oid if oid != T.RECORD else 0)
            else:  # "rec": the whole record, NULL while unassigned
                fields = list((v.fields or {}).values())
                values.append(None if v.value is None else Record(
                    tuple(f[0] for f in fields), tuple(f[1] for f in fields)))
                oids.append(T.RECORD)
        return values, oids

    def run_sql(self, sql: str, extra: list[tuple[Any, int]] | None = None
                ) -> tuple[list[tuple[Any, ...]], list[Any], str]:
        """Runs one statement; returns (rows, columns, command tag)."""
        if not extra and _ROUTER and not _PLANNED.match(sql):  # NB: DDL, SET ...: as written
            routed = _ROUTER[0](self.s, sql, [])
            if routed.no_block:
                raise SQLError(f"{routed.tag} cannot be executed from a function",
                               sqlstate="25001")
            was, self.s.in_block = self.s.in_block, True  # NB: not top level (SET LOCAL)
            try:
                res = routed.run(self.s, [])
                rows = list(res.rows) if res.rows is not None else []
            finally:
                self.s.in_block = was
            return rows, list(res.columns or []), res.tag
        if self.s.txn is None:  # NB: after a COMMIT, the next statement starts one
            self.s.ensure_txn()
        self.analysing = True  # NB: until it is analysed (an error's CONTEXT says which)
        text, tree, values, oids = self._bind(sql, len(extra or ()))
        if extra:  # EXECUTE ... USING: $1.. are the USING values
            values = [v for v, _ in extra] + values
            oids = [o for _, o in extra] + oids
        key = (text, tuple(oids))
        stmt = self._cache.get(key)
        if stmt is not None:
            self.analysing = False
        else:
            if tree is None:
                tree = parse_sql(text)
            stmt = self._cache[key] = self.analyse_tree(self.s, sql, tree, list(oids))
            self._cache[(_NEEDS, *key)] = checker(tree) if stmt.kind == "query" else None
            self.analysing = False
        if stmt.kind == "query" and stmt.plan is not None:  # NB: not run_plan: no session hooks
            check = self._cache.get((_NEEDS, *key))
            if check is not None:  # NB: as the current user: a SECURITY DEFINER one's owner
                check(self.s)
            rows = [r for b in stmt.plan.execute(self.s.exec_context(values)) for r in b]
            return rows, list(stmt.plan.columns), f"SELECT {len(rows)}"
        res = stmt.run(self.s, values)
        rows = list(res.rows) if res.rows is not None else []
        return rows, list(res.columns or []), res.tag

    def analyse_only(self, sql: str) -> Any:
        """Analyses a statement with the variables bound, without running it (CREATE
        FUNCTION's check of a SQL body); returns its `Stmt`."""
        text, _, _, oids = self._bind(sql)
        return _ROUTER[0](self.s, text, list(oids))

    def eval(self, expr: str, cast: Var | None = None, named: bool = True) -> Any:
        """The value of an expression (cast to a variable's type when given)."""
        text = f"SELECT ({expr})"
        if cast is not None and cast.type_text and cast.type != T.RECORD:
            text = f"SELECT CAST(({expr}) AS {cast.type_text})"
        rows, _, _ = self._expression(text, expr, named)
        return rows[0][0] if rows else None

    def _expression(self, text: str, expr: str, named: bool = True
                    ) -> tuple[list[tuple[Any, ...]], list[Any], str]:
        """Runs an expression's SELECT. An error while it is planned (a constant part
        folded: `1/0`) names it, `SQL expression "1/0"`, as PostgreSQL's SPI does; one
        with a cursor position or raised while it runs does not (`named`: False for an
        assignment, which names itself)."""
        try:
            return self.run_sql(text)
        except SQLError as e:
            if named and self.analysing and not e.where and not e.position \
                    and not isinstance(e, OwnError | SyntaxError_ | AmbiguousColumn):
                e.where = f'SQL expression "{expr}"'
            raise

    def _assigned(self, expr: str, v: Var, named: bool = True) -> Any:
        """The value of `expr` stored into variable `v` (`assigncast`: the assignment cast,
        else I/O conversion); a user type's (a domain's checks) through its CAST."""
        if v.type >= FIRST_USER_OID:
            return self.eval(expr, cast=v, named=named)
        value, oid = self.eval_typed(expr, named)
        return coerce(value, oid, v.type, v.typmod)

    def _domain_checked(self, value: Any, v: Var) -> Any:
        """`value` checked against the domain `v` is declared as (its base type is `v.type`),
        through the domain's CAST of the (already converted) value."""
        if v.type >= FIRST_USER_OID or not _user_type_text(v.type_text):
            return value
        rows, _, _ = self.run_sql(f"SELECT CAST($1 AS {v.type_text})", [(value, v.type)])
        return rows[0][0] if rows else value

    def _constant(self, expr: str) -> bool:
        """Whether an expression evaluated before read no variable (PostgreSQL's planner
        folds it, so its errors name the assignment)."""
        bound = self._cache.get(("bind", f"SELECT ({expr})", 0))
        return bound is not None and not bound[1]

    def eval_typed(self, expr: str, named: bool = True) -> tuple[Any, int]:
        rows, cols, _ = self._expression(f"SELECT ({expr})", expr, named)
        return (rows[0][0] if rows else None), (cols[0].type_oid if cols else T.TEXT)

    def truth(self, expr: str) -> bool:
        return self.eval(expr) is True

    # -- statements ------------------------------------------------------------------

    def context_lines(self) -> list[str]:
        """How a NOTICE raised by what this routine's current statement runs names it."""
        return self._place(self.current, inner=True) if self.current is not None else []

    def _place(self, st: Stmt, inner: bool, own: bool = False) -> list[str]:
        """PostgreSQL's CONTEXT lines for statement `st` (`inner`: below something that
        named itself; `own`: the interpreter's own error, not one of the statement's)."""
        lines = []
        if (st.kind in ("sql", "return_query") or (st.kind == "call" and inner)) \
                and not st.opts.get("execute") and not own:
            lines.append(f'SQL statement "{st.text}"')
        elif st.kind == "perform":
            lines.append(f'SQL statement "SELECT {st.text}"')
        lines.append(f"PL/pgSQL function {self.name} line {st.line} at "
                     f"{_PLACES.get(st.kind, st.kind)}")
        return lines

    def block(self, b: Block) -> None:
        if self._framed:
            self._block(b)
            return
        self._framed = True
        self.options = b.options
        try:
            with framed(self):
                self._block(b)
        finally:
            self._framed = False

    def _block(self, b: Block) -> None:
        self.scopes.append({})
        try:
            try:
                for d in b.decls:
                    self.declare(d)
            except SQLError as e:
                line = f"PL/pgSQL function {self.name} line {b.line} during statement block " \
                    "local variable initialization"
                if not any(p is e for p in self._placed):  # NB: an inner block's already named
                    self._placed.append(e)
                    e.where = f"{e.where}\n{line}" if e.where else line
                raise
            if not b.handlers:
                self.stmts(b.body)
                return
            txn = self.s.ensure_txn()
            token = txn.savepoint()
            try:
                self._guarded(b.body)
            except SQLError as e:
                if isinstance(e, RetryStatement | QueryCanceled):
                    raise
                handler = next((h for conds, h in b.handlers if _matches(conds, e)), None)
                if handler is None:
                    raise
                txn.rollback_to(token)
                self.scopes.append({"sqlstate": Var(e.sqlstate, T.TEXT),
                                    "sqlerrm": Var(str(e), T.TEXT)})
                try:
                    self.stmts(handler)
                finally:
                    self.scopes.pop()
        finally:
            self.scopes.pop()

    def _guarded(self, body: list[Any]) -> None:
        """A block's statements under its EXCEPTION clause's savepoint (a subtransaction)."""
        self.subxacts += 1
        try:
            self.stmts(body)
        finally:
            self.subxacts -= 1

    def stmts(self, body: list[Any]) -> None:
        for st in body:
            self.stmt(st)

    def stmt(self, st: Any) -> None:
        if isinstance(st, Block):
            self.block(st)
            return
        self.line = st.line
        self.current = st
        try:
            self._stmt(st)
        except SQLError as e:
            if not any(p is e for p in self._placed):  # NB: the innermost statement's place
                self._placed.append(e)
                lines = [e.where] if e.where else []
                lines += self._place(st, bool(e.where), isinstance(e, OwnError | AmbiguousColumn))
                e.where = "\n".join(lines)
            raise

    def _stmt(self, st: Any) -> None:
        k = st.kind
        if k == "assign":
            name = st.target[0]
            v = self.lookup(name.partition(".")[0])
            if v is not None and v.type != T.RECORD and "." not in name:
                try:
                    value = self._assigned(st.text, v, named=False)
                except SQLError as e:  # NB: folded while planning when no variable is read
                    if not e.where and (self._constant(st.text) or self.analysing) and (
                            not _LITERAL.fullmatch(st.text.strip())  # NB: read by its input
                            or (v.typmod >= 0 and e.sqlstate in ("22001", "22003"))):
                        e.where = 'PL/pgSQL assignment "' + st.opts.get(
                            "source", f"{name} := {st.text}") + '"'
                    raise
                self.assign(name, self._domain_checked(value, v), v.type)
            elif "." in name and v is not None and v.fields is not None and \
                    v.fields.get(name.partition(".")[2], (None, 0))[1] not in (0, T.RECORD):
                oid = v.fields[name.partition(".")[2]][1]  # NB: NEW.a := ...: a's type
                self.assign(name, self.eval(st.text, cast=Var(None, oid, type_text=type_name(
                    oid))), oid)
            else:
                val, oid = self.eval_typed(st.text)
                self.assign(name, val, oid)
        elif k == "if":
            for cond, body in st.branches:
                if cond is None or self.truth(cond):
                    self.stmts(body)
                    break
        elif k in ("loop", "while"):
            while k == "loop" or self.truth(st.text):
                if not self._iteration(st):
                    break
        elif k == "for_range":
            lo, hi, step = (int(self.eval(a)) for a in st.args)
            var = st.target[0]
            self.scopes.append({var: Var(None, T.INT4)})
            try:
                i = hi if st.opts.get("reverse") else lo
                while (i >= lo) if st.opts.get("reverse") else (i <= hi):
                    self.scopes[-1][var].value = i
                    if not self._iteration(st):
                        break
                    i += -step if st.opts.get("reverse") else step
            finally:
                self.scopes.pop()
        elif k == "for_query":
            text = st.text
            extra = None
            if st.opts.get("execute"):
                text = str(self.eval(st.text))
                extra = [self.eval_typed(a) for a in st.args]
            rows, cols, _ = self.run_sql(text, extra)
            self.scopes.append({})
            try:
                for row in rows:
                    self._assign_row(st.target, row, cols, declare=True)
                    if not self._iteration(st):
                        break
            finally:
                self.scopes.pop()
            self._set_found(bool(rows))
        elif k in ("exit", "continue"):
            if not st.text or self.truth(st.text):
                raise (_Exit if k == "exit" else _Continue)(st.target[0] if st.target else None)
        elif k == "return":
            rec = self.record(st.text)
            if rec is not None or not st.text:
                raise _Return(rec)
            raise _Return(*self.eval_typed(st.text))
        elif k == "return_next":
            self._return_next(st.text)
        elif k == "return_query":
            text, extra = st.text, None
            if st.opts.get("execute"):
                text = str(self.eval(st.text))
                extra = [self.eval_typed(a) for a in st.args]
            rows, _, _ = self.run_sql(text, extra)
            out = self._results("RETURN QUERY")
            if self.out_types:
                out.extend(Record(tuple(r), self.out_types) for r in rows)
            else:
                out.extend(r[0] if r else None for r in rows)
            self.row_count = len(rows)
            self._set_found(bool(rows))
        elif k == "null":
            pass
        elif k == "perform":
            rows, _, _ = self.run_sql(f"SELECT {st.text}")
            self._set_found(bool(rows))
        elif k == "raise":
            self._raise(st)
        elif k == "diagnostics":
            if st.text != "row_count":
                raise SQLError(f'unrecognized GET DIAGNOSTICS item "{st.text}"', sqlstate="42601")
            self.assign(st.target[0], self.row_count, T.INT8)
        elif k in ("commit", "rollback"):
            self._end_transaction(k == "commit", st.opts.get("chain", False))
        elif k == "call":
            _CALL[0](self, st.text)
        elif k == "txn_command":
            raise FeatureNotSupported("unsupported transaction command in PL/pgSQL")
        elif k == "execute":
            sql = self.eval(st.text)
            if sql is None:
                raise SQLError("query string argument of EXECUTE is null", sqlstate="22004")
            if _TXN_COMMAND.match(str(sql)):
                raise FeatureNotSupported("EXECUTE of transaction commands is not implemented")
            extra = [self.eval_typed(a) for a in st.args]
            rows, cols, tag = self.run_sql(str(sql), extra)
            if st.target:  # NB: before the assignment, which an error skips
                _check_rows(len(rows), st.opts.get("strict", False), hint=False,
                            detail=lambda: _params_detail(iter(
                                (f"${i}", v, t) for i, (v, t) in enumerate(extra, 1)))
                            if self.options.get("print_strict_params") == "on" else None)
            found = self.scopes[0]["found"].value  # NB: EXECUTE leaves FOUND as it was
            self._after(rows, cols, tag, st.target)
            self._set_found(found)
        elif k == "sql":
            rows, cols, tag = self.run_sql(st.text)
            if cols and not st.target:  # NB: SELECT, SHOW, ... RETURNING without INTO
                raise OwnError("query has no destination for result data", sqlstate="42601",
                               hint="If you want to discard the results of a SELECT, use "
                               "PERFORM instead." if _PLANNED.match(st.text) else None)
            strict = st.opts.get("strict", False)
            if st.target:  # NB: before the assignment, which an error skips
                _check_rows(len(rows), strict, many=bool(_MODIFIES.match(tag)),
                            detail=lambda: self._strict_params(st.text))
            self._after(rows, cols, tag, st.target)
            if st.target and not _MODIFIES.match(tag):  # NB: PG fetches one row and counts it
                self.row_count = min(self.row_count, 1)
        else:  # pragma: no cover - the parser makes no other kinds
            raise SQLError(f"unsupported PL/pgSQL statement {k}", sqlstate="0A000")

    def _end_transaction(self, commit: bool, chain: bool) -> None:
        """COMMIT / ROLLBACK [AND CHAIN] in a non-atomic CALL or DO: ends the session's
        transaction and starts the next (with the same modes when chained)."""
        if not self.nonatomic:
            raise SQLError("invalid transaction termination", sqlstate="2D000")
        if self.subxacts:
            verb = "commit" if commit else "roll back"
            raise SQLError(f"cannot {verb} while a subtransaction is active", sqlstate="2D000")
        s = self.s
        txn = s.txn
        modes = {"isolation": txn.isolation, "read_only": txn.read_only} if chain and txn \
            else {}
        if commit:
            s.commit_txn()
        else:
            s.abort_txn()
        if modes:
            s.txn_modes = modes  # NB: the next statement starts the transaction, as PostgreSQL

    def run_body(self, body: Callable[[], Any]) -> Any:
        """Runs a CALL's or DO's body: a READ COMMITTED retry of the whole statement is
        only safe while the body has not committed, so after a COMMIT it is a 40001."""
        txn = self.s.txn
        try:
            return body()
        except RetryStatement:
            if self.s.txn is not txn:
                raise SQLError("could not serialize access due to concurrent update",
                               sqlstate="40001") from None
            raise

    def record(self, text: str) -> Var | None:
        """The record variable `text` names (RETURN NEW), or None for any other expression."""
        name = text.strip()
        name = name[1:-1] if name.startswith('"') else name.lower()
        v = self.lookup(name) if name else None
        return v if v is not None and (v.fields is not None or v.type == T.RECORD) else None

    def _results(self, what: str) -> list[Any]:
        if self.results is None:
            raise SQLError(f"cannot use {what} in a non-SETOF function", sqlstate="42804")
        return self.results

    def _return_next(self, text: str) -> None:
        out = self._results("RETURN NEXT")
        if not text:  # NB: RETURNS TABLE / OUT parameters: their current values
            vals = [v.value if (v := self.lookup(n)) is not None else None
                    for n in self.out_names]
            out.append(Record(tuple(vals), self.out_types) if len(self.out_types) > 1
                       else vals[0] if vals else None)
            return
        rec = self.record(text)
        if rec is not None:
            out.append(Record(tuple(v for v, _ in (rec.fields or {}).values()), self.out_types))
            return
        value = self.eval(text)
        if self.out_types and isinstance(value, tuple):
            value = Record(tuple(value), self.out_types)
        out.append(value)

    def _iteration(self, st: Stmt) -> bool:
        """Runs a loop body once; False when EXIT left the loop."""
        try:
            self.stmts(st.body)
        except _Continue as c:
            if c.label is not None and c.label != st.label:
                raise
        except _Exit as e:
            if e.label is not None and e.label != st.label:
                raise
            return False
        return True

    def _after(self, rows: list[tuple[Any, ...]], cols: list[Any], tag: str,
               into: list[str]) -> None:
        parts = tag.split()
        self.row_count = int(parts[-1]) if parts and parts[-1].isdigit() else len(rows)
        self._set_found(self.row_count > 0)
        if into:
            self._assign_row(into, rows[0] if rows else None, cols, declare=False)

    def _assign_row(self, targets: list[str], row: tuple[Any, ...] | None, cols: list[Any],
                    declare: bool) -> None:
        if len(targets) == 1:
            v = self.lookup(targets[0])
            if (v is None and declare) or (v is not None and v.type == T.RECORD):
                fields = {c.name: (row[i] if row is not None else None, c.type_oid)
                          for i, c in enumerate(cols)}
                if v is None:
                    self.scopes[-1][targets[0]] = Var(row, T.RECORD, fields=fields)
                else:
                    self.assign(targets[0], row, T.RECORD, fields)
                return
        for i, name in enumerate(targets):
            val = row[i] if row is not None and i < len(row) else None
            oid = cols[i].type_oid if i < len(cols) else T.TEXT
            if declare and self.lookup(name) is None:
                self.scopes[-1][name] = Var(val, oid)
            else:
                self.assign(name, val, oid)

    def _strict_params(self, sql: str) -> str | None:
        """print_strict_params' DETAIL for a statement's INTO STRICT failure: the variables
        it reads, in their order of declaration, when the option is on."""
        if self.options.get("print_strict_params") != "on":
            return None
        bound = self._cache.get(("bind", sql, 0))
        found: dict[int, tuple[str, Var]] = {}
        for ref in bound[1] if bound is not None else ():
            v = self.lookup(ref[1])
            if v is None or ref[0] != "var":
                continue
            name = ref[1]
            if name.startswith("$"):  # NB: a named argument is listed by its name
                name = next((k for sc in self.scopes for k, x in sc.items()
                             if x is v and not k.startswith("$")), name)
            found[v.dno] = (name, v)
        return _params_detail(iter((n, v.value, v.type) for _, (n, v) in sorted(found.items())))

    def _set_found(self, value: bool) -> None:
        self.scopes[0]["found"].value = value

    def _raise(self, st: Stmt) -> None:
        level = st.opts.get("level", "EXCEPTION")
        if st.opts.get("reraise"):
            err = self.lookup("sqlerrm")
            state = self.lookup("sqlstate")
            if err is None or state is None:
                raise SQLError("RAISE without parameters cannot be used outside an exception "
                               "handler", sqlstate="0Z002")
            raise SQLError(str(err.value), sqlstate=str(state.value))
        msg = ""
        if st.text:
            fmt = str(self.eval(st.text))
            vals = [self.eval_typed(a) for a in st.args]
            msg = _format(fmt, vals)
        using = {k: self.eval(v) for k, v in st.opts.get("using", {}).items()}
        cond = st.opts.get("condition") or ""
        code = using.get("ERRCODE") or (CONDITIONS.get(cond, cond) if cond else "P0001")
        code = CONDITIONS.get(str(code), str(code))
        msg = using.get("MESSAGE") or msg or cond or code
        if level == "EXCEPTION":
            raise SQLError(str(msg), sqlstate=code, detail=using.get("DETAIL"),
                           hint=using.get("HINT"))
        if level in ("NOTICE", "WARNING", "INFO"):  # NB: with the CONTEXT PostgreSQL gives them
            self.s.notices.append(SQLError(
                str(msg), severity=level, sqlstate="01000" if level == "WARNING" else "00000",
                detail=using.get("DETAIL"), hint=using.get("HINT"),
                where=context_of_frames()))


def _user_type_text(text: str) -> bool:
    """Whether a declared type names no built-in type (a domain, whose checks apply).

    >>> [_user_type_text(t) for t in ["int", "varchar(3)", "double precision", "posint", "t%TYPE"]]
    [False, False, False, True, False]
    """
    base = re.sub(r"\(.*\)|\[\s*\d*\s*\]", "", text).strip().lower()
    if not base or "%" in base:
        return False
    base = " ".join(base.split())
    return base.split(".")[-1].strip('"') not in T.BY_NAME and base not in _SQL_TYPE_NAMES


# the type names PostgreSQL's grammar spells as SQL keywords
_SQL_TYPE_NAMES = frozenset({
    "int", "integer", "smallint", "bigint", "real", "float", "double precision", "decimal",
    "dec", "boolean", "character", "char", "nchar", "national character", "character varying",
    "bit varying", "timestamp without time zone", "timestamp with time zone",
    "time without time zone", "time with time zone", "serial", "bigserial"})


def _check_rows(n: int, strict: bool, many: bool = False, hint: bool = True,
                detail: Callable[[], str | None] | None = None) -> None:
    """INTO STRICT wants exactly one row; an INSERT/UPDATE/DELETE ... RETURNING INTO
    (`many`) at most one even without STRICT, as PostgreSQL's exec_stmt_execsql does.

    >>> _check_rows(0, False), _check_rows(3, False)
    (None, None)
    >>> _check_rows(0, True)
    Traceback (most recent call last):
    ...
    server.sql.plpgsql.interp.OwnError: query returned no rows
    >>> _check_rows(2, False, many=True)
    Traceback (most recent call last):
    ...
    server.sql.plpgsql.interp.OwnError: query returned more than one row
    """
    if n == 0 and strict:
        raise OwnError("query returned no rows", sqlstate="P0002",
                       detail=detail() if detail is not None else None)
    if n > 1 and (strict or many):
        raise OwnError("query returned more than one row", sqlstate="P0003",
                       detail=detail() if detail is not None else None,
                       hint="Make sure the query returns a single row, or use LIMIT 1."
                       if hint else None)


def _params_detail(params: Iterator[tuple[str, Any, int]]) -> str | None:
    """print_strict_params' DETAIL: each parameter's name and value as its output function
    writes it, quoted (None without parameters).

    >>> _params_detail(iter([("k", 5, T.INT4), ("z", "o'k", T.TEXT), ("n", None, T.INT4)]))
    "parameters: k = '5', z = 'o''k', n = NULL"
    """
    shown = []
    for name, value, oid in params:
        if value is None:
            text = "NULL"
        else:
            out = ("t" if value else "f") if isinstance(value, bool) else to_text(value, oid)
            text = "'" + out.replace("'", "''") + "'"
        shown.append(f"{name} = {text}")
    return "parameters: " + ", ".join(shown) if shown else None


def _format(fmt: str, vals: list[tuple[Any, int]]) -> str:
    """RAISE's format: each % takes the next argument (NULL prints as <NULL>), %% is %."""
    out: list[str] = []
    it = iter(vals)
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "%":
            if fmt[i + 1:i + 2] == "%":
                out.append("%")
                i += 2
                continue
            try:
                v, oid = next(it)
            except StopIteration:
                raise SQLError("too few parameters specified for RAISE", sqlstate="42601") \
                    from None
            if isinstance(v, bool):  # NB: the output function's spelling (boolout), not a cast's
                out.append("t" if v else "f")
            else:
                out.append("<NULL>" if v is None else to_text(v, oid))
        else:
            out.append(c)
        i += 1
    if next(it, None) is not None:
        raise SQLError("too many parameters specified for RAISE", sqlstate="42601")
    return "".join(out)


def _matches(conds: list[str], e: SQLError) -> bool:
    for c in conds:
        if c == "others":
            return True
        if c.startswith("sqlstate"):
            if c.split(None, 1)[1].strip().strip("'") == e.sqlstate:
                return True
            continue
        code = CONDITIONS.get(c)
        if code is not None and (code == e.sqlstate or (code.endswith("000")
                                                        and e.sqlstate[:2] == code[:2])):
            return True
    return False


def _type_of(text: str) -> tuple[int, int]:
    try:
        node = sqlglot.parse_one(f"CAST(NULL AS {text})", read="postgres")
    except sqlglot.errors.ParseError:
        raise SyntaxError_(f'type "{text}" does not exist') from None
    return datatype_oid(node.args["to"])


def _max_param(tree: exp.Expression) -> int:
    top = 0
    for p in tree.find_all(exp.Parameter):
        try:
            top = max(top, int(p.this.name))
        except (ValueError, AttributeError):
            continue
    return top


def _is_set_target(col: exp.Column) -> bool:
    """UPDATE ... SET col = ...: the column assigned is never a variable."""
    parent = col.parent
    return (isinstance(parent, exp.EQ) and parent.this is col
            and isinstance(parent.parent, exp.Update))


__all__ = ["CONDITIONS", "Interp"]
