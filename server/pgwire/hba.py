"""Client authentication rules, as PostgreSQL's pg_hba.conf: `cumulo_hba.conf` in the data dir.

Each line is `TYPE DATABASE USER [ADDRESS [MASK]] METHOD`: TYPE is `local`,
`host`, `hostssl` or `hostnossl`; DATABASE and USER are `all` or
comma-separated names (DATABASE also `sameuser`); ADDRESS is `all`,
`samehost`, a CIDR (`10.0.0.0/8`, `::1/128`) or an address followed by a
netmask; METHOD is `trust`, `reject`, `password`, `md5` or `scram-sha-256`.
The first line matching the connection decides; none matching is
PostgreSQL's FATAL 28000 `no pg_hba.conf entry for host ...`, and `reject`
is its `pg_hba.conf rejects connection for host ...`.

Without the file the server keeps `--auth` for every connection. The rules
are read at start-up (a bad line refuses to start, as PostgreSQL does) and
again on SIGHUP (a bad file then keeps the old rules and logs why).

>>> try:
...     parse("host all all 127.0.0.1/32 md5\\nhostssl app +x,bob 10.0.0.0/8 reject", "f")
... except HbaError as e:
...     print(e)
group names (+x) are not supported, line 2 of configuration file "f"
>>> rules = parse("host all all 127.0.0.1/32 md5\\nhost all all 0.0.0.0/0 reject", "f")
>>> method_for(rules, "host", False, "127.0.0.1", "db", "u")
'md5'
>>> try:
...     method_for(rules, "host", False, "10.1.1.1", "db", "u")
... except InvalidAuthorizationSpecification as e:
...     print(e.sqlstate, e.message)
28000 pg_hba.conf rejects connection for host "10.1.1.1", user "u", database "db", no encryption
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from dataclasses import dataclass

from ..errors import InvalidAuthorizationSpecification

log = logging.getLogger("cumulo.hba")

FILE_NAME = "cumulo_hba.conf"
_TYPES = ("local", "host", "hostssl", "hostnossl")
_METHODS = {"trust": "trust", "reject": "reject", "password": "password", "md5": "md5",
            "scram-sha-256": "scram"}
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
_SPLIT = re.compile(r'(?:"[^"]*"|[^\s"])+')  # fields: whitespace outside double quotes


class HbaError(ValueError):
    """A line of the file that cannot be used (PostgreSQL names the line too)."""


@dataclass(frozen=True)
class Rule:
    """One line of the file."""

    conn_type: str
    databases: tuple[str, ...]  # ("all",) or names, or "sameuser"
    users: tuple[str, ...]  # ("all",) or names
    address: Network | str | None  # None for local; "all" / "samehost"; else a network
    method: str  # an Authenticator method, or "reject"
    line: int


def _names(field: str) -> tuple[str, ...]:
    return tuple(n.strip('"') for n in re.findall(r'(?:"[^"]*"|[^,"])+', field))


def _address(words: list[str], where: str) -> tuple[Network | str, int]:
    """The ADDRESS field (and a following netmask): (network or keyword, words consumed)."""
    text = words[0]
    if text in ("all", "samehost"):
        return text, 1
    if text == "samenet":
        raise HbaError(f"samenet is not supported, {where}")
    try:
        if "/" in text:
            return ipaddress.ip_network(text, strict=False), 1
        addr = ipaddress.ip_address(text)
    except ValueError:
        raise HbaError(f'invalid IP address "{text}", {where}') from None
    if len(words) < 2:
        raise HbaError(f"end-of-line before netmask specification, {where}")
    try:
        return ipaddress.ip_network(f"{addr}/{words[1]}", strict=False), 2
    except ValueError:
        raise HbaError(f'invalid IP mask "{words[1]}", {where}') from None


def parse(text: str, path: str) -> list[Rule]:
    """The rules of a file's text; HbaError for the first bad line."""
    rules = []
    for n, raw in enumerate(text.splitlines(), 1):
        where = f'line {n} of configuration file "{path}"'
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = _SPLIT.findall(line)
        kind = words[0].lower()
        if kind not in _TYPES:
            raise HbaError(f'invalid connection type "{words[0]}", {where}')
        if len(words) < 4:
            raise HbaError(f"end-of-line before authentication method, {where}")
        databases, users = _names(words[1]), _names(words[2])
        bad = [u for u in users if u.startswith(("+", "@"))] + \
            [d for d in databases if d.startswith("@")]
        if bad:
            raise HbaError(f"group names ({bad[0]}) are not supported, {where}"
                           if bad[0].startswith("+") else
                           f"included files ({bad[0]}) are not supported, {where}")
        rest = words[3:]
        address: Network | str | None = None
        if kind != "local":
            if len(rest) < 2:
                raise HbaError(f"end-of-line before authentication method, {where}")
            address, used = _address(rest, where)
            rest = rest[used:]
        method = rest[0].lower() if rest else ""
        if method not in _METHODS:
            raise HbaError(f'invalid authentication method "{rest[0] if rest else ""}", '
                           f"{where}")
        rules.append(Rule(kind, databases, users, address, _METHODS[method], n))
    return rules


def load(path: str) -> list[Rule]:
    """Reads and parses the file (HbaError when it cannot be used)."""
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path)


def _matches(rule: Rule, conn_type: str, ssl: bool, addr: str | None, database: str,
             user: str) -> bool:
    if conn_type == "local":
        if rule.conn_type != "local":
            return False
    elif rule.conn_type == "local" or (rule.conn_type == "hostssl" and not ssl) or (
            rule.conn_type == "hostnossl" and ssl):
        return False
    if "all" not in rule.databases and database not in rule.databases and not (
            "sameuser" in rule.databases and database == user):
        return False
    if "all" not in rule.users and user not in rule.users:
        return False
    if rule.address is None or rule.address == "all" or conn_type == "local":
        return True
    try:
        ip = ipaddress.ip_address((addr or "").split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if rule.address == "samehost":
        return ip.is_loopback
    return isinstance(rule.address, ipaddress.IPv4Network | ipaddress.IPv6Network) and \
        ip.version == rule.address.version and ip in rule.address


def method_for(rules: list[Rule], conn_type: str, ssl: bool, addr: str | None,
               database: str, user: str) -> str:
    """The first matching rule's method; FATAL 28000 worded as PostgreSQL 15 for a `reject`
    or for no match."""
    host = "[local]" if conn_type == "local" else (addr or "")
    state = "SSL encryption" if ssl else "no encryption"
    for rule in rules:
        if _matches(rule, conn_type, ssl, addr, database, user):
            if rule.method == "reject":
                raise InvalidAuthorizationSpecification(
                    f'pg_hba.conf rejects connection for host "{host}", user "{user}", '
                    f'database "{database}", {state}', severity="FATAL")
            return rule.method
    raise InvalidAuthorizationSpecification(
        f'no pg_hba.conf entry for host "{host}", user "{user}", database "{database}", '
        f"{state}", severity="FATAL")


class HbaFile:
    """The data directory's rules, kept current by `reload` (SIGHUP)."""

    def __init__(self, data_dir: str) -> None:
        self.path = os.path.join(data_dir, FILE_NAME)
        self.rules: list[Rule] | None = None  # None: no file, `--auth` applies to everyone
        if os.path.exists(self.path):
            self.rules = load(self.path)
            log.info('client authentication rules loaded from "%s" (%d lines)', self.path,
                     len(self.rules))

    def reload(self) -> None:
        """Reads the file again; a bad file keeps the rules in force (and is logged)."""
        if not os.path.exists(self.path):
            self.rules = None
            return
        try:
            self.rules = load(self.path)
        except (HbaError, OSError) as e:
            log.error("%s", e)
            log.error('"%s" was not reloaded', self.path)

    def method(self, default: str, conn_type: str, ssl: bool, addr: str | None,
               database: str, user: str) -> str:
        """The authentication method of one connection (`default` without a file)."""
        if self.rules is None:
            return default
        return method_for(self.rules, conn_type, ssl, addr, database, user)


_INSTALLED: list[HbaFile] = []  # the server's rules (one server per process), set by the CLI


def install(rules: HbaFile | None) -> None:
    """Makes `rules` the rules every new connection is checked against (None: `--auth` only)."""
    _INSTALLED[:] = [rules] if rules is not None else []


def connection_method(default: str, ssl: bool, addr: str | None, database: str,
                      user: str, local: bool = False) -> str:
    """The method for a connection: over TCP (type `host`) or a Unix-domain socket (`local`)."""
    if not _INSTALLED:
        return default
    return _INSTALLED[0].method(default, "local" if local else "host", ssl, addr, database,
                                user)
