"""ALTER TABLE | VIEW | SEQUENCE | SCHEMA | FUNCTION | DATABASE | LARGE OBJECT ... OWNER TO role.

As PostgreSQL 15: a superuser may give anything to anyone; otherwise the
current role must own the object (`must be owner of table t`), be a member
of the new owner (`must be member of role "r"`) and, for objects in a schema,
the new owner must have CREATE on it. The ACL follows the owner: items the
old owner granted or held become the new owner's (PostgreSQL's aclnewowner).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ...errors import (
    InsufficientPrivilege,
    InvalidSchemaName,
    SQLError,
    UndefinedObject,
    UndefinedTable,
)
from ...pgwire.backend import Result
from ..ddl.names import find_relation, find_sequence, parse_qualified, schema_by_name, skip_or_raise
from ..ddl.routines import find_routine
from ..dml.deferstate import refuse_pending
from ..largeobj.objects import lookup as find_large_object
from ..largeobj.objects import save as save_large_object
from ..parse import unquote_ident
from ..stmt import Stmt
from .acl import with_new_owner
from .check import (
    current_role,
    has_privileges,
    member_roles,
    must_own,
    object_owner,
    relation_noun,
    role_by_name,
)

if TYPE_CHECKING:
    from ..session import SQLSession

_OWNER = re.compile(r"ALTER\s+(?P<kind>TABLE|VIEW|SEQUENCE|SCHEMA|FUNCTION|PROCEDURE|ROUTINE|"
                    r"DATABASE|"
                    r"LARGE\s+OBJECT)\s+"
                    r"(?P<ie>IF\s+EXISTS\s+)?(?P<name>.+?)\s+OWNER\s+TO\s+(?P<role>\S+?)\s*;?\s*$",
                    re.I | re.S)


def analyse_owner(session: SQLSession, sql: str) -> Stmt | None:
    """The Stmt of an `... OWNER TO` statement, or None if `sql` is not one."""
    m = _OWNER.match(sql.strip())
    if m is None:
        return None
    kind = " ".join(m.group("kind").upper().split())
    return Stmt(sql, "ddl", lambda s, p: _run(s, m, kind), None, [], -1, tag=f"ALTER {kind}")


def _find(s: SQLSession, kind: str, raw: str) -> tuple[str, Any] | None:
    cat = s.catalog()
    if kind == "SCHEMA":
        sch = schema_by_name(cat, unquote_ident(raw))
        return ("schema", sch) if sch is not None else None
    if kind == "DATABASE":
        db = next((d for d in cat.databases if d.name == unquote_ident(raw)), None)
        return ("database", db) if db is not None else None
    if kind == "LARGE OBJECT":
        lo = find_large_object(s, raw)
        return ("large object", lo) if lo is not None else None
    if kind in ("FUNCTION", "PROCEDURE", "ROUTINE"):  # NB: by its arguments, PostgreSQL's errors
        return ("function", find_routine(s, kind, raw))
    schema, name = parse_qualified(raw)
    path = s.search_path()
    if kind == "SEQUENCE":
        q = find_sequence(cat, schema, name, path)
        return ("sequence", q) if q is not None else None
    t = find_relation(cat, schema, name, path)
    if t is None and kind == "TABLE":  # NB: ALTER TABLE works on a sequence too (pg_dump's)
        q = find_sequence(cat, schema, name, path)
        return ("sequence", q) if q is not None else None
    return ("view" if t.kind == "v" else "table", t) if t is not None else None


def _run(s: SQLSession, m: re.Match[str], kind: str) -> Result:
    cat = s.catalog()
    raw = m.group("name").strip()
    found = _find(s, kind, raw)
    if found is None:
        if m.group("ie"):
            skip_or_raise(s, f'relation "{raw}"', True, UndefinedTable)
            return Result(f"ALTER {kind}")
        if kind == "SCHEMA":
            raise InvalidSchemaName(f'schema "{unquote_ident(raw)}" does not exist')
        if kind == "DATABASE":
            raise SQLError(f'database "{unquote_ident(raw)}" does not exist', sqlstate="3D000")
        if kind == "LARGE OBJECT":
            raise UndefinedObject(f"large object {raw} does not exist")
        raise UndefinedTable(f'relation "{raw}" does not exist')
    obj_kind, obj = found
    if obj_kind == "table":  # NB: ALTER TABLE's 55006, before the privilege checks, as PG
        refuse_pending(s, cat, obj, "ALTER TABLE")
    rname = m.group("role")
    up = rname.upper()
    target = current_role(s, cat) if up in ("CURRENT_USER", "CURRENT_ROLE") else \
        role_by_name(cat, s.user if up == "SESSION_USER" else unquote_ident(rname))
    if target is None:
        raise UndefinedObject(f'role "{unquote_ident(rname)}" does not exist')
    me = current_role(s, cat)
    old = object_owner(obj_kind, obj)
    in_schema = obj_kind in ("function", "sequence", "view", "table")
    sch = cat.schema_by_oid(obj.schema_oid) if in_schema else None
    if me is not None and sch is not None and not has_privileges(cat, me, "schema", sch, "U"):
        raise InsufficientPrivilege(f"permission denied for schema {sch.name}")  # the look-up
    if me is not None and not me.superuser and old != target.oid:
        noun = relation_noun(obj) if obj_kind in ("table", "view") else obj_kind
        must_own(cat, me, old, noun, obj.name)
        if target.oid not in member_roles(cat, me):
            raise InsufficientPrivilege(f'must be member of role "{target.name}"')
        if sch is not None and not has_privileges(cat, target, "schema", sch, "C"):
            raise InsufficientPrivilege(f"permission denied for schema {sch.name}")
    new = dataclasses.replace(obj, owner=target.oid, acl=with_new_owner(obj.acl, old, target.oid))
    if obj_kind == "large object":  # NB: not a catalog object: a row of its own space
        save_large_object(s, new)
        return Result(f"ALTER {kind}")
    s.store.put(s.ensure_txn(), 0 if obj_kind == "database" else s.db.oid, new)
    s.catalog_changed()
    return Result(f"ALTER {kind}")
