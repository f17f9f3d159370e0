"""A view's reloptions: `check_option`, `security_barrier`, `security_invoker`.

PostgreSQL 15 keeps `CREATE VIEW v WITH (opt [= value], ...)` and
`ALTER VIEW v SET (...)` in `pg_class.reloptions` as the text written
(`security_barrier=on`, a bare name as `=true`), after checking each one:
an unknown name is 22023 "unrecognized parameter", a boolean must read as
PostgreSQL's `parse_bool` reads it (`t`, `yes`, `of`, `1` ...), `check_option`
is `local` or `cascaded` in any case, and a name given twice is 22023 too.
`SET` keeps the other options in their order and appends the new ones
(`transformRelOptions`). Options with a namespace (`toast.x`) are dropped, as
PostgreSQL does for a view.

>>> view_options(parse_options("security_barrier, check_option = 'LOCAL'"))
('security_barrier=true', 'check_option=LOCAL')
>>> merge_options(('security_barrier=on', 'security_invoker=Yes'),
...               [('check_option', 'local'), ('security_barrier', 'false')])
('security_invoker=Yes', 'check_option=local', 'security_barrier=false')
>>> is_on(('security_invoker=of',), "security_invoker"), parse_bool("tru"), parse_bool("o")
(False, True, None)
>>> view_options([("fillfactor", "10")])
Traceback (most recent call last):
...
cumulo.server.errors.InvalidParameterValue: unrecognized parameter "fillfactor"
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...errors import InvalidParameterValue, SyntaxError_

VIEW_BOOLEANS = ("security_barrier", "security_invoker")
VIEW_OPTIONS = ("check_option", *VIEW_BOOLEANS)

# one `name [= value]` item: a (quoted) name, maybe dotted; a quoted string, a quoted name,
# or a bare word / number
_ITEM = re.compile(r"""\s*(?P<name>(?:"(?:[^"]|"")*"|[A-Za-z_][\w$]*)(?:\s*\.\s*(?:"(?:[^"]|"")*"|[A-Za-z_][\w$]*))?)
                       \s*(?:=\s*(?P<value>'(?:[^']|'')*'|"(?:[^"]|"")*"|[-+]?[\w.$]+))?\s*(?:,|$)""",
                   re.X)


def _word(text: str) -> str:
    """An identifier as PostgreSQL folds it: quoted kept, unquoted in lower case."""
    if text.startswith('"'):
        return text[1:-1].replace('""', '"')
    return text.lower()


def parse_options(text: str) -> list[tuple[str, str | None]]:
    """`a, b = 1, "C" = 'x'` as [(name, value or None)] with PostgreSQL's folding."""
    out: list[tuple[str, str | None]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if m is None or m.end() == pos:
            raise SyntaxError_(f'syntax error at or near "{text[pos:].split()[0]}"')
        name = ".".join(_word(p.strip()) for p in re.split(r'\.(?=(?:[^"]*"[^"]*")*[^"]*$)',
                                                             m.group("name")))
        value = m.group("value")
        if value is not None:
            if value.startswith("'"):
                value = value[1:-1].replace("''", "'")
            else:
                value = _word(value)
        out.append((name, value))
        pos = m.end()
    return out


def parse_bool(text: str) -> bool | None:
    """PostgreSQL's `parse_bool`: unique prefixes of true/false/yes/no, on/off, 1/0."""
    t = text.strip().lower()
    if not t:
        return None
    for word, value in (("true", True), ("false", False), ("yes", True), ("no", False)):
        if word.startswith(t):
            return value
    if len(t) >= 2 and "on".startswith(t):
        return True
    if len(t) >= 2 and "off".startswith(t):
        return False
    return {"1": True, "0": False}.get(t)


def _checked(name: str, value: str | None) -> str | None:
    """One option as reloptions text `name=value` (None: a namespaced one, dropped)."""
    if "." in name:
        return None
    shown = "true" if value is None else value
    if name in VIEW_BOOLEANS:
        if parse_bool(shown) is None:
            raise InvalidParameterValue(f'invalid value for boolean option "{name}": {shown}')
    elif name == "check_option":
        if shown.lower() not in ("local", "cascaded"):
            raise InvalidParameterValue(f'invalid value for enum option "{name}": {shown}',
                                        detail='Valid values are "local" and "cascaded".')
    else:
        raise InvalidParameterValue(f'unrecognized parameter "{name}"')
    return f"{name}={shown}"


def view_options(items: list[tuple[str, str | None]]) -> tuple[str, ...]:
    """CREATE VIEW's option list as reloptions, checked (22023 for what PG refuses)."""
    seen: set[str] = set()
    out: list[str] = []
    for name, value in items:
        opt = _checked(name, value)
        if opt is None:
            continue
        if name in seen:
            raise InvalidParameterValue(f'parameter "{name}" specified more than once')
        seen.add(name)
        out.append(opt)
    return tuple(out)


def merge_options(old: tuple[str, ...], items: list[tuple[str, str | None]],
                  check: Callable[[list[tuple[str, str | None]]], tuple[str, ...]] | None = None
                  ) -> tuple[str, ...]:
    """ALTER VIEW | TABLE ... SET (...): the old options not named, then the new ones,
    checked by `check` (a view's by default)."""
    new = (check or view_options)(items)
    named = {o.split("=", 1)[0] for o in new}
    return tuple(o for o in old if o.split("=", 1)[0] not in named) + new


def option_value(options: tuple[str, ...], name: str) -> str | None:
    """The text of option `name` in reloptions (None when it is not set)."""
    for o in options:
        key, _, value = o.partition("=")
        if key == name:
            return value
    return None


def is_on(options: tuple[str, ...], name: str) -> bool:
    """Whether boolean option `name` is set and true (`security_invoker=yes`)."""
    value = option_value(options, name)
    return value is not None and bool(parse_bool(value))
