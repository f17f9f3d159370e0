"""information_schema.routines and .parameters: one row per CREATE FUNCTION's function and
CREATE PROCEDURE's procedure (and per parameter), as PostgreSQL 15's views compute them
(routine_type, data_type spelled by format_type, the language in capitals). The built-in
functions are not listed.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..catalog.routineparams import parameters
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
        else:
            udt = udt_name(cat, f.returns)
            data_type = _data_type(f.returns, udt)
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


_MODES = {"i": "IN", "o": "OUT", "b": "INOUT", "v": "IN", "t": "OUT"}
_PARAMETER_COLUMNS = 32  # PostgreSQL 15's parameters view


@pg_relation("information_schema", "parameters")
def parameters_view(ctx: Any) -> list[tuple[Any, ...]]:
    """The parameters of the user's functions and procedures, in declaration order (a
    RETURNS TABLE's columns as OUT ones, as PostgreSQL lists them)."""
    cat = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = []
    for f in cat.functions:
        defaults = f.param_defaults or ("",) * len(f.param_modes)
        for i, ((mode, name, typ), default) in enumerate(zip(parameters(f), defaults,
                                                              strict=False)):
            udt = udt_name(cat, typ)
            row: list[Any] = [None] * _PARAMETER_COLUMNS
            row[0:9] = [db, idx.schema_name(f.schema_oid), f"{f.name}_{f.oid}", i + 1,
                        _MODES.get(mode, "IN"), "NO", "NO", name or None, _data_type(typ, udt)]
            row[23:26] = [db, udt[0], udt[1]]
            row[30] = str(i + 1)
            row[31] = default or None
            rows.append(tuple(row))
    return rows


def _data_type(typ: int, udt: tuple[str | None, str | None]) -> str | None:
    """information_schema's data_type: ARRAY, a built-in type's format_type, USER-DEFINED."""
    if typ in T.ELEMENT_OF:
        return "ARRAY"
    return format_type(typ, None) if udt[0] == "pg_catalog" else "USER-DEFINED"
