"""RETURNING lists: compiled once over the target table's row, projected per written row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from sqlglot import exp
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from ...errors import AmbiguousColumn
from ...kivi.keycodec import encode_key
from ...pgtypes import oids as T
from ...pgtypes import records
from ...pgwire.backend import Column
from ...txn.xids import own_xmin
from ..catalog.model import Table
from ..catalog.syscols import SYSTEM_COLUMNS, heap_tid, version_tid
from ..context import ParamTypes, ScopeColumn
from ..ddl.names import ident
from ..expr.binder import Binder, Scope
from ..partitions.members import leaf_oid
from ..plan import nodes as N
from ..plan.builder import Planner
from ..plan.compiler import COMPILER
from .values import table_scope

if TYPE_CHECKING:
    from ..session import SQLSession


@dataclass
class Returning:
    columns: list[Column]
    fns: list[Any]  # None: a plain column, taken by position

    positions: list[int]
    xmax_pos: int | None = None  # where the system columns go, when RETURNING reads one
    system: tuple[str, ...] = ()  # the system columns it reads, in PostgreSQL's order
    table_oid: int = 0
    width: int = 0  # the target's slots, which the row written starts with
    leaf_of: Any = None  # a partitioned target: the row's partition, its tableoid (sql.partitions)
    pk: tuple[int, ...] = ()  # the target's primary key (attnums), whose values key its rows

    @property
    def reads_xmin(self) -> bool:
        """Tells whether RETURNING names xmin (DELETE then reads the deleted versions')."""
        return "xmin" in self.system

    def project(self, row: Sequence[Any], ctx: Any, xmax: int = 0, xmin: int | None = None,
                key: bytes | None = None) -> tuple[Any, ...]:
        """Returns the RETURNING tuple of one written row.

        `xmax` is 0 for an inserted row and non-zero for a row that INSERT ... ON CONFLICT
        DO UPDATE updated: the `RETURNING (xmax = 0) AS inserted` idiom of upserts. xmin is
        the new row version's, the writer's id (`catalog.syscols`), what an ORM keeps as its
        version stamp; DELETE passes the deleted version's as `xmin`. `key` is the row's
        KiVi key, for the ctid of a table without a primary key (a row id).
        """
        if self.xmax_pos is not None:
            if xmin is None:
                xmin = own_xmin(ctx.functions.session.ensure_txn()) if self.reads_xmin else 0
            row = tuple(row) + (None,) * (self.xmax_pos - len(row)) + tuple(
                xmin if n == "xmin" else xmax if n == "xmax"
                else (self.leaf_of(row) if self.leaf_of else self.table_oid) if n == "tableoid"
                else self._ctid(row, key) if n == "ctid"
                else 0 for n in self.system)
        return tuple(row[p] if f is None else f(row, ctx)
                     for p, f in zip(self.positions, self.fns, strict=True))

    def _ctid(self, row: Sequence[Any], key: bytes | None) -> str | None:
        """The written version's ctid, as a later SELECT reads it (`catalog.syscols`)."""
        stored = tuple(row[:self.width])
        if self.pk:  # NB: an UPDATE of the key moved the row: the new values' key
            return version_tid(encode_key(tuple(stored[a - 1] for a in self.pk)), stored)
        return heap_tid(key[-9:]) if key is not None else None  # NB: after a leaf's tag


def compile_returning(s: SQLSession, node: Any, table: Table, alias: str | None,
                      params: ParamTypes,
                      extra: list[tuple[ScopeColumn, Column]] | None = None,
                      rowtypes: dict[str, int] | None = None) -> Returning | None:
    """Compiles a RETURNING clause (None if there is none).

    `extra` describes the columns of UPDATE ... FROM / DELETE ... USING items that
    follow the target's slots in the projected row; `rowtypes` the row type of each
    such item that is a table (`RETURNING u` is of type u, a subquery's row a record).
    """
    if node is None:
        return None

    qual = alias or table.name
    extra = extra or []
    base = len(table.columns)
    scope = table_scope(table, qual) + [sc for sc, _ in extra]
    named = {ident(c.this) for c in node.find_all(exp.Column) if isinstance(c.this, exp.Identifier)}
    system = tuple(n for n, _, _ in SYSTEM_COLUMNS if n in named)
    xmax_pos = len(scope) if system else None
    scope += [ScopeColumn(qual, n, t) for n, _, t in SYSTEM_COLUMNS if n in system]
    cols: list[Column] = []
    fns: list[Any] = []
    positions: list[int] = []
    by_name = {c.name: c for c in table.live_columns}
    for e in node.expressions:
        star_of = None
        if isinstance(e, exp.Star):
            star_of = ""
        elif isinstance(e, exp.Column) and isinstance(e.this, exp.Star):
            star_of = e.table
        if star_of is not None:
            if star_of in ("", qual):
                for tc in table.live_columns:
                    cols.append(Column(tc.name, tc.type_oid, tc.typmod, table.oid, tc.attnum))
                    fns.append(None)
                    positions.append(tc.attnum - 1)
            for i, (sc, col) in enumerate(extra):
                if star_of in ("", sc.qualifier):
                    cols.append(col)
                    fns.append(None)
                    positions.append(base + i)
            continue
        name = e.alias_or_name if isinstance(e, exp.Alias) else None
        inner = e.this if isinstance(e, exp.Alias) else e
        if isinstance(inner, exp.Column) and not isinstance(inner.this, exp.Star) and (
                not inner.table or inner.table == qual):
            c = by_name.get(ident(inner.this))
            if c is not None and not inner.table and any(sc.name == c.name for sc, _ in extra):

                raise AmbiguousColumn(f'column reference "{c.name}" is ambiguous')
            if c is not None:
                cols.append(Column(name or c.name, c.type_oid, c.typmod, table.oid, c.attnum))
                fns.append(None)
                positions.append(c.attnum - 1)
                continue

        cs = COMPILER.compile_scalar(inner, scope, s.catalog(), params, s.search_path())
        out_name = name or (inner.output_name if isinstance(inner, exp.Column) else "") \
            or _output_name(s, inner, scope, params)  # NB: 'lit' and 'x'::text are not named so
        type_oid = cs.type_oid
        if type_oid == T.RECORD:
            for q, rowtype in ((qual, table.reltype), *(rowtypes or {}).items()):
                if rowtype and _whole_row(inner, q, scope):
                    type_oid = rowtype  # NB: `RETURNING t` is the row type t, as in PG
                    records.ROW_TYPES.add(type_oid)  # NB: its Records encode as `record` does
        cols.append(Column(out_name or "?column?", type_oid, cs.typmod))
        fns.append(cs.fn)
        positions.append(0)
    return Returning(cols, fns, positions, xmax_pos, system, table.oid, base,
                     partial(leaf_oid, s.catalog(), table) if table.partkey else None,
                     table.primary_key)


def _whole_row(e: exp.Expression, qual: str, scope: list[ScopeColumn]) -> bool:
    """Whether `e` names the target table's whole row (`RETURNING t`, `RETURNING t.*` aside)."""
    if not isinstance(e, exp.Column) or e.table or not isinstance(e.this, exp.Identifier):
        return False
    name = ident(e.this)
    return name == qual and not any(sc.name == name for sc in scope)


def _output_name(s: SQLSession, inner: exp.Expression, scope: list[ScopeColumn],
                 params: ParamTypes) -> str:
    """The column name PostgreSQL gives an unaliased expression (`length(v)` -> length)."""
    try:
        planner = Planner(s.catalog(), ParamTypes(list(params.oids)), s.search_path())
        cols = [N.PCol(c.name, c.type_oid, c.typmod, c.qualifier) for c in scope]
        bound = Binder(planner, Scope(cols)).bind(
            normalize_identifiers(inner.copy(), dialect="postgres"))
        return bound.name or "?column?"
    except Exception:  # noqa: BLE001 - naming only; compile_scalar already accepted it
        return "?column?"
