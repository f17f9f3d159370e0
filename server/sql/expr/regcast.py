"""The object-identifier types (`::regclass`, `::regtype`, ...): name <-> OID through the catalog.

Clients compare these values as integers (`attrelid = 'tbl'::regclass`) and
print them as names (`SELECT oid::regclass`). `RegOid` is an int that prints
as its name, so both work without the wire layer knowing about the catalog.
The lookups (`plan.regresolver.RegResolver`) read the `CatalogSnapshot` the
plan was built against (plans are rebuilt when the catalog version changes)
plus the virtual pg_catalog tables.
"""

from __future__ import annotations


class RegOid(int):
    """An OID that prints as the object's name."""

    label: str

    def __new__(cls, oid: int, label: str | None = None) -> RegOid:
        v = super().__new__(cls, oid)
        v.label = label if label is not None else str(oid)
        return v

    def __str__(self) -> str:
        return self.label

    __repr__ = int.__repr__
