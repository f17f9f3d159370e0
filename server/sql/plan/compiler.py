"""The query compiler's entry points (`context.QueryCompiler`): `COMPILER.plan_query` and
`COMPILER.compile_scalar`.

`plan_query` builds the logical plan (`builder`), runs the optimizer rules,
fixes the parameter types PostgreSQL would infer (unknown ones become text),
and returns a `CompiledPlan` that the statement layer caches and executes any
number of times, with parameters bound per execution through
`ExecContext.params`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from ...errors import FeatureNotSupported
from ...pgtypes import oids as T
from ...pgwire.backend import Column
from .. import exec as _exec  # noqa: F401 - registers the executors
from ..context import CompiledScalar, ExecContext, ParamTypes, ScopeColumn
from ..exec.scan import column_scan
from ..expr import codegen as cg
from ..expr import runtime as rt
from ..expr.binder import Binder, Scope
from ..expr.commontype import assignable, assignment_mismatch
from ..expr.functions import coerce
from ..optimizer.rules import optimize
from . import nodes as N
from .builder import Planner, visible
from .explain import explain_lines
from .pointread import PointRead, tableless

_SYSTEM = -6  # the lowest system column number (tableoid); hidden markers go lower


class CompiledPlan:
    """A compiled, cacheable query plan (implements `context.QueryPlan`)."""

    def __init__(self, root: N.Node, trace: list[tuple[str, list[str]]] | None = None) -> None:
        self.root = root
        self.trace = trace or []
        self.columns = [
            Column(c.name, c.rowtype or c.type, c.typmod, c.table_oid if c.attnum >= _SYSTEM else 0,
                   c.attnum if c.attnum >= _SYSTEM else 0)  # NB: ctid is -1 ... tableoid -6, as PG
            for c in (root.cols[i] for i in visible(root.cols))
        ]
        self._narrow = len(visible(root.cols)) != len(root.cols)
        self._vis = visible(root.cols)
        # primary-key gets only: the statement runs them without the executor (pointread.py)
        self.point = None if self._narrow else PointRead.of(root)
        # one row of constants and parameters (SELECT 1): the session runs it without a
        # transaction or the executor (pointread.tableless)
        self.constant = tableless(root)

    def execute(self, ctx: ExecContext) -> Iterator[list[tuple]]:
        """Runs the query and yields batches of result rows."""
        rt.numeric_context()
        ctx.outer = []
        ctx.plan_cache = {}
        it = _exec.runner.run(self.root, ctx)
        if not self._narrow:
            yield from it
            return
        vis = self._vis
        for b in it:
            yield [tuple(r[i] for i in vis) for r in b]

    def execute_columns(self, ctx: ExecContext) -> Iterator[tuple[list[Any], int]] | None:
        """`execute` as column batches ((columns, row count)) when the plan is a bare table
        scan the transaction can read by columns (`exec.scan.column_scan`: cold segments'
        columns, no tuple per row); None otherwise (then `execute`)."""
        rt.numeric_context()
        top, source, pick = self.root, self.root, None
        if isinstance(top, N.Project) and isinstance(top.child, N.Scan):
            scan = top.child  # `SELECT *`'s projection: plain columns of the scan's rows
            width = len(scan.projection if scan.projection is not None else scan.table.columns)
            if all(e.kind == "col" and e.data < width for e in top.exprs):
                source, pick = scan, [e.data for e in top.exprs]
        batches = column_scan(source, ctx)
        if batches is None:
            return None
        if pick is not None:
            batches = (([cols[i] for i in pick], n) for cols, n in batches)
        if not self._narrow:
            return batches
        vis = self._vis
        return (([cols[i] for i in vis], n) for cols, n in batches)

    def explain(self, ctx: ExecContext | None = None, analyze: bool = False) -> list[str]:
        """Returns EXPLAIN's lines; with ANALYZE, runs the plan and adds actual rows and time."""
        stats: dict[int, list[Any]] | None = None
        if analyze:
            if ctx is None:
                raise FeatureNotSupported("EXPLAIN ANALYZE needs an execution context")
            stats = {}
            ctx.analyze = stats
            try:
                for _ in self.execute(ctx):
                    pass
            finally:
                ctx.analyze = None
        return explain_lines(self.root, stats, estimates=True)


class QueryCompilerImpl:
    """Implements `context.QueryCompiler`."""

    def plan_query(self, ast: Any, catalog: Any, params: ParamTypes,
                   search_path: list[str], trace: bool = False) -> CompiledPlan:
        """Compiles a query AST into a reusable plan (`trace`: keep the plan after each rule)."""
        planner = Planner(catalog, params, search_path)
        root = planner.plan_query(ast)
        root, steps = optimize(root, catalog, trace)
        _settle_params(params)
        return CompiledPlan(root, steps)

    def compile_scalar(self, ast: Any, scope: list[ScopeColumn], catalog: Any,
                       params: ParamTypes, search_path: list[str],
                       expected_type: int = 0, assign_to: str = "") -> CompiledScalar:
        """Compiles one expression over a described row into `fn(row, ctx)`; with
        `assign_to` (a column name) it is stored into that column of `expected_type`,
        so only an assignment cast may convert it (42804 otherwise)."""
        planner = Planner(catalog, params, search_path)
        cols = [N.PCol(c.name, c.type_oid, c.typmod, c.qualifier, c.table_oid, c.attnum)
                for c in scope]
        b = Binder(planner, Scope(cols))
        e = b.bind(normalize_identifiers(ast, dialect="postgres"))
        if assign_to and e.type not in (T.UNKNOWN, 0) and not assignable(e.type, expected_type):
            raise assignment_mismatch(assign_to, e.type, expected_type)
        if expected_type:
            e = coerce(e, expected_type, params=params)
            if e.type != expected_type and e.type != T.UNKNOWN:
                e = coerce(e, expected_type, params=params, explicit=True)
        elif e.type == T.UNKNOWN:
            e = coerce(e, T.TEXT, params=params)
        _settle_params(params)
        fn = cg.row_function(e)
        return CompiledScalar(fn, e.type, e.typmod)


def _settle_params(params: ParamTypes) -> None:
    for i, oid in enumerate(params.oids):
        if oid in (0, T.UNKNOWN):
            params.oids[i] = T.TEXT
            params.settled.append(i + 1)


COMPILER = QueryCompilerImpl()
