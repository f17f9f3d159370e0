"""Column collations: the built-in "C", "POSIX" and "default" (`COLLATE "C"`, Django's db_collation).

Cumulo compares text by code point, which is what "C" and "POSIX" mean, so a
column declared with either behaves as PostgreSQL's; the name is kept on the
column (`Column.collation`, "" for the database default) so that
pg_attribute.attcollation and information_schema.columns.collation_* report it.
CREATE COLLATION makes more code-point collations (`FROM "C"`, `locale = 'C.UTF-8'`;
see `ddl.collationstmt`), catalog rows a column may name too. Other collations
(ICU, OS locales) would need a collation library Cumulo does not have: a column
naming one is 42704, as in a PostgreSQL without that locale.

>>> column_collation("C", 25), column_collation("default", 1043), COLLATION_OIDS["POSIX"]
('C', '', 951)
"""

from __future__ import annotations

from ...errors import DatatypeMismatch, SQLError, UndefinedObject
from ...pgtypes import oids as T
from ..catalog.model import CatalogSnapshot, Collation
from .ddltext import format_type

COLLATION_OIDS = {"default": 100, "C": 950, "POSIX": 951}
COLLATABLE = (T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME)


def unknown(name: str) -> SQLError:
    return UndefinedObject(f'collation "{name}" for encoding "UTF8" does not exist')


def created(cat: CatalogSnapshot | None, name: str) -> Collation | None:
    """The CREATE COLLATION collation of that name (None: none, or no catalog at hand)."""
    return next((c for c in (cat.collations if cat is not None else ()) if c.name == name),
                None)


def collation_oid(cat: CatalogSnapshot, name: str) -> int | None:
    """pg_attribute.attcollation of a column's collation name (None: the type's default)."""
    if not name:
        return None
    c = created(cat, name)
    return c.oid if c is not None else COLLATION_OIDS.get(name)


def column_collation(name: str, type_oid: int, cat: CatalogSnapshot | None = None) -> str:
    """What a column's COLLATE stores ("" for the default); 42704/42804 as PostgreSQL.
    `cat` adds the catalog's CREATE COLLATION collations to the built-in ones."""
    if name not in COLLATION_OIDS and created(cat, name) is None:
        raise unknown(name)
    base = T.ELEMENT_OF.get(type_oid, type_oid)
    if base not in COLLATABLE:
        raise DatatypeMismatch(f"collations are not supported by type {format_type(type_oid, None)}")
    return "" if name == "default" else name


def info_schema(cat: CatalogSnapshot, collation: str) -> tuple[str | None, str | None,
                                                              str | None]:
    """information_schema's collation_catalog, _schema, _name: set for a non-default one."""
    if not collation:
        return (None, None, None)
    c = created(cat, collation)
    schema = "pg_catalog" if c is None else next(
        (s.name for s in cat.schemas if s.oid == c.schema_oid), "")
    return (cat.database.name, schema, collation)
