"""information_schema.routines and .parameters: one row per CREATE FUNCTION's function and
CREATE PROCEDURE's procedure (and per parameter), as PostgreSQL 15's views compute them
(routine_type, data_type spelled by format_type, the language in capitals), built-in ones
first: each row comes from the routine's pg_proc row. The built-in rows are computed at the
first query of a database and kept while pg_proc's are the same.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..catalog.routineparams import parameters
from .names import names
from .registry import pg_relation
from .runtime import pg_proc
from .typetext import format_type
from .usertypes import udt_name

_COLUMNS = 82  # PostgreSQL 15's routines view
_PARAMETER_COLUMNS = 32  # PostgreSQL 15's parameters view
_MODES = {"i": "IN", "o": "OUT", "b": "INOUT", "v": "IN", "t": "OUT"}
_LANGUAGES = {12: "internal", 13: "c", 14: "sql", 13563: "plpgsql"}  # pg_language
# the built-in functions' rows, per (pg_proc's cached row list, database): the same for
# every query until a module registers functions, so computed at the first query only
_BUILTIN_ROUTINES: dict[tuple[int, str], tuple[Any, list[tuple[Any, ...]]]] = {}
_BUILTIN_PARAMETERS: dict[tuple[int, str], tuple[Any, list[tuple[Any, ...]]]] = {}


def _routine(cat: Any, db: str, schema: str | None, p: tuple[Any, ...]) -> tuple[Any, ...]:
    """One routines row from a pg_proc row, as PostgreSQL's view computes it."""
    oid, name, lang, kind, secdef, strict, vol, ret, src = (
        p[0], p[1], p[4], p[9], p[10], p[12], p[14], p[18], p[25])
    language = _LANGUAGES.get(lang, "internal")
    proc = kind == "p"
    row: list[Any] = [None] * _COLUMNS
    row[0:7] = [db, schema, f"{name}_{oid}", db, schema, name,
                {"f": "FUNCTION", "p": "PROCEDURE"}.get(kind)]
    if not proc:
        udt = udt_name(cat, ret)
        row[13] = _data_type(ret, udt)
        if udt[0] is not None:
            row[28:31] = [db, udt[0], udt[1]]
        row[35] = "0"
    row[36:44] = ["SQL" if language == "sql" else "EXTERNAL", src,
                  src if language == "c" else None, language.upper(), "GENERAL",
                  "YES" if vol == "i" else "NO", "MODIFIES",
                  None if proc else ("YES" if strict else "NO")]
    row[45:47] = ["YES", 0]
    row[49] = "DEFINER" if secdef else "INVOKER"
    row[53] = "NO"
    row[57] = "NO"
    return tuple(row)


def _parameters(cat: Any, db: str, schema: str | None, p: tuple[Any, ...],
                defaults: tuple[str, ...] = ()) -> list[tuple[Any, ...]]:
    """A routine's parameters rows from its pg_proc row: each of proallargtypes (else
    proargtypes), with its mode and name."""
    types = p[20] if p[20] is not None else p[19]
    modes, names_ = p[21], p[22]
    rows = []
    for i, typ in enumerate(types or ()):
        udt = udt_name(cat, typ)
        row: list[Any] = [None] * _PARAMETER_COLUMNS
        name = names_[i] if names_ is not None and i < len(names_) else None
        row[0:9] = [db, schema, f"{p[1]}_{p[0]}", i + 1,
                    _MODES.get(modes[i], "IN") if modes else "IN", "NO", "NO", name or None,
                    _data_type(typ, udt)]
        row[23:26] = [db, udt[0], udt[1]]
        row[30] = str(i + 1)
        row[31] = (defaults[i] if i < len(defaults) else "") or None
        rows.append(tuple(row))
    return rows


def _builtins(ctx: Any, cache: dict[tuple[int, str], tuple[Any, list[tuple[Any, ...]]]],
              rows_of: Any) -> list[tuple[Any, ...]]:
    cat = ctx.catalog
    procs = pg_proc(None)  # NB: the built-in rows, one list while nothing registers more
    key = (id(procs), cat.database.name)
    got = cache.get(key)
    if got is None or got[0] is not procs:
        idx = names(cat)
        out: list[tuple[Any, ...]] = []
        for p in procs:
            out.extend(rows_of(cat, cat.database.name, idx.schema_name(p[2]), p))
        cache.clear()
        got = cache[key] = (procs, out)
    return got[1]


@pg_relation("information_schema", "routines")
def routines(ctx: Any) -> list[tuple[Any, ...]]:
    """The built-in functions (pg_catalog, information_schema), then the user's functions
    and procedures."""
    cat = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = list(_builtins(ctx, _BUILTIN_ROUTINES, lambda *a: [_routine(*a)]))
    for f, p in zip(cat.functions, _user_procs(ctx), strict=True):
        rows.append(_routine(cat, db, idx.schema_name(f.schema_oid), p))
    return rows


def _user_procs(ctx: Any) -> list[tuple[Any, ...]]:
    """The pg_proc rows of the user's functions (pg_proc lists them after the built-ins)."""
    return pg_proc(ctx)[len(pg_proc(None)):] if ctx.catalog.functions else []


@pg_relation("information_schema", "parameters")
def parameters_view(ctx: Any) -> list[tuple[Any, ...]]:
    """The parameters of the built-in functions, then of the user's functions and
    procedures, in declaration order (a RETURNS TABLE's columns as OUT ones, as PostgreSQL
    lists them)."""
    cat = ctx.catalog
    idx = names(cat)
    db = cat.database.name
    rows = list(_builtins(ctx, _BUILTIN_PARAMETERS, _parameters))
    for f, p in zip(cat.functions, _user_procs(ctx), strict=True):
        params = parameters(f, declared=True)  # NB: every parameter as declared, OUT and TABLE ones too
        p = (*p[:20], [t for _, _, t in params], [m for m, _, _ in params],
             [n for _, n, _ in params], *p[23:])
        rows += _parameters(cat, db, idx.schema_name(f.schema_oid), p,
                            f.param_defaults or ())
    return rows


def _data_type(typ: int, udt: tuple[str | None, str | None]) -> str | None:
    """information_schema's data_type: ARRAY, a built-in type's format_type, USER-DEFINED."""
    if typ in T.ELEMENT_OF:
        return "ARRAY"
    return format_type(typ, None) if udt[0] == "pg_catalog" else "USER-DEFINED"
