"""pg_largeobject_metadata and pg_largeobject, read from the large objects' own spaces
(`pages`) through the statement's transaction, so they show its uncommitted objects too."""

from __future__ import annotations

from typing import Any

from ...errors import InsufficientPrivilege
from ...pgtypes import oids as T
from ..pgcatalog.registry import virtual_table
from ..privileges.acl import acl_texts
from ..privileges.check import current_role
from . import pages

_ACLITEM_ARRAY = 1034


@virtual_table("pg_catalog", "pg_largeobject_metadata",
               [("oid", T.OID), ("lomowner", T.OID), ("lomacl", _ACLITEM_ARRAY)], 2995)
def pg_largeobject_metadata(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per large object of the database: OID, owner, ACL."""
    s = ctx.session
    if s is None:  # NB: a function context without a session (unit tests) has no objects
        return []
    cat = ctx.catalog
    return [(loid, owner, acl_texts(cat, acl))
            for _, loid, owner, acl in pages.all_meta(s.ensure_txn(), s.db.oid)]


@virtual_table("pg_catalog", "pg_largeobject",
               [("loid", T.OID), ("pageno", T.INT4), ("data", T.BYTEA)], 2613)
def pg_largeobject(ctx: Any) -> list[tuple[Any, ...]]:
    """Every page of every large object of the database: superusers only, as PostgreSQL
    revokes SELECT on pg_largeobject from PUBLIC (the objects' own ACLs guard their bytes)."""
    s = ctx.session
    if s is None:
        return []
    role = current_role(s)
    if role is None or not role.superuser:
        raise InsufficientPrivilege("permission denied for table pg_largeobject")
    return [(r[1], r[2], r[3]) for r in pages.pages(s.ensure_txn(), s.db.oid)]
