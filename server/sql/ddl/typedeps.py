"""What uses a user type, for DROP TYPE: PostgreSQL's 2BP01 DETAIL and what CASCADE drops.

PostgreSQL records these uses in pg_depend; we find them by scanning the
catalog: table columns of the type or of its array type (and the views that
read those columns), functions whose arguments or result are of it, domains
over it (and, through them, what uses the domains), and attributes of other
composite types. The DETAIL lines and the CASCADE notice list them in
PostgreSQL's order: what uses the array type first (it is the type's first
dependent), then by creation (OID), as its pg_depend scan returns them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlglot import exp

from ..catalog.model import CatalogSnapshot, Function, Table, UserType
from ..pgcatalog.typetext import format_type
from .alter import drop_column
from .depends import (
    relation_description,
    shown_name,
    views_depending,
    views_using_column,
)

if TYPE_CHECKING:
    from ..session import SQLSession


@dataclass
class TypeUses:
    """The uses of a set of types: DETAIL lines, notice objects, and what CASCADE drops."""

    lines: list[str] = field(default_factory=list)
    objects: list[str] = field(default_factory=list)
    columns: list[tuple[Table, str]] = field(default_factory=list)
    views: list[Table] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    domains: list[UserType] = field(default_factory=list)
    attrs: list[tuple[UserType, str]] = field(default_factory=list)


def type_description(cat: CatalogSnapshot, t: UserType, visible: list[str]) -> str:
    """`type mood`, or `type s.mood` outside the search_path, as PostgreSQL's messages."""
    schema = next((s.name for s in cat.schemas if s.oid == t.schema_oid), "")
    return f"type {shown_name(schema, t.name, visible)}"


def function_description(cat: CatalogSnapshot, f: Function, visible: list[str]) -> str:
    """`function f(integer, comp)`, or `function s.f(...)` outside the search_path, as
    getObjectDescription words a function (so that o.f and s.f stay two objects)."""
    schema = next((s.name for s in cat.schemas if s.oid == f.schema_oid), "")
    args = ", ".join(format_type(a, -1) or "?" for a in f.arg_types)
    return f"function {shown_name(schema, f.name, visible)}({args})"


def type_uses(s: SQLSession, types: list[UserType]) -> TypeUses:
    """Everything that uses `types` (not counting the types themselves), in PostgreSQL's order."""
    cat, visible = s.catalog(), s.search_path()
    out = TypeUses()
    dropping = {t.oid for t in types}
    found: list[tuple[tuple[int, ...], str, str]] = []  # (order, DETAIL line, notice object)
    seen: set[str] = set()

    def add(order: tuple[int, ...], line: str, obj: str) -> bool:
        if obj in seen:
            return False
        seen.add(obj)
        found.append((order, line, obj))
        return True

    def readers(rel: Table, col: str, order: tuple[int, ...]) -> None:
        target = f"column {col} of {relation_description(cat, rel, visible)}"
        for v in views_using_column(cat, rel, col):
            desc = relation_description(cat, v, visible)
            if not add(order, f"{desc} depends on {target}", desc):
                continue
            out.views.append(v)
            if any(c.name == col for c in v.live_columns):  # NB: a view of it, by column
                readers(v, col, order)
                continue
            for w, line in views_depending(cat, v, visible):
                if add(order, line, relation_description(cat, w, visible)):
                    out.views.append(w)

    def uses_of(t: UserType, first: int) -> None:
        shown = type_description(cat, t, visible)
        for oid, what in ((t.array_oid, f"{shown}[]"), (t.oid, shown)):
            if not oid:
                continue
            rank = 0 if oid == t.array_oid else 1
            for tb in cat.tables:
                if tb.kind == "v":
                    continue
                for c in tb.live_columns:
                    if (c.domain or c.type_oid) != oid:
                        continue
                    target = f"column {c.name} of {relation_description(cat, tb, visible)}"
                    if add((first, rank, tb.oid), f"{target} depends on {what}", target):
                        out.columns.append((tb, c.name))
                        readers(tb, c.name, (first, rank, tb.oid))
            for f in cat.functions:
                if oid in f.arg_types or f.returns == oid or oid in f.out_types:
                    desc = function_description(cat, f, visible)
                    if add((first, rank, f.oid), f"{desc} depends on {what}", desc):
                        out.functions.append(f)
            for other in cat.types:
                if other.oid in dropping:
                    continue
                if other.kind == "d" and (other.subtype == oid or other.parent == oid):
                    desc = type_description(cat, other, visible)
                    if add((first, rank, other.oid), f"{desc} depends on {what}", desc):
                        out.domains.append(other)
                        uses_of(other, first)
                for name, aoid, _ in other.attrs:
                    if aoid == oid:
                        desc = f"column {name} of composite {type_description(cat, other, visible)}"
                        if add((first, rank, other.oid), f"{desc} depends on {what}", desc):
                            out.attrs.append((other, name))

    for i, t in enumerate(types):
        uses_of(t, i)
    found.sort(key=lambda x: x[0])
    out.lines = [line for _, line, _ in found]
    out.objects = [obj for _, _, obj in found]
    return out


def drop_uses(s: SQLSession, uses: TypeUses) -> None:
    """DROP TYPE ... CASCADE: drops the views, columns, functions, domains and composite
    attributes that use the dropped types (views first, so that dropping their columns
    finds none left to report)."""
    txn = s.ensure_txn()
    for v in uses.views:
        s.store.delete(txn, s.db.oid, v)
    for f in uses.functions:
        s.store.delete(txn, s.db.oid, f)
    s.catalog_changed()
    for tb, col in uses.columns:
        table = s.catalog().table_by_oid(tb.oid)
        if table is not None and any(c.name == col for c in table.live_columns):
            drop_column(s, table, exp.Drop(kind="COLUMN", cascade=True,
                                           tables=[exp.column(col, quoted=True)]))
    for owner, name in uses.attrs:
        current = next((t for t in s.catalog().types if t.oid == owner.oid), None)
        if current is not None:
            s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(
                current, attrs=tuple(a for a in current.attrs if a[0] != name)))
    for d in uses.domains:
        s.store.delete(s.ensure_txn(), s.db.oid, d)
    s.catalog_changed()
