"""information_schema.routines: one row per CREATE FUNCTION's function and CREATE PROCEDURE's
procedure, as PostgreSQL 15's view computes it (routine_type, data_type spelled by
format_type, the language in capitals). The built-in functions are not listed.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from .names import names
from .registry import pg_relation
from .typetext import format_type
from .usertypes import udt_name

_COLUMNS = 82  # PostgreSQL 15's routines view


@pg_relation("information_schema", "routines")
def routines(ctx: Any) -> list[tuple[Any, ...]]:
    """The user's functions and procedures."""
    cat = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for f in cat.functions:
        schema = idx.schema_name(f.schema_oid)
        proc = f.kind == "p"
        if proc:
            data_type = udt = None
        elif f.returns in T.ELEMENT_OF:
            data_type, udt = "ARRAY", udt_name(cat, f.returns)
        else:
            udt = udt_name(cat, f.returns)
            data_type = format_type(f.returns, None) if udt[0] == "pg_catalog" else "USER-DEFINED"
        row: list[Any] = [None] * _COLUMNS
        row[0:7] = [db, schema, f"{f.name}_{f.oid}", db, schema, f.name,
                    "PROCEDURE" if proc else "FUNCTION"]
        row[13] = data_type
        if udt is not None:
            row[28:31] = [db, udt[0], udt[1]]
            row[35] = "0"
        row[36:44] = ["SQL" if f.language == "sql" else "EXTERNAL", f.body, None,
                      f.language.upper(), "GENERAL", "YES" if f.volatility == "i" else "NO",
                      "MODIFIES", None if proc else ("YES" if f.strict else "NO")]
        row[45:47] = ["YES", 0]
        row[49] = "INVOKER"
        row[53] = "NO"
        row[57] = "NO"
        rows.append(tuple(row))
    return rows
