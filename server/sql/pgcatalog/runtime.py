"""Session and server state as relations: pg_settings, pg_stat_activity, pg_locks, pg_proc ...

These reflect the running server rather than the stored catalog: settings come
from the session (`ctx.get_setting`), activity from the context when it
offers `sessions()`, functions from the function registry.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..catalog.routineparams import parameters
from ..expr.regcast import RegOid
from ..functions.registry import FUNCTIONS
from ..privileges.acl import acl_texts
from ..sessionview import SessionView, TxnView
from ..settingdocs import describe
from ..settingfacts import FACTS
from ..settings import (
    _UNITS_KB,
    _UNITS_MS,
    BYTE_SETTINGS,
    DEFAULTS,
    MEMORY_SETTINGS,
    SERVER,
    SIGHUP_ONLY,
    TIME_SETTINGS,
    UNITS_B,
)
from .aggdata import ORDERED_ARGS
from .aggprocs import AGG_PROCS, definition
from .casts import cast_procs
from .procfacts import PROC_FACTS
from .procoids import BY_OID, PG_PROC_OIDS, PG_PROC_SIGNATURES, proc_oid
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


# The unit pg_settings counts a time or memory setting in (PostgreSQL's GUC_UNIT_*).
UNIT_OF = {**{k: "ms" for k in TIME_SETTINGS}, **{k: "kB" for k in MEMORY_SETTINGS},
           **{k: "B" for k in BYTE_SETTINGS}, "checkpoint_timeout": "s"}


def _vartype(value: str) -> str:
    if value in ("on", "off"):
        return "bool"
    return "integer" if value.lstrip("-").isdigit() else "string"


def _session_setting_names(ctx: Any) -> list[str]:
    """Returns every setting name the session can enumerate (SHOW ALL's rows)."""
    session: SessionView | None = ctx.session
    if session is not None:
        return [row[0] for row in session.settings.all_rows()]
    return []


# PostgreSQL's compiled-in values where initdb's postgresql.conf (or libpq) sets another one.
_BOOT_VALUES = {"timezone": "GMT", "log_timezone": "GMT", "client_encoding": "SQL_ASCII",
                "lc_messages": "", "default_text_search_config": "pg_catalog.simple",
                "max_stack_depth": "100kB"}  # NB: raised to 2MB by the server at start
# What initdb writes into postgresql.conf: PostgreSQL reports these as from the file.
_CONFIG_FILE = {"datestyle", "timezone", "log_timezone", "lc_messages", "lc_monetary",
                "lc_numeric", "lc_time", "default_text_search_config"}
_OVERRIDE = {"transaction_isolation", "transaction_read_only", "transaction_deferrable"}


def _provenance(ctx: Any, name: str, value: str) -> tuple[str, str, str]:
    """(source, boot_val, reset_val) of a setting, as pg_settings reports them (psql \\dconfig).

    A value the session SET is `session`; one the client sent at startup is `client`;
    transaction_* are `override`; TimeZone, DateStyle and lc_* come from initdb's file.
    """

    key = name.lower()
    session: SessionView | None = ctx.session
    client = session.settings.session_defaults if session is not None else {}
    reset = client.get(key, SERVER.values.get(key, value))
    boot = _BOOT_VALUES.get(key, DEFAULTS.get(key, value))
    if key in _OVERRIDE:
        source = "override"
    elif value != reset:
        source = "session"
    elif key in client:
        source = "client"
    else:
        source = SERVER.source(key)  # cumulo.conf, cumulo.auto.conf, `cumulo serve -c`
        if source == "default" and key in _CONFIG_FILE:
            source = "configuration file"
    return source, boot, reset


def _in_unit(value: str, unit: str) -> str:
    """A time or memory setting's value as a plain number of `unit` (ms or kB)."""

    units = _UNITS_MS if unit in ("ms", "s") else UNITS_B if unit == "B" else _UNITS_KB
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value)
    if m is None or m.group(2).lower() not in units:
        return value
    if unit in ("s", "8kB") and m.group(2) == "":
        return str(round(float(m.group(1))))  # NB: a bare number of a seconds setting
    n = float(m.group(1)) * units[m.group(2).lower()]
    return str(round(n / 1000 if unit == "s" else n / 8 if unit == "8kB" else n))


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
        if unit is None and vtype is None and name.lower() in UNIT_OF:
            vtype, unit = "integer", UNIT_OF[name.lower()]
        value = ctx.get_setting(name)
        if value is None:
            continue
        source, boot, reset = _provenance(ctx, name, value)
        context = "sighup" if name.lower() in SIGHUP_ONLY else "user"
        lo = hi = enums = None
        facts = FACTS.get(name.lower())  # NB: PostgreSQL 15's type, unit, context and range
        if facts is not None:
            vtype, unit, context, lo, hi, enums = facts
        if unit:  # NB: pg_settings counts in the unit (5000 ms), where SHOW says 5s
            value, boot, reset = (_in_unit(v, unit) for v in (value, boot, reset))
        if vtype == "integer":  # NB: boot_val and reset_val are plain numbers (0700 is 448)
            boot, reset = (_integer_text(v) for v in (boot, reset))
        where = SERVER.files.get(name.lower()) if source == "configuration file" else None
        category, short_desc = describe(name)  # PostgreSQL 15's words
        out.append((name, value, unit, category or "Cumulo", short_desc, None, context,
                    vtype or _vartype(value),
                    source, lo, hi, list(enums) if enums is not None else None, boot, reset,
                    where and where[0], where and where[1], False))
    return out


def _integer_text(value: str) -> str:
    """An integer setting's boot or reset value as pg_settings prints it: `0700` (octal, as
    data_directory_mode shows) is 448; any other text stays."""
    if len(value) > 1 and value.startswith("0") and value.isdigit():
        return str(int(value, 8))
    return value


@pg_relation("pg_catalog", "pg_stat_activity")
def pg_stat_activity(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per open session of the engine (at least the current one), as PostgreSQL 15.

    A session is `active` from the start of a statement until its Query or Sync ends (the
    querying session always is); else idle, idle in transaction or idle in transaction
    (aborted), waiting on the client (`Client`/`ClientRead`). `query` is the running
    statement, or the last one. A session ended by pg_terminate_backend is gone at once.
    """
    cat = ctx.catalog
    me: SessionView | None = ctx.session
    sessions = me.engine.sessions() if me is not None else []
    if not sessions:
        return [_activity(cat, ctx.user, ctx.database, ctx.backend_pid,
                          ctx.get_setting("application_name"), None, "active")]
    return [_session_activity(cat, s, s is me)
            for s in sorted(sessions, key=lambda s: s.backend_pid)
            if not s.terminated]


def _ts(epoch: float | None) -> dt.datetime | None:
    return None if epoch is None else dt.datetime.fromtimestamp(epoch, dt.UTC)


def _session_activity(cat: Any, s: SessionView, is_me: bool) -> tuple[Any, ...]:
    status = s.transaction_status
    active = is_me or s.running
    state = "active" if active else {"T": "idle in transaction",
                                     "E": "idle in transaction (aborted)"}.get(status, "idle")
    row = list(_activity(cat, s.user, s.database, s.backend_pid,
                         s.get_setting("application_name"), s.txn_started_at, state))
    row[_COL["client_addr"]] = s.client_addr
    if s.client_addr is not None or s.client_port == -1:  # -1: a Unix socket, as in PG
        row[_COL["client_port"]] = s.client_port
    row[_COL["backend_start"]] = _ts(s.backend_start)
    row[_COL["query_start"]] = _ts(s.query_start)
    row[_COL["state_change"]] = _ts(s.state_change)
    row[_COL["query"]] = s.last_query
    txn = s.txn
    waits_for = _lock_holder(txn)
    if not active:
        row[_COL["wait_event_type"]], row[_COL["wait_event"]] = "Client", "ClientRead"
    else:
        if row[_COL["xact_start"]] is None:  # NB: a running statement is always in a
            row[_COL["xact_start"]] = row[_COL["query_start"]]  # transaction, if implicit
        if waits_for is not None:
            row[_COL["wait_event_type"]], row[_COL["wait_event"]] = "Lock", "transactionid"
        elif s.wait_event is not None and not is_me:
            row[_COL["wait_event_type"]], row[_COL["wait_event"]] = s.wait_event
    row[_COL["backend_xid"]], row[_COL["backend_xmin"]] = _xid_xmin(txn, active, waits_for)
    return tuple(row)


def _lock_holder(txn: TxnView | None) -> int | None:
    """The transaction a session's writer waits for (a row lock), or None."""
    if txn is None or txn.done:
        return None
    return txn.ltm.waiting_for(txn)


def _xid_xmin(txn: TxnView | None, active: bool, waits_for: int | None
              ) -> tuple[int | None, int | None]:
    """backend_xid and backend_xmin as PostgreSQL shows them.

    A transaction has an xid once it writes (or waits to, on a row lock); it holds a
    snapshot (xmin) while a statement runs, and between statements only under
    REPEATABLE READ or SERIALIZABLE once it has read. Cumulo's transaction id stands in
    for the xid and its snapshot timestamp for xmin (both as 32-bit xids).
    """
    if txn is None or txn.done:
        return None, (1 if active else None)
    wrote = txn.has_writes or waits_for is not None
    xid = (txn.tid % 2**32 or 1) if wrote else None
    ts = txn.start_ts
    holds = active or (ts is not None and txn.isolation != "read committed")
    return xid, ((ts or 1) % 2**32 or 1) if holds else None


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
    """plpgsql, the one extension every PostgreSQL database has, then CREATE EXTENSION's."""
    return [(13559, "plpgsql", 10, M.PG_CATALOG_OID, False, "1.0", None, None)] + [
        (e.oid, e.name, e.owner, e.schema_oid, True, e.version, None, None)
        for e in ctx.catalog.extensions]


def _proc_rows() -> list[tuple[Any, ...]]:
    """pg_proc rows; an overload whose signature PostgreSQL has gets PostgreSQL's OID."""
    out = []
    exact = {(name, n): PG_PROC_SIGNATURES.get((name, tuple(f.args)))
             for name, defs in FUNCTIONS.items() for n, f in enumerate(defs)
             if f.args is not None}
    used: set[int] = {oid for oid in exact.values() if oid}
    out_oids: set[int] = set()
    for name, defs in FUNCTIONS.items():
        if ":" in name:  # cast:regclass and format: helpers are not SQL-callable functions
            continue
        for n, f in enumerate(defs):
            oid = f.oid or exact.get((name, n))
            if oid in out_oids:  # NB: a signature registered twice keeps its OID once
                oid = 0
            if not oid:
                oid = proc_oid(name)
                if oid in used or n > 0:
                    oid = proc_oid(f"{name}#{n}")
            used.add(oid)
            out_oids.add(oid)
            args = list(f.args) if f.args is not None else [T.ANY]
            ret = f.returns if isinstance(f.returns, int) else T.ANYELEMENT
            out.append(_proc(oid, name, args, ret, f.strict, f.set_returning,
                             "v" if f.volatile else "s"))
            _DEFS[oid] = f
    for oid, name, argtypes, ret, kind, strict, vol, src in AGG_PROCS:  # prokind 'a' and 'w'
        if oid not in used:
            used.add(oid)
            row = _proc(oid, name, list(argtypes), ret, strict, False, vol)
            variadic = ORDERED_ARGS.get(oid, (0, ""))[0]  # rank(VARIADIC "any" ORDER BY ...)
            out.append((*row[:7], variadic, row[8], kind, *row[10:25], src, *row[26:]))
            _DEFS[oid] = definition(name, argtypes, ret, strict)
    for oid, name, argtypes, ret, vol, src in cast_procs():  # what pg_cast's castfunc names
        if oid not in used:
            used.add(oid)
            row = _proc(oid, name, list(argtypes), ret, True, False, vol)
            out.append((*row[:25], src, *row[26:]))
    for name, oid in PG_PROC_OIDS.items():
        if oid not in used and BY_OID.get(oid) == name and "#" not in name:
            out.append(_proc(oid, name, [T.CSTRING], T.ANY, True, False, "i"))
    return out


def _proc(oid: int, name: str, args: list[int], ret: int, strict: bool, srf: bool,
          volatility: str) -> tuple[Any, ...]:
    nsp = M.INFORMATION_SCHEMA_OID if name.startswith("_pg_") else M.PG_CATALOG_OID
    volatility, parallel, src = PROC_FACTS.get(oid, (volatility, "s", name))
    return (oid, name, nsp, 10, 12, 1.0, 1000.0 if srf else 0.0, 0, RegOid(0, "-"), "f", False, False,
            strict, srf, volatility, parallel, len(args), 0, ret, args, None, None, None, None,
            None, src, None, None, None, None)


_PROC_CACHE: dict[int, list[tuple[Any, ...]]] = {}
_DEFS: dict[int, Any] = {}  # pg_proc OID -> the registered overload it lists


def proc_definition(oid: int) -> Any:
    """Returns the registered overload that pg_proc lists under `oid` (None if none)."""
    pg_proc(None)
    return _DEFS.get(oid)


def proc_row(oid: int) -> tuple[Any, ...] | None:
    """Returns the pg_proc row of `oid` (None if there is none)."""
    return next((r for r in pg_proc(None) if r[0] == oid), None)


@pg_relation("pg_catalog", "pg_proc")
def pg_proc(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per registered function overload, plus the types' I/O functions."""
    version = sum(len(defs) for defs in FUNCTIONS.values())  # grows only when modules register
    rows = _PROC_CACHE.get(version)
    if rows is None:
        _PROC_CACHE.clear()
        _DEFS.clear()
        rows = _PROC_CACHE[version] = _proc_rows()
    if ctx is not None and ctx.catalog.functions:  # CREATE FUNCTION's, this database's
        cat = ctx.catalog
        rows = rows + [_user_proc(f, acl_texts(cat, f.acl)) for f in cat.functions]
    return rows


def _user_proc(f: M.Function, acl: list[str] | None = None) -> tuple[Any, ...]:
    lang = 14 if f.language == "sql" else 13563  # pg_language: sql, plpgsql
    names = list(f.arg_names) if any(f.arg_names) else None
    alltypes = modes = None
    if any(m != "i" for m in f.param_modes):  # NB: OUT, INOUT, VARIADIC, TABLE: all listed
        params = parameters(f, declared=True)
        alltypes, modes = [t for _, _, t in params], [m for m, _, _ in params]
        names = [n for _, n, _ in params] if any(n for _, n, _ in params) else None
    ndefaults = sum(1 for d in f.param_defaults if d)
    return (f.oid, f.name, f.schema_oid, f.owner, lang, 100.0, 1000.0 if f.retset else 0.0, 0,
            RegOid(0, "-"), f.kind, f.secdef, False, f.strict, f.retset, f.volatility, "u",
            len(f.arg_types), ndefaults, f.returns_domain or f.returns,
            [d or t for t, d in zip(f.arg_types, f.arg_domains or [0] * len(f.arg_types),
                                    strict=True)], alltypes, modes, names,
            None, None, "" if f.atomic else f.body, None, None,  # NB: a SQL-standard body
            list(f.config) or None, acl)  # is prosqlbody, pg_get_function_sqlbody's, not prosrc


empty("pg_catalog", "pg_locks")
