"""The operator classes extensions make: btree_gist's GiST classes, pg_trgm's trigram ones
and bloom's.

`CREATE INDEX … USING gin (name gin_trgm_ops)` (Django's GinIndex with `opclasses`, every
trigram-search recipe) and `USING gist (n gist_int4_ops)` name classes that exist only once
their extension does. Cumulo keeps every index ordered by its keys whatever the method, so
a class changes no behaviour; what it must do is exist, or not, as in PostgreSQL, and show
in pg_opclass, pg_index.indclass and `pg_get_indexdef`. btree_gist's classes are the GiST
defaults of their types, so `USING gist (n)` records gist_int4_ops as PostgreSQL does.

The rows are PostgreSQL 15's (btree_gist 1.7, pg_trgm 1.6, bloom 1.0): name, method,
input type, default. Their OIDs are stable synthetic ones (PostgreSQL allocates them at CREATE
EXTENSION, so they differ between databases anyway), in the extension's schema.

>>> c = CLASSES["gin", "gin_trgm_ops"]
>>> c.extension, c.input_type, c.default, c.key_type
('pg_trgm', 25, False, 23)
>>> CLASSES["gist", "gist_int4_ops"].default, DEFAULTS["gist", 23].name
(True, 'gist_int4_ops')
>>> len({c.oid for c in CLASSES.values()}) == len(CLASSES)
True
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from . import operdata as D
from .accessmethods import INDEX_METHODS

_ANYENUM = 3500
_CORE = {int(line.split()[0]) for block in (D.OPCLASSES, D.OPFAMILIES)
         for line in block.strip().splitlines()}  # PostgreSQL's own class and family OIDs
_BTREE_GIST = ("oid", "int2", "int4", "int8", "float4", "float8", "timestamp", "timestamptz",
               "time", "timetz", "date", "interval", "cash:money", "macaddr", "text", "bpchar",
               "bytea", "numeric", "bit", "vbit:varbit", "inet", "cidr", "uuid", "macaddr8",
               "enum:-", "bool")


@dataclass(frozen=True)
class ExtClass:
    """One extension's operator class (a pg_opclass row once the extension exists)."""

    oid: int
    extension: str
    name: str
    method: str
    input_type: int
    default: bool
    key_type: int = 0  # NB: btree_gist's gbtreekey* and pg_trgm's gtrgm are not Cumulo types

    def row(self, ext: M.Extension) -> tuple[Any, ...]:
        """The pg_opclass row (its family has the same OID and name)."""
        return (self.oid, INDEX_METHODS[self.method].oid, self.name, ext.schema_oid, ext.owner,
                self.oid, self.input_type, self.default, self.key_type)


def _oid(name: str, taken: set[int]) -> int:
    """A stable OID for a class and its family, clear of PostgreSQL's and of the others."""
    oid = 9000 + zlib.crc32(name.encode()) % 7000
    while oid in _CORE or oid in taken:
        oid += 1
    taken.add(oid)
    return oid


def _classes() -> list[ExtClass]:
    taken: set[int] = set()
    out = []
    for spec in _BTREE_GIST:
        short, _, tname = spec.partition(":")
        typ = _ANYENUM if tname == "-" else T.BY_NAME[tname or short].oid
        out.append(ExtClass(_oid(f"gist_{short}_ops", taken), "btree_gist",
                            f"gist_{short}_ops", "gist", typ, True))
    out.append(ExtClass(_oid("gist_trgm_ops", taken), "pg_trgm", "gist_trgm_ops", "gist",
                        T.TEXT, False))
    for name, typ in (("int4_ops", T.INT4), ("text_ops", T.TEXT)):  # bloom's, its keys' types
        out.append(ExtClass(_oid(f"bloom_{name}", taken), "bloom", name, "bloom", typ, True))
    out.append(ExtClass(_oid("gin_trgm_ops", taken), "pg_trgm", "gin_trgm_ops", "gin",
                        T.TEXT, False, T.INT4))
    return out


CLASSES: dict[tuple[str, str], ExtClass] = {(c.method, c.name): c for c in _classes()}
CLASS_BY_OID: dict[int, ExtClass] = {c.oid: c for c in CLASSES.values()}
ORDER = {c.oid: n for n, c in enumerate(CLASSES.values())}  # the extension scripts' order
DEFAULTS: dict[tuple[str, int], ExtClass] = {
    (c.method, c.input_type): c for c in CLASSES.values() if c.default}


def installed(cat: M.CatalogSnapshot) -> list[tuple[ExtClass, M.Extension]]:
    """The classes of the extensions CREATE EXTENSION made in this database."""
    exts = {e.name: e for e in cat.extensions}
    return [(c, exts[c.extension]) for c in CLASSES.values() if c.extension in exts]


def opclass_rows(cat: M.CatalogSnapshot) -> tuple[tuple[Any, ...], ...]:
    return tuple(c.row(e) for c, e in installed(cat))


def opfamily_rows(cat: M.CatalogSnapshot) -> tuple[tuple[Any, ...], ...]:
    return tuple((c.oid, INDEX_METHODS[c.method].oid, c.name, e.schema_oid, e.owner)
                 for c, e in installed(cat))
