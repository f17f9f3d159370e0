"""Name <-> OID lookups of the reg* types (`'t'::regclass`, `'lower'::regproc`) for the planner.

The planner folds reg* casts of constants with a `RegResolver` over its
catalog snapshot and search path. It reads the pg_catalog relations and the
function registry, so it sits here, above them; the value type `RegOid`
stays in `expr.regcast`, below them (the relations return RegOids).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import UndefinedFunction, UndefinedObject, UndefinedTable
from ...pgtypes import oids as T
from ..expr.regcast import RegOid
from ..expr.types import regtype_oid, type_name
from ..functions.registry import FUNCTIONS
from ..parse import fold_ident
from ..pgcatalog import VIRTUAL_TABLES


def _split(name: str) -> tuple[str | None, str]:
    s = name.strip()
    parts = [p.strip('"') if p.startswith('"') else fold_ident(p) for p in s.split(".")]
    return (parts[-2], parts[-1]) if len(parts) > 1 else (None, parts[-1])


def once_per_catalog(conv: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """Wraps a reg* conversion (`'pg_class'::regclass`, `oid::regclass`) so that each value
    is converted once per catalog snapshot and search path, not once per row.

    PostgreSQL converts a literal while it parses; a plan here is cached
    across catalog changes, and drivers send the name as a parameter
    (SQLAlchemy's reflection filters thousands of pg_description and
    pg_constraint rows by `classoid = CAST($1 AS REGCLASS)`). So the values
    are remembered beside the catalog snapshot they were resolved in
    (snapshots are immutable: any DDL makes a new one) and resolved again
    when either differs.

    >>> calls = []
    >>> class Ctx:
    ...     catalog = object()
    ...     def search_path(self): return ["public"]
    >>> f = once_per_catalog(lambda ctx, v: calls.append(v) or len(v))
    >>> ctx = Ctx()
    >>> [f(ctx, v) for v in ("pg_class", "t", "pg_class")], calls
    ([8, 1, 8], ['pg_class', 't'])
    >>> ctx.catalog = object()  # a DDL: resolved again
    >>> f(ctx, "pg_class"), calls
    (8, ['pg_class', 't', 'pg_class'])
    """
    memo: list[tuple[Any, Any, dict[Any, Any]]] = [(None, None, {})]  # catalog, path, values

    def once(fctx: Any, v: Any) -> Any:
        cat, path = fctx.catalog, fctx.search_path()
        seen = memo[0]  # NB: one read: another thread may replace it
        if seen[0] is not cat or seen[1] != path or len(seen[2]) > _VALUES_KEPT:
            seen = (cat, path, {})
            memo[0] = seen
        values = seen[2]
        out = values.get(v, values)
        if out is values:
            out = values[v] = conv(fctx, v)
        return out

    return once


_VALUES_KEPT = 4096  # distinct values remembered per catalog snapshot


@dataclass(frozen=True)
class _PlanNames:
    """The part of a `FunctionContext` the reg* input functions read, while planning."""

    catalog: Any
    path: tuple[str, ...]
    user: str = ""

    def search_path(self) -> list[str]:
        return list(self.path)


def check_literal(cast_fn: Callable[[Any, Any], Any], catalog: Any, search_path: list[str],
                  text: str) -> None:
    """Resolves a reg* literal once while planning, for its error only: PostgreSQL converts
    `'nosuch'::regclass` as it parses, so it fails under `WHERE false` or in a CASE branch
    never taken, and PREPARE fails. The value itself is resolved when the plan runs
    (`once_per_catalog`), since a cached plan outlives the catalog it was made in. A
    three-part name is left to the run: it names the session's database."""
    if text.count(".") != 2:
        cast_fn(_PlanNames(catalog, tuple(search_path)), text)


class RegResolver:
    """Name/OID lookups for one catalog snapshot and search path."""

    def __init__(self, catalog: Any, search_path: list[str]) -> None:
        self.catalog = catalog
        self.search_path = search_path

    def _schemas(self, schema: str | None) -> list[Any]:
        names = [schema] if schema else ["pg_catalog", *self.search_path]
        out = []
        for n in names:
            s = next((s for s in self.catalog.schemas if s.name == n), None)
            if s is not None:
                out.append(s)
        return out

    def class_oid(self, name: str) -> RegOid:
        """'tbl'::regclass."""
        schema, rel = _split(name)
        for s in self._schemas(schema):
            for t in self.catalog.tables:
                if t.name == rel and t.schema_oid == s.oid:
                    return RegOid(t.oid, rel if schema is None else f"{schema}.{rel}")
            for i in self.catalog.indexes:
                tbl = self.catalog.table_by_oid(i.table_oid)
                if i.name == rel and tbl is not None and tbl.schema_oid == s.oid:
                    return RegOid(i.oid, rel)
            for u in self.catalog.types:  # a composite type's pg_class row (relkind c)
                if u.kind == "c" and u.relid and u.name == rel and u.schema_oid == s.oid:
                    return RegOid(u.relid, rel if schema is None else f"{schema}.{rel}")
            for (vs, vn), vt in VIRTUAL_TABLES.items():
                if vn == rel and vs == s.name and vt.oid:
                    return RegOid(vt.oid, rel)
        if schema in ("pg_catalog", "information_schema", None):
            for (vs, vn), vt in VIRTUAL_TABLES.items():
                if vn == rel and (schema is None or vs == schema) and vt.oid:
                    return RegOid(vt.oid, rel)
        raise UndefinedTable(f'relation "{name}" does not exist')

    def class_name(self, oid: int) -> RegOid:
        """oid::regclass."""
        t = self.catalog.table_by_oid(oid)
        if t is not None:
            visible = self._first_visible(t.name, t.schema_oid)
            s = self.catalog.schema_by_oid(t.schema_oid)
            return RegOid(oid, t.name if visible or s is None else f"{s.name}.{t.name}")
        for i in self.catalog.indexes:
            if i.oid == oid:
                return RegOid(oid, i.name)
        for u in self.catalog.types:
            if u.kind == "c" and u.relid == oid:
                return RegOid(oid, u.name)
        for vt in VIRTUAL_TABLES.values():
            if vt.oid == oid:
                return RegOid(oid, vt.name)
        return RegOid(oid)

    def _first_visible(self, name: str, schema_oid: int) -> bool:
        for s in self._schemas(None):
            for t in self.catalog.tables:
                if t.name == name and t.schema_oid == s.oid:
                    return t.schema_oid == schema_oid
        return False

    def type_oid(self, name: str) -> RegOid:
        """'int4'::regtype."""
        oid = regtype_oid(name)
        return RegOid(oid, T.TYPES[oid].sql_name if oid in T.TYPES else type_name(oid))

    def type_name(self, oid: int) -> RegOid:
        """oid::regtype."""
        info = T.TYPES.get(oid)
        return RegOid(oid, info.sql_name if info else type_name(oid))

    def namespace_oid(self, name: str) -> RegOid:
        """'public'::regnamespace."""
        _, n = _split(name)
        s = next((s for s in self.catalog.schemas if s.name == n), None)
        if s is None:
            raise UndefinedObject(f'schema "{name}" does not exist')
        return RegOid(s.oid, s.name)

    def namespace_name(self, oid: int) -> RegOid:
        """oid::regnamespace."""
        s = self.catalog.schema_by_oid(oid)
        return RegOid(oid, s.name if s else str(oid))

    def role_oid(self, name: str) -> RegOid:
        """'postgres'::regrole."""
        r = next((r for r in self.catalog.roles if r.name == name), None)
        if r is None:
            raise UndefinedObject(f'role "{name}" does not exist')
        return RegOid(r.oid, r.name)

    def role_name(self, oid: int) -> RegOid:
        """oid::regrole."""
        r = next((r for r in self.catalog.roles if r.oid == oid), None)
        return RegOid(oid, r.name if r else str(oid))

    def proc_oid(self, name: str) -> RegOid:
        """'lower'::regproc."""
        _, n = _split(name.split("(")[0])
        for fd in FUNCTIONS.get(n, []):
            if fd.oid:
                return RegOid(fd.oid, n)
        raise UndefinedFunction(f'function "{name}" does not exist')

    def proc_name(self, oid: int) -> RegOid:
        """oid::regproc."""
        if oid == 0:
            return RegOid(0, "-")
        for name, defs in FUNCTIONS.items():
            if any(fd.oid == oid for fd in defs):
                return RegOid(oid, name)
        return RegOid(oid)

    def converter(self, target: int, from_text: bool):
        """Returns the value converter for a cast to `target` from text (or from an OID)."""
        table = {
            T.REGCLASS: (self.class_oid, self.class_name),
            T.REGTYPE: (self.type_oid, self.type_name),
            T.REGNAMESPACE: (self.namespace_oid, self.namespace_name),
            T.REGROLE: (self.role_oid, self.role_name),
            T.REGPROC: (self.proc_oid, self.proc_name),
            T.REGPROCEDURE: (self.proc_oid, self.proc_name),
        }
        by_name, by_oid = table[target]
        if from_text:
            def conv(v: Any) -> RegOid:
                s = str(v)
                return by_oid(int(s)) if s.isdigit() else by_name(s)

            return conv
        return lambda v: by_oid(int(v))
