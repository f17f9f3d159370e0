"""ALTER TYPE on a composite type's attributes, and ALTER TYPE ... SET SCHEMA / OWNER TO.

`ALTER TYPE t ADD ATTRIBUTE a int, DROP ATTRIBUTE [IF EXISTS] b, ALTER ATTRIBUTE c
[SET DATA] TYPE text` (any list of those) and `RENAME ATTRIBUTE a TO b` change the
type's catalog row, as PostgreSQL does for a composite type that no table stores.
PostgreSQL also lets ADD and DROP ATTRIBUTE change a type that a table column
stores (its rows then read the new attribute as NULL); Cumulo keeps a stored
composite value with its own fields, so that case is refused with 0A000 rather
than leaving stored values of the wrong shape. ALTER ATTRIBUTE TYPE on a stored
type is PostgreSQL's own 0A000. The messages are PostgreSQL's: an attribute is a
`column "a" of relation "t"` (the type's pg_class row), and a type that is not
composite is `relation "t" does not exist`. A dropped attribute leaves no
`........pg.dropped.N........` row in pg_attribute: the remaining ones are
renumbered.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

import sqlglot

from ...errors import (
    DuplicateColumn,
    DuplicateObject,
    FeatureNotSupported,
    InvalidTableDefinition,
    SQLError,
    SyntaxError_,
    UndefinedColumn,
    UndefinedObject,
    UndefinedTable,
)
from ..catalog.model import CatalogSnapshot, UserType
from ..expr.types import datatype_oid
from ..toplevel import split_top_level
from .names import schema_by_name, skip_or_raise

if TYPE_CHECKING:
    from ..session import SQLSession

_I = re.I | re.S
_NAME = r"(?:\"(?:[^\"]|\"\")+\"|[\w$]+)"
_TAIL = r"(?:\s+COLLATE\s+\S+)?(?:\s+(?:CASCADE|RESTRICT))?"
_ADD = re.compile(rf"ADD\s+ATTRIBUTE\s+(?P<name>{_NAME})\s+(?P<type>.+?){_TAIL}$", _I)
_DROP = re.compile(rf"DROP\s+ATTRIBUTE\s+(?P<ie>IF\s+EXISTS\s+)?(?P<name>{_NAME})"
                   r"(?:\s+(?:CASCADE|RESTRICT))?$", _I)
_RETYPE = re.compile(rf"ALTER\s+ATTRIBUTE\s+(?P<name>{_NAME})\s+(?:SET\s+DATA\s+)?TYPE\s+"
                     rf"(?P<type>.+?){_TAIL}$", _I)
RENAME_ATTRIBUTE = re.compile(rf"RENAME\s+ATTRIBUTE\s+(?P<old>{_NAME})\s+TO\s+(?P<new>{_NAME})"
                              r"(?:\s+(?:CASCADE|RESTRICT))?$", _I)
ATTRIBUTE_ACTION = re.compile(r"(?:ADD|DROP|ALTER)\s+ATTRIBUTE\b", _I)
SET_SCHEMA = re.compile(rf"SET\s+SCHEMA\s+(?P<schema>{_NAME})$", _I)
OWNER = re.compile(rf"OWNER\s+TO\s+(?P<role>{_NAME})$", _I)


def _unquote(name: str) -> str:
    return name[1:-1].replace('""', '"') if name.startswith('"') else name.lower()


def _type_of(text: str) -> tuple[int, int]:
    try:
        cast = sqlglot.parse_one(f"CAST(NULL AS {text})", read="postgres")
    except sqlglot.errors.ParseError:
        raise SyntaxError_(f'syntax error at or near "{text.split()[0]}"') from None
    return datatype_oid(cast.args["to"])


def _stored_in(cat: CatalogSnapshot, t: UserType) -> str | None:
    """`table.column` of a table column that stores `t` (None: no table stores it)."""
    for tb in cat.tables:
        if tb.kind in ("r", "p", "m", ""):
            for c in tb.live_columns:
                if (c.domain or c.type_oid) in (t.oid, t.array_oid):
                    return f"{tb.name}.{c.name}"
    return None


def _missing(t: UserType, name: str) -> SQLError:
    return UndefinedColumn(f'column "{name}" of relation "{t.name}" does not exist')


def alter_attributes(s: SQLSession, t: UserType, rest: str) -> UserType:
    """The type after ADD / DROP / ALTER ATTRIBUTE actions (PostgreSQL checks them in order)."""
    if t.kind != "c":
        raise UndefinedTable(f'relation "{t.name}" does not exist')
    cat = s.catalog()
    attrs = list(t.attrs)
    stored = _stored_in(cat, t)
    actions = split_top_level(rest)
    for action in actions:  # NB: PostgreSQL prepares ALTER ATTRIBUTE TYPE against the type as is
        if (m := _RETYPE.match(action)) is not None:
            if all(a[0] != _unquote(m.group("name")) for a in attrs):
                raise _missing(t, _unquote(m.group("name")))
            if stored is not None:
                raise FeatureNotSupported(f'cannot alter type "{t.name}" because column '
                                          f'"{stored}" uses it')
    # NB: then runs its passes: drops, type changes, additions
    passes = ([a for a in actions if _DROP.match(a)], [a for a in actions if _RETYPE.match(a)],
              [a for a in actions if not _DROP.match(a) and not _RETYPE.match(a)])
    for action in [a for p in passes for a in p]:
        if (m := _ADD.match(action)) is not None:
            name = _unquote(m.group("name"))
            if any(a[0] == name for a in attrs):
                raise DuplicateColumn(f'column "{name}" of relation "{t.name}" already exists')
            oid, typmod = _type_of(m.group("type"))
            if oid == t.oid:
                raise InvalidTableDefinition(
                    f"composite type {t.name} cannot be made a member of itself")
            if stored is not None:
                raise FeatureNotSupported(f'cannot add an attribute to type "{t.name}" because '
                                          f'column "{stored}" stores it')
            attrs.append((name, oid, typmod))
        elif (m := _DROP.match(action)) is not None:
            name = _unquote(m.group("name"))
            if all(a[0] != name for a in attrs):
                skip_or_raise(s, f'column "{name}" of relation "{t.name}"', bool(m.group("ie")),
                              UndefinedColumn)
                continue
            if stored is not None:
                raise FeatureNotSupported(f'cannot drop an attribute of type "{t.name}" because '
                                          f'column "{stored}" stores it')
            attrs = [a for a in attrs if a[0] != name]
        elif (m := _RETYPE.match(action)) is not None:
            name = _unquote(m.group("name"))
            if all(a[0] != name for a in attrs):
                raise _missing(t, name)
            oid, typmod = _type_of(m.group("type"))
            attrs = [(n, oid, typmod) if n == name else (n, o, tm) for n, o, tm in attrs]
        else:
            raise SyntaxError_(f'syntax error at or near "{action.split()[0]}"')
    return dataclasses.replace(t, attrs=tuple(attrs))


def rename_attribute(t: UserType, old: str, new: str) -> UserType:
    if t.kind != "c":
        raise UndefinedTable(f'relation "{t.name}" does not exist')
    old, new = _unquote(old), _unquote(new)
    if all(a[0] != old for a in t.attrs):
        raise UndefinedColumn(f'column "{old}" does not exist')
    if any(a[0] == new for a in t.attrs):
        raise DuplicateColumn(f'column "{new}" of relation "{t.name}" already exists')
    return dataclasses.replace(t, attrs=tuple((new if n == old else n, o, tm)
                                              for n, o, tm in t.attrs))


def set_schema(s: SQLSession, t: UserType, schema: str) -> UserType:
    """ALTER TYPE ... SET SCHEMA: the type and its array type move (42P06-free: same
    schema is a no-op; a taken name is 42710, a missing schema 3F000)."""
    cat = s.catalog()
    sch = schema_by_name(cat, _unquote(schema))
    if sch is None:
        raise SQLError(f'schema "{_unquote(schema)}" does not exist', sqlstate="3F000")
    if sch.oid != t.schema_oid and any(
            o.schema_oid == sch.oid and o.name == t.name for o in cat.types):
        raise DuplicateObject(f'type "{t.name}" already exists in schema "{sch.name}"')
    return dataclasses.replace(t, schema_oid=sch.oid)


def set_owner(s: SQLSession, t: UserType, role: str, current: int) -> UserType:
    """ALTER TYPE ... OWNER TO role | CURRENT_USER | CURRENT_ROLE | SESSION_USER."""
    name = _unquote(role)
    if name in ("current_user", "current_role", "session_user") and not role.startswith('"'):
        return dataclasses.replace(t, owner=current)
    r = next((r for r in s.catalog().roles if r.name == name), None)
    if r is None:
        raise UndefinedObject(f'role "{name}" does not exist')
    return dataclasses.replace(t, owner=r.oid)
