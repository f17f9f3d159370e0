"""What a routine's own options change while it runs: SECURITY DEFINER and SET clauses.

PostgreSQL 15 runs a SECURITY DEFINER function or procedure as its owner: current_user is
the owner inside (session_user is not), so the privilege checks of its statements are the
owner's. A `SET name = value` (or `FROM CURRENT`, fixed at CREATE) clause — pg_proc's
proconfig, `name=value` items — sets the parameter for the call and puts the caller's
value back when it returns, also on error. Either makes a procedure atomic (COMMIT inside
is 2D000): the caller's state could not be restored across a transaction boundary.
`options` reads the clauses from CREATE's option text; `entered` applies them to a call.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ...errors import SyntaxError_
from ..catalog.model import Function
from ..privileges.check import running_as
from ..settings import canonical
from ..setvalue import set_value

if TYPE_CHECKING:
    from ..session import SQLSession

_OPTION_WORDS = (r"LANGUAGE|AS|IMMUTABLE|STABLE|VOLATILE|STRICT|CALLED|RETURNS|SECURITY|"
                 r"EXTERNAL|PARALLEL|COST|ROWS|SET|RESET|LEAKPROOF|NOT|WINDOW|SUPPORT|TRANSFORM")
_SECURITY = re.compile(r"\b(?:EXTERNAL\s+)?SECURITY\s+(DEFINER|INVOKER)\b", re.I)
_SET = re.compile(
    r"\bSET\s+(?P<name>[A-Za-z_][\w.]*)\s*(?:FROM\s+CURRENT\b|(?:TO\b|=)\s*"
    rf"(?P<value>(?:'(?:[^']|'')*'|[^'\s]+|\s+(?!(?:{_OPTION_WORDS})\b))+?))"
    rf"(?=\s+(?:{_OPTION_WORDS})\b|\s*$)", re.I)


def options(s: SQLSession, opts: str) -> tuple[bool, tuple[str, ...]]:
    """(prosecdef, proconfig) of CREATE FUNCTION | PROCEDURE's options as written.

    >>> class S:
    ...     def get_setting(self, name): return "UTC"
    >>> options(S(), "LANGUAGE sql SECURITY DEFINER SET search_path = a, 'b c' SET timezone FROM CURRENT")
    (True, ('search_path=a, "b c"', 'TimeZone=UTC'))
    """
    sec = _SECURITY.findall(opts)
    if len(sec) > 1:
        raise SyntaxError_("conflicting or redundant options")
    config: dict[str, str] = {}
    for m in _SET.finditer(opts):
        name = canonical(m.group("name").lower())
        value = m.group("value")
        if value is not None and value.strip().upper() == "DEFAULT":
            config.pop(name, None)  # NB: SET x TO DEFAULT is RESET x
            continue
        config[name] = config_value(name, value) if value is not None \
            else s.get_setting(name) or ""
    return (bool(sec) and sec[-1].upper() == "DEFINER",
            tuple(f"{k}={v}" for k, v in config.items()))


def config_value(name: str, text: str) -> str:
    """A SET clause's value as proconfig keeps it (a list's quoted items stay quoted)."""
    value = set_value(text)
    if name == "search_path":
        items = [i.strip() for i in value.split(",")]
        value = ", ".join(f'"{i}"' if i and not re.fullmatch(r"[a-z_][a-z0-9_$]*|\$user", i)
                          else i for i in items)
    return value


def check_values(s: SQLSession, config: tuple[str, ...]) -> None:
    """PostgreSQL's errors for a SET clause's parameter or value at CREATE / ALTER (42704
    unknown parameter, 22023 bad value): each is set once and put back."""
    for item in config:
        name, _, value = item.partition("=")
        if "." in name:
            continue  # NB: a custom (extension.name) parameter takes any value
        old = s.get_setting(name)
        s.set_setting(name, value, False)
        s.set_setting(name, old if old is not None else "", False)


_RESET = re.compile(r"\bRESET\s+(?P<name>[A-Za-z_][\w.]*)", re.I)


def altered(s: SQLSession, fn: Function, actions: str) -> Function:
    """`fn` after ALTER FUNCTION's SECURITY DEFINER | INVOKER, SET and RESET actions, in the
    order written (RESET ALL drops every SET clause)."""
    secdef = fn.secdef
    config = dict(item.partition("=")[::2] for item in fn.config)
    found = [(m.start(), "sec", m) for m in _SECURITY.finditer(actions)]
    found += [(m.start(), "set", m) for m in _SET.finditer(actions)]
    found += [(m.start(), "reset", m) for m in _RESET.finditer(actions)]
    for _, what, m in sorted(found, key=lambda x: x[0]):
        if what == "sec":
            secdef = m.group(1).upper() == "DEFINER"
            continue
        name = canonical(m.group("name").lower())
        value = m.group("value") if what == "set" else None
        if what == "reset" or (value is not None and value.strip().upper() == "DEFAULT"):
            if name == "all" and what == "reset":
                config.clear()
            config.pop(name, None)
        else:
            config[name] = config_value(name, value) if value is not None \
                else s.get_setting(name) or ""
    return dataclasses.replace(fn, secdef=secdef,
                               config=tuple(f"{k}={v}" for k, v in config.items()))


@contextmanager
def entered(s: SQLSession, fn: Function) -> Iterator[None]:
    """Runs the block as `fn` runs: as its owner when SECURITY DEFINER, with its SET clauses."""
    if not fn.secdef and not fn.config:
        yield
        return
    saved: list[tuple[str, Any]] = []
    try:
        for item in fn.config:
            name, _, value = item.partition("=")
            saved.append((name, s.get_setting(name)))
            s.set_setting(name, value, False)
        if fn.secdef:
            owner = next((r.name for r in s.catalog().roles if r.oid == fn.owner), None)
            with running_as(owner):
                yield
        else:
            yield
    finally:
        for name, old in reversed(saved):
            s.set_setting(name, old if old is not None else "", False)
