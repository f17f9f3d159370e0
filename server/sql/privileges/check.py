"""Privilege checks: who the current role is, what it may do, and PostgreSQL's 42501 wording.

The current role is `SET ROLE`'s role if one is set, else the session
authorization (the login role or `SET SESSION AUTHORIZATION`'s), exactly as
PostgreSQL's current_user. A superuser passes every check. Otherwise a role
holds the privileges its own ACL items give, those of PUBLIC, and those of
every role it is a member of through a chain of INHERIT roles (PostgreSQL's
`has_privs_of_role`); SET ROLE only needs membership (`is_member_of_role`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ...errors import FeatureNotSupported, InsufficientPrivilege
from ..catalog.model import BOOTSTRAP_SUPERUSER_OID, PUBLIC_OID, CatalogSnapshot, Role, Table
from .acl import ALL_PRIVS, PG_DATABASE_OWNER, PUBLIC, default_acl, parse_item, privileges_of

if TYPE_CHECKING:
    from ..session import SQLSession

_KIND_NOUN = {"r": "table", "v": "view", "m": "materialized view", "S": "sequence",
              "p": "table", "f": "foreign table", "c": "type"}


# The owner of the SECURITY DEFINER routine running now (None: none): current_user inside.
_DEFINER: ContextVar[str | None] = ContextVar("security_definer", default=None)


@contextmanager
def running_as(owner: str | None) -> Iterator[None]:
    """Runs the block with current_user `owner` (a SECURITY DEFINER routine's body)."""
    token = _DEFINER.set(owner)
    try:
        yield
    finally:
        _DEFINER.reset(token)


# The owner of the SECURITY DEFINER routine running now (None outside one): the context
# variable's own `get`, a C call (every statement's privilege check asks it).
definer: Callable[[], str | None] = _DEFINER.get


def current_role_name(ctx: Any) -> str:
    """The name of current_user: a running SECURITY DEFINER routine's owner, SET ROLE's
    role, else the session authorization (`ctx`: a session or a function context: anything
    with `get_setting` and `user`)."""
    definer = _DEFINER.get()
    if definer is not None:
        return definer
    role = ctx.get_setting("role") or "none"
    if role != "none":
        return str(role)
    return str(ctx.get_setting("session_authorization") or ctx.user)


def role_by_name(cat: CatalogSnapshot, name: str) -> Role | None:
    return next((r for r in cat.roles if r.name == name), None)


def current_role(s: Any, cat: CatalogSnapshot | None = None) -> Role | None:
    """The current role's catalog entry (None if it was dropped meanwhile)."""
    return role_by_name(cat if cat is not None else s.catalog(), current_role_name(s))


def current_role_oid(s: SQLSession) -> int:
    """The current role's OID: the owner of what it creates."""
    r = current_role(s)
    return r.oid if r is not None else 10


def privilege_roles(cat: CatalogSnapshot, role: Role) -> set[int]:
    """The roles whose privileges `role` uses: itself, PUBLIC and INHERIT memberships."""
    by_oid = {r.oid: r for r in cat.roles}
    out, todo = {role.oid, PUBLIC}, [role]
    if cat.database.owner == role.oid:
        out.add(PG_DATABASE_OWNER)
    while todo:
        r = todo.pop()
        if not r.inherit:
            continue
        for m in r.member_of:
            if m not in out and m in by_oid:
                out.add(m)
                todo.append(by_oid[m])
    return out


def member_roles(cat: CatalogSnapshot, role: Role) -> set[int]:
    """Every role `role` is a member of, directly or not, regardless of INHERIT (SET ROLE)."""
    by_oid = {r.oid: r for r in cat.roles}
    out, todo = {role.oid}, [role]
    while todo:
        r = todo.pop()
        for m in r.member_of:
            if m not in out and m in by_oid:
                out.add(m)
                todo.append(by_oid[m])
    return out


def effective_acl(acl: tuple[str, ...] | None, kind: str, owner: int) -> tuple[str, ...]:
    return default_acl(kind, owner) if acl is None else acl


def object_owner(kind: str, obj: Any) -> int:
    """The owner as PostgreSQL 15 has it: `public` belongs to pg_database_owner."""
    if kind == "schema" and obj.oid == PUBLIC_OID and obj.owner == BOOTSTRAP_SUPERUSER_OID:
        return PG_DATABASE_OWNER
    return int(obj.owner)


def object_acl(kind: str, obj: Any) -> tuple[str, ...]:
    """An object's ACL, its kind's default when it has none (`public`: USAGE to PUBLIC)."""
    if obj.acl is not None:
        return tuple(obj.acl)
    owner = object_owner(kind, obj)
    if owner == PG_DATABASE_OWNER:
        return (f"{owner}=UC/{owner}", f"{PUBLIC}=U/{owner}")
    return default_acl(kind, owner)


def has_privileges(cat: CatalogSnapshot, role: Role, kind: str, obj: Any, wanted: str) -> bool:
    """True if `role` holds every privilege letter of `wanted` on the object."""
    if role.superuser:
        return True
    have = privileges_of(object_acl(kind, obj), privilege_roles(cat, role))
    return all(c in have for c in wanted)


def is_owner(cat: CatalogSnapshot, role: Role, owner: int) -> bool:
    """True if `role` may act as the owner: a superuser, the owner or a member of it (INHERIT)."""
    return role.superuser or owner in privilege_roles(cat, role)


def column_privileges(cat: CatalogSnapshot, role: Role, table: Table, attnum: int) -> str:
    """The letters `role` holds on one column through column-level GRANTs."""
    roles = privilege_roles(cat, role)
    have = ""
    for entry in table.column_acls:
        num, item = entry.split(":", 1)
        if int(num) == attnum:
            g, p, _ = parse_item(item)
            if g in roles:
                have += p.replace("*", "")
    return have


def relation_noun(table: Any) -> str:
    """What PostgreSQL's messages call a relation: "table", "view", "sequence"..."""
    return _KIND_NOUN.get(table.kind if isinstance(table, Table) else "S", "table")


def check_table(s: SQLSession, cat: CatalogSnapshot, role: Role | None, table: Table,
                wanted: str, columns: frozenset[str] | None = None) -> None:
    """42501 unless the role holds `wanted` on the table, or on each column of `columns` that
    the table has (None: every column; none of its columns named: any one column)."""
    if role is None or role.superuser:
        return
    kind = "view" if table.kind == "v" else "table"
    have = privileges_of(effective_acl(table.acl, kind, table.owner), privilege_roles(cat, role))
    missing = [c for c in wanted if c not in have]
    if not missing:
        _row_security(cat, role, table, wanted)
        return
    if table.column_acls and all(c in ALL_PRIVS["column"] for c in missing):
        live = table.live_columns
        cols = [c.attnum for c in live if columns is None or c.name in columns]
        held = [all(p in column_privileges(cat, role, table, a) for p in missing)
                for a in (cols or [c.attnum for c in live])]
        if held and (all(held) if cols else any(held)):
            _row_security(cat, role, table, wanted)
            return
    raise InsufficientPrivilege(f"permission denied for {relation_noun(table)} {table.name}")


def _row_security(cat: CatalogSnapshot, role: Role, table: Table, wanted: str) -> None:
    """0A000 where PostgreSQL would filter rows through policies (ENABLE ROW LEVEL SECURITY:
    for non-owners; FORCE: for the owner too): Cumulo has none, and PostgreSQL's default
    without any is to deny, so showing the rows would be wrong (ddl.physical)."""
    if not table.rowsecurity or not any(c in "rawd" for c in wanted):
        return
    if table.forcerowsecurity or not is_owner(cat, role, table.owner):
        raise FeatureNotSupported(
            f'table "{table.name}" has row-level security enabled: policies are not supported')


def must_own(cat: CatalogSnapshot, role: Role | None, owner: int, noun: str, name: str) -> None:
    """42501 `must be owner of <noun> <name>` unless the role owns the object."""
    if role is None or is_owner(cat, role, owner):
        return
    raise InsufficientPrivilege(f"must be owner of {noun} {name}")


def check_set_role(s: SQLSession, target: str | None, what: str) -> None:
    """42501 unless the session may SET ROLE (a member of it) or SET SESSION AUTHORIZATION
    (the login role is a superuser) to `target`."""
    if target is None:
        return
    cat = s.catalog()
    if what == "role":
        me = role_by_name(cat, s.settings.values.get("session_authorization") or s.user)
        want = role_by_name(cat, target)
        if me is None or want is None or me.superuser or want.oid in member_roles(cat, me):
            return
        raise InsufficientPrivilege(f'permission denied to set role "{target}"')
    me = role_by_name(cat, s.user)
    if me is not None and not me.superuser and target != s.user:
        raise InsufficientPrivilege("permission denied to set session authorization")


_SEQ_PASSED: dict[tuple[int, int, str, int, str], bool] = {}  # checks passed, while unchanged


def check_sequence(s: SQLSession, seq: Any, any_of: str) -> None:
    """42501 `permission denied for sequence q` unless the current role holds one of `any_of`
    (nextval: USAGE or UPDATE; currval: USAGE or SELECT; setval: UPDATE)."""
    check_object(s, "sequence", seq, any_of)


def check_function(s: SQLSession, fn: Any) -> None:
    """42501 `permission denied for function f` unless the current role may EXECUTE it."""
    check_object(s, "function", fn, "X")


def check_object(s: SQLSession, kind: str, obj: Any, any_of: str) -> None:
    """The per-call check of a sequence or function: cached while the catalog and the role
    stay the same, since it runs once per row."""
    seq = obj
    version = s.catalog_version()
    values = s.settings.values
    who = (values.get("role") or "") + "/" + (values.get("session_authorization") or s.user)
    key = (s.backend_pid, version, who, seq.oid, any_of)
    if version >= 0 and key in _SEQ_PASSED:
        return
    cat = s.catalog()
    role = current_role(s, cat)
    if role is not None and not role.superuser:
        have = privileges_of(object_acl(kind, seq), privilege_roles(cat, role))
        if not any(c in have for c in any_of):
            raise InsufficientPrivilege(f"permission denied for {kind} {seq.name}")
    if version >= 0:
        if len(_SEQ_PASSED) > 4096:
            _SEQ_PASSED.clear()
        _SEQ_PASSED[key] = True
