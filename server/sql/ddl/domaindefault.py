"""A domain column's default: its own DEFAULT, else the domain's, as PostgreSQL applies it.

PostgreSQL keeps a domain's DEFAULT on the domain (pg_type.typdefault) and uses it at INSERT
for a column of the domain with no DEFAULT of its own; such a column has no pg_attrdef row,
atthasdef false and a NULL information_schema.columns.column_default. Cumulo's writers read
`Column.default`, so the column carries the domain's default text with
`Column.domain_default` set: the writers apply it, the catalogs (pgcatalog.relations,
infoschema) hide it, and ALTER DOMAIN SET/DROP DEFAULT (ddl.domains) updates exactly these
columns. ALTER COLUMN SET DEFAULT makes the default the column's own; DROP DEFAULT gives the
domain's back.
"""

from __future__ import annotations

import dataclasses

from ..catalog.model import CatalogSnapshot, Column, UserType


def with_default(col: Column, own: str | None, dom: UserType | None) -> Column:
    """`col` with the DEFAULT `own` (None: none of its own) for a column of domain `dom`.

    >>> d = UserType(16400, "dd", 2200, "d", 16401, subtype=25, default="'x'::text")
    >>> c = with_default(Column("c", 25, domain=16400), None, d)
    >>> c.default, c.domain_default
    ("'x'::text", True)
    >>> c = with_default(c, "'y'::text", d)
    >>> c.default, c.domain_default
    ("'y'::text", False)
    """
    if own is None and dom is not None:
        return dataclasses.replace(col, default=dom.default, domain_default=True)
    return dataclasses.replace(col, default=own, domain_default=False)


def domain_of_column(cat: CatalogSnapshot, col: Column) -> UserType | None:
    """The domain `col` is declared with (None for a column of any other type)."""
    if not col.domain:
        return None
    return next((t for t in cat.types if t.oid == col.domain and t.kind == "d"), None)
