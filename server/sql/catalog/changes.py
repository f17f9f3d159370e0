"""What a DDL commit changed, as the names a cached plan could have resolved.

`changed_names(before, after)` compares the committed catalog with the one the
committing transaction sees. When every difference is one a plan can only
notice through a name (a view created, replaced or dropped; a new table,
sequence, type, function or schema, with the indexes, constraints and triggers
of new tables or of views), it returns those objects' names, and only plans
that name them (`plan.deps`) are dropped. Any other change (an existing
table, sequence, function or type altered or dropped, a GRANT on a table, a
role, a database, an extension, a collation) returns None: every plan is
dropped, as before. So does a commit whose difference cannot be seen here.

>>> import dataclasses
>>> from cumulo.server.sql.catalog.model import Database, Schema, Table
>>> db = Database(5, "postgres")
>>> base = CatalogSnapshot(db, (db,), (), (Schema(2200, "public"),), (Table(1, "t", 2200, ()),))
>>> v = Table(9, "v", 2200, (), kind="v", view_sql="SELECT 1")
>>> sorted(changed_names(base, dataclasses.replace(base, tables=base.tables + (v,))))
['v']
>>> changed_names(base, dataclasses.replace(base, tables=())) is None  # DROP TABLE t
True
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .model import CatalogSnapshot

_Pairs = tuple[tuple[Iterable[Any], Iterable[Any]], ...]  # (before, after) per kind of object


class _Wide(Exception):
    """A change some plan may depend on without naming it."""


def _diff(before: Iterable[Any], after: Iterable[Any]) -> list[tuple[Any, Any]]:
    old = {o.oid: o for o in before}
    new = {o.oid: o for o in after}
    return [(old.get(oid), new.get(oid)) for oid in old.keys() | new.keys()
            if old.get(oid) != new.get(oid)]


def changed_names(before: CatalogSnapshot, after: CatalogSnapshot) -> frozenset[str] | None:
    """The case-folded names of the objects changed from `before` to `after`; None when a
    plan could depend on a change without naming it (see the module doc)."""
    try:
        return frozenset(n.lower() for n in _names(before, after))
    except _Wide:
        return None


def _names(before: CatalogSnapshot, after: CatalogSnapshot) -> set[str]:
    if (before.database != after.database or before.databases != after.databases
            or before.roles != after.roles or before.extensions != after.extensions
            or before.collations != after.collations):
        raise _Wide
    names: set[str] = set()
    free: set[int] = set()  # views and new tables: what hangs on them may change too
    freed_types: set[int] = set()
    for old, new in _diff(before.tables, after.tables):
        if old is not None and old.kind != "v":
            raise _Wide  # an existing table altered, dropped, granted on
        for t in (old, new):
            if t is not None:
                names.add(t.name)
                freed_types.update((t.reltype, t.array_type))
        free.add((old or new).oid)
    attached: _Pairs = ((before.indexes, after.indexes), (before.constraints, after.constraints),
                        (before.triggers, after.triggers))
    for was, now in attached:
        for old, new in _diff(was, now):
            for o in (old, new):
                if o is not None:
                    if o.table_oid not in free:
                        raise _Wide
                    names.add(o.name)
    standalone: _Pairs = ((before.sequences, after.sequences), (before.functions, after.functions),
                          (before.schemas, after.schemas))
    for earlier, later in standalone:
        for old, new in _diff(earlier, later):
            if old is not None:
                raise _Wide
            names.add(new.name)
    for old, new in _diff(before.types, after.types):
        if old is not None and old.oid not in freed_types and old.relid not in free:
            raise _Wide
        for u in (old, new):
            if u is not None:
                names.update(n for n in (u.name, "_" + u.name, u.multi_name) if n)
    if not names and before.comments == after.comments:
        raise _Wide  # NB: the transaction changed something this comparison does not see
    return names
