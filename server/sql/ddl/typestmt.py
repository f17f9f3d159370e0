"""What CREATE/ALTER/DROP TYPE and DOMAIN share: the statements' shapes, and finding the
types a DROP names.

CREATE and ALTER take `{CREATE|ALTER} {TYPE|DOMAIN} name rest`, where what `rest`
means is each kind's own. DROP takes `DROP {TYPE|DOMAIN} [IF EXISTS] name [, ...]
[CASCADE|RESTRICT]`; a
missing type is 42704 `type "x" does not exist`, or a notice under IF EXISTS,
as in PostgreSQL. What dropping does (and what CASCADE may take along) is each
kind's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ...errors import SyntaxError_, UndefinedObject
from ...pgwire.backend import Result
from ..catalog.model import CatalogSnapshot
from ..stmt import Stmt
from .names import missing_schema, parse_qualified, skip_or_raise

if TYPE_CHECKING:
    from ..session import SQLSession

_T = TypeVar("_T")

QNAME = r"(?:\"(?:[^\"]|\"\")+\"|[\w$]+)(?:\.(?:\"(?:[^\"]|\"\")+\"|[\w$]+))?"
RENAME_TO = re.compile(r"RENAME\s+TO\s+(?P<new>\"(?:[^\"]|\"\")+\"|[\w$]+)$", re.I | re.S)
OWNER_TO = re.compile(r"OWNER\s+TO\s+\S+$", re.I | re.S)
_DROP = {noun: re.compile(rf"DROP\s+{noun}\s+(?P<ie>IF\s+EXISTS\s+)?(?P<names>.+?)"
                          r"(?:\s+(?P<mode>CASCADE|RESTRICT))?\s*;?\s*$", re.I | re.S)
         for noun in ("TYPE", "DOMAIN")}
Dropper = Callable[["SQLSession", list[tuple[str | None, str]], bool, bool], str]


def types_to_drop(s: SQLSession, names: list[tuple[str | None, str]], if_exists: bool,
                  find: Callable[[CatalogSnapshot, str | None, str, list[str]], _T | None]
                  ) -> list[_T]:
    """The types a DROP TYPE / DROP DOMAIN names, found by `find` through the
    search_path; a missing one is 42704, or a notice under IF EXISTS, as in PG."""
    cat = s.catalog()
    found = []
    for schema, name in names:
        if missing_schema(s, schema, if_exists):
            continue
        t = find(cat, schema, name, s.search_path())
        if t is None:
            skip_or_raise(s, f'type "{name}"', if_exists, UndefinedObject)
            continue
        found.append(t)
    return found


def drop_statement(sql: str, noun: str, dropper: Dropper) -> Stmt:
    """The Stmt of a DROP TYPE / DROP DOMAIN (`noun`) `sql`; `dropper` does the dropping."""
    m = _DROP[noun].match(sql.strip())
    if m is None:
        raise SyntaxError_(f"syntax error in DROP {noun}")
    names = [parse_qualified(n.strip()) for n in m.group("names").split(",")]
    if_exists, cascade = bool(m.group("ie")), (m.group("mode") or "").upper() == "CASCADE"

    def drop(s: SQLSession, p: list[Any]) -> Result:
        return Result(dropper(s, names, if_exists, cascade))

    return Stmt(sql, "ddl", drop, None, [], -1, tag=f"DROP {noun}")


def define_statement(sql: str, pattern: re.Pattern[str], verb: str, noun: str,
                     fn: Callable[[SQLSession, str | None, str, str], str]) -> Stmt:
    """The Stmt of a CREATE or ALTER (`verb`) TYPE / DOMAIN (`noun`) whose `pattern` has
    the groups `name` and `rest`; `fn(session, schema, name, rest)` runs it."""
    m = pattern.match(sql.strip())
    if m is None:
        raise SyntaxError_(f"syntax error in {verb} {noun}")
    schema, name = parse_qualified(m.group("name"))
    rest = m.group("rest").strip()

    def run(s: SQLSession, p: list[Any]) -> Result:
        return Result(fn(s, schema, name, rest))

    return Stmt(sql, "ddl", run, None, [], -1, tag=f"{verb} {noun}")
