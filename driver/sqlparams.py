"""From DB-API placeholders to PostgreSQL's `$n`, with a lexer that knows SQL quoting.

The driver's paramstyle is `pyformat`: `%s` and `%(name)s`, with `%%` for a
literal percent sign; `format` (`%s` only) is the positional subset. The
lexer skips string literals ('...', E'...', $tag$...$tag$), quoted
identifiers and comments, so a `%s` or `;` inside them is left alone. The
same pass tells whether the text holds more than one statement, which the
cursor sends with the simple query protocol instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from operator import itemgetter

from cumulo.driver.errors import ProgrammingError

_TOKEN = re.compile(
    r"""
    (?P<str>[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*')
  | (?P<ident>"(?:[^"]|"")*")
  | (?P<dollar>\$(?P<tag>[A-Za-z_][A-Za-z_0-9]*)?\$)
  | (?P<line>--[^\n]*)
  | (?P<block>/\*)
  | (?P<pct>%(?:\((?P<name>[^)]*)\))?(?P<conv>.)?)
  | (?P<semi>;)
    """,
    re.VERBOSE | re.DOTALL,
)


def _skip_block(sql: str, pos: int) -> int:
    depth = 1
    while depth:
        nxt = re.compile(r"/\*|\*/").search(sql, pos)
        if nxt is None:
            return len(sql)
        depth += 1 if nxt.group() == "/*" else -1
        pos = nxt.end()
    return pos


@lru_cache(maxsize=512)
def convert(sql: str, named: bool) -> tuple[str, tuple[str, ...] | int, bool]:
    """Rewrites pyformat placeholders to `$n`.

    Returns (sql, names or positional count, has several statements). With
    `named`, the second item is the tuple of names in `$n` order.
    """
    out: list[str] = []
    names: dict[str, int] = {}  # name -> its $n (a dict: SQLAlchemy sends thousands of names)
    count = 0
    pos = 0
    statements = 0
    pending = False  # seen a token of a statement not yet ended by ';'
    while True:
        m = _TOKEN.search(sql, pos)
        if m is None:
            rest = sql[pos:]
            pending |= bool(rest.strip())
            out.append(rest)
            break
        pending |= bool(sql[pos : m.start()].strip())
        out.append(sql[pos : m.start()])
        kind = m.lastgroup if m.lastgroup != "tag" else "dollar"
        if m.group("pct") is not None:
            kind = "pct"
        if kind == "dollar":
            end = sql.find(m.group("dollar"), m.end())
            end = len(sql) if end < 0 else end + len(m.group("dollar"))
            out.append(sql[m.start() : end])
            pending, pos = True, end
            continue
        if kind == "block":
            end = _skip_block(sql, m.end())
            out.append(sql[m.start() : end])
            pos = end
            continue
        if kind == "pct":
            conv, name = m.group("conv"), m.group("name")
            if conv == "%" and name is None:
                out.append("%")
            elif conv == "s" and (name is None) != named:
                if named:
                    n = names.setdefault(name, len(names) + 1)
                    out.append(f"${n}")
                else:
                    count += 1
                    out.append(f"${count}")
            elif conv == "s":
                raise ProgrammingError("cannot mix %s and %(name)s placeholders")
            else:
                raise ProgrammingError(f"unsupported placeholder {m.group()!r}: use %s or %%")
            pending = True
            pos = m.end()
            continue
        if kind == "semi":
            statements += pending
            pending = False
        elif kind in ("str", "ident"):
            pending = True
            out.append(m.group().replace("%%", "%"))  # pyformat escapes % everywhere
            pos = m.end()
            continue
        out.append(m.group())
        pos = m.end()
    statements += pending
    return "".join(out), tuple(names) if named else count, statements > 1


@lru_cache(maxsize=64)
def _getter(names: tuple[str, ...]) -> Callable[[Mapping], list]:
    """The values of `names` from a mapping, in order, as a list (one C-level pass:
    SQLAlchemy's multi-row INSERTs name thousands of parameters).

    >>> _getter(("b", "a"))({"a": 1, "b": 2, "c": 3})
    [2, 1]
    """
    if len(names) == 1:
        name = names[0]
        return lambda params: [params[name]]
    if not names:
        return lambda params: []
    get = itemgetter(*names)
    return lambda params: list(get(params))


def bind_params(sql: str, params: Sequence | Mapping | None) -> tuple[str, list, bool]:
    """Returns (sql with $n, parameter values in order, several statements)."""
    if params is None:
        _, _, multi = convert(sql.replace("%", "%%"), False)
        return sql, [], multi
    if isinstance(params, Mapping):
        text, names, multi = convert(sql, True)
        try:
            return text, _getter(names)(params), multi
        except KeyError as e:
            raise ProgrammingError(f"no value for parameter %({e.args[0]})s") from None
    if isinstance(params, str | bytes) or not isinstance(params, Sequence):
        raise ProgrammingError("parameters must be a sequence or a mapping")
    text, count, multi = convert(sql, False)
    if count != len(params):
        raise ProgrammingError(
            f"the query has {count} placeholders but {len(params)} parameters were given"
        )
    return text, list(params), multi
