"""Connection settings from a URL or keywords, JDBC style.

    cumulo://user:pw@h1:5433,h2:5433/db?fetch_size=1000&load_balance=true&sslmode=require
    postgresql://user@host/db

Several hosts mean failover in order, or, with `load_balance=true`, the
least-loaded host first. Query parameters the driver does not know are sent
to the server as startup settings (like `options` or `search_path`), which
is what PostgreSQL does with them. Keywords override the URL.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass, field, fields
from urllib.parse import parse_qsl, unquote

from cumulo.driver.errors import InterfaceError

SCHEMES = {"cumulo": 5433, "postgresql": 5432, "postgres": 5432}
SSLMODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
_TRUE = ("1", "true", "yes", "on")


@dataclass
class ConnectParams:
    """Everything needed to open a connection."""

    hosts: list[tuple[str, int]] = field(default_factory=list)
    user: str = ""
    password: str | None = None
    database: str = ""
    sslmode: str = "prefer"
    sslrootcert: str | None = None
    load_balance: bool = False
    fetch_size: int = 1000
    connect_timeout: float | None = 10.0
    statement_cache_size: int = 100
    application_name: str = "cumulo.driver"
    autocommit: bool = False
    binary_results: bool = True
    settings: dict[str, str] = field(default_factory=dict)

    def startup_params(self) -> dict[str, str]:
        """Returns the StartupMessage settings besides the user."""
        return {
            "database": self.database,
            "application_name": self.application_name,
            "client_encoding": "UTF8",
            "DateStyle": "ISO",
            "IntervalStyle": "postgres",
            "extra_float_digits": "3",
            **self.settings,
        }


_INTS = {"fetch_size", "statement_cache_size"}
_FLOATS = {"connect_timeout"}
_BOOLS = {"load_balance", "autocommit", "binary_results"}
_ALIASES = {"dbname": "database", "loadbalancehosts": "load_balance", "fetchsize": "fetch_size",
            "load_balance_hosts": "load_balance"}


def _split_hosts(text: str, default_port: int) -> list[tuple[str, int]]:
    hosts = []
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if item.startswith("["):  # [ipv6]:port
            host, _, rest = item[1:].partition("]")
            port = rest[1:] if rest.startswith(":") else ""
        else:
            host, _, port = item.partition(":")
        hosts.append((unquote(host), int(port) if port else default_port))
    return hosts


def parse_url(url: str) -> dict[str, object]:
    """Splits a connection URL into keyword settings."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in SCHEMES:
        raise InterfaceError(f"unsupported connection URL {url!r}: use cumulo:// or postgresql://")
    out: dict[str, object] = {"port": SCHEMES[scheme.lower()]}
    rest, _, query = rest.partition("?")
    netloc, _, path = rest.partition("/")
    if "@" in netloc:
        userinfo, _, netloc = netloc.rpartition("@")
        user, has_pw, pw = userinfo.partition(":")
        if user:
            out["user"] = unquote(user)
        if has_pw:
            out["password"] = unquote(pw)
    if netloc:
        out["host"] = netloc
    if path:
        out["database"] = unquote(path)
    for key, value in parse_qsl(query, keep_blank_values=True):
        out[key] = value
    return out


def _normalise(key: str) -> str:
    return _ALIASES.get(key.lower(), key)


def make_params(dsn: str | None = None, **kwargs: object) -> ConnectParams:
    """Builds ConnectParams from an optional URL and keywords (keywords win)."""
    raw: dict[str, object] = {}
    if dsn:
        raw.update({_normalise(k): v for k, v in parse_url(dsn).items()})
    raw.update({_normalise(k): v for k, v in kwargs.items() if v is not None})
    default_port = int(raw.pop("port", 5432))  # type: ignore[call-overload]  # str or int
    host = raw.pop("host", None) or os.environ.get("PGHOST") or "127.0.0.1"
    if isinstance(host, list | tuple):
        hosts = [(h, default_port) if isinstance(h, str) else (h[0], int(h[1])) for h in host]
    else:
        hosts = _split_hosts(str(host), default_port)
    params = ConnectParams(hosts=hosts)
    known = {f.name for f in fields(ConnectParams)} - {"hosts", "settings"}
    for key, value in raw.items():
        if key in _INTS:
            value = int(value)  # type: ignore[call-overload]
        elif key in _FLOATS:
            value = float(value) if value not in ("", None) else None  # type: ignore[arg-type]
        elif key in _BOOLS and isinstance(value, str):
            value = value.lower() in _TRUE
        if key in known:
            setattr(params, key, value)
        else:
            params.settings[key] = str(value)
    if params.sslmode not in SSLMODES:
        raise InterfaceError(f"invalid sslmode {params.sslmode!r}")
    params.user = params.user or os.environ.get("PGUSER") or getpass.getuser()
    params.database = params.database or os.environ.get("PGDATABASE") or params.user
    if params.password is None:
        params.password = os.environ.get("PGPASSWORD")
    return params
