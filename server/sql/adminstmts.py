"""Administrative statements: ALTER SYSTEM, LOCK TABLE, SECURITY LABEL (REINDEX and CLUSTER:
`maintenance`).

None of them may be accepted and then do nothing: each either does what
PostgreSQL does or fails with 0A000 feature_not_supported.

- `ALTER SYSTEM SET name = value` / `RESET name` / `RESET ALL` rewrites
  `cumulo.auto.conf` in the data directory (`conffile`); the value applies at
  the next reload (`SELECT pg_reload_conf()` or SIGHUP), as in PostgreSQL.
- `LOCK TABLE t IN ACCESS SHARE | ROW SHARE | ROW EXCLUSIVE MODE` checks the
  tables and succeeds: Cumulo takes no table locks, and these three modes
  conflict only with the stronger modes, which nothing in Cumulo can hold, so
  holding one changes nothing, exactly as in PostgreSQL when no one holds a
  stronger lock. The stronger modes (SHARE and up, and the default ACCESS
  EXCLUSIVE) would have to block other sessions' writes: 0A000.
- `SECURITY LABEL`: no label provider is loaded, PostgreSQL's 22023 as without sepgsql.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..errors import (
    FeatureNotSupported,
    InvalidParameterValue,
    NoActiveSQLTransaction,
    SyntaxError_,
)
from ..pgwire.backend import Result
from . import conffile
from .ddl.names import get_relation
from .parse import unquote_ident
from .setvalue import set_value, split_commas
from .stmt import ANY_VERSION, Stmt

if TYPE_CHECKING:
    from .session import SQLSession

ALTER_SYSTEM = re.compile(
    r"ALTER\s+SYSTEM\s+(?:(?P<set>SET)\s+(?P<name>[\w.\"$]+)\s*(?:=|\bTO\b)\s*(?P<value>.+?)|"
    r"RESET\s+(?P<reset>[\w.\"$]+))\s*;?\s*$", re.I | re.S)
_LOCK = re.compile(r"LOCK\s+(?:TABLE\s+)?(?:ONLY\s+)?(?P<tables>.+?)"
                   r"(?:\s+IN\s+(?P<mode>[A-Z ]+?)\s+MODE)?(?P<nowait>\s+NOWAIT)?\s*;?\s*$",
                   re.I | re.S)
WEAK_MODES = {"ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE"}
MODES = WEAK_MODES | {"SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE",
                      "ACCESS EXCLUSIVE"}


def _stmt(sql: str, tag: str, fn: Any, no_block: bool = False) -> Stmt:
    return Stmt(sql, "utility", fn, None, [], ANY_VERSION, in_txn=False, no_block=no_block,
                tag=tag)


def analyse_alter_system(sql: str) -> Stmt:
    """ALTER SYSTEM SET / RESET: see the module doc."""
    m = ALTER_SYSTEM.match(sql.strip())
    if m is None:
        raise SyntaxError_("syntax error at or near \"SYSTEM\"")
    raw = m.group("name") or m.group("reset")
    name = None if raw.upper() == "ALL" and m.group("reset") else \
        ".".join(unquote_ident(p) for p in raw.split("."))
    value = set_value(m.group("value")) if m.group("set") else None
    if m.group("set") and value == "":
        value = None  # SET x = DEFAULT is RESET x

    def run(s: SQLSession, p: list[Any]) -> Result:
        config = conffile.current()
        if config is None:
            raise FeatureNotSupported("ALTER SYSTEM needs a server with a data directory")
        config.alter_system(name, value)
        return Result("ALTER SYSTEM")

    return _stmt(sql, "ALTER SYSTEM", run, no_block=True)


def analyse_lock(sql: str) -> Stmt:
    """LOCK [TABLE] [ONLY] name [, ...] [IN mode MODE] [NOWAIT]."""
    m = _LOCK.match(sql.strip())
    if m is None:
        raise SyntaxError_('syntax error at or near "LOCK"')
    mode = " ".join((m.group("mode") or "ACCESS EXCLUSIVE").upper().split())
    if mode not in MODES:
        raise SyntaxError_(f'syntax error at or near "{mode.split()[0]}"')
    names = []
    for item in split_commas(m.group("tables")):
        parts = [unquote_ident(p.strip()) for p in item.strip().rstrip("*").strip().split(".")]
        names.append((parts[-2] if len(parts) > 1 else None, parts[-1]))

    def run(s: SQLSession, p: list[Any]) -> Result:
        if not s.in_block:
            raise NoActiveSQLTransaction("LOCK TABLE can only be used in transaction blocks")
        cat = s.catalog()
        for schema, name in names:
            get_relation(cat, schema, name, s.search_path())  # NB: 42P01 as PostgreSQL
        if mode not in WEAK_MODES:
            raise FeatureNotSupported(
                f"LOCK TABLE IN {mode} MODE is not supported",
                hint="Cumulo takes no table locks; ACCESS SHARE, ROW SHARE and ROW EXCLUSIVE "
                "are accepted because nothing can conflict with them.")
        return Result("LOCK TABLE")

    return _stmt(sql, "LOCK TABLE", run)


_LABEL_PROVIDER = re.compile(r"SECURITY\s+LABEL\s+FOR\s+(\"(?:[^\"]|\"\")+\"|[\w$]+)", re.I)


def analyse_security_label(sql: str) -> Stmt:
    """SECURITY LABEL [FOR provider] ON ... IS ...: PostgreSQL 15 without a label provider
    loaded (sepgsql) refuses it before it looks the object up (22023); Cumulo has none."""
    m = _LABEL_PROVIDER.match(sql.strip())

    def run(s: SQLSession, p: list[Any]) -> Result:
        if m is None:
            raise InvalidParameterValue("no security label providers have been loaded")
        raise InvalidParameterValue(
            f'security label provider "{unquote_ident(m.group(1))}" is not loaded')

    return _stmt(sql, "SECURITY LABEL", run)
