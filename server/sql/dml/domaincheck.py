"""The CREATE DOMAIN constraints of a table's columns, checked on every row written.

INSERT, UPDATE and COPY all pass their rows through `TableWriter.prepare_rows`,
which calls `run` here for the columns whose type is a domain: NOT NULL gives
23502 `domain d does not allow null values`, a false CHECK gives 23514 `value
for domain d violates check constraint "d_check"` (`expr.domaincheck`). Each
CHECK is compiled once per writer over the table's row, with VALUE standing for
the column.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from ...errors import CheckViolation, NotNullViolation
from ...pgtypes import oids as T
from ...txn.api import ScanSpec
from ..catalog.model import CatalogSnapshot, Column, Table, UserType
from ..context import ParamTypes, ScopeColumn
from ..expr.domaincheck import checked, elements_checked, flattened, parse_check
from ..plan.compiler import COMPILER
from .values import table_scope

if TYPE_CHECKING:
    from ..session import SQLSession


class DomainChecks:
    """The domain columns of one table, with their CHECKs compiled at the first row."""

    def __init__(self, s: SQLSession, table: Table, columns: list[tuple[int, str, UserType]]):
        self._session = s
        self._table = table
        self._columns = columns
        self._fns: list[tuple[int, UserType, list[Any]]] | None = None
        self._arrays = {c.attnum - 1 for c in table.live_columns  # `d[]`: an array type
                        if c.domain in T.ELEMENT_OF}

    def _compile(self) -> list[tuple[int, UserType, list[Any]]]:
        s = self._session
        scope = table_scope(self._table)
        out = []
        for pos, name, dom in self._columns:
            if pos in self._arrays:  # d[]: each element
                elem = [ScopeColumn(None, ELEMENT, dom.subtype, dom.typmod)]
                each = [COMPILER.compile_scalar(parse_check(text, ELEMENT), elem, s.catalog(),
                                                ParamTypes(), s.search_path(), 16).fn
                        for text in dom.checks]
                out.append((pos, dom, [partial(_each, each)]))
                continue
            fns: list[Any] = [COMPILER.compile_scalar(parse_check(text, name), scope, s.catalog(),
                                                      ParamTypes(), s.search_path(), 16).fn
                              for text in dom.checks]
            out.append((pos, dom, fns))
        return out

    def run(self, s: SQLSession, rows: list[tuple[Any, ...]]) -> None:
        """Raises PostgreSQL's error for the first value that breaks its domain."""
        if self._fns is None:
            self._fns = self._compile()
        ctx = s.exec_context([])
        for pos, dom, fns in self._fns:
            if pos in self._arrays:
                for r in rows:
                    fns[0](dom, r[pos], ctx)
                continue
            for r in rows:
                checked(dom.name, dom.not_null, dom.check_names, r[pos], *(f(r, ctx) for f in fns))


ELEMENT = "_cumulo_domain_element"  # VALUE in a CHECK on each element of a `d[]` column


def _each(fns: list[Any], dom: UserType, v: Any, ctx: Any) -> None:
    """A `d[]` value against `d`, element by element (PostgreSQL's 23502 / 23514)."""
    elements_checked(dom.name, dom.not_null, dom.check_names, tuple(fns), ctx.functions, v)


def for_table(s: SQLSession, cat: CatalogSnapshot, table: Table) -> DomainChecks | None:
    """The checker of `table`'s domain columns (None when it has none with constraints)."""
    if not any(c.domain for c in table.live_columns):
        return None
    raw = {t.oid: t for t in cat.types if t.kind == "d"}
    doms = {oid: flattened(t, raw.get) for oid, t in raw.items()}
    doms.update({t.array_oid: doms[t.oid] for t in raw.values() if t.array_oid})  # d[]
    cols = [(c.attnum - 1, c.name, doms[c.domain]) for c in table.live_columns
            if c.domain in doms and (doms[c.domain].not_null or doms[c.domain].checks)]
    return DomainChecks(s, table, cols) if cols else None


def validate_stored(s: SQLSession, table: Table, col: Column, check: str | None) -> None:
    """ALTER DOMAIN on a domain in use: the stored values of `col` against a new CHECK
    (`check`) or, when it is None, against a new NOT NULL, with PostgreSQL's 23514 / 23502."""
    txn = s.ensure_txn()
    pos = col.attnum - 1
    if check is None:
        spec = ScanSpec(table.space, filter=("is_null", ("col", pos)), limit=1)
        if any(batch for batch in txn.scan(spec)):
            raise NotNullViolation(f'column "{col.name}" of table "{table.name}" contains null '
                                   "values", table=table.name, column=col.name)
        return
    fn = COMPILER.compile_scalar(parse_check(check, col.name), table_scope(table), s.catalog(),
                                 ParamTypes(), s.search_path(), 16).fn
    ctx = s.exec_context([])
    for batch in txn.scan(ScanSpec(table.space, batch_size=4096)):
        if any(r[pos] is not None and fn(r, ctx) is False for r in batch):
            raise CheckViolation(f'column "{col.name}" of table "{table.name}" contains values '
                                 "that violate the new constraint", table=table.name)
