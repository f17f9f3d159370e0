"""What a cached plan depends on: the names it could resolve, for per-object invalidation.

A DDL commit used to throw away every session's cached plans. Now it carries the
names of the objects it changed (`catalog.changes`), and a plan survives it
when none of those names is one the plan could have resolved. As in
PostgreSQL's plan cache, that is decided once, when the plan is made: its
dependencies are the identifiers of its text, and, transitively, those of
what resolving them reads at plan time (a view's definition, a SQL function's
body) or what a write to a named table evaluates (its defaults, CHECKs, index
expressions, its columns' domains). Matching names regardless of schema and
case over-approximates: a plan that names `t` is dropped when any `t` is
created, changed or dropped, so a new table that shadows `t` in an earlier
schema of search_path replans it (PostgreSQL would keep the plan).

Some plans read the catalog itself at run time against the snapshot they were
made with: the pg_catalog and information_schema relations, regclass-style
casts, `to_regclass`, the privilege and description functions, nextval(...).
Their dependency is `None`: every DDL commit drops them, as before.

>>> sorted(text_names('SELECT a.x FROM "My T" a JOIN s.u ON true'))
['a', 'from', 'join', 'my t', 'on', 's', 'select', 'true', 'u', 'x']
>>> catalog_wide(text_names("SELECT to_regclass($1)")), catalog_wide({"orders"})
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..catalog.model import CatalogSnapshot
from ..pgcatalog.registry import VIRTUAL_TABLES

_NAME = re.compile(r'"((?:[^"]|"")+)"|([^\W\d][\w$]*)')

# names whose use makes a plan read the catalog at run time (see the module doc)
_RUNTIME = frozenset({
    "regclass", "regtype", "regproc", "regprocedure", "regoper", "regoperator", "regnamespace",
    "regrole", "regcollation", "regconfig", "regdictionary", "nextval", "currval", "setval",
    "lastval", "format_type", "information_schema", "current_schema", "current_schemas",
}) | frozenset(name for _, name in VIRTUAL_TABLES)


def text_names(sql: str) -> set[str]:
    """The identifiers and keywords of a text, case-folded (quoted ones too: over-approximate)."""
    return {(q.replace('""', '"') if q else w).lower() for q, w in _NAME.findall(sql)}


def catalog_wide(names: Iterable[str]) -> bool:
    """True when a text with these names may read the catalog when it runs."""
    return any(n in _RUNTIME or n.startswith(("pg_", "to_reg")) or "privilege" in n
               or "description" in n for n in names)


class _Reach:
    """Per catalog snapshot: for each object name, the names its resolution or a write to
    it reads (`read`: run through `catalog_wide` too; `attached`: names only)."""

    def __init__(self, cat: CatalogSnapshot) -> None:
        self.read: dict[str, set[str]] = {}
        self.attached: dict[str, set[str]] = {}
        names = {t.oid: t.name.lower() for t in cat.tables}
        types = {u.oid: u for u in cat.types}
        for t in cat.tables:
            if t.view_sql:
                self._add(self.read, t.name, t.view_sql)
            for c in t.columns:
                for text in (c.default, c.generated):
                    if text:
                        self._add(self.attached, t.name, text)
                if c.domain in types:
                    self.attached.setdefault(t.name.lower(), set()).add(types[c.domain].name.lower())
        for i in cat.indexes:
            for text in (i.predicate or "", *i.exprs):
                self._add(self.attached, names.get(i.table_oid, ""), text)
        for k in cat.constraints:
            owner = names.get(k.table_oid, "")
            if k.check:
                self._add(self.attached, owner, k.check)
            if k.ref_table_oid in names:
                self.attached.setdefault(owner, set()).add(names[k.ref_table_oid])
        for f in cat.functions:
            body = " ".join((f.body, *f.param_defaults))
            self._add(self.read if f.language == "sql" else self.attached, f.name, body)
        for u in cat.types:
            self._add(self.attached, u.name, " ".join((u.default or "", *u.checks)))

    @staticmethod
    def _add(into: dict[str, set[str]], name: str, text: str) -> None:
        into.setdefault(name.lower(), set()).update(text_names(text))

    def closure(self, sql: str) -> frozenset[str] | None:
        """The names a plan of `sql` depends on; None when it depends on the whole catalog."""
        if "u&" in sql.lower():  # NB: U&"\0061" spells a name this scan cannot read
            return None
        seen = text_names(sql)
        if catalog_wide(seen):
            return None
        todo = list(seen)
        while todo:
            name = todo.pop()
            read = self.read.get(name, ())
            if read and catalog_wide(read):
                return None
            for more in (read, self.attached.get(name, ())):
                for n in more:
                    if n not in seen:
                        seen.add(n)
                        todo.append(n)
        return frozenset(seen)


def plan_deps(sql: str, cat: CatalogSnapshot) -> frozenset[str] | None:
    """The names a plan of `sql`, made against `cat`, depends on (None: everything)."""
    reach = cat.derived.setdefault("plan_deps", {}).get(0)
    if reach is None:
        reach = cat.derived["plan_deps"][0] = _Reach(cat)
    return reach.closure(sql)
