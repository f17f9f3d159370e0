"""The catalogs of privileges: pg_auth_members, pg_default_acl, information_schema.table_privileges.

Both come from the same ACLs the executor checks (`privileges`): a table
without a GRANT shows its owner's default privileges, as PostgreSQL's
`aclexplode(coalesce(relacl, acldefault('r', relowner)))` does.
"""

from __future__ import annotations

import zlib
from typing import Any

from ..catalog import model as M
from ..privileges.acl import LETTER_NAMES, aclitem_text, parse_item, role_name
from ..privileges.check import current_role, effective_acl, privilege_roles
from .registry import pg_relation

_TABLE_ORDER = "arwdDxt"


@pg_relation("pg_catalog", "pg_auth_members")
def pg_auth_members(ctx: Any) -> list[tuple[Any, ...]]:
    """Role memberships made by GRANT role TO role (granted by the bootstrap superuser)."""
    return [(g, r.oid, M.BOOTSTRAP_SUPERUSER_OID, False)
            for r in ctx.catalog.roles for g in r.member_of]


@pg_relation("information_schema", "table_privileges")
def table_privileges(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per (grantor, grantee, table, privilege) the current role can see."""
    cat: M.CatalogSnapshot = ctx.catalog
    me = current_role(ctx, cat)
    return _grants(cat, None if me is None or me.superuser else privilege_roles(cat, me), True)


@pg_relation("information_schema", "role_table_grants")
def role_table_grants(ctx: Any) -> list[tuple[Any, ...]]:
    """table_privileges' rows whose grantor or grantee is an enabled role (superuser or not)."""
    cat: M.CatalogSnapshot = ctx.catalog
    me = current_role(ctx, cat)
    return _grants(cat, privilege_roles(cat, me) - {0} if me is not None else set(), False)


def _grants(cat: M.CatalogSnapshot, visible: set[int] | None, public: bool
            ) -> list[tuple[Any, ...]]:
    schemas = {s.oid: s.name for s in cat.schemas}
    rows = []
    for t in cat.tables:
        if t.kind not in ("r", "v"):
            continue
        owner_roles = {t.owner}
        for item in effective_acl(t.acl, "table", t.owner):
            grantee, privs, grantor = parse_item(item)
            if visible is not None and not (grantee in visible or grantor in visible
                                            or (public and grantee == 0)):
                continue
            gname = "PUBLIC" if grantee == 0 else role_name(cat, grantee)
            for i, c in enumerate(privs):
                if c == "*" or c not in _TABLE_ORDER:
                    continue
                grantable = privs[i + 1: i + 2] == "*" or grantee in owner_roles
                rows.append((role_name(cat, grantor), gname, cat.database.name,
                             schemas.get(t.schema_oid, ""), t.name, LETTER_NAMES[c],
                             "YES" if grantable else "NO", "YES" if c == "r" else "NO"))
    return rows


@pg_relation("pg_catalog", "pg_default_acl")
def pg_default_acl(ctx: Any) -> list[tuple[Any, ...]]:
    """ALTER DEFAULT PRIVILEGES' entries, one row per (role, schema or 0, object type).

    The entries are stored on the database row as `role:schema:kind:aclitem`
    (privileges.defaults); a global entry with no item is an empty ACL, which
    still replaces the built-in default. There is no stored oid, so the row's oid
    is derived from its key: stable while the entry exists, as a catalog oid is.
    """
    cat: M.CatalogSnapshot = ctx.catalog
    groups: dict[tuple[int, int, str], list[str]] = {}
    for entry in cat.database.default_acls:
        role, schema, kind, item = entry.split(":", 3)
        items = groups.setdefault((int(role), int(schema), kind), [])
        if item:
            items.append(item)
    return [(_default_acl_oid(key), key[0], key[1], key[2],
             [aclitem_text(cat, i) for i in sorted(items, key=_grantee_grantor)])
            for key, items in groups.items()]


def _grantee_grantor(item: str) -> tuple[int, int]:
    """PostgreSQL stores a default ACL sorted as aclitemsort does: by grantee, then grantor."""
    grantee, _, grantor = parse_item(item)
    return grantee, grantor


def _default_acl_oid(key: tuple[int, int, str]) -> int:
    """A synthetic oid in the range PostgreSQL gives user objects (>= 16384).

    >>> _default_acl_oid((16384, 0, "r")) == _default_acl_oid((16384, 0, "r"))
    True
    """
    return 16384 + zlib.crc32(f"{key[0]}:{key[1]}:{key[2]}".encode()) % 2_000_000_000
