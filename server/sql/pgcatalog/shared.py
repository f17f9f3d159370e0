"""Cluster-wide catalogs: pg_database, pg_authid and its views, pg_tablespace, pg_shdescription.

In PostgreSQL these are shared by every database; here they come from the
snapshot's `databases` and `roles`, which the catalog keeps cluster-wide.
Databases are UTF8 (encoding 6) with the C locale provider's "C" collation.
"""

from __future__ import annotations

from typing import Any

from ..catalog import model as M
from ..privileges.acl import acl_texts
from .names import all_roles
from .registry import pg_relation

UTF8 = 6


@pg_relation("pg_catalog", "pg_database")
def pg_database(ctx: Any) -> list[tuple[Any, ...]]:
    """Every database of the cluster."""
    return [
        (d.oid, d.name, d.owner, UTF8, "c", d.name.startswith("template"), True, -1, 0, 1,
         1663, "C", "C", None, None, acl_texts(ctx.catalog, d.acl))
        for d in ctx.catalog.databases
    ]


def _role_flags(r: M.Role) -> tuple[bool, ...]:
    return (r.superuser, r.inherit, r.createrole or r.superuser, r.createdb or r.superuser, r.login,
            r.superuser)


@pg_relation("pg_catalog", "pg_authid")
def pg_authid(ctx: Any) -> list[tuple[Any, ...]]:
    """Roles, with their password verifiers."""
    out = []
    for r in all_roles(ctx.catalog):
        sup, inherit, crole, cdb, login, repl = _role_flags(r)
        out.append((r.oid, r.name, sup, inherit, crole, cdb, login, repl, sup, -1, r.password,
                    None))
    return out


@pg_relation("pg_catalog", "pg_roles")
def pg_roles(ctx: Any) -> list[tuple[Any, ...]]:
    """Roles, passwords masked as PostgreSQL's pg_roles view does."""
    out = []
    for r in all_roles(ctx.catalog):
        sup, inherit, crole, cdb, login, repl = _role_flags(r)
        out.append((r.name, sup, inherit, crole, cdb, login, repl, -1, "********", None, sup,
                    None, r.oid))
    return out


@pg_relation("pg_catalog", "pg_user")
def pg_user(ctx: Any) -> list[tuple[Any, ...]]:
    """Roles that may log in."""
    return [
        (r.name, r.oid, r.createdb or r.superuser, r.superuser, r.superuser, r.superuser,
         "********", None, None)
        for r in all_roles(ctx.catalog) if r.login
    ]


@pg_relation("pg_catalog", "pg_tablespace")
def pg_tablespace(ctx: Any) -> list[tuple[Any, ...]]:
    """The two built-in tablespaces."""
    return [(1663, "pg_default", 10, None, None), (1664, "pg_global", 10, None, None)]


@pg_relation("pg_catalog", "pg_shdescription")
def pg_shdescription(ctx: Any) -> list[tuple[Any, ...]]:
    """Comments on databases and roles."""
    cat = ctx.catalog
    dbs = {d.oid for d in cat.databases}
    roles = {r.oid for r in cat.roles}
    return [
        (oid, 1262 if oid in dbs else 1260, text)
        for (oid, sub), text in cat.comments.items() if oid in dbs or oid in roles
    ]
