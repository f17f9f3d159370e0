"""Session and server state as relations: pg_settings, pg_stat_activity, pg_locks, pg_proc ...

These reflect the running server rather than the stored catalog: settings come
from the session (`ctx.get_setting`), activity from the context when it
offers `sessions()`, functions from the function registry.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..expr.regcast import RegOid
from ..functions.registry import FUNCTIONS
from .procoids import BY_OID, PG_PROC_OIDS, proc_oid
from .registry import empty, pg_relation
from .shapes import SHAPES

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


def _session_setting_names(ctx: Any) -> list[str]:
    """Returns every setting name the session can enumerate (SHOW ALL's rows)."""
    session = getattr(ctx, "session", None)
    settings = getattr(session, "settings", None)
    if settings is not None and hasattr(settings, "all_rows"):
        return [row[0] for row in settings.all_rows()]
    extra = getattr(ctx, "settings", None)
    return list(extra) if isinstance(extra, dict) else []


@pg_relation("pg_catalog", "pg_settings")
def pg_settings(ctx: Any) -> list[tuple[Any, ...]]:
    """The session's settings (those it knows a value for)."""
    seen, out = set(), []
    entries: list[tuple[str, str | None, str | None]] = list(KNOWN_SETTINGS)
    entries += [(n, None, None) for n in _session_setting_names(ctx)]
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
    """One row per open session of the engine (at least the current one), as PostgreSQL 15.

    A session is `active` from the start of a statement until its Query or Sync ends (the
    querying session always is); else idle, idle in transaction or idle in transaction
    (aborted), waiting on the client (`Client`/`ClientRead`). `query` is the running
    statement, or the last one. A session ended by pg_terminate_backend is gone at once.
    """
    cat = ctx.catalog
    me = getattr(ctx, "session", None)
    engine = getattr(me, "engine", None)
    sessions = engine.sessions() if engine is not None and hasattr(engine, "sessions") else []
    if not sessions:
        return [_activity(cat, ctx.user, ctx.database, ctx.backend_pid,
                          ctx.get_setting("application_name"), None, "active")]
    return [_session_activity(cat, s, s is me)
            for s in sorted(sessions, key=lambda s: s.backend_pid)
            if not getattr(s, "terminated", False)]


def _ts(epoch: float | None) -> dt.datetime | None:
    return None if epoch is None else dt.datetime.fromtimestamp(epoch, dt.UTC)


def _session_activity(cat: Any, s: Any, is_me: bool) -> tuple[Any, ...]:
    status = getattr(s, "transaction_status", "I")
    status = status() if callable(status) else status
    active = is_me or getattr(s, "running", False)
    state = "active" if active else {"T": "idle in transaction",
                                     "E": "idle in transaction (aborted)"}.get(status, "idle")
    row = list(_activity(cat, s.user, s.database, s.backend_pid,
                         s.get_setting("application_name"), getattr(s, "txn_started_at", None),
                         state))
    row[_COL["client_addr"]] = getattr(s, "client_addr", None)
    row[_COL["backend_start"]] = _ts(getattr(s, "backend_start", None))
    row[_COL["query_start"]] = _ts(getattr(s, "query_start", None))
    row[_COL["state_change"]] = _ts(getattr(s, "state_change", None))
    row[_COL["query"]] = getattr(s, "last_query", "")
    if not active:
        row[_COL["wait_event_type"]], row[_COL["wait_event"]] = "Client", "ClientRead"
    elif row[_COL["xact_start"]] is None:  # NB: a running statement is always in a transaction,
        row[_COL["xact_start"]] = row[_COL["query_start"]]  # if only an implicit one
    return tuple(row)


_COL = {name: i for i, (name, _type) in enumerate(
    SHAPES[("pg_catalog", "pg_stat_activity")][2])}


def _activity(cat: Any, user: str, database: str, pid: int, app: str | None, xact_start: Any,
              state: str) -> tuple[Any, ...]:
    role = next((r.oid for r in cat.roles if r.name == user), 0)
    datid = next((d.oid for d in cat.databases if d.name == database), 0)
    return (datid, database, pid, None, role, user, app or "", None, None, None, None,
            xact_start, None, None, None, None, state, None, None, None, "", "client backend")


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
    return (oid, name, nsp, 10, 12, 1.0, 1000.0 if srf else 0.0, 0, RegOid(0, "-"), "f", False, False,
            strict, srf, volatility, "s", len(args), 0, ret, args, None, None, None, None,
            None, name, None, None, None, None)


_PROC_CACHE: dict[int, list[tuple[Any, ...]]] = {}


@pg_relation("pg_catalog", "pg_proc")
def pg_proc(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per registered function overload, plus the types' I/O functions."""
    version = sum(len(defs) for defs in FUNCTIONS.values())  # grows only when modules register
    rows = _PROC_CACHE.get(version)
    if rows is None:
        _PROC_CACHE.clear()
        rows = _PROC_CACHE[version] = _proc_rows()
    return rows


empty("pg_catalog", "pg_locks")
