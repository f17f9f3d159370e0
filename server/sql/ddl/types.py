"""CREATE TYPE / ALTER TYPE / DROP TYPE: enums, composite and range types, and their array types.

A type is a catalog row (`catalog.model.UserType`), written in the DDL
transaction like any catalog object, so CREATE TYPE inside a rolled-back
transaction leaves nothing behind. Each type gets an array type (`_mood`), as
in PostgreSQL. Enum labels carry PostgreSQL's `enumsortorder`: 1, 2, 3 ... at
creation, the next integer for ADD VALUE at the end, and the midpoint of its
neighbours for ADD VALUE BEFORE / AFTER, so pg_enum reads as it does on
PostgreSQL and comparisons follow the declared order, not the alphabet. A
range type (AS RANGE (SUBTYPE = ...)) also gets its multirange type, named by
PostgreSQL's rule (`floatrange` -> `floatmultirange`, `fr` -> `fr_multirange`).

The statements are recognised by the pre-parser (sqlglot turns most of them
into opaque Commands) and parsed here with a small regex grammar.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from ...errors import (
    DependentObjectsStillExist,
    DuplicateObject,
    FeatureNotSupported,
    InvalidParameterValue,
    SQLError,
    SyntaxError_,
    UndefinedObject,
    UndefinedTable,
    UniqueViolation,
)
from ...pgtypes import oids as T
from ..catalog.model import CatalogSnapshot, UserType
from ..expr.types import datatype_oid
from ..privileges.check import current_role_oid
from ..stmt import Stmt
from . import domains
from .depends import refuse_dependents, report_cascade
from .names import creation_schema, parse_qualified, schema_by_name
from .typealter import (
    ATTRIBUTE_ACTION,
    OWNER,
    RENAME_ATTRIBUTE,
    SET_SCHEMA,
    alter_attributes,
    rename_attribute,
    set_owner,
    set_schema,
)
from .typedeps import drop_uses, type_description, type_uses
from .typestmt import (
    QNAME,
    RENAME_TO,
    define_statement,
    drop_statement,
    types_to_drop,
)

if TYPE_CHECKING:
    from ..session import SQLSession

_STR = r"'(?:[^']|'')*'"
_I = re.I | re.S
_CREATE = re.compile(rf"CREATE\s+TYPE\s+(?P<name>{QNAME})\s*(?P<rest>.*?)\s*;?\s*$", _I)
_ENUM = re.compile(rf"AS\s+ENUM\s*\((?P<labels>\s*(?:{_STR}\s*(?:,\s*{_STR}\s*)*)?)\)$", _I)
_COMPOSITE = re.compile(r"AS\s*\((?P<attrs>.*)\)$", _I)
_RANGE = re.compile(r"AS\s+RANGE\s*\((?P<opts>.*)\)$", _I)
_OPTION = re.compile(r"\s*(\w+)\s*=\s*([^,]+?)\s*(?:,|$)", _I)
_ALTER = re.compile(rf"ALTER\s+TYPE\s+(?P<name>{QNAME})\s+(?P<rest>.*?)\s*;?\s*$", _I)
_ADD = re.compile(rf"ADD\s+VALUE\s+(?P<ine>IF\s+NOT\s+EXISTS\s+)?(?P<label>{_STR})"
                  rf"(?:\s+(?P<where>BEFORE|AFTER)\s+(?P<other>{_STR}))?$", _I)
_RENAME_VALUE = re.compile(rf"RENAME\s+VALUE\s+(?P<old>{_STR})\s+TO\s+(?P<new>{_STR})$", _I)
_LABEL_MAX = 63  # NAMEDATALEN - 1


def _literal(s: str) -> str:
    return s[1:-1].replace("''", "'")


def _labels(text: str) -> list[str]:
    return [_literal(m) for m in re.findall(_STR, text)]


def find_type(cat: CatalogSnapshot, schema: str | None, name: str,
              search_path: list[str]) -> UserType | None:
    """A user type by (optional schema, name), through the search_path."""
    schemas = [schema] if schema is not None else search_path
    for sname in schemas:
        s = schema_by_name(cat, sname)
        if s is None:
            continue
        for t in cat.types:
            if t.schema_oid == s.oid and t.name == name:
                return t
    return None


def _name_taken(cat: CatalogSnapshot, schema_oid: int, name: str) -> bool:
    """A type of that name exists in the schema: a user type, a table's row type or a built-in."""
    if any(t.schema_oid == schema_oid and t.name in (name, "_" + name) for t in cat.types):
        return True
    return any(t.schema_oid == schema_oid and t.name == name and t.reltype for t in cat.tables)


def _check_label(label: str) -> None:
    if len(label.encode()) > _LABEL_MAX:
        raise InvalidParameterValue(f'invalid enum label "{label}"',
                                    detail=f"Labels must be {_LABEL_MAX} bytes or less.")


def _composite_attrs(text: str) -> tuple[tuple[str, int, int], ...]:
    """`a int, b text` -> ((name, type oid, typmod), ...), parsed as a CREATE TABLE's columns."""
    try:
        tree = sqlglot.parse_one(f"CREATE TABLE _x ({text})", read="postgres")
    except sqlglot.errors.ParseError:
        raise SyntaxError_("syntax error in CREATE TYPE") from None
    out = []
    for cd in tree.find_all(exp.ColumnDef):
        kind = cd.args.get("kind")
        if kind is None:
            raise SyntaxError_("syntax error in CREATE TYPE")
        oid, typmod = datatype_oid(kind)
        out.append((cd.name, oid, typmod))
    return tuple(out)


def _create(s: SQLSession, schema: str | None, name: str, rest: str) -> str:
    cat = s.catalog()
    sch = creation_schema(cat, schema, s.search_path())
    shell = next((t for t in cat.types if t.schema_oid == sch.oid and t.name == name
                  and t.kind == "p"), None)
    if shell is not None and rest:
        oid = shell.oid  # NB: an enum, composite or range type fills in a shell, keeping its OID
        s.store.delete(s.ensure_txn(), s.db.oid, shell)
    elif _name_taken(cat, sch.oid, name) or (name in T.BY_NAME and sch.name == "pg_catalog"):
        raise DuplicateObject(f'type "{name}" already exists')
    else:
        oid = s.store.allocate_oid()
    if not rest:  # a shell type: a name to fill in later (pg_type typtype p, not defined)
        s.store.put(s.ensure_txn(), s.db.oid, UserType(oid, name, sch.oid, "p",
                                                        owner=current_role_oid(s)))
        s.catalog_changed()
        return "CREATE TYPE"
    m = _ENUM.match(rest)
    arr = s.store.allocate_oid()
    if m is not None:
        labels = _labels(m.group("labels"))
        for label in labels:
            _check_label(label)
        dup = next((x for i, x in enumerate(labels) if x in labels[:i]), None)
        if dup is not None:  # NB: PostgreSQL reports it from pg_enum's unique index
            raise UniqueViolation('duplicate key value violates unique constraint '
                                  '"pg_enum_typid_label_index"',
                                  detail=f"Key (enumtypid, enumlabel)=({oid}, {dup}) already exists.")
        t = UserType(oid, name, sch.oid, "e", arr, labels=tuple(labels),
                     label_oids=tuple(s.store.allocate_oid() for _ in labels),
                     sort_orders=tuple(float(i + 1) for i in range(len(labels))))
    elif (m := _RANGE.match(rest)) is not None:
        t = _range_type(s, oid, arr, name, sch.oid, m.group("opts"))
    elif (m := _COMPOSITE.match(rest)) is not None:
        t = UserType(oid, name, sch.oid, "c", arr, attrs=_composite_attrs(m.group("attrs")),
                     relid=s.store.allocate_oid())
    else:
        raise FeatureNotSupported(f"CREATE TYPE {rest.split()[0:3]} is not supported")
    t = dataclasses.replace(t, owner=current_role_oid(s))  # NB: DROP ROLE's 2BP01 names it
    s.store.put(s.ensure_txn(), s.db.oid, t)
    s.catalog_changed()
    return "CREATE TYPE"


def _range_type(s: SQLSession, oid: int, arr: int, name: str, schema_oid: int,
                opts: str) -> UserType:
    """CREATE TYPE name AS RANGE (SUBTYPE = t [, MULTIRANGE_TYPE_NAME = m] [, ...])."""
    options = {k.lower(): v.strip() for k, v in _OPTION.findall(opts)}
    if "subtype" not in options:
        raise SQLError('type attribute "subtype" is required', sqlstate="42601")
    sub = datatype_oid(sqlglot.parse_one(f"CAST(NULL AS {options['subtype']})",
                                         read="postgres").args["to"])[0]
    multi = options.get("multirange_type_name") or (
        name.replace("range", "multirange", 1) if "range" in name else name + "_multirange")
    return UserType(oid, name, schema_oid, "r", arr, subtype=sub,
                    multi_oid=s.store.allocate_oid(), multi_array_oid=s.store.allocate_oid(),
                    multi_name=parse_qualified(multi)[1])


def _add_value(t: UserType, label: str, where: str | None, other: str | None,
               s: SQLSession, ine: bool) -> UserType:
    _check_label(label)
    if label in t.labels:
        if ine:
            s.notice(f'enum label "{label}" already exists, skipping', sqlstate="42710")
            return t
        raise DuplicateObject(f'enum label "{label}" already exists')
    labels, orders = list(t.labels), list(t.sort_orders)
    if where is None:
        pos, order = len(labels), (max(orders) + 1 if orders else 1.0)
    else:
        if other not in labels:
            raise InvalidParameterValue(f'"{other}" is not an existing enum label')
        i = labels.index(other)
        pos = i if where.upper() == "BEFORE" else i + 1
        lo = orders[pos - 1] if pos > 0 else orders[0] - 1 if orders else 0.0
        hi = orders[pos] if pos < len(orders) else lo + 2
        order = (lo + hi) / 2 if pos > 0 else orders[0] - 1
    labels.insert(pos, label)
    orders.insert(pos, order)
    oids = list(t.label_oids)
    oids.insert(pos, s.store.allocate_oid())
    return dataclasses.replace(t, labels=tuple(labels), sort_orders=tuple(orders),
                               label_oids=tuple(oids))


def _alter(s: SQLSession, schema: str | None, name: str, rest: str) -> str:
    cat = s.catalog()
    t = find_type(cat, schema, name, s.search_path())
    if t is None and ATTRIBUTE_ACTION.match(rest):
        raise UndefinedTable(f'relation "{name}" does not exist')
    if t is None:
        raise UndefinedObject(f'type "{name}" does not exist')
    if (m := _ADD.match(rest)) is not None:
        if t.kind != "e":
            raise _not_enum(t)
        other = _literal(m.group("other")) if m.group("other") else None
        new = _add_value(t, _literal(m.group("label")), m.group("where"), other, s,
                         bool(m.group("ine")))
    elif (m := _RENAME_VALUE.match(rest)) is not None:
        if t.kind != "e":
            raise _not_enum(t)
        old, to = _literal(m.group("old")), _literal(m.group("new"))
        if old not in t.labels:
            raise InvalidParameterValue(f'"{old}" is not an existing enum label')
        if to in t.labels:
            raise DuplicateObject(f'enum label "{to}" already exists')
        _check_label(to)
        new = dataclasses.replace(t, labels=tuple(to if x == old else x for x in t.labels))
    elif (m := RENAME_TO.match(rest)) is not None:
        to = parse_qualified(m.group("new"))[1]
        if _name_taken(cat, t.schema_oid, to):
            raise DuplicateObject(f'type "{to}" already exists')
        new = dataclasses.replace(t, name=to)
    elif (m := OWNER.match(rest)) is not None:
        new = set_owner(s, t, m.group("role"), current_role_oid(s))
    elif (m := SET_SCHEMA.match(rest)) is not None:
        new = set_schema(s, t, m.group("schema"))
    elif (m := RENAME_ATTRIBUTE.match(rest)) is not None:
        new = rename_attribute(t, m.group("old"), m.group("new"))
    elif ATTRIBUTE_ACTION.match(rest):
        new = alter_attributes(s, t, rest)
    else:
        raise FeatureNotSupported(f"ALTER TYPE {rest[:40]} is not supported")
    if new is not t:
        txn = s.ensure_txn()
        if new.name != t.name or new.schema_oid != t.schema_oid:
            s.store.delete(txn, s.db.oid, t)
        s.store.put(txn, s.db.oid, new)
        s.catalog_changed()
    return "ALTER TYPE"


def _not_enum(t: UserType) -> SQLError:
    return SyntaxError_(f"{t.name} is not an enum", sqlstate="42809")


def _drop(s: SQLSession, names: list[tuple[str | None, str]], if_exists: bool, cascade: bool) -> str:
    found = types_to_drop(s, names, if_exists, find_type)
    if not found:
        return "DROP TYPE"
    uses = type_uses(s, found)
    if not cascade and len(found) > 1 and uses.lines:
        raise DependentObjectsStillExist(
            "cannot drop desired object(s) because other objects depend on them",
            detail="\n".join(uses.lines),
            hint="Use DROP ... CASCADE to drop the dependent objects too.")
    if not cascade:
        refuse_dependents(type_description(s.catalog(), found[0], s.search_path()), uses.lines)
    drop_uses(s, uses)
    report_cascade(s, uses.objects)
    txn = s.ensure_txn()
    for t in found:
        s.store.delete(txn, s.db.oid, t)
    s.catalog_changed()
    return "DROP TYPE"


def analyse(session: SQLSession, sql: str, m0: Any) -> Stmt:
    """CREATE / ALTER / DROP TYPE (recognised by the pre-parser)."""
    if domains.is_domain_statement(sql):
        return domains.analyse(session, sql)
    verb = sql.lstrip()[:6].upper()
    if verb.startswith("DROP"):
        return drop_statement(sql, "TYPE", _drop)
    if verb.startswith("CREATE"):
        return define_statement(sql, _CREATE, "CREATE", "TYPE", _create)
    return define_statement(sql, _ALTER, verb.strip(), "TYPE", _alter)
