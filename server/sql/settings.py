"""Run-time settings (GUCs): defaults, SET / SET LOCAL / RESET, SHOW, and ParameterStatus reporting.

Clients read these in three ways: the 13 ParameterStatus values sent at startup
(and re-sent when a SET changes one), SHOW, and `current_setting` /
`set_config` / `pg_settings`. All three read the same `Settings` object, so
they cannot disagree. Values are kept as PostgreSQL prints them; a few are
normalised on SET the way PostgreSQL does (booleans to on/off, DateStyle,
isolation levels), because JDBC checks them byte for byte.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable
from contextvars import ContextVar

from ..errors import (
    CantChangeRuntimeParam,
    FeatureNotSupported,
    InvalidParameterValue,
    UndefinedObject,
)
from ..pgtypes import dateparse, wirecodec, xmlvalue, zones
from .settingdocs import describe


def system_timezone() -> str:
    """Returns the machine's zone name, found as PostgreSQL's initdb finds it.

    initdb writes `timezone` into postgresql.conf from $TZ, else from the zone
    /etc/localtime links to (Debian: `Etc/UTC`); clients see that name in SHOW,
    ParameterStatus and current_setting, so `cumulo serve` reports the same one.
    """
    candidates = [os.environ.get("TZ", "").lstrip(":")]
    try:
        link = os.path.realpath("/etc/localtime")
        if "/zoneinfo/" in link:
            candidates.append(link.split("/zoneinfo/", 1)[1].removeprefix("posix/"))
    except OSError:
        pass
    try:
        with open("/etc/timezone") as f:
            candidates.append(f.read().strip())
    except OSError:
        pass
    for name in candidates:
        hit = zones.zone_by_name(name) if name else None
        if hit is not None:
            return hit[0]
    return "GMT"  # NB: PostgreSQL's own fallback when the system zone cannot be identified


DEBIAN_SOCKET_DIR = "/var/run/postgresql"


def socket_directories() -> str:
    """Returns unix_socket_directories' default, as PostgreSQL's build chooses it.

    Debian and Ubuntu build PostgreSQL (and libpq, so psql and pgbench look there) with
    /var/run/postgresql; upstream's default is /tmp. Where the Debian directory exists,
    `psql -p 5433` looks there, so that is where the server listens.
    """
    return DEBIAN_SOCKET_DIR if os.path.isdir(DEBIAN_SOCKET_DIR) else "/tmp"


SERVER_VERSION = "15.6 (Cumulo)"
SERVER_VERSION_NUM = "150006"

DEFAULTS: dict[str, str] = {
    "application_name": "",
    "client_encoding": "UTF8",
    "datestyle": "ISO, MDY",
    "default_transaction_read_only": "off",
    "in_hot_standby": "off",
    "integer_datetimes": "on",
    "intervalstyle": "postgres",
    "is_superuser": "on",
    "server_encoding": "UTF8",
    "server_version": SERVER_VERSION,
    "server_version_num": SERVER_VERSION_NUM,
    "session_authorization": "cumulo",
    "role": "none",
    "standard_conforming_strings": "on",
    "timezone": system_timezone(),
    "default_transaction_isolation": "read committed",
    "default_transaction_deferrable": "off",
    "transaction_isolation": "read committed",
    "transaction_read_only": "off",
    "transaction_deferrable": "off",
    "search_path": '"$user", public',
    "extra_float_digits": "1",
    "statement_timeout": "0",
    "lock_timeout": "0",
    "idle_in_transaction_session_timeout": "0",
    "jit": "off",
    "lc_messages": "C",
    "lc_monetary": "C",
    "lc_numeric": "C",
    "lc_time": "C",
    "bytea_output": "hex",
    "client_min_messages": "notice",
    "max_identifier_length": "63",
    "max_connections": "100",
    # the Unix-domain sockets `cumulo serve` listens on (pgwire/unixsock.py), read at start
    "unix_socket_directories": socket_directories(),
    "unix_socket_group": "",
    "unix_socket_permissions": "0777",
    "password_encryption": "scram-sha-256",
    "synchronous_commit": "on",
    "work_mem": "4MB",
    "maintenance_work_mem": "64MB",
    "enable_seqscan": "on",
    "enable_indexscan": "on",
    "enable_hashjoin": "on",
    "enable_mergejoin": "on",
    "enable_nestloop": "on",
    "row_security": "on",
    "escape_string_warning": "on",
    "backslash_quote": "safe_encoding",
    "default_with_oids": "off",
    "array_nulls": "on",
    "block_size": "8192",
    "geqo": "on",
    "random_page_cost": "4",
    "effective_cache_size": "4GB",
    "default_tablespace": "",
    "temp_tablespaces": "",
    "check_function_bodies": "on",
    "xmloption": "content",
    "xmlbinary": "base64",
    "cursor_tuple_fraction": "0.1",
    "log_statement": "none",
    "log_connections": "off",  # read by the event-loop front end (pgwire/loop.py) at start
    "log_disconnections": "off",
    "tcp_keepalives_idle": "0",
    "data_directory_mode": "0700",
    "wal_level": "replica",
    "vacuum_freeze_min_age": "50000000",
    "plan_cache_mode": "auto",
    "statement_cache": "on",
    "cumulo.columnar": "auto",  # on | off | auto: the columnar (vectorized) path, issue 11
    "cumulo.statement_mem": "-1",  # what one statement may hold (exec/memguard.py)
    # read by clients' reflection and tools (SQLAlchemy table options, JDBC metadata, psql)
    "default_table_access_method": "heap",
    "default_toast_compression": "pglz",
    "default_statistics_target": "100",
    "default_text_search_config": "pg_catalog.english",
    "lc_collate": "C",
    "lc_ctype": "C",
    "max_index_keys": "32",
    "max_function_args": "100",
    "max_prepared_transactions": "0",
    "max_locks_per_transaction": "64",
    "max_stack_depth": "2MB",
    "shared_buffers": "128MB",
    "temp_buffers": "8MB",
    "ssl": "off",
    "data_checksums": "off",
    "segment_size": "1GB",
    "wal_block_size": "8192",
    "wal_segment_size": "16MB",
    "fsync": "on",
    "autovacuum": "on",
    "track_commit_timestamp": "off",
    "deadlock_timeout": "1s",
    "timezone_abbreviations": "Default",
    "quote_all_identifiers": "off",
    "transform_null_equals": "off",
    "session_replication_role": "origin",
    "enable_hashagg": "on",
    "enable_sort": "on",
    "enable_material": "on",
    "enable_bitmapscan": "on",
    "enable_indexonlyscan": "on",
    "enable_partition_pruning": "on",
    "max_parallel_workers_per_gather": "2",
    "seq_page_cost": "1",
    "cpu_tuple_cost": "0.01",
    "from_collapse_limit": "8",
    "join_collapse_limit": "8",
    "lo_compat_privileges": "off",
    "idle_session_timeout": "0",
    "log_min_duration_statement": "-1",
    "log_parameter_max_length_on_error": "0",  # a bad Bind value's CONTEXT (pgwire.extended)
    "log_parameter_max_length": "-1",  # NB: statement logging shows no parameters here
    "log_min_messages": "warning",
    # NB: Cumulo logs to stderr only (no logging_collector), so no log file takes this mode;
    # it is there for the tools and scripts that read it (SHOW, pg_settings)
    "log_file_mode": "0600",
    "checkpoint_timeout": "5min",
    "synchronize_seqscans": "on",  # pg_dump turns it off; Cumulo's scans start at the first row
    # PL/pgSQL's own (plpgsql.so defines them): the defaults of `#print_strict_params` and
    # `#variable_conflict` for the functions compiled after (plpgsql.interp.compile_options)
    "plpgsql.print_strict_params": "off",
    "plpgsql.variable_conflict": "error",
}

# Names as PostgreSQL spells them in ParameterStatus and SHOW ALL.
CANONICAL = {
    "datestyle": "DateStyle",
    "intervalstyle": "IntervalStyle",
    "timezone": "TimeZone",
}
REPORTED = (
    "application_name", "client_encoding", "datestyle", "default_transaction_read_only",
    "in_hot_standby", "integer_datetimes", "intervalstyle", "is_superuser", "server_encoding",
    "server_version", "session_authorization", "standard_conforming_strings", "timezone",
)
READ_ONLY = {
    "server_version", "server_version_num", "server_encoding", "integer_datetimes",
    "in_hot_standby", "is_superuser", "max_identifier_length", "block_size", "max_connections",
    "wal_level", "data_directory_mode", "lc_collate", "lc_ctype", "max_index_keys",
    "max_function_args", "segment_size", "wal_block_size", "wal_segment_size", "data_checksums",
    "ssl", "shared_buffers", "max_prepared_transactions",
    "max_locks_per_transaction", "autovacuum", "fsync", "track_commit_timestamp",
    "unix_socket_directories", "unix_socket_group", "unix_socket_permissions",
}
BOOLEANS = {
    "default_transaction_read_only", "standard_conforming_strings", "transaction_read_only",
    "default_transaction_deferrable", "transaction_deferrable", "jit", "enable_seqscan",
    "enable_indexscan", "enable_hashjoin", "enable_mergejoin", "enable_nestloop", "row_security",
    "escape_string_warning", "array_nulls", "geqo", "check_function_bodies",
    "quote_all_identifiers", "transform_null_equals", "enable_hashagg", "enable_sort",
    "enable_material", "enable_bitmapscan", "enable_indexonlyscan", "enable_partition_pruning",
    "lo_compat_privileges", "synchronize_seqscans", "plpgsql.print_strict_params",
}
# Settings only the configuration file (and ALTER SYSTEM + reload) may change, as PostgreSQL's
# "sighup" context: SET says 55P02 "cannot be changed now".
SIGHUP_ONLY = {"checkpoint_timeout", "log_file_mode"}
# Integer settings that are file modes: PostgreSQL reads them as C's strtol does (0644 octal,
# 0x1a4 hexadecimal) and shows them in octal, 0600
FILE_MODES = {"log_file_mode"}
ISOLATION_LEVELS = ("read uncommitted", "read committed", "repeatable read", "serializable")
_TRUE = {"on", "true", "yes", "1", "t", "y"}
_FALSE = {"off", "false", "no", "0", "f", "n"}
# synchronous_commit's values and PostgreSQL's hidden boolean spellings of on and off
_SYNC_COMMIT = {"local": "local", "remote_write": "remote_write", "remote_apply": "remote_apply",
                "on": "on", "true": "on", "yes": "on", "1": "on",
                "off": "off", "false": "off", "no": "off", "0": "off"}


def canonical(name: str) -> str:
    """Returns the spelling PostgreSQL reports for a setting name."""
    return CANONICAL.get(name, name)


def _normalise(name: str, value: str) -> str:
    v = value.strip()
    low = v.lower()
    if name in BOOLEANS:
        if low in _TRUE:
            return "on"
        if low in _FALSE:
            return "off"
        raise InvalidParameterValue(f'parameter "{name}" requires a Boolean value')
    if name in ("default_transaction_isolation", "transaction_isolation"):
        if low not in ISOLATION_LEVELS:
            raise InvalidParameterValue(
                f'invalid value for parameter "{name}": "{v}"',
                hint='Available values: serializable, repeatable read, read committed, '
                "read uncommitted.",
            )
        return low
    if name == "cumulo.columnar":
        if low not in ("on", "off", "auto"):
            raise InvalidParameterValue(f'invalid value for parameter "{name}": "{v}"',
                                        hint="Available values: on, off, auto.")
        return low
    if name == "client_encoding":  # the encodings pgtypes.wirecodec converts on the wire
        enc = wirecodec.canonical(v)
        if enc is None:
            raise InvalidParameterValue(f'invalid value for parameter "client_encoding": "{v}"')
        if enc in wirecodec.UNCONVERTIBLE:
            raise FeatureNotSupported(f'invalid value for parameter "client_encoding": "{v}"',
                                      detail=f"Conversion between {enc} and UTF8 is not supported.")
        return enc
    if name == "datestyle":
        parts = [p.strip().lower() for p in v.split(",")]
        style = next((p for p in parts if p in ("iso", "sql", "postgres", "german")), "iso")
        order = next((p for p in parts if p in ("mdy", "dmy", "ymd", "us", "european",
                                                "euro", "nonstandard")),
                     "dmy" if style == "german" else "mdy")
        order = {"us": "mdy", "nonstandard": "mdy", "european": "dmy", "euro": "dmy"}.get(order,
                                                                                          order)
        return {"iso": "ISO", "sql": "SQL", "postgres": "Postgres", "german": "German"}[style] + \
            ", " + order.upper()
    if name in FILE_MODES:
        return _file_mode(name, v)
    if name == "checkpoint_timeout" and v.isdigit():
        v = v + "s"  # NB: PostgreSQL counts this one in seconds
    if name in TIME_SETTINGS:
        return _unit_value(v, name, _UNITS_MS, ("d", "h", "min", "s", "ms"))
    if name in MEMORY_SETTINGS:
        return _unit_value(v, name, _UNITS_KB, ("TB", "GB", "MB", "kB"))
    if name in BYTE_SETTINGS:
        shown = _unit_value(v, name, UNITS_B, ("TB", "GB", "MB", "kB", "B"))
        size = in_bytes(shown)
        if not -1 <= size <= 1073741823:
            raise InvalidParameterValue(f'{size} B is outside the valid range for parameter '
                                        f'"{name}" (-1 .. 1073741823)')
        return shown
    if name == "timezone":
        return zones.parse_setting(v)[0]
    if name == "synchronous_commit":  # NB: an enum; "off" commits before the fsync (txn.api)
        got = _SYNC_COMMIT.get(low)
        if got is None:
            raise InvalidParameterValue(f'invalid value for parameter "{name}": "{v}"',
                                        hint="Available values: local, remote_write, "
                                        "remote_apply, on, off.")
        return got
    if name == "log_statement":
        if low not in ("none", "ddl", "mod", "all"):
            raise InvalidParameterValue(f'invalid value for parameter "{name}": "{v}"',
                                        hint="Available values: none, ddl, mod, all.")
        return low
    if name == "plpgsql.variable_conflict":
        if low not in ("error", "use_variable", "use_column"):
            raise InvalidParameterValue(f'invalid value for parameter "{name}": "{v}"',
                                        hint="Available values: error, use_variable, "
                                        "use_column.")
        return low
    if name in _XML_ENUMS:
        if low not in _XML_ENUMS[name]:
            raise InvalidParameterValue(f'invalid value for parameter "{name}": "{v}"',
                                        hint=f"Available values: {', '.join(_XML_ENUMS[name])}.")
        return low
    if name == "lc_monetary" and v not in C_LOCALES:  # NB: money prints as C only (pgtypes.money)
        raise InvalidParameterValue(f'invalid value for parameter "{name}": "{v}"')
    if name == "intervalstyle":
        if low not in ("postgres", "postgres_verbose", "sql_standard", "iso_8601"):
            raise InvalidParameterValue(
                f'invalid value for parameter "{name}": "{v}"',
                hint="Available values: postgres, postgres_verbose, sql_standard, iso_8601.")
        return low
    return v


_C_INTEGER = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
_C_REAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _file_mode(name: str, value: str) -> str:
    """A file mode setting's value as PostgreSQL's parse_int reads it (strtol with base 0, or
    else a real number rounded) and its show hook prints it (four octal digits).

    >>> _file_mode("log_file_mode", "420"), _file_mode("log_file_mode", "0x1ff")
    ('0644', '0777')
    >>> _file_mode("log_file_mode", "08"), _file_mode("log_file_mode", "1e2")
    ('0010', '0144')
    """
    m = _C_INTEGER.fullmatch(value)
    if m is not None:
        digits = m.group(2)
        base = 16 if digits[1:2] in ("x", "X") else 8 if digits.startswith("0") else 10
        n = int(digits, base) * (-1 if m.group(1) == "-" else 1)
    elif _C_REAL.fullmatch(value):
        n = round(float(value))  # NB: rint's rounding, half to even
    else:
        raise InvalidParameterValue(f'invalid value for parameter "{name}": "{value}"')
    if not 0 <= n <= 0o777:
        raise InvalidParameterValue(f'{n} is outside the valid range for parameter "{name}" '
                                    "(0 .. 511)")
    return f"{n:04o}"


# the settings published to the session's thread (`Settings.use_zone`) that plans fold by
_STYLES = ("timezone", "datestyle", "intervalstyle", "xmloption", "xmlbinary")
_XML_ENUMS = {"xmloption": ("content", "document"), "xmlbinary": ("base64", "hex")}
_UNITS_MS = {"ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000, "": 1}
TIME_SETTINGS = {"statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout",
                 "idle_session_timeout", "deadlock_timeout", "checkpoint_timeout",
                 "log_min_duration_statement"}
BYTE_SETTINGS = {"log_parameter_max_length_on_error",  # GUC_UNIT_BYTE, -1 .. INT_MAX / 2
                 "log_parameter_max_length"}
MEMORY_SETTINGS = {"work_mem", "maintenance_work_mem", "temp_buffers", "effective_cache_size",
                   "cumulo.statement_mem"}
# PostgreSQL's GUC_NO_SHOW_ALL settings: SHOW ALL and pg_settings do not list them.
_NO_SHOW_ALL = frozenset({"role", "session_authorization", "is_superuser"})

UNITS_B = {"b": 1, "kb": 1024, "mb": 1024 ** 2, "gb": 1024 ** 3, "tb": 1024 ** 4, "": 1}


def in_bytes(shown: str) -> int:
    """A byte setting's normal form (`5B`, `2kB`, `-1`) as a number of bytes.

    >>> in_bytes("2kB"), in_bytes("-1"), in_bytes("5B")
    (2048, -1, 5)
    """
    digits = shown.rstrip("BkMGT")
    return int(digits) * UNITS_B[shown[len(digits):].lower()]


_UNITS_KB = {"kb": 1, "mb": 1024, "gb": 1024 ** 2, "tb": 1024 ** 3, "": 1}


def _unit_value(value: str, name: str, units: dict[str, int], names: tuple[str, ...]) -> str:
    """Normalises `1000` / `'5s'` / `'64MB'` to PostgreSQL's display: the largest exact unit."""
    m = re.fullmatch(r"\s*(-?\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value)
    if m is None or m.group(2).lower() not in units:
        hint = ('Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".'
                if units is _UNITS_MS else
                'Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".')
        raise InvalidParameterValue(f'invalid value for parameter "{name}": "{value}"',
                                    hint=hint if m is not None else None)
    base = round(float(m.group(1)) * units[m.group(2).lower()])
    if base == 0 or base < 0:
        return str(base)
    for unit in names:
        size = units[unit.lower()]
        if base % size == 0:
            return f"{base // size}{unit}"
    return str(base)


# the locale names setlocale accepts on a host that has only the C locales: all Cumulo formats
C_LOCALES = frozenset(("C", "POSIX", "", "C.UTF-8", "C.utf8"))


def validate(name: str, value: str) -> str:
    """Checks a value for a setting as SET would (22023 / 42704); returns its normal form.

    For the configuration file and ALTER SYSTEM, which may also name settings SET cannot
    change (read-only ones excepted).
    """
    key = name.lower()
    if key not in DEFAULTS and "." not in key:
        raise UndefinedObject(f'unrecognized configuration parameter "{name}"')
    return _normalise(key, value)


class ServerDefaults:
    """The values a new session starts from: DEFAULTS overlaid with the configuration files
    and the command line (`sql.conffile`), each with its source as pg_settings names it.

    A reload replaces them and bumps `generation`; each session's `Settings.refresh` then
    takes the new value of every setting it did not set itself, as PostgreSQL's backends do
    on SIGHUP.
    """

    def __init__(self) -> None:
        self.values: dict[str, str] = dict(DEFAULTS)
        self.sources: dict[str, str] = {}  # key -> "configuration file" / "command line"
        self.files: dict[str, tuple[str, int]] = {}  # key -> (file, line) it was read from
        self.generation = 0

    def replace(self, values: dict[str, str], sources: dict[str, str],
                files: dict[str, tuple[str, int]] | None = None) -> None:
        """Installs a new server-wide layer (values not given fall back to DEFAULTS)."""
        merged = dict(DEFAULTS)
        merged.update(values)
        self.values, self.sources, self.files = merged, dict(sources), dict(files or {})
        self.generation += 1

    def source(self, key: str) -> str:
        """Where the server-wide value of a setting comes from."""
        return self.sources.get(key, "default")


SERVER = ServerDefaults()

_CURRENT: ContextVar[Settings | None] = ContextVar("published_settings", default=None)


class _Published:
    """The Settings whose date/time styles and search_path the calling session uses (None:
    none yet). A context variable: a thread's own on the threaded front end, a session
    greenlet's own on the event loop, so a session parked mid-statement keeps its own."""

    __slots__ = ()

    @property
    def settings(self) -> Settings | None:
        return _CURRENT.get()

    @settings.setter
    def settings(self, value: Settings | None) -> None:
        _CURRENT.set(value)


PUBLISHED = _Published()
# `PUBLISHED.settings` without the property's Python call (the context variable's own `get`):
# every Bind asks it (`SQLSession.check_prepared`)
published: Callable[[], Settings | None] = _CURRENT.get


def visible_schemas() -> list[str]:
    """The schemas of this thread's search_path ("$user" dropped): the ones whose objects
    format_type and regclass print unqualified; pg_catalog is always visible.

    >>> visible_schemas() if PUBLISHED.settings else ["pg_catalog", "public"]
    ['pg_catalog', 'public']
    """
    current = PUBLISHED.settings
    raw = current.values["search_path"] if current is not None else DEFAULTS["search_path"]
    names = [p.strip().strip('"') for p in raw.split(",")]
    return ["pg_catalog", *(n for n in names if n and n != "$user")]


class Settings:
    """One session's settings, with SET LOCAL undo at transaction end and change tracking."""

    def __init__(self, overrides: dict[str, str] | None = None) -> None:
        self.values = dict(SERVER.values)
        self.base = SERVER.values  # the server-wide layer this session follows (see refresh)
        self.generation = SERVER.generation  # the reload taken last (`refresh`)
        self.session_defaults: dict[str, str] = {}
        self._local_undo: dict[str, str] = {}
        # the value each setting had before this transaction first changed it: ROLLBACK
        # (and a failed implicit transaction) undoes plain SET too, as in PostgreSQL
        self._txn_undo: dict[str, str] = {}
        self.changed: set[str] = set()
        # the TimeZone setting as a tzinfo, kept in step with it
        self.tz: dt.tzinfo = zones.parse_setting(self.values["timezone"])[1]
        self.style_key: tuple[str, ...] = ()  # replaced whenever TimeZone/DateStyle/IntervalStyle
        self._restyle()
        for k, v in (overrides or {}).items():
            self.set(k, v)
            self.session_defaults[k.lower()] = self.values[k.lower()]
        self.changed.clear()
        self._txn_undo.clear()
        self.use_zone()

    def _restyle(self) -> None:
        """A new `style_key`: plans that folded date/time constants must be made again."""
        v = self.values
        self.style_key = (v["timezone"], v["datestyle"], v["intervalstyle"], v["xmloption"],
                          v["xmlbinary"])

    def use_zone(self) -> None:
        """Publishes this session's TimeZone, DateStyle and IntervalStyle to the thread running it.

        Every change publishes at once; a session calls this before a statement only when
        another Settings was published on its thread since (`PUBLISHED`).
        """
        zones.use(self.tz)
        dateparse.use_datestyle(self.values["datestyle"])
        dateparse.use_intervalstyle(self.values["intervalstyle"])
        xmlvalue.use_xmloption(self.values["xmloption"])  # xml_in's; '...'::xml folds by it
        xmlvalue.use_xmlbinary(self.values["xmlbinary"])  # bytea in XMLELEMENT: base64 or hex
        PUBLISHED.settings = self

    def get(self, name: str) -> str | None:
        """Returns a setting's value, None if there is no such setting."""
        return self.values.get(name.lower())

    def show(self, name: str) -> str:
        """Returns a setting's value for SHOW / current_setting (42704 if unknown)."""
        v = self.values.get(name.lower())
        if v is None:
            raise UndefinedObject(f'unrecognized configuration parameter "{name}"')
        return v

    def set(self, name: str, value: str | None, local: bool = False) -> str:
        """Sets a setting (value None: back to its default); returns the new value."""
        key = name.lower()
        if key not in self.values and "." not in key:
            raise UndefinedObject(f'unrecognized configuration parameter "{name}"')
        if key in READ_ONLY:
            raise CantChangeRuntimeParam(f'parameter "{name}" cannot be changed')
        if key in SIGHUP_ONLY:
            raise CantChangeRuntimeParam(f'parameter "{name}" cannot be changed now')
        if value is None:
            new = self.session_defaults.get(key, self.base.get(key, DEFAULTS.get(key, "")))
        else:
            new = _normalise(key, value)
        old = self.values.get(key)
        if local and key not in self._local_undo and old is not None:
            self._local_undo[key] = old
        if old is not None and key not in self._txn_undo:
            self._txn_undo[key] = old
        if old != new:
            self.values[key] = new
            if key in REPORTED:
                self.changed.add(key)
            if key in _STYLES:
                self._zone_changed()
        return new

    def _zone_changed(self) -> None:
        self.tz = zones.parse_setting(self.values["timezone"])[1]
        self._restyle()
        self.use_zone()

    def reset_all(self) -> None:
        """RESET ALL: every changeable setting back to its session default."""
        for key in list(self.values):
            if key in READ_ONLY or key in SIGHUP_ONLY or key.startswith("transaction_"):
                continue
            if key in DEFAULTS or key in self.session_defaults:
                self.set(key, None)

    def end_transaction(self, aborted: bool = False) -> None:
        """Undoes SET LOCAL at COMMIT, and every SET of the transaction at ROLLBACK."""
        if not self._local_undo and not self._txn_undo:
            return  # NB: most transactions SET nothing
        if aborted:
            self.restore(self._txn_undo)
        self.restore(self._local_undo)
        self._local_undo.clear()
        self._txn_undo.clear()

    def undo_transaction(self) -> None:
        """Puts back the values from before the transaction's SETs (a failed block)."""
        self.restore(self._txn_undo)

    def commit_sets(self) -> None:
        """Makes the SETs so far permanent: called when a statement outside a block succeeds."""
        if self._txn_undo:
            self._txn_undo.clear()

    def mark(self) -> dict[str, str]:
        """The values now, for ROLLBACK TO SAVEPOINT to return to (`restore`)."""
        return dict(self.values)

    def restore(self, values: dict[str, str]) -> None:
        """Puts back the given values, reporting and republishing what changes."""
        zone = False
        for key, old in values.items():
            if self.values.get(key) != old:
                self.values[key] = old
                if key in REPORTED:
                    self.changed.add(key)
                zone = zone or key in _STYLES
        if zone:
            self._zone_changed()

    def reported(self) -> dict[str, str]:
        """The 13 ParameterStatus values, as PostgreSQL 15 sends them after authentication."""
        return {canonical(k): self.values[k] for k in REPORTED}

    def take_changed(self) -> dict[str, str]:
        """Reported settings changed since the last call."""
        out = {canonical(k): self.values[k] for k in sorted(self.changed)}
        self.changed.clear()
        return out

    def all_rows(self) -> list[tuple[str, str, str]]:
        """SHOW ALL's rows: (name, setting, description), PostgreSQL's short description as
        in pg_settings.short_desc (where a value comes from is pg_settings.source). The
        settings PostgreSQL marks GUC_NO_SHOW_ALL (role, session_authorization,
        is_superuser) are left out, as there."""
        return [(canonical(k), v, describe(k)[1] or "") for k, v in sorted(self.values.items())
                if k not in _NO_SHOW_ALL]

    def source(self, key: str) -> str:
        """pg_settings.source of a setting: session (SET), client (startup packet), or the
        server-wide layer's (configuration file, command line, default)."""
        key = key.lower()
        if key.startswith("transaction_"):
            return "override"
        reset = self.session_defaults.get(key, self.base.get(key))
        if self.values.get(key) != reset:
            return "session"
        if key in self.session_defaults:
            return "client"
        return SERVER.source(key)

    def refresh(self) -> bool:
        """After a configuration reload, takes the new server-wide value of every setting this
        session did not change itself; True if there was a reload to take."""
        if self.generation == SERVER.generation:
            return False
        old, new = self.base, SERVER.values
        self.generation, self.base = SERVER.generation, new
        updates = {}
        for key, value in new.items():
            if key in self.session_defaults or key.startswith("transaction_"):
                continue
            if self.values.get(key) == old.get(key) and value != old.get(key):
                updates[key] = value
        for key, value in old.items():  # a setting removed from the file: back to its default
            if key not in new and self.values.get(key) == value and key in DEFAULTS:
                updates[key] = DEFAULTS[key]
        if updates:
            self.restore(updates)
            for key in updates:
                self._txn_undo.pop(key, None)
        return True




def duration_ms(value: str) -> float:
    """Parses a time setting such as `500`, `5s` or `1min` into milliseconds (0 if invalid)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|min|h|d)?\s*", value)
    return float(m.group(1)) * _UNITS_MS[m.group(2) or ""] if m else 0.0


def memory_kb(value: str) -> int:
    """Parses a memory setting such as `-1`, `4096`, `64MB` into kB (-1 if invalid)."""
    m = re.fullmatch(r"\s*(-?\d+)\s*(kB|MB|GB|TB)?\s*", value, re.I)
    return int(m.group(1)) * _UNITS_KB[(m.group(2) or "").lower()] if m else -1


def startup_settings(options: dict[str, str]) -> dict[str, str]:
    """Returns the settings given at connection start (parameters and `options=-c ...`)."""
    out: dict[str, str] = {}
    for key, value in options.items():
        k = key.lower()
        if k in ("user", "database", "replication", "password"):
            continue
        if k == "options":
            out.update(_parse_options(value))
        else:
            out[k] = value
    return {k: v for k, v in out.items() if k in DEFAULTS or "." in k}


def _parse_options(value: str) -> dict[str, str]:
    out: dict[str, str] = {}
    parts = value.replace("\\ ", "\0").split()
    i = 0
    while i < len(parts):
        p = parts[i].replace("\0", " ")
        if p == "-c" and i + 1 < len(parts):
            p, i = parts[i + 1].replace("\0", " "), i + 1
        elif p.startswith("-c"):
            p = p[2:]
        elif p.startswith("--"):
            p = p[2:]
        else:
            i += 1
            continue
        if "=" in p:
            k, v = p.split("=", 1)
            out[k.lower().replace("-", "_")] = v
        i += 1
    return out
