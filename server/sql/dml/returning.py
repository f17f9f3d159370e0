"""RETURNING lists: compiled once over the target table's row, projected per written row."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...pgwire.backend import Column
from ..catalog.model import Table
from ..context import ParamTypes, ScopeColumn
from .values import table_scope

if TYPE_CHECKING:
    from ..session import SQLSession


@dataclass
class Returning:
    columns: list[Column]
    fns: list[Any]  # None: a plain column, taken by position

    positions: list[int]

    def project(self, row: tuple[Any, ...], ctx: Any) -> tuple[Any, ...]:
        """Returns the RETURNING tuple of one written row."""
        return tuple(row[p] if f is None else f(row, ctx)
                     for p, f in zip(self.positions, self.fns, strict=True))


def compile_returning(s: SQLSession, node: Any, table: Table, alias: str | None,
                      params: ParamTypes,
                      extra: list[tuple[ScopeColumn, Column]] | None = None) -> Returning | None:
    """Compiles a RETURNING clause (None if there is none).

    `extra` describes the columns of UPDATE ... FROM / DELETE ... USING tables that
    follow the target's slots in the projected row.
    """
    if node is None:
        return None
    from ..ddl.names import ident

    qual = alias or table.name
    extra = extra or []
    base = len(table.columns)
    scope = table_scope(table, qual) + [sc for sc, _ in extra]
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
                for c in table.live_columns:
                    cols.append(Column(c.name, c.type_oid, c.typmod, table.oid, c.attnum))
                    fns.append(None)
                    positions.append(c.attnum - 1)
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
                from ...errors import AmbiguousColumn

                raise AmbiguousColumn(f'column reference "{c.name}" is ambiguous')
            if c is not None:
                cols.append(Column(name or c.name, c.type_oid, c.typmod, table.oid, c.attnum))
                fns.append(None)
                positions.append(c.attnum - 1)
                continue
        from ..statement import compiler

        cs = compiler().compile_scalar(inner, scope, s.catalog(), params, s.search_path())
        out_name = name or (inner.output_name if inner.output_name else "?column?")
        cols.append(Column(out_name or "?column?", cs.type_oid, cs.typmod))
        fns.append(cs.fn)
        positions.append(0)
    return Returning(cols, fns, positions)
