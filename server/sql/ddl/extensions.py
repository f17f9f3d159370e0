"""CREATE EXTENSION / DROP EXTENSION for the extensions Cumulo provides built in.

pgcrypto (digest, hmac, gen_random_bytes, gen_random_uuid) and uuid-ossp
(uuid_generate_v1/v3/v4/v5, uuid_nil, uuid_ns_*) are implemented in
`functions.cryptofns`, pgcrypto's crypt and gen_salt in `functions.pgcryptfns`, its encrypt/decrypt in
`functions.pgcipherfns`; CREATE EXTENSION records them in pg_extension (a
catalog row, transactional like any DDL) so that applications and test
fixtures that create them, such as Django's, proceed. plpgsql is always there,
as in every PostgreSQL database. hstore also makes its type: a pg_type row
(`UserType` of kind "b", with its array type) whose OIDs are allocated here,
as PostgreSQL's CREATE EXTENSION allocates them (clients such as psycopg's
TypeInfo and asyncpg find it by name); DROP EXTENSION drops it again, refused
(2BP01, PostgreSQL's DETAIL) while columns use the type, or with CASCADE dropping
those columns and the views that read them. pgcrypto's and uuid-ossp's
functions resolve only once their extension exists (42883 before, as in
PostgreSQL: `functions.cryptofns.EXTENSION_OF`). btree_gist gives GiST indexes and
EXCLUDE constraints the scalar types (`pgcatalog.accessmethods.BTREE_GIST`), btree_gin
gives them to GIN indexes (`BTREE_GIN`); bloom makes its index access method
(`accessmethods.EXTENSION_METHODS`: keys of int4 and text, its length and colN options),
pg_trgm its trigram functions and operators (`functions.trgmfns`, `expr.trgmops`),
unaccent its function (`functions.unaccentfns`) and tablefunc its crosstab
(`functions.tablefunc`); Django's contrib.postgres test
migrations create all of these. btree_gist's and pg_trgm's operator classes are
`pgcatalog.extopclasses` (DROP EXTENSION refuses while an index uses one, 2BP01, or drops
it with CASCADE). Not made: unaccent's text search dictionary. Any other extension fails with PostgreSQL's own
message (0A000 `extension "x" is not available`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    DuplicateObject,
    FeatureNotSupported,
    SQLError,
    SyntaxError_,
    UndefinedObject,
)
from ...pgwire.backend import Result
from ..catalog.model import Extension, Index, Table, UserType
from ..pgcatalog.extopclasses import CLASS_BY_OID, ORDER
from ..pgcatalog.relations import index_row
from ..stmt import Stmt
from .alter import drop_column
from .depends import (
    refuse_dependents,
    relation_description,
    report_cascade,
    views_depending,
    views_using_column,
)
from .names import creation_schema, parse_qualified, skip_or_raise

if TYPE_CHECKING:
    from ..session import SQLSession

AVAILABLE = {"pgcrypto": "1.3", "uuid-ossp": "1.1", "hstore": "1.8", "citext": "1.6",
             "btree_gist": "1.7", "bloom": "1.0", "btree_gin": "1.3", "pg_trgm": "1.6",
             "unaccent": "1.1", "tablefunc": "1.0"}
TYPES = {"hstore": ("hstore",), "citext": ("citext",)}  # the base types an extension makes
_NAME = r"(?:\"(?:[^\"]|\"\")+\"|[\w$-]+)"
_CREATE = re.compile(rf"CREATE\s+EXTENSION\s+(?P<ine>IF\s+NOT\s+EXISTS\s+)?(?P<name>{_NAME})"
                     rf"(?P<opts>(?:\s+WITH)?(?:\s+(?:SCHEMA\s+{_NAME}|VERSION\s+\S+|CASCADE))*)"
                     r"\s*;?\s*$", re.I | re.S)
_DROP = re.compile(r"DROP\s+EXTENSION\s+(?P<ie>IF\s+EXISTS\s+)?(?P<names>.+?)"
                   r"(?:\s+(?P<how>CASCADE|RESTRICT))?\s*;?\s*$", re.I | re.S)
_SCHEMA = re.compile(rf"SCHEMA\s+(?P<s>{_NAME})", re.I)


def _unavailable(name: str) -> SQLError:
    return FeatureNotSupported(
        f'extension "{name}" is not available',
        detail=f'Could not open extension control file "/usr/share/postgresql/15/extension/'
        f'{name}.control": No such file or directory.',
        hint="The extension must first be installed on the system where PostgreSQL is running.")


def _create(s: SQLSession, name: str, schema: str | None, if_not_exists: bool) -> str:
    cat = s.catalog()
    if name == "plpgsql" or any(e.name == name for e in cat.extensions):
        if if_not_exists:
            s.notice(f'extension "{name}" already exists, skipping', sqlstate="42710")
            return "CREATE EXTENSION"
        raise DuplicateObject(f'extension "{name}" already exists')
    if name not in AVAILABLE:
        raise _unavailable(name)
    sch = creation_schema(cat, schema, s.search_path())
    txn = s.ensure_txn()
    for tname in TYPES.get(name, ()):
        if any(t.name == tname and t.schema_oid == sch.oid for t in cat.types):
            raise DuplicateObject(f'type "{tname}" already exists')
        toid, aoid = s.store.allocate_oid(), s.store.allocate_oid()
        s.store.put(txn, s.db.oid, UserType(toid, tname, sch.oid, "b", aoid))
    s.store.put(txn, s.db.oid, Extension(s.store.allocate_oid(), name, sch.oid, AVAILABLE[name]))
    s.catalog_changed()
    return "CREATE EXTENSION"


def _dependents(s: SQLSession, types: list[UserType]) -> tuple[list[str], list[str],
                                                                 list[tuple[Table, str]],
                                                                 list[Table]]:
    """What uses an extension's types: PostgreSQL's DETAIL lines for a refusal, its objects
    for the CASCADE notice, the (table, column)s and the views that CASCADE drops."""
    cat, visible = s.catalog(), s.search_path()
    lines: list[str] = []
    objects: list[str] = []
    columns: list[tuple[Table, str]] = []
    views: list[Table] = []

    def add_view(v: Table, line: str) -> None:
        if all(v.oid != x.oid for x in views):
            views.append(v)
            lines.append(line)
            objects.append(relation_description(cat, v, visible))

    def readers(rel: Table, col: str) -> None:
        """The views reading column `col` of `rel`, and theirs (a column of the same name)."""
        target = f"column {col} of {relation_description(cat, rel, visible)}"
        for v in views_using_column(cat, rel, col):
            add_view(v, f"{relation_description(cat, v, visible)} depends on {target}")
            if any(c.name == col for c in v.live_columns):
                readers(v, col)
            else:
                for w, line in views_depending(cat, v, visible):
                    add_view(w, line)

    for t in types:  # NB: PostgreSQL reaches the array type's columns first
        for oid, shown in ((t.array_oid, f"{t.name}[]"), (t.oid, t.name)):
            for tb in cat.tables:
                if tb.kind == "v":
                    continue
                for c in tb.live_columns:
                    if c.type_oid != oid:
                        continue
                    target = f"column {c.name} of {relation_description(cat, tb, visible)}"
                    lines.append(f"{target} depends on type {shown}")
                    objects.append(target)
                    columns.append((tb, c.name))
                    readers(tb, c.name)
    return lines, objects, columns, views


def _class_users(s: SQLSession, ext: str) -> list[tuple[Index, str]]:
    """The indexes (and EXCLUDE constraints) whose keys use an operator class of extension
    `ext`, with PostgreSQL's DETAIL line for each ("index i depends on operator class
    gin_trgm_ops for access method gin", naming the last such key's class, in the order of
    the classes' creation, as PostgreSQL reaches them); a GiST index of
    btree_gist's default classes uses them too (`opclasses.oid_of`)."""
    cat = s.catalog()
    out: list[tuple[int, int, Index, str]] = []
    for i in cat.indexes:
        if i.method not in ("gist", "gin", "bloom"):
            continue
        used = [c for c in map(CLASS_BY_OID.get, index_row(cat, i)[17])  # NB: indclass
                if c is not None and c.extension == ext]
        if used:
            con = next((c for c in cat.constraints if c.index_oid == i.oid), None)
            t = cat.table_by_oid(i.table_oid)
            who = f"index {i.name}" if con is None else \
                f"constraint {con.name} on table {t.name if t else '?'}"
            out.append((ORDER[used[-1].oid], i.oid, i, f"{who} depends on operator class "
                        f"{used[-1].name} for access method {used[-1].method}"))
    return [(i, line) for _, _, i, line in sorted(out, key=lambda u: u[:2])]  # NB: pg_depend's


def _drop(s: SQLSession, names: list[str], if_exists: bool, cascade: bool) -> str:
    cat = s.catalog()
    found = []
    for name in names:
        ext = next((e for e in cat.extensions if e.name == name), None)
        if ext is None:
            skip_or_raise(s, f'extension "{name}"', if_exists, UndefinedObject)
            continue
        found.append(ext)
    for ext in found:
        types = [t for t in s.catalog().types if t.kind == "b" and t.schema_oid == ext.schema_oid
                 and t.name in TYPES.get(ext.name, ())]
        lines, objects, columns, views = _dependents(s, types)
        indexes = _class_users(s, ext.name)
        lines += [line for _, line in indexes]
        objects += [line.split(" depends")[0] for _, line in indexes]
        if not cascade:
            refuse_dependents(f"extension {ext.name}", lines)
        if any(line.startswith("constraint") for _, line in indexes):
            raise FeatureNotSupported("DROP EXTENSION ... CASCADE of an EXCLUDE constraint's "
                                      "operator class is not supported")
        txn = s.ensure_txn()
        for i, _ in indexes:
            s.store.delete(txn, s.db.oid, i)
            s.pending_drops.append(i.space)
        for v in views:  # NB: first, so that dropping their columns finds no view to report
            s.store.delete(txn, s.db.oid, v)
        if views:
            s.catalog_changed()
        for tb, col in columns:
            table = s.catalog().table_by_oid(tb.oid)
            if table is not None:
                drop_column(s, table, exp.Drop(kind="COLUMN", cascade=True,
                                               tables=[exp.column(col, quoted=True)]))
        report_cascade(s, objects)
        s.store.delete(s.ensure_txn(), s.db.oid, ext)
        for t in types:
            s.store.delete(s.ensure_txn(), s.db.oid, t)
        s.catalog_changed()
    return "DROP EXTENSION"


def analyse(session: SQLSession, sql: str, m0: Any) -> Stmt:
    """CREATE / DROP EXTENSION (ALTER EXTENSION: 0A000)."""
    text = sql.strip()
    if text[:4].upper() == "DROP":
        m = _DROP.match(text)
        if m is None:
            raise SyntaxError_("syntax error in DROP EXTENSION")
        names = [parse_qualified(n.strip())[1] for n in m.group("names").split(",")]
        if_exists = bool(m.group("ie"))
        cascade = (m.group("how") or "").upper() == "CASCADE"
        return Stmt(sql, "ddl", lambda s, p: Result(_drop(s, names, if_exists, cascade)), None,
                    [], -1,
                    tag="DROP EXTENSION")
    m = _CREATE.match(text)
    if m is None:
        raise FeatureNotSupported(f"{text.split()[0].upper()} EXTENSION of this form is not "
                                  "supported")
    name = parse_qualified(m.group("name"))[1]
    sm = _SCHEMA.search(m.group("opts") or "")
    schema = parse_qualified(sm.group("s"))[1] if sm else None
    ine = bool(m.group("ine"))
    return Stmt(sql, "ddl", lambda s, p: Result(_create(s, name, schema, ine)), None, [], -1,
                tag="CREATE EXTENSION")
