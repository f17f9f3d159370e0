"""CREATE DOMAIN / ALTER DOMAIN / DROP DOMAIN: a base type with NOT NULL, DEFAULT and CHECKs.

A domain is a `catalog.model.UserType` of kind "d" whose `subtype` is the base
type. Everywhere a type is resolved (`expr.types.type_by_name`) a domain
stands for its base type and typmod, so values, operators, casts and the wire
(PostgreSQL's RowDescription, too, carries the base type's OID) are the base
type's. Its constraints are enforced where PostgreSQL enforces them: by a cast
to the domain (`expr.binder`) and on every value written to a column of the
domain (`dml.domaincheck`, for INSERT, UPDATE and COPY), with PostgreSQL's
23502 `domain d does not allow null values` and 23514 `value for domain d
violates check constraint "d_check"`. A column of the domain with no DEFAULT
of its own takes the domain's.

The statement after the name reads like a column definition (`[AS] type
[DEFAULT e] [CONSTRAINT c] CHECK (VALUE > 0) NOT NULL ...`), so it is parsed
as one by sqlglot. A CHECK's text keeps VALUE in upper case, as
pg_get_constraintdef prints it.
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlglot import exp

from ...errors import (
    DuplicateObject,
    FeatureNotSupported,
    SyntaxError_,
    UndefinedObject,
)
from ...pgtypes import oids as T
from ..catalog.model import CatalogSnapshot, Function, UserType
from ..dml.domaincheck import validate_stored
from ..expr.types import datatype_oid, domain_of
from ..pgcatalog.typetext import format_type
from ..privileges.check import current_role_oid
from ..stmt import Stmt
from .alter import drop_column
from .depends import refuse_dependents, report_cascade
from .names import creation_schema, parse_qualified, skip_or_raise
from .typestmt import (
    OWNER_TO,
    QNAME,
    RENAME_TO,
    define_statement,
    drop_statement,
    types_to_drop,
)

if TYPE_CHECKING:
    from ..session import SQLSession

_I = re.I | re.S
_CREATE = re.compile(rf"CREATE\s+DOMAIN\s+(?P<name>{QNAME})\s+(?:AS\s+)?(?P<rest>.+?)\s*;?\s*$", _I)
_ALTER = re.compile(rf"ALTER\s+DOMAIN\s+(?P<name>{QNAME})\s+(?P<rest>.+?)\s*;?\s*$", _I)
_SET_DEFAULT = re.compile(r"SET\s+DEFAULT\s+(?P<expr>.+)$", _I)
_DROP_DEFAULT = re.compile(r"DROP\s+DEFAULT$", _I)
_NOT_NULL = re.compile(r"(?P<verb>SET|DROP)\s+NOT\s+NULL$", _I)
_ADD_CHECK = re.compile(r"ADD\s+(?:CONSTRAINT\s+(?P<cname>\"(?:[^\"]|\"\")+\"|[\w$]+)\s+)?"
                        r"CHECK\s*\((?P<expr>.*)\)(?:\s+NOT\s+VALID)?$", _I)
_DROP_CHECK = re.compile(r"DROP\s+CONSTRAINT\s+(?P<ie>IF\s+EXISTS\s+)?"
                         r"(?P<cname>\"(?:[^\"]|\"\")+\"|[\w$]+)(?:\s+(?:CASCADE|RESTRICT))?$", _I)


def check_text(node: exp.Expr) -> str:
    """A CHECK expression's SQL with VALUE spelled as PostgreSQL prints it.

    >>> check_text(sqlglot.parse_one("value > 0 and value < 10"))
    'VALUE > 0 AND VALUE < 10'
    """
    def up(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and not n.table and n.name.lower() == "value":
            return exp.Var(this="VALUE")
        return n

    return node.copy().transform(up).sql("postgres")


def _parse(rest: str) -> tuple[exp.Expression, list[exp.Expression]]:
    """The base type node and the constraint nodes of `type [DEFAULT e] [constraints]`."""
    try:
        tree = sqlglot.parse_one(f"CREATE TABLE _d (_v {rest})", read="postgres")
    except sqlglot.errors.ParseError:
        raise SyntaxError_("syntax error in CREATE DOMAIN") from None
    cd = next(tree.find_all(exp.ColumnDef), None)
    if cd is None or cd.args.get("kind") is None:
        raise SyntaxError_("syntax error in CREATE DOMAIN")
    return cd.args["kind"], list(cd.args.get("constraints") or [])


def _name_taken(cat: CatalogSnapshot, schema_oid: int, name: str) -> bool:
    if any(t.schema_oid == schema_oid and t.name in (name, "_" + name) for t in cat.types):
        return True
    return any(t.schema_oid == schema_oid and t.name == name and t.reltype for t in cat.tables)


def _check_name(t: UserType, given: str | None, taken: tuple[str, ...]) -> str:
    """PostgreSQL's names for unnamed checks: d_check, d_check1, d_check2..."""
    if given:
        if given in taken:
            raise DuplicateObject(f'constraint "{given}" for domain "{t.name}" already exists')
        return given
    name, n = f"{t.name}_check", 0
    while name in taken:
        n += 1
        name = f"{t.name}_check{n}"
    return name


def _create(s: SQLSession, schema: str | None, name: str, rest: str) -> str:
    cat = s.catalog()
    sch = creation_schema(cat, schema, s.search_path())
    if _name_taken(cat, sch.oid, name) or (name in T.BY_NAME and sch.name == "pg_catalog"):
        raise DuplicateObject(f'type "{name}" already exists')
    kind, constraints = _parse(rest)
    base, typmod = datatype_oid(kind)
    parent = domain_of(kind)  # CREATE DOMAIN d2 AS d1: d1's constraints apply to d2 too
    t = UserType(s.store.allocate_oid(), name, sch.oid, "d", s.store.allocate_oid(),
                 subtype=base, typmod=typmod, parent=parent.oid if parent is not None else 0,
                 default=parent.default if parent is not None else None)  # PG copies it
    for cc in constraints:
        k = cc.args.get("kind")
        given = cc.this.name if cc.this else None
        if isinstance(k, exp.NotNullColumnConstraint):
            t = dataclasses.replace(t, not_null=not k.args.get("allow_null"))
        elif isinstance(k, exp.DefaultColumnConstraint):
            t = dataclasses.replace(t, default=None if isinstance(k.this, exp.Null)
                                    else k.this.sql("postgres"))
        elif isinstance(k, exp.CheckColumnConstraint):
            t = _with_check(s, t, given, check_text(k.this))
        elif isinstance(k, exp.CollateColumnConstraint):
            continue
        else:
            raise FeatureNotSupported(f"CREATE DOMAIN with {cc.sql('postgres')} is not supported")
    t = dataclasses.replace(t, owner=current_role_oid(s))  # NB: DROP ROLE's 2BP01 names it
    s.store.put(s.ensure_txn(), s.db.oid, t)
    s.catalog_changed()
    return "CREATE DOMAIN"


def _with_check(s: SQLSession, t: UserType, given: str | None, text: str) -> UserType:
    cname = _check_name(t, given, t.check_names)
    return dataclasses.replace(t, check_names=(*t.check_names, cname), checks=(*t.checks, text),
                               check_oids=(*t.check_oids, s.store.allocate_oid()))


def find_domain(cat: CatalogSnapshot, schema: str | None, name: str,
                search_path: list[str]) -> UserType | None:
    """A domain by (optional schema, name), through the search_path."""
    schemas = {x.oid: x.name for x in cat.schemas}
    for sname in [schema] if schema is not None else search_path:
        for t in cat.types:
            if t.kind == "d" and t.name == name and schemas.get(t.schema_oid) == sname:
                return t
    return None


def _children(cat: CatalogSnapshot, t: UserType) -> list[UserType]:
    """The domains declared over `t` (CREATE DOMAIN d2 AS t)."""
    return [d for d in cat.types if d.kind == "d" and d.parent == t.oid]


def _dependents(cat: CatalogSnapshot, t: UserType) -> list[str]:
    return [f"type {d.name} depends on type {t.name}" for d in _children(cat, t)] + \
        [f"column {c.name} of table {tab.name} depends on type {t.name}"
         + ("[]" if c.domain == t.array_oid else "")
         for tab in cat.tables for c in tab.live_columns if c.domain in _oids(t)] + \
        [f"function {_signature(f)} depends on type "  # NB: a procedure's too (PG 15)
         f"{t.name}" for f in _functions_of(cat, t)]


def _functions_of(cat: CatalogSnapshot, t: UserType) -> list[Function]:
    """The routines with a parameter or result declared as domain `t`."""
    return [f for f in cat.functions if t.oid in f.arg_domains or f.returns_domain == t.oid]


def _signature(f: Function) -> str:
    """`f(integer,posint)`, as PostgreSQL's dependency messages name a routine."""
    doms = f.arg_domains or (0,) * len(f.arg_types)
    types = (format_type(d or a, None) or "" for a, d in zip(f.arg_types, doms, strict=True))
    return f"{f.name}({','.join(types)})"


def _oids(t: UserType) -> tuple[int, ...]:
    """The OIDs a column of domain `t` has as Column.domain: t's, or its array type's (d[])."""
    return (t.oid, t.array_oid) if t.array_oid else (t.oid,)


def _refuse_arrays(cat: CatalogSnapshot, t: UserType) -> None:
    """PostgreSQL checks no stored `d[]` against a new NOT NULL or CHECK of `d`: it refuses
    the ALTER DOMAIN (0A000) while a column of type d[] (or of a domain over d) exists."""
    for tab, c in _columns_of(cat, t):
        if c.domain in T.ELEMENT_OF:
            raise FeatureNotSupported(
                f'cannot alter type "{t.name}" because column "{tab.name}.{c.name}" uses it')


def _columns_of(cat: CatalogSnapshot, t: UserType, seen: frozenset[int] = frozenset()
                ) -> list[tuple[Any, Any]]:
    """The (table, column)s whose type is the domain `t` (or `t[]`) or a domain built on it."""
    out = [(tab, c) for tab in cat.tables for c in tab.live_columns if c.domain in _oids(t)]
    for d in _children(cat, t):
        if d.oid not in seen:
            out += _columns_of(cat, d, seen | {t.oid})
    return out


def _alter(s: SQLSession, schema: str | None, name: str, rest: str) -> str:
    cat = s.catalog()
    t = find_domain(cat, schema, name, s.search_path())
    if t is None:
        raise UndefinedObject(f'type "{name}" does not exist')
    new = t
    if (m := _SET_DEFAULT.match(rest)) is not None:
        new = dataclasses.replace(t, default=sqlglot.parse_one(m.group("expr"), read="postgres")
                                  .sql("postgres"))
    elif _DROP_DEFAULT.match(rest):
        new = dataclasses.replace(t, default=None)
    elif (m := _NOT_NULL.match(rest)) is not None:
        if m.group("verb").upper() == "SET" and not t.not_null:
            _refuse_arrays(cat, t)
            for tab, col in _columns_of(cat, t):
                validate_stored(s, tab, col, None)
        new = dataclasses.replace(t, not_null=m.group("verb").upper() == "SET")
    elif (m := _ADD_CHECK.match(rest)) is not None:
        cname = parse_qualified(m.group("cname"))[1] if m.group("cname") else None
        _refuse_arrays(cat, t)
        new = _with_check(s, t, cname, check_text(sqlglot.parse_one(m.group("expr"),
                                                                    read="postgres")))
        for tab, col in _columns_of(cat, t):
            validate_stored(s, tab, col, new.checks[-1])
    elif (m := _DROP_CHECK.match(rest)) is not None:
        cname = parse_qualified(m.group("cname"))[1]
        if cname not in t.check_names:
            skip_or_raise(s, f'constraint "{cname}" of domain "{t.name}"', bool(m.group("ie")), UndefinedObject)
            return "ALTER DOMAIN"
        keep = [i for i, n in enumerate(t.check_names) if n != cname]
        new = dataclasses.replace(t, check_names=tuple(t.check_names[i] for i in keep),
                                  checks=tuple(t.checks[i] for i in keep),
                                  check_oids=tuple(t.check_oids[i] for i in keep))
    elif (m := RENAME_TO.match(rest)) is not None:
        to = parse_qualified(m.group("new"))[1]
        if _name_taken(cat, t.schema_oid, to):
            raise DuplicateObject(f'type "{to}" already exists')
        new = dataclasses.replace(t, name=to)
    elif OWNER_TO.match(rest):
        return "ALTER DOMAIN"
    else:
        raise FeatureNotSupported(f"ALTER DOMAIN {rest[:40]} is not supported")
    txn = s.ensure_txn()
    if new.name != t.name:
        s.store.delete(txn, s.db.oid, t)
    s.store.put(txn, s.db.oid, new)
    if new.default != t.default:
        for tab in _default_followers(cat, t, new.default):
            s.store.put(txn, s.db.oid, tab)
    s.catalog_changed()
    return "ALTER DOMAIN"


def _default_followers(cat: CatalogSnapshot, t: UserType, default: str | None) -> list[Any]:
    """The tables whose columns of `t` took its DEFAULT at CREATE TABLE, with `default`
    instead: a column with no DEFAULT of its own uses the domain's current one, as in
    PostgreSQL."""
    out = []
    for tab in cat.tables:
        if any(c.domain == t.oid and c.domain_default for c in tab.columns):
            cols = tuple(dataclasses.replace(c, default=default)
                         if c.domain == t.oid and c.domain_default else c
                         for c in tab.columns)
            out.append(dataclasses.replace(tab, columns=cols))
    return out


def _drop(s: SQLSession, names: list[tuple[str | None, str]], if_exists: bool,
          cascade: bool) -> str:
    cat = s.catalog()
    found = types_to_drop(s, names, if_exists, find_domain)
    for t in found:
        deps = _dependents(cat, t)
        if not cascade:
            refuse_dependents(f"type {t.name}", deps)
        report_cascade(s, [line.split(" depends on ")[0] for line in deps])
        found += [d for d in _children(cat, t) if d not in found]  # CASCADE: d2 AS t goes too
        for tab, col in _columns_of(s.catalog(), t):  # CASCADE: the columns go, as in PG
            drop_column(s, s.catalog().existing_table(tab.oid), exp.Drop(
                tables=[exp.to_identifier(col.name)], cascade=True))
        for f in _functions_of(s.catalog(), t):  # ... and the routines
            s.store.delete(s.ensure_txn(), s.db.oid, f)
    txn = s.ensure_txn() if found else None
    for t in found:
        s.store.delete(txn, s.db.oid, t)
    if found:
        s.catalog_changed()
    return "DROP DOMAIN"


def is_domain_statement(sql: str) -> bool:
    """CREATE / ALTER / DROP DOMAIN (the pre-parser files them with the TYPE statements)."""
    return re.match(r"\s*(?:CREATE|ALTER|DROP)\s+DOMAIN\b", sql, _I) is not None


def analyse(session: SQLSession, sql: str) -> Stmt:
    """CREATE / ALTER / DROP DOMAIN."""
    text = sql.strip()
    verb = text.split()[0].upper()
    if verb == "DROP":
        return drop_statement(sql, "DOMAIN", _drop)
    if verb == "CREATE":
        return define_statement(sql, _CREATE, verb, "DOMAIN", _create)
    return define_statement(sql, _ALTER, verb, "DOMAIN", _alter)
