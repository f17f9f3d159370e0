"""Column collations: the built-in "C", "POSIX" and "default" (`COLLATE "C"`, Django's db_collation).

Cumulo compares text by code point, which is what "C" and "POSIX" mean, so a
column declared with either behaves as PostgreSQL's; the name is kept on the
column (`Column.collation`, "" for the database default) so that
pg_attribute.attcollation and information_schema.columns.collation_* report it.
CREATE COLLATION makes more code-point collations (`FROM "C"`, `locale = 'C.UTF-8'`;
see `ddl.collationstmt`), catalog rows a column may name too. ICU collations
(the predefined "sv-x-icu"s of `icucollations`, and CREATE COLLATION's with
provider icu) order text by ICU: a column using one stores `pgtypes.collated`
values (`wrappers`), which compare by their collator. OS locales other than the
code-point ones are 42704, as in a PostgreSQL without that locale.

>>> column_collation("C", 25), column_collation("default", 1043), COLLATION_OIDS["POSIX"]
('C', '', 951)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...errors import DatatypeMismatch, SQLError, UndefinedObject
from ...pgtypes import collated
from ...pgtypes import oids as T
from ..catalog.model import CatalogSnapshot, Collation, Table
from .ddltext import format_type
from .icucollations import predefined

COLLATION_OIDS = {"default": 100, "C": 950, "POSIX": 951, "ucs_basic": 12340, "C.utf8": 12341}
COLLATABLE = (T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME)


def unknown(name: str) -> SQLError:
    hint = collated.INSTALL_HINT if name.endswith("-x-icu") and not collated.available() \
        else None
    return UndefinedObject(f'collation "{name}" for encoding "UTF8" does not exist', hint=hint)


def exists(cat: CatalogSnapshot | None, name: str) -> bool:
    """Whether a collation of that name exists (built in, predefined ICU or created)."""
    return name in COLLATION_OIDS or name in predefined() or created(cat, name) is not None


def icu_of(cat: CatalogSnapshot | None, name: str) -> tuple[str, bool] | None:
    """(ICU locale, deterministic) of an ICU collation's name; None for any other."""
    c = created(cat, name)
    if c is not None:
        return (c.iculocale or "und", c.deterministic) if c.provider == "i" else None
    pre = predefined().get(name)
    return (pre[1], True) if pre is not None else None


def value_wrapper(cat: CatalogSnapshot | None, name: str) -> Callable[[Any], Any]:
    """What `x COLLATE name` does to a text value: ICU-collated, or a plain str again."""
    icu = icu_of(cat, name)
    return collated.plain if icu is None else collated.wrapper(*icu)


def wrappers(cat: CatalogSnapshot, table: Table) -> dict[int, Callable[[Any], Any]]:
    """position -> fn(value) for the table's columns with an ICU collation (the writer
    stores their values collated: `pgtypes.collated`)."""
    out = {}
    for c in table.live_columns:
        if c.collation and c.type_oid in COLLATABLE:
            icu = icu_of(cat, c.collation)
            if icu is not None:
                out[c.attnum - 1] = collated.wrapper(*icu)
    return out


def created(cat: CatalogSnapshot | None, name: str) -> Collation | None:
    """The CREATE COLLATION collation of that name (None: none, or no catalog at hand)."""
    return next((c for c in (cat.collations if cat is not None else ()) if c.name == name),
                None)


def collation_oid(cat: CatalogSnapshot, name: str) -> int | None:
    """pg_attribute.attcollation of a column's collation name (None: the type's default)."""
    if not name:
        return None
    c = created(cat, name)
    if c is not None:
        return c.oid
    pre = predefined().get(name)
    return pre[0] if pre is not None else COLLATION_OIDS.get(name)


def column_collation(name: str, type_oid: int, cat: CatalogSnapshot | None = None) -> str:
    """What a column's COLLATE stores ("" for the default); 42704/42804 as PostgreSQL.
    `cat` adds the catalog's CREATE COLLATION collations to the built-in ones."""
    if not exists(cat, name):
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


def unkeyable(table: Table) -> frozenset[int]:
    """Positions of the columns whose keys are not their text's (an ICU collation, or any
    created one: keys are sort keys, `kivi.keycodec`): the planner looks none of them up
    by a value's key, it scans and compares instead."""
    return frozenset(c.attnum - 1 for c in table.columns
                     if c.collation and c.collation not in COLLATION_OIDS)
