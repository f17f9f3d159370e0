"""System information functions: version(), current_*, settings, privileges, sizes, transaction ids.

What psql, SQLAlchemy, JDBC and asyncpg call while connecting and
introspecting. Privilege checks answer true (Cumulo has no GRANT yet).
Relation sizes are counted in PostgreSQL's 8 kB pages from pg_class.relpages
(ANALYZE's estimate; a btree's metapage and a sequence's page from the
start, a toastable table's TOAST index), so psql's `\\dt+`, `\\di+` and `\\ds+`
show what PostgreSQL shows for new objects; database sizes are 0.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ...errors import (
    FeatureNotSupported,
    InvalidCatalogName,
    InvalidParameterValue,
    SQLError,
    UndefinedObject,
)
from ...pgtypes import oids as T
from .. import conffile
from ..pgcatalog.names import names
from ..privileges.check import current_role_name
from ..sessionview import SessionView
from .catalogfns import user_functiondef, user_sqlbody
from .registry import register

VERSION = (
    "PostgreSQL 15.6 (Cumulo 0.1) on x86_64-pc-linux-gnu, compiled by Python, 64-bit"
)
STARTED = dt.datetime.now(dt.UTC)
NAME_ARRAY = T.ARRAY_OF[T.NAME]
ENCODINGS = {0: "SQL_ASCII", 6: "UTF8", 8: "LATIN1"}


@register("version", args=[], returns=T.TEXT)
def version() -> str:
    """Returns the server's version string (SQLAlchemy parses "PostgreSQL 15.6")."""
    return VERSION


def _path_names(ctx: Any, implicit: bool) -> list[str]:
    idx = names(ctx.catalog)
    oids = idx.path(ctx)
    if not implicit:
        listed = [ctx.user if n.strip() == "$user" else n.strip().strip('"')
                  for n in ctx.search_path()]
        explicit = {idx.schema_oid.get(n) for n in listed}
        oids = [o for o in oids if o in explicit]
    return [idx.schemas[o].name for o in oids]


@register("current_schema", args=[], returns=T.NAME, needs_context=True)
def current_schema(ctx: Any) -> str | None:
    """Returns the first existing schema of the search path."""
    found = _path_names(ctx, implicit=False)
    return found[0] if found else None


@register("current_schemas", args=[T.BOOL], returns=NAME_ARRAY, needs_context=True)
def current_schemas(ctx: Any, implicit: bool) -> list[str]:
    """Returns the search path's existing schemas, with pg_catalog when `implicit`."""
    return _path_names(ctx, implicit)


@register("current_database", args=[], returns=T.NAME, needs_context=True)
def current_database(ctx: Any) -> str:
    """Returns the connected database's name."""
    return ctx.database


register("current_catalog", args=[], returns=T.NAME, needs_context=True)(current_database)


@register("current_user", args=[], returns=T.NAME, needs_context=True)
def current_user(ctx: Any) -> str:
    """Returns the current role: SET ROLE's, else the session user."""
    return current_role_name(ctx)


for _alias in ("user", "current_role"):
    register(_alias, args=[], returns=T.NAME, needs_context=True)(current_user)


@register("session_user", args=[], returns=T.NAME, needs_context=True)
def session_user(ctx: Any) -> str:
    """Returns the session user (SET SESSION AUTHORIZATION's, else the login role)."""
    return ctx.get_setting("session_authorization") or ctx.user


@register("pg_backend_pid", args=[], returns=T.INT4, needs_context=True)
def pg_backend_pid(ctx: Any) -> int:
    """Returns the session's process id (the BackendKeyData pid)."""
    return ctx.backend_pid


@register("pg_trigger_depth", args=[], returns=T.INT4, needs_context=True)
def pg_trigger_depth(ctx: Any) -> int:
    """Returns how deeply trigger functions are nested right now (0 outside any trigger)."""
    return ctx.trigger_depth


@register("inet_server_addr", args=[], returns=T.INET, needs_context=True)
def inet_server_addr(ctx: Any) -> str | None:
    """Returns the server address of the connection (the listen address setting; NULL over
    a Unix socket, whose sessions have client_port -1 as in pg_stat_activity)."""
    if ctx.session.client_port == -1:
        return None
    addr = ctx.get_setting("listen_addresses")
    return "127.0.0.1" if addr in (None, "", "*", "localhost") else addr.split(",")[0]


@register("inet_client_addr", args=[], returns=T.INET, needs_context=True)
def inet_client_addr(ctx: Any) -> str | None:
    """Returns the client's address (NULL over a Unix socket, as pg_stat_activity shows it)."""
    return ctx.session.client_addr


@register("inet_client_port", args=[], returns=T.INT4, needs_context=True)
def inet_client_port(ctx: Any) -> int | None:
    """Returns the client's port (NULL over a Unix socket, where pg_stat_activity says -1)."""
    port = ctx.session.client_port
    return None if port == -1 else port


@register("host", args=[T.INET], returns=T.TEXT)
def host(addr: str) -> str:
    """Returns an inet's address without its netmask (pg_stat_activity's client_addr)."""
    return str(addr).split("/", 1)[0]


@register("inet_server_port", args=[], returns=T.INT4, needs_context=True)
def inet_server_port(ctx: Any) -> int | None:
    """Returns the server's port (NULL over a Unix socket)."""
    if ctx.session.client_port == -1:
        return None
    port = ctx.get_setting("port")
    return int(port) if port and port.isdigit() else 5432


@register("current_setting", args=[T.TEXT], returns=T.TEXT, needs_context=True)
def current_setting(ctx: Any, name: str, missing_ok: bool = False) -> str | None:
    """Returns a setting's value (42704 for an unknown one unless missing_ok)."""
    value = ctx.get_setting(name)
    if value is None and not missing_ok:
        raise UndefinedObject(f'unrecognized configuration parameter "{name}"')
    return value


register("current_setting", args=[T.TEXT, T.BOOL], returns=T.TEXT,
         needs_context=True)(current_setting)


@register("set_config", args=[T.TEXT, T.TEXT, T.BOOL], returns=T.TEXT, strict=False,
          needs_context=True, volatile=True)
def set_config(ctx: Any, name: str | None, value: str | None, is_local: bool | None) -> str:
    """Sets a setting for the session (or the transaction) and returns its new value."""
    if name is None:
        raise SQLError("SET requires parameter name", sqlstate="22023")
    return ctx.set_setting(name, "" if value is None else value, bool(is_local))


@register("pg_get_userbyid", args=[T.OID], returns=T.NAME, needs_context=True)
def pg_get_userbyid(ctx: Any, oid: int) -> str:
    """Returns a role's name, "unknown (OID=n)" when there is none."""
    role = names(ctx.catalog).roles.get(oid)
    return role.name if role else f"unknown (OID={oid})"


@register("getdatabaseencoding", args=[], returns=T.NAME)
def getdatabaseencoding() -> str:
    """The database's encoding: every Cumulo database is UTF8."""
    return "UTF8"


@register("pg_encoding_to_char", args=[T.INT4], returns=T.NAME)
def pg_encoding_to_char(encoding: int) -> str:
    """Returns an encoding's name ("UTF8" for 6), "" for an unknown number."""
    return ENCODINGS.get(encoding, "")


@register("pg_char_to_encoding", args=[T.NAME], returns=T.INT4)
def pg_char_to_encoding(name: str) -> int:
    """Returns an encoding's number, -1 for an unknown name."""
    wanted = name.upper().replace("-", "").replace("_", "")
    return next((n for n, s in ENCODINGS.items() if s.replace("_", "") == wanted), -1)


def _true(*args: Any) -> bool:
    """Returns true: tablespaces and types have no ACLs in Cumulo (see privfns for the rest)."""
    return True


for _name in ("has_tablespace_privilege", "has_type_privilege"):
    register(_name, args=None, returns=T.BOOL)(_true)


@register("pg_is_in_recovery", args=[], returns=T.BOOL)
def pg_is_in_recovery() -> bool:
    """Returns false: every Cumulo node accepts writes."""
    return False


@register("pg_postmaster_start_time", args=[], returns=T.TIMESTAMPTZ)
def pg_postmaster_start_time() -> dt.datetime:
    """Returns when this server process started."""
    return STARTED


@register("pg_conf_load_time", args=[], returns=T.TIMESTAMPTZ, volatile=True)
def pg_conf_load_time() -> dt.datetime:
    """Returns when the configuration files were last loaded (start-up or reload)."""
    config = conffile.current()
    if config is None:
        return STARTED
    return dt.datetime.fromtimestamp(config.loaded_at, dt.UTC)


@register("pg_reload_conf", args=[], returns=T.BOOL, volatile=True)
def pg_reload_conf() -> bool:
    """Reloads cumulo.conf and cumulo.auto.conf, as SIGHUP does; each session takes the new
    values at its next statement. False when the files have an error (logged)."""
    config = conffile.current()
    return config.reload() if config is not None else False


@register("pg_database_size", args=None, returns=T.INT8, needs_context=True, volatile=True)
def pg_database_size(ctx: Any, db: Any) -> int:
    """The size of the connected database: its relations' sizes (`pg_total_relation_size`),
    as PostgreSQL sums its files. Another database's catalog is not readable from here: 0A000;
    one that does not exist: 3D000."""
    cat = ctx.catalog
    found = next((d for d in cat.databases
                  if (d.name == db if isinstance(db, str) else d.oid == int(db))), None)
    if found is None:
        if not isinstance(db, str):
            return None  # type: ignore[return-value]  # NB: PostgreSQL: NULL for an unknown oid
        raise InvalidCatalogName(f'database "{db}" does not exist')
    if found.name != ctx.database:
        raise FeatureNotSupported("pg_database_size() of another database is not supported",
                                  hint="Connect to that database and ask it there.")
    total = 0
    for t in cat.tables:
        if t.kind in ("r", "m"):
            total += pg_total_relation_size(ctx, t.oid) or 0
    return total + _PAGE * len(cat.sequences)


_PAGE = 8192


def _rel_oid(ctx: Any, rel: Any) -> int | None:
    """A size function's regclass argument: an OID, or a name as `'t'::regclass` reads it."""
    if isinstance(rel, str):
        from .regcasts import regclass_in

        return regclass_in(ctx, rel)
    return int(rel)


def _relation_bytes(ctx: Any, oid: int) -> int | None:
    """The main fork of a relation in bytes (relpages' estimate); None for no relation."""
    from ..pgcatalog.stats import class_counts, index_counts

    cat = ctx.catalog
    t = cat.table_by_oid(oid)
    if t is not None:
        return class_counts(t)[0] * _PAGE if t.kind == "r" else 0
    i = next((x for x in cat.indexes if x.oid == oid), None)
    if i is not None:
        return index_counts(cat.table_by_oid(i.table_oid), i)[0] * _PAGE
    if any(s.oid == oid for s in cat.sequences):
        return _PAGE
    return 0 if oid in names(cat).rel else None  # NB: system relations: not counted


@register("pg_relation_size", args=[T.REGCLASS], returns=T.INT8, needs_context=True)
def pg_relation_size(ctx: Any, rel: Any, fork: str = "main") -> int | None:
    """Returns the size of one fork of a relation (only the main fork has pages here)."""
    size = _relation_bytes(ctx, _rel_oid(ctx, rel) or 0)
    return size if fork == "main" or size is None else 0


@register("pg_table_size", args=[T.REGCLASS], returns=T.INT8, needs_context=True)
def pg_table_size(ctx: Any, rel: Any) -> int | None:
    """Returns a relation's size without its indexes, TOAST included (a TOAST index's page)."""
    from ..pgcatalog.systypes import type_storage

    oid = _rel_oid(ctx, rel) or 0
    size = _relation_bytes(ctx, oid)
    t = ctx.catalog.table_by_oid(oid)
    toast = t is not None and t.kind == "r" and _needs_toast(t.live_columns, type_storage)
    return None if size is None else size + (_PAGE if toast else 0)


def _needs_toast(columns: Any, type_storage: Any) -> bool:
    """PostgreSQL's needs_toast_table: a toastable column without a length bound, or bounds
    that add up past TOAST_TUPLE_THRESHOLD (2032 bytes; UTF8 counts 4 bytes a character)."""
    total = 0
    for c in columns:
        typlen, _, _, storage = type_storage(c.type_oid)
        if typlen > 0:
            total += typlen
        elif c.type_oid in (T.VARCHAR, T.BPCHAR) and c.typmod >= 4:
            total += (c.typmod - 4) * 4 + 4
        elif c.type_oid == T.NUMERIC and c.typmod >= 4:
            total += (((c.typmod - 4) >> 16) + 3) // 4 * 2 + 8
        elif storage in ("x", "e"):
            return True
        else:
            total += 8
    return total > 2032


@register("pg_indexes_size", args=[T.REGCLASS], returns=T.INT8, needs_context=True)
def pg_indexes_size(ctx: Any, rel: Any) -> int | None:
    """Returns the size of a table's indexes."""
    oid = _rel_oid(ctx, rel) or 0
    if _relation_bytes(ctx, oid) is None:
        return None
    return sum(_relation_bytes(ctx, i.oid) or 0 for i in ctx.catalog.indexes_of(oid))


@register("pg_total_relation_size", args=[T.REGCLASS], returns=T.INT8, needs_context=True)
def pg_total_relation_size(ctx: Any, rel: Any) -> int | None:
    """Returns a table's size with its TOAST data and indexes."""
    table, indexes = pg_table_size(ctx, rel), pg_indexes_size(ctx, rel)
    return None if table is None or indexes is None else table + indexes


# NB: `pg_relation_size('t')`: an unknown literal picks these text overloads, read as regclass
for _fn in (pg_relation_size, pg_table_size, pg_indexes_size, pg_total_relation_size):
    register(_fn.__name__, args=[T.TEXT], returns=T.INT8, needs_context=True)(_fn)
# (relation, fork): any argument types, so that a name literal and an OID both reach _rel_oid
register("pg_relation_size", args=None, returns=T.INT8, needs_context=True)(pg_relation_size)


@register("pg_size_pretty", args=[T.INT8], returns=T.TEXT)
def pg_size_pretty(size: int) -> str:
    """Formats a byte count as PostgreSQL does ("10 kB", "118 MB")."""
    size = int(size)
    limit = 10 * 1024
    if abs(size) < limit:
        return f"{size} bytes"
    size >>= 9  # keep one extra bit for rounding
    for unit in ("kB", "MB", "GB", "TB"):
        if abs(size) < limit * 2 - 1:
            return f"{_half_rounded(size)} {unit}"
        size >>= 10
    return f"{_half_rounded(size)} PB"


register("pg_size_pretty", args=[T.NUMERIC], returns=T.TEXT)(pg_size_pretty)


def _half_rounded(x: int) -> int:
    v = x + (-1 if x < 0 else 1)
    return -(-v // 2) if v < 0 else v // 2


@register("pg_tablespace_location", args=[T.OID], returns=T.TEXT)
def pg_tablespace_location(oid: int) -> str:
    """Returns "" (the built-in tablespaces live in the data directory)."""
    return ""


@register("pg_get_statisticsobjdef_columns", args=[T.OID], returns=T.TEXT)
def pg_get_statisticsobjdef_columns(oid: int) -> None:
    """Returns NULL: there are no extended statistics objects."""
    return None


def _session_with_pid(ctx: Any, pid: int) -> SessionView | None:
    """The open session with that backend pid; else None, with PostgreSQL's WARNING."""
    me: SessionView | None = ctx.session
    sessions = me.engine.sessions() if me is not None else []
    found = next((s for s in sessions if s.backend_pid == pid and not s.terminated), None)
    if found is None and me is not None:
        me.notice(f"PID {pid} is not a PostgreSQL backend process", severity="WARNING",
                  sqlstate="01000")
    return found


@register("pg_cancel_backend", args=[T.INT4], returns=T.BOOL, needs_context=True, volatile=True)
def pg_cancel_backend(ctx: Any, pid: int) -> bool:
    """Cancels the running statement of the session with that pid (false if there is none)."""
    target = _session_with_pid(ctx, pid)
    if target is None:
        return False
    target.cancel()
    return True


@register("pg_terminate_backend", args=[T.INT4], returns=T.BOOL, needs_context=True,
          volatile=True)
def pg_terminate_backend(ctx: Any, pid: int, timeout: int = 0) -> bool:
    """Ends the session with that pid: its running statement, or else its next message, gets
    FATAL 57P01 and the connection closes (false if there is no such session)."""
    target = _session_with_pid(ctx, pid)
    if target is None:
        return False
    target.terminate()
    return True


register("pg_terminate_backend", args=[T.INT4, T.INT8], returns=T.BOOL, needs_context=True,
         volatile=True)(pg_terminate_backend)


@register("current_query", args=[], returns=T.TEXT)
def current_query() -> None:
    """Returns NULL: the statement text is not kept."""
    return None


@register("pg_listening_channels", args=[], returns=T.TEXT, set_returning=True,
          needs_context=True)
def pg_listening_channels(ctx: Any) -> list[str]:
    """The channels this session LISTENs on."""
    session: SessionView | None = ctx.session
    notifier = session.engine.notifier if session is not None else None
    return notifier.channels_of(session) if notifier is not None else []


@register("pg_notify", args=[T.TEXT, T.TEXT], returns=T.VOID, strict=False, volatile=True,
          needs_context=True)
def pg_notify(ctx: Any, channel: str | None, payload: str | None) -> None:
    """NOTIFY as a function: transactional, delivered like `NOTIFY channel, 'payload'`."""
    if not channel:
        raise InvalidParameterValue("channel name cannot be empty")
    if len(channel) >= 64:
        raise InvalidParameterValue("channel name too long")
    payload = payload or ""
    if len(payload.encode()) >= 8000:
        raise InvalidParameterValue("payload string too long")
    session: SessionView | None = ctx.session
    if session is not None:
        session.notify(channel, payload)


@register("pg_last_xact_replay_timestamp", args=[], returns=T.TIMESTAMPTZ)
def pg_last_xact_replay_timestamp() -> None:
    """Returns NULL: no node is a standby replaying WAL."""
    return None


@register("pg_get_function_sqlbody", args=[T.OID], returns=T.TEXT, oid=6197,
          needs_context=True)
def pg_get_function_sqlbody(ctx: Any, oid: int) -> str | None:
    """A CREATE FUNCTION's SQL-standard body (BEGIN ATOMIC ... END, RETURN expr) as
    ruleutils prints it; NULL for any other (built-ins are `internal`)."""
    return user_sqlbody(ctx, oid)


_VOLATILITY = {"i": " IMMUTABLE", "s": " STABLE", "v": ""}
_PARALLEL = {"s": " PARALLEL SAFE", "r": " PARALLEL RESTRICTED", "u": ""}


@register("pg_get_functiondef", args=[T.OID], returns=T.TEXT, oid=2098, needs_context=True)
def pg_get_functiondef(ctx: Any, oid: int) -> str | None:
    """Returns CREATE OR REPLACE FUNCTION text, as psql's \\sf shows it (a CREATE
    FUNCTION's: `catalogfns.user_functiondef`)."""
    user = user_functiondef(ctx, oid)
    if user is not None:
        return user
    from ..pgcatalog.ddltext import format_type
    from ..pgcatalog.runtime import proc_row

    row = proc_row(oid)
    if row is None:
        return None
    name, nsp, strict, srf, volatility, parallel, ret, args, src = (
        row[1], row[2], row[12], row[13], row[14], row[15], row[18], row[19], row[25])
    schema = "information_schema" if nsp != 11 else "pg_catalog"
    params = ", ".join(format_type(a, None) or "" for a in args if a != T.ANY)
    options = _VOLATILITY.get(volatility, "") + _PARALLEL.get(parallel, "") + (
        " STRICT" if strict else "")
    return (f"CREATE OR REPLACE FUNCTION {schema}.{name}({params})\n"
            f" RETURNS {'SETOF ' if srf else ''}{format_type(ret, None)}\n"
            f" LANGUAGE internal\n" + (f"{options}\n" if options else "")
            + f"AS $function${src}$function$\n")
