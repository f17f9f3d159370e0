"""Column defaults that call nextval: their sequence, as pg_depend and pg_get_expr show it.

PostgreSQL resolves `nextval('s')` to the sequence's OID when the default is
created, records the dependency in pg_depend (deptype 'n', from the pg_attrdef
row to the sequence) and prints it back as `nextval('public.s'::regclass)`,
schema-qualified outside the search_path. pg_dump needs both: the dependency
orders `CREATE SEQUENCE` before the table (and splits a SERIAL column's default
into its own `ALTER TABLE ... SET DEFAULT`), and the qualified name restores
under its empty search_path. Cumulo keeps defaults as text, so the sequence is
found again by name: in the table's schema first, then public, then any.

>>> _NEXTVAL.sub(lambda m: m.group(1).upper(), "nextval('s'::regclass) + 1")
'S + 1'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..catalog import model as M
from .names import quote_ident

_NEXTVAL = re.compile(r"nextval\('((?:[^']|'')+)'(?:::(?:regclass|text))?\)")


def _sequence(cat: M.CatalogSnapshot, table: M.Table | None, name: str) -> M.Sequence | None:
    """The sequence `name` ('s' or 'schema.s') of a default of `table`."""
    schema, _, rel = name.rpartition(".")
    rel = rel.strip('"')
    hits = [s for s in cat.sequences if s.name == rel]
    if schema:
        sch = next((x for x in cat.schemas if x.name == schema.strip('"')), None)
        return next((s for s in hits if sch is not None and s.schema_oid == sch.oid), None)
    public = next((x.oid for x in cat.schemas if x.name == "public"), None)
    own = table.schema_oid if table is not None else None
    return min(hits, key=lambda s: (s.schema_oid != own, s.schema_oid != public), default=None)


def sequences_of(cat: M.CatalogSnapshot, table: M.Table, text: str) -> list[M.Sequence]:
    """The sequences a default's text calls nextval on."""
    found = (_sequence(cat, table, m.group(1).replace("''", "'"))
             for m in _NEXTVAL.finditer(text))
    return [s for s in found if s is not None]


def qualify_nextval(cat: M.CatalogSnapshot, table_oid: int, text: str,
                    path: Iterable[str]) -> str:
    """`nextval('s'::text)` -> `nextval('public.s'::regclass)` when public is not searched."""
    if "nextval(" not in text:
        return text
    table = cat.table_by_oid(table_oid)
    visible = {"pg_catalog", *path}

    def one(m: re.Match[str]) -> str:
        seq = _sequence(cat, table, m.group(1).replace("''", "'"))
        if seq is None:
            return m.group(0)
        shown = quote_ident(seq.name)
        schema = cat.schema_by_oid(seq.schema_oid)
        if schema is not None and schema.name not in visible:
            shown = f"{quote_ident(schema.name)}.{shown}"
        return "nextval('" + shown.replace("'", "''") + "'::regclass)"

    return _NEXTVAL.sub(one, text)
