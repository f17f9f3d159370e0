"""Session and server state as relations: pg_settings, pg_stat_activity, pg_locks, pg_proc ...

These reflect the running server rather than the stored catalog: settings come
from the session (`ctx.get_setting`), activity from the context when it
offers `sessions()`, functions from the function registry.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..functions.registry import FUNCTIONS
from .procoids import BY_OID, PG_PROC_OIDS, proc_oid
from .registry import empty, pg_relation

# The settings pg_settings lists when the session cannot enumerate its own: (name, type, unit).
KNOWN_SETTINGS = [
    ("application_name", "string", None), ("client_encoding", "string", None),
    ("DateStyle", "string", None), ("default_transaction_isolation", "enum", None),
    ("default_transaction_read_only", "bool", None), ("extra_float_digits", "integer", None),
    ("IntervalStyle", "enum", None), ("integer_datetimes", "bool", None),
    ("is_superuser", "bool", None), ("jit", "bool", None), ("lock_timeout", "integer", "ms"),
    ("max_connections", "integer", None), ("max_identifier_length", "integer", None),
    ("search_path", "string", None), ("server_encoding", "string", None),
    ("server_version", "string", None), ("server_version_num", "integer", None),
    ("standard_conforming_strings", "bool", None), ("statement_timeout", "integer", "ms"),
    ("TimeZone", "string", None), ("transaction_isolation", "enum", None),
    ("transaction_read_only", "bool", None), ("work_mem", "integer", "kB"),
]


def _vartype(value: str) -> str:
    if value in ("on", "off"):
        return "bool"
    return "integer" if value.lstrip("-").isdigit() else "string"


@pg_relation("pg_catalog", "pg_settings")
def pg_settings(ctx: Any) -> list[tuple[Any, ...]]:
    """The session's settings (those it knows a value for)."""
    extra = getattr(ctx, "settings", None)
    seen, out = set(), []
    entries = [(n, v, u) for n, v, u in KNOWN_SETTINGS]
    if isinstance(extra, dict):
        entries += [(n, None, None) for n in extra]
    for name, vtype, unit in entries:
        if name.lower() in seen:
            continue
        seen.add(name.lower())
        value = ctx.get_setting(name)
        if value is None:
            continue
        out.append((name, value, unit, "Cumulo", None, None, "user", vtype or _vartype(value),
                    "session", None, None, None, value, value, None, None, False))
    return out


@pg_relation("pg_catalog", "pg_stat_activity")
def pg_stat_activity(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per session the context reports (at least the current one)."""
    sessions = getattr(ctx, "sessions", None)
    if callable(sessions):
        return [tuple(s) for s in sessions()]
    cat = ctx.catalog
    role = next((r.oid for r in cat.roles if r.name == ctx.user), 0)
    return [(cat.database.oid, cat.database.name, ctx.backend_pid, None, role, ctx.user,
             ctx.get_setting("application_name") or "", None, None, -1, None, None, None, None,
             None, None, "active", None, None, None, None, "client backend")]


@pg_relation("pg_catalog", "pg_extension")
def pg_extension(ctx: Any) -> list[tuple[Any, ...]]:
    """plpgsql, the one extension every PostgreSQL database has."""
    return [(13559, "plpgsql", 10, M.PG_CATALOG_OID, False, "1.0", None, None)]


def _proc_rows() -> list[tuple[Any, ...]]:
    out = []
    used: set[int] = set()
    for name, defs in FUNCTIONS.items():
        if ":" in name:  # cast:regclass and format: helpers are not SQL-callable functions
            continue
        for n, f in enumerate(defs):
            oid = f.oid or (proc_oid(name) if n == 0 else proc_oid(f"{name}#{n}"))
            used.add(oid)
            args = list(f.args) if f.args is not None else [T.ANY]
            ret = f.returns if isinstance(f.returns, int) else T.ANYELEMENT
            out.append(_proc(oid, name, args, ret, f.strict, f.set_returning,
                             "v" if f.volatile else "s"))
    for name, oid in PG_PROC_OIDS.items():
        if oid not in used and BY_OID.get(oid) == name and "#" not in name:
            out.append(_proc(oid, name, [T.CSTRING], T.ANY, True, False, "i"))
    return out


def _proc(oid: int, name: str, args: list[int], ret: int, strict: bool, srf: bool,
          volatility: str) -> tuple[Any, ...]:
    nsp = M.INFORMATION_SCHEMA_OID if name.startswith("_pg_") else M.PG_CATALOG_OID
    return (oid, name, nsp, 10, 12, 1.0, 1000.0 if srf else 0.0, 0, 0, "f", False, False,
            strict, srf, volatility, "s", len(args), 0, ret, args, None, None, None, None,
            None, name, None, None, None, None)


@pg_relation("pg_catalog", "pg_proc")
def pg_proc(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per registered function overload, plus the types' I/O functions."""
    return _proc_rows()


empty("pg_catalog", "pg_locks")
