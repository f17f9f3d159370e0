"""regcollation: collation names <-> pg_collation OIDs, as PostgreSQL 15.

`'"C"'::regcollation` is 950 and prints `"C"`; a name is folded and looked up
on the search path (pg_catalog first) or in the schema it names, as
regcollationin does, and a missing one is PostgreSQL's 42704 `collation "x" for
encoding "UTF8" does not exist`. The output is the quoted name, qualified when
the search path would not find it; an OID with no collation prints as the number
(the predefined ICU collations are pg_catalog's, `pgcatalog.icucollations`). `to_regcollation` is
NULL where the cast fails.
"""

from __future__ import annotations

from typing import Any

from ...errors import SQLError, SyntaxError_
from ...pgtypes import oids as T
from ..catalog.model import PG_CATALOG_OID
from ..expr.regcast import RegOid
from ..pgcatalog.collations import COLLATION_OIDS, unknown
from ..pgcatalog.icucollations import predefined
from ..pgcatalog.icucollations import version as icu_version
from ..pgcatalog.names import names, quote_ident, split_name
from .regcasts import labelled
from .registry import register

REGCOLLATION = T.REGCOLLATION


def _collations(ctx: Any) -> list[tuple[int, str, int]]:
    """(oid, name, schema oid) of every collation pg_collation lists."""
    out = [(oid, name, PG_CATALOG_OID) for name, oid in COLLATION_OIDS.items()]
    out.extend((oid, name, PG_CATALOG_OID) for name, (oid, _) in predefined().items())
    out.extend((c.oid, c.name, c.schema_oid) for c in ctx.catalog.collations)
    return out


@register("cast:regcollation", args=[T.TEXT], returns=REGCOLLATION, needs_context=True)
def regcollation_in(ctx: Any, text: str, missing_ok: bool = False) -> int | None:
    """A collation by (possibly qualified) name; a number is the OID itself."""
    s = text.strip()
    if s.isdigit():
        return int(s)
    parts = split_name(text)
    if len(parts) > 3:
        raise SyntaxError_("improper qualified name (too many dotted names): " + ".".join(parts))
    idx = names(ctx.catalog)
    if len(parts) == 3:
        if parts[0] != ctx.database:
            raise SQLError("cross-database references are not implemented: "
                           + ".".join(parts), sqlstate="0A000")
        parts = parts[1:]
    if len(parts) == 2:
        schema = idx.schema_oid.get(parts[0])
        if schema is None:
            if missing_ok:
                return None
            raise SQLError(f'schema "{parts[0]}" does not exist', sqlstate="3F000")
        path = [schema]
    else:
        path = idx.path(ctx)
    every = _collations(ctx)
    for schema in path:
        found = next((oid for oid, name, nsp in every if nsp == schema and name == parts[-1]),
                     None)
        if found is not None:
            return found
    if missing_ok:
        return None
    raise unknown(".".join(parts))


@register("format:regcollation", args=[REGCOLLATION], returns=T.TEXT, needs_context=True)
def regcollation_out(ctx: Any, oid: int) -> str:
    """The quoted name, schema-qualified when the search path does not find it ('-' for 0)."""
    if oid == 0:
        return "-"
    row = next((r for r in _collations(ctx) if r[0] == oid), None)
    if row is None:
        return str(oid)
    _, name, schema = row
    if regcollation_in(ctx, quote_ident(name), missing_ok=True) == oid:
        return quote_ident(name)
    return f"{quote_ident(names(ctx.catalog).schema_name(schema) or str(schema))}." \
           f"{quote_ident(name)}"


@register("to_regcollation", args=[T.TEXT], returns=REGCOLLATION, needs_context=True,
          oid=4195)
def to_regcollation(ctx: Any, text: str) -> RegOid | None:
    """The collation named `text`, NULL when there is none."""
    return labelled(ctx, regcollation_in(ctx, text, missing_ok=True), regcollation_out)


@register("pg_collation_actual_version", args=[T.OID], returns=T.TEXT, needs_context=True,
          oid=3448)
def pg_collation_actual_version(ctx: Any, oid: int) -> str | None:
    """The version ICU reports now for an ICU collation (NULL for a code-point one)."""
    made = next((c for c in ctx.catalog.collations if c.oid == oid), None)
    if made is not None:
        return icu_version(made.iculocale) if made.iculocale is not None else None
    locale = next((loc for o, loc in predefined().values() if o == oid), None)
    if locale is not None:
        return icu_version(locale)
    if oid in COLLATION_OIDS.values():
        return None
    raise SQLError(f"collation with OID {oid} does not exist", sqlstate="42704")
