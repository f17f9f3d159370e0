"""REASSIGN OWNED BY old TO new, and DROP OWNED BY role: what clears a role for DROP ROLE.

PostgreSQL's usual way to drop a role that owns things: REASSIGN OWNED hands the
role's objects in this database (and the databases it owns) to another role;
DROP OWNED drops the role's objects in this database and revokes the privileges
granted to it here, so that DROP ROLE's 2BP01 (`ddl.roledeps`) has nothing left
to name. The objects are the ones `ddl.roledeps` lists: schemas, tables, views,
sequences, functions, types, domains, collations and large objects. DROP OWNED drops each through
its own DROP ... CASCADE statement, reporting no cascade notices, as PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ...errors import InsufficientPrivilege, SyntaxError_, UndefinedObject
from ...pgwire.backend import Result
from ..catalog.model import CatalogSnapshot, Role
from ..largeobj.objects import drop_owned as drop_large_objects
from ..largeobj.objects import reassign_owned as reassign_large_objects
from ..pgcatalog.names import quote_ident
from ..pgcatalog.typetext import format_type
from ..privileges.acl import parse_item
from ..privileges.check import current_role
from ..stmt import Stmt

if TYPE_CHECKING:
    from ..session import SQLSession

_ROLE = r'(?:"(?:[^"]|"")+"|[\w$]+)'
_REASSIGN = re.compile(rf"REASSIGN\s+OWNED\s+BY\s+(?P<old>{_ROLE}(?:\s*,\s*{_ROLE})*)\s+TO\s+"
                       rf"(?P<new>{_ROLE})\s*;?\s*$", re.I)
_DROP = re.compile(rf"DROP\s+OWNED\s+BY\s+(?P<old>{_ROLE}(?:\s*,\s*{_ROLE})*)\s*"
                   r"(?P<how>CASCADE|RESTRICT)?\s*;?\s*$", re.I)
OWNED = re.compile(r"(?:REASSIGN|DROP)\s+OWNED\b", re.I)


def _name(text: str) -> str:
    t = text.strip()
    return t[1:-1].replace('""', '"') if t.startswith('"') else t.lower()


def _role(cat: CatalogSnapshot, s: SQLSession, text: str) -> Role:
    name = _name(text)
    if name in ("current_user", "current_role", "session_user"):
        name = s.user
    role = next((r for r in cat.roles if r.name == name), None)
    if role is None:
        raise UndefinedObject(f'role "{name}" does not exist')
    return role


def analyse(session: SQLSession, sql: str) -> Stmt:
    """REASSIGN OWNED BY ... TO ... / DROP OWNED BY ... [CASCADE | RESTRICT]."""
    text = sql.strip()
    reassign, drop = _REASSIGN.match(text), _DROP.match(text)
    m = reassign or drop
    if m is None:
        raise SyntaxError_(f'syntax error at or near "{text.split()[-1]}"')
    olds = re.findall(_ROLE, m.group("old"))

    def run(s: SQLSession, p: list[Any]) -> Result:
        cat = s.catalog()
        roles = [_role(cat, s, o) for o in olds]
        me = current_role(s, cat)
        verb = "reassign" if reassign is not None else "drop"
        if me is not None and not me.superuser and any(r.oid != me.oid for r in roles):
            raise InsufficientPrivilege(f"permission denied to {verb} objects")
        oids = {r.oid for r in roles}
        if reassign is not None:
            new = _role(cat, s, m.group("new"))
            _reassign(s, cat, oids, new.oid)
            return Result("REASSIGN OWNED")
        _drop(s, cat, oids)
        return Result("DROP OWNED")

    tag = "REASSIGN OWNED" if reassign is not None else "DROP OWNED"
    return Stmt(sql, "ddl", run, None, [], -1, tag=tag)


def _objects(cat: CatalogSnapshot) -> list[Any]:
    return [*cat.schemas, *cat.tables, *cat.sequences, *cat.functions, *cat.types,
            *cat.collations]


def _reassign(s: SQLSession, cat: CatalogSnapshot, olds: set[int], new: int) -> None:
    txn = s.ensure_txn()
    for obj in _objects(cat):
        if obj.owner in olds:
            s.store.put(txn, s.db.oid, dataclasses.replace(obj, owner=new))
    for db in cat.databases:
        if db.owner in olds:
            s.store.put(txn, 0, dataclasses.replace(db, owner=new))
    reassign_large_objects(s, olds, new)
    s.catalog_changed()


def _revoked(acl: tuple[str, ...] | None, olds: set[int]) -> tuple[str, ...] | None:
    if acl is None:
        return None
    return tuple(i for i in acl if parse_item(i)[0] not in olds)


def _drop(s: SQLSession, cat: CatalogSnapshot, olds: set[int]) -> None:
    txn = s.ensure_txn()
    granted: list[Any] = [*cat.schemas, *cat.sequences, *cat.functions]
    for obj in granted:
        kept = _revoked(obj.acl, olds)
        if kept != obj.acl:
            s.store.put(txn, s.db.oid, dataclasses.replace(obj, acl=kept))
    for t in cat.tables:
        kept, cols = _revoked(t.acl, olds), tuple(
            e for e in t.column_acls if parse_item(e.split(":", 1)[1])[0] not in olds)
        if kept != t.acl or cols != t.column_acls:
            s.store.put(txn, s.db.oid, dataclasses.replace(t, acl=kept, column_acls=cols))
    s.catalog_changed()
    drop_large_objects(s, olds)
    statements = []
    for obj in sorted(_objects(cat), key=lambda o: -o.oid):  # NB: newest (dependents) first
        if obj.owner in olds:
            statements.append(_drop_statement(cat, obj))
    notices = list(s.notices)
    for sql in statements:
        if sql:
            for _ in s.simple_query(sql):
                pass
    s.notices = notices  # NB: PostgreSQL's DROP OWNED reports no cascade notices


def _qualified(cat: CatalogSnapshot, schema_oid: int, name: str) -> str:
    schema = cat.schema_by_oid(schema_oid)
    return (quote_ident(schema.name) + "." if schema is not None else "") + quote_ident(name)


def _drop_statement(cat: CatalogSnapshot, obj: Any) -> str:
    if obj in cat.schemas:
        return f"DROP SCHEMA IF EXISTS {quote_ident(obj.name)} CASCADE"
    name = _qualified(cat, obj.schema_oid, obj.name)
    if obj in cat.tables:
        kind = {"v": "VIEW", "m": "MATERIALIZED VIEW"}.get(obj.kind, "TABLE")
        return f"DROP {kind} IF EXISTS {name} CASCADE"
    if obj in cat.sequences:
        return f"DROP SEQUENCE IF EXISTS {name} CASCADE"
    if obj in cat.functions:
        args = ", ".join(format_type(a, None) or "" for a in obj.arg_types)
        return f"DROP FUNCTION IF EXISTS {name}({args}) CASCADE"
    if obj in cat.types:
        return f"DROP {'DOMAIN' if obj.kind == 'd' else 'TYPE'} IF EXISTS {name} CASCADE"
    return f"DROP COLLATION IF EXISTS {name} CASCADE"
