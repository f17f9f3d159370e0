"""ALTER DEFAULT PRIVILEGES for tables: the ACL a role's new tables and views start with.

PostgreSQL keeps these in pg_default_acl, per database, by (role, schema or none,
object kind). A role's entry without a schema replaces the built-in default (the
owner has every privilege) and starts from it; an entry for a schema only adds
items. A new table gets the owner's global entry (or the built-in default) plus
the schema's entry, and keeps a NULL ACL when that is just the built-in default.

Here the entries live on the database's catalog row as `role:schema:kind:aclitem`
strings (schema 0: every schema). Only tables (which include views) are
implemented; SEQUENCES, FUNCTIONS, TYPES and SCHEMAS fail with 0A000.

>>> entries = ("16384:0:r:16384=arwdDxt/16384", "16384:0:r:0=r/16384",
...            "16384:2200:r:16390=a/16384")
>>> initial_acl(entries, 16384, 2200)
('0=r/16384', '16384=arwdDxt/16384', '16390=a/16384')
>>> initial_acl(entries, 16384, 99), initial_acl(entries, 10, 2200)
(('0=r/16384', '16384=arwdDxt/16384'), None)
>>> initial_acl(("16384:0:r:",), 16384, 2200)
()
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ...errors import (
    DependentObjectsStillExist,
    FeatureNotSupported,
    InsufficientPrivilege,
    InvalidSchemaName,
    SyntaxError_,
    UndefinedObject,
)
from ...pgwire.backend import Result
from ..catalog.model import CatalogSnapshot
from ..ddl.names import schema_by_name
from ..parse import unquote_ident
from ..stmt import Stmt
from .acl import add, default_acl, revoke
from .check import current_role, member_roles, role_by_name
from .grant import _grantees, _privs, split_list

if TYPE_CHECKING:
    from ..session import SQLSession

_ADP = re.compile(
    r"ALTER\s+DEFAULT\s+PRIVILEGES\s+(?:FOR\s+(?:ROLE|USER)\s+(?P<roles>.+?)\s+)?"
    r"(?:IN\s+SCHEMA\s+(?P<schemas>.+?)\s+)?"
    r"(?:(?P<grant>GRANT)\s+(?P<gprivs>.+?)\s+ON\s+(?P<gkind>\w+)\s+TO\s+(?P<gwho>.+?)"
    r"(?P<gopt>\s+WITH\s+GRANT\s+OPTION)?"
    r"|REVOKE\s+(?P<ropt>GRANT\s+OPTION\s+FOR\s+)?(?P<rprivs>.+?)\s+ON\s+(?P<rkind>\w+)\s+FROM\s+"
    r"(?P<rwho>.+?)(?:\s+(?P<behavior>CASCADE|RESTRICT))?)\s*;?\s*$", re.I | re.S)


def _split(entry: str) -> tuple[int, int, str, str]:
    role, schema, kind, item = entry.split(":", 3)
    return int(role), int(schema), kind, item


def initial_acl(entries: tuple[str, ...], owner: int, schema_oid: int) -> tuple[str, ...] | None:
    """The ACL of a new table of `owner` in `schema_oid`; None: the built-in default."""
    mine = [_split(e) for e in entries]
    glob = [i for r, sc, k, i in mine if r == owner and sc == 0 and k == "r"]
    local = [i for r, sc, k, i in mine if r == owner and sc == schema_oid and k == "r" and i]
    if not glob and not local:
        return None
    acl = tuple(i for i in glob if i) if glob else default_acl("table", owner)
    for item in local:
        g, rest = item.split("=", 1)
        privs, grantor = rest.split("/", 1)
        acl = add(acl, int(g), privs, int(grantor))
    return tuple(sorted(acl, key=_item_order))  # NB: as PostgreSQL's aclitemsort


def _item_order(item: str) -> tuple[int, int]:
    grantee, rest = item.split("=", 1)
    return int(grantee), int(rest.rsplit("/", 1)[1])


def table_acl(s: SQLSession, owner: int, schema_oid: int) -> tuple[str, ...] | None:
    """The ACL CREATE TABLE / VIEW gives a new relation (see `initial_acl`)."""
    entries = s.catalog().database.default_acls
    return initial_acl(entries, owner, schema_oid) if entries else None


def analyse(sql: str) -> Stmt | None:
    """ALTER DEFAULT PRIVILEGES ... ON TABLES; None when `sql` is not that statement."""
    m = _ADP.match(sql.strip())
    if m is None:
        if re.match(r"\s*ALTER\s+DEFAULT\s+PRIVILEGES\b", sql, re.I):
            raise SyntaxError_("syntax error in ALTER DEFAULT PRIVILEGES")
        return None
    kind = (m.group("gkind") or m.group("rkind")).upper()
    if kind != "TABLES":
        raise FeatureNotSupported(f"ALTER DEFAULT PRIVILEGES ... ON {kind} is not supported")
    return Stmt(sql, "ddl", lambda s, p: _run(s, m), None, [], -1,
                tag="ALTER DEFAULT PRIVILEGES")


def _targets(s: SQLSession, cat: CatalogSnapshot, m: re.Match[str]) -> tuple[list[int], list[int]]:
    me = current_role(s, cat)
    roles: list[int] = []
    for raw in split_list(m.group("roles") or ""):
        r = role_by_name(cat, unquote_ident(raw))
        if r is None:

            raise UndefinedObject(f'role "{unquote_ident(raw)}" does not exist')
        if me is not None and not me.superuser and r.oid not in member_roles(cat, me):
            raise InsufficientPrivilege(f'must be member of role "{r.name}"')
        roles.append(r.oid)
    if not roles:
        roles = [me.oid if me is not None else 10]
    schemas: list[int] = []
    for raw in split_list(m.group("schemas") or ""):
        sch = schema_by_name(cat, unquote_ident(raw))
        if sch is None:

            raise InvalidSchemaName(f'schema "{unquote_ident(raw)}" does not exist')
        schemas.append(sch.oid)
    return roles, schemas or [0]


def _run(s: SQLSession, m: re.Match[str]) -> Result:
    cat = s.catalog()
    roles, schemas = _targets(s, cat, m)
    grant = m.group("grant") is not None
    letters, cols = _privs(m.group("gprivs") if grant else m.group("rprivs"), "table")
    if cols:
        raise SyntaxError_('syntax error at or near "("')
    grantees = _grantees(s, cat, m.group("gwho") if grant else m.group("rwho"))
    entries = list(cat.database.default_acls)
    for role in roles:
        for schema in schemas:
            mine = [e for e in entries if _split(e)[:3] == (role, schema, "r")]
            acl: Any = tuple(i for i in (_split(e)[3] for e in mine) if i)
            if not mine and schema == 0:
                acl = default_acl("table", role)
            for g in grantees:
                if grant:
                    star = "*" if m.group("gopt") else ""
                    acl = add(acl, g, "".join(c + star for c in letters), role)
                else:
                    cascade = (m.group("behavior") or "").upper() == "CASCADE"
                    revoked = revoke(acl, g, letters, bool(m.group("ropt")), cascade)
                    if revoked is None:
                        raise DependentObjectsStillExist(
                            "dependent privileges exist", hint="Use CASCADE to revoke them too.")
                    acl = revoked
            entries = [e for e in entries if e not in mine]
            if not (schema == 0 and acl == default_acl("table", role)):
                # NB: an empty global entry ("") still replaces the built-in default
                entries += [f"{role}:{schema}:r:{item}" for item in acl or ([""] if not schema
                                                                              else [])]
    db = cat.database
    s.store.put(s.ensure_txn(), 0, dataclasses.replace(db, default_acls=tuple(entries)))
    s.catalog_changed()
    return Result("ALTER DEFAULT PRIVILEGES")
