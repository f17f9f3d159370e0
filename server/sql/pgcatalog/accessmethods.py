"""Index access methods: the names CREATE INDEX ... USING accepts, their pg_am rows, and
what each refuses, as PostgreSQL 15 does.

Cumulo keeps every index as an ordered KiVi space whatever its method, so a hash, GiST,
GIN, SP-GiST or BRIN index answers as a btree one would; what the method changes is what
the catalog says (pg_class.relam, pg_am, pg_indexes.indexdef: clients and ORMs read the
method back, Django's introspection among them) and what CREATE INDEX refuses.

>>> [m.oid for m in (method("btree"), method("GIN"))]
[403, 2742]
>>> try:
...     method("rtree")
... except UndefinedObject as e:
...     print(e.sqlstate, e.message)
42704 access method "rtree" does not exist
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import FeatureNotSupported, UndefinedObject


@dataclass(frozen=True)
class AccessMethod:
    oid: int
    name: str
    handler: str
    unique: bool = False  # amcanunique
    multicolumn: bool = True  # amcanmulticol
    order: bool = False  # amcanorder: ASC/DESC and NULLS FIRST/LAST
    include: bool = False  # amcaninclude


INDEX_METHODS = {m.name: m for m in (
    AccessMethod(403, "btree", "bthandler", unique=True, order=True, include=True),
    AccessMethod(405, "hash", "hashhandler", multicolumn=False),
    AccessMethod(783, "gist", "gisthandler", include=True),
    AccessMethod(2742, "gin", "ginhandler"),
    AccessMethod(3580, "brin", "brinhandler"),
    AccessMethod(4000, "spgist", "spghandler", multicolumn=False, include=True),
)}
BY_OID = {m.oid: m for m in INDEX_METHODS.values()}


def method(name: str) -> AccessMethod:
    """The index access method `name` (case-insensitive); 42704 when there is none."""
    found = INDEX_METHODS.get(name.lower())
    if found is None:
        raise UndefinedObject(f'access method "{name.lower()}" does not exist')
    return found


def check(m: AccessMethod, unique: bool, keys: int, descending: bool, nulls_first: bool,
          included: bool) -> None:
    """Refuses what the method cannot do, with PostgreSQL's 0A000 messages."""
    if unique and not m.unique:
        raise FeatureNotSupported(f'access method "{m.name}" does not support unique indexes')
    if keys > 1 and not m.multicolumn:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support multicolumn indexes')
    if included and not m.include:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support included columns')
    if descending and not m.order:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support ASC/DESC options')
    if nulls_first and not m.order:
        raise FeatureNotSupported(
            f'access method "{m.name}" does not support NULLS FIRST/LAST options')
