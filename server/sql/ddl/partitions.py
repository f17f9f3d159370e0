"""Declarative partitioning's DDL, as PostgreSQL 15: `PARTITION BY`, `PARTITION OF ... FOR
VALUES`, `ATTACH PARTITION` and `DETACH PARTITION`.

A partitioned table is an ordinary catalog table with a `partkey` (its pg_class
relkind is then "p"): it keeps its columns, constraints and indexes, which every
partition gets a copy of, and it never holds a row itself (`dml.partrouter` sends
its writes to the partitions, `plan.partscan` reads them). A partition is an
ordinary table with a `partof` and a `partbound`; it may be partitioned in turn.
A partition has its parent's columns at the same attribute numbers (dropped ones
too), so a row of one is a row of the other.

What a partitioned table is given reaches its partitions, as in PostgreSQL: CREATE
INDEX (`index_partitions`), ALTER TABLE's column actions and ADD CONSTRAINT (CHECK,
UNIQUE, PRIMARY KEY: `cascade_alter`). The checks and their errors are PostgreSQL's: the key's columns exist and LIST has
one; a primary key or unique constraint covers the key (0A000); a bound is of the
parent's strategy with one value per key column (42P16), not empty, overlapping
no sibling (42P17), and the rows already in the default partition (or in a table
being attached) fit where they are (23514).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    CheckViolation,
    DatatypeMismatch,
    FeatureNotSupported,
    InvalidObjectDefinition,
    InvalidTableDefinition,
    UndefinedColumn,
    WrongObjectType,
)
from ...txn.api import ScanSpec
from ..catalog.model import Column, Table
from ..context import ParamTypes
from ..dml.values import compile_value
from ..parse import parse_sql
from ..partitions.bounds import (
    MAXVALUE,
    MINVALUE,
    VALUE,
    Bound,
    PartKey,
    key_items,
    literal,
    parse_key,
)
from ..partitions.keyexprs import compiled
from ..partitions.members import Partitioned, partitioned, partitions_of
from ..pgcatalog.ddltext import index_def
from ..pgcatalog.names import quote_ident
from .indexkeys import check_immutable, expr_display, pg_quoted
from .names import ident

if TYPE_CHECKING:
    from ..session import SQLSession
    from .tables import TableBuilder


def key_text(b: TableBuilder, node: exp.PartitionedByProperty) -> str:
    """The `partkey` of `CREATE TABLE ... PARTITION BY strategy (columns)`, checked."""
    spec = node.this
    if isinstance(spec, exp.Anonymous):
        strategy, items = str(spec.this).lower(), spec.expressions
    else:
        strategy, items = type(spec).__name__.lower(), list(spec.expressions)
    if strategy not in ("range", "list", "hash"):
        raise InvalidObjectDefinition(f'unrecognized partitioning strategy "{strategy}"')
    if strategy == "list" and len(items) > 1:
        raise InvalidObjectDefinition('cannot use "list" partition strategy with more than one '
                                      "column")
    names, exprs = [], []
    for e in items:
        while isinstance(e, exp.Paren) and isinstance(e.this, exp.Paren | exp.Column):
            e = e.this  # NB: ((a)) is the column a, as in PostgreSQL
        if isinstance(e, exp.Column):
            name = ident(e.this)
            if not any(c.name == name for c in b.columns if not c.dropped):
                raise UndefinedColumn(f'column "{name}" named in partition key does not exist')
            names.append(name)
            continue
        sql = pg_quoted(e.this if isinstance(e, exp.Paren) else e).sql("postgres")
        check_immutable([sql], "partition key expression")
        names.append(expr_display(_draft(b), sql))
        exprs.append(names[-1])
    by_name = {c.name: c.attnum for c in b.columns if not c.dropped}
    key = PartKey(strategy, tuple(by_name.get(n, 0) if n not in exprs else 0 for n in names),
                  (), tuple(names))
    if exprs:
        compiled(b.cat, _draft(b), tuple(exprs))  # NB: its bind errors (42703, 42883) now
    constraints = ([("PRIMARY KEY", b.pk)] if b.pk else []) + [
        ("UNIQUE", cols) for _, cols, _, _ in b.uniques]
    for kind, cols in constraints:
        covers_key(kind, b.name, [n for n, a in zip(key.names, key.attnums, strict=True)
                                  if a not in cols], bool(exprs))
    return key.text()


def _draft(b: TableBuilder) -> Table:
    """The table being created, as far as its key expressions need it (its columns)."""
    return Table(b.oid, b.name, b.schema_oid, tuple(b.columns))


def covers_key(kind: str, table: str, missing: list[str], exprs: bool = False) -> None:
    """A unique key of a partitioned table must hold the partition key's columns (0A000
    naming the first it lacks): a partition's own unique index checks only its rows. A key
    with expressions takes none (PostgreSQL's 0A000 too)."""
    if exprs:
        raise FeatureNotSupported(
            f"unsupported {kind} constraint with partition key definition",
            detail=f"{kind} constraints cannot be used when partition keys include "
                   "expressions.")
    if missing:
        raise FeatureNotSupported(
            "unique constraint on partitioned table must include all partitioning columns",
            detail=f'{kind} constraint on table "{table}" lacks column "{missing[0]}" which '
                   "is part of the partition key.")


def fill_partition(b: TableBuilder, parent: Table) -> list[str]:
    """Gives a new partition its parent's columns (at the same attnums), CHECK constraints,
    primary key and unique constraints; returns the parent's other indexes' definitions
    (made again on the partition, as `liketable.copy_indexes`)."""
    b.columns = [dataclasses.replace(c, identity="") for c in parent.columns]
    cons = b.cat.constraints_of(parent.oid)
    for k in cons:
        if k.kind == "c" and k.check is not None:
            b.checks.append((k.name, k.check))
        elif k.kind == "p":
            b.set_pk(k.columns, None)
        elif k.kind == "u":
            b.uniques.append(("", k.columns, False, (k.deferrable, k.deferred)))
    backing = {k.index_oid for k in cons}
    return [d for i in b.cat.indexes_of(parent.oid) if not i.primary and i.oid not in backing
            and (d := index_def(b.cat, i.oid)) is not None]


def parent_of(parent: Table, attach: bool = False) -> Table:
    """The table named in PARTITION OF / ATTACH PARTITION, if it is partitioned (42P17)."""
    if not parent.partkey:
        raise InvalidObjectDefinition(f'table "{parent.name}" is not partitioned' if attach
                                      else f'"{parent.name}" is not partitioned')
    return parent


def bound_text(s: SQLSession, parent: Table, spec: exp.Expression, name: str) -> str:
    """The checked `partbound` of a FOR VALUES / DEFAULT clause for partition `name`."""
    part = partitioned(s.catalog(), parent)
    bound = _bound(s, part, spec, name)
    if bound.kind == "default":
        if part.default is not None:
            raise InvalidObjectDefinition(
                f'partition "{name}" conflicts with existing default partition '
                f'"{part.members[part.default].table.name}"')
        return "DEFAULT"
    if bound.kind == "range" and not bound.lo < bound.hi:
        raise InvalidObjectDefinition(
            f'empty range bound specified for partition "{name}"',
            detail=f"Specified lower bound {_side(bound.lo, part.key)} is greater than or equal "
                   f"to upper bound {_side(bound.hi, part.key)}.")
    if bound.kind == "hash":
        _check_modulus(part, bound)
    other = part.overlapping(bound)
    if other is not None:
        raise InvalidObjectDefinition(
            f'partition "{name}" would overlap partition "{other.table.name}"')
    if part.default is not None:
        _check_default_rows(s, part, bound)
    return bound.text(part.key)


def _side(pairs: tuple[tuple[int, Any], ...], key: PartKey) -> str:
    return "(" + ", ".join("MINVALUE" if f == MINVALUE else "MAXVALUE" if f == MAXVALUE
                           else literal(v, t)
                           for (f, v), t in zip(pairs, key.types, strict=True)) + ")"


def _bound(s: SQLSession, part: Partitioned, spec: exp.Expression, name: str) -> Bound:
    """Evaluates a bound clause's values as the key columns' types (42P16 for a bound of
    another strategy or with the wrong number of values)."""
    key = part.key
    if isinstance(spec, exp.Var) and spec.name.upper() == "DEFAULT":
        if key.strategy == "hash":
            raise InvalidTableDefinition("a hash-partitioned table may not have a default "
                                         "partition")
        return Bound("default")
    cols = [part.table.columns[a - 1] if a else Column(n, t)  # NB: an expression's type
            for a, t, n in zip(key.attnums, key.types, key.names, strict=True)]
    ctx = s.exec_context([])

    def value(e: exp.Expression, i: int) -> Any:
        return compile_value(s, e, cols[i], [], ParamTypes())(None, ctx)

    args = spec.args
    frm, to = args.get("from_expressions"), args.get("to_expressions")
    if frm is not None:
        kind = "range"
    elif isinstance(args.get("this"), list):
        kind = "list"
    else:
        kind = "hash"
    if kind != key.strategy:
        raise InvalidTableDefinition(f"invalid bound specification for a {key.strategy} "
                                     "partition")
    if kind == "list":
        values: list[Any] = []
        for e in args["this"]:
            v = value(e, 0)
            if v not in values:
                values.append(v)
        return Bound("list", values=tuple(values))
    if kind == "hash":
        modulus, remainder = (int(args[k].name) for k in ("this", "expression"))
        if modulus <= 0:
            raise InvalidTableDefinition("modulus for hash partition must be an integer value "
                                         "greater than zero")
        if remainder >= modulus:
            raise InvalidTableDefinition("remainder for hash partition must be less than modulus")
        return Bound("hash", modulus=modulus, remainder=remainder)
    sides = []
    for word, items in (("FROM", frm or []), ("TO", to or [])):
        if len(items) != len(cols):
            raise InvalidTableDefinition(f"{word} must specify exactly one value per "
                                         "partitioning column")
        pairs: list[tuple[int, Any]] = []
        for i, e in enumerate(items):
            word_value = e.name.upper() if isinstance(e, exp.Var | exp.Column) else ""
            if word_value in ("MINVALUE", "MAXVALUE"):
                pairs.append((MINVALUE if word_value == "MINVALUE" else MAXVALUE, None))
            else:
                v = value(e, i)
                if v is None:
                    raise InvalidTableDefinition("cannot specify NULL in range bound")
                pairs.append((VALUE, v))
        for a, b in zip(pairs, pairs[1:], strict=False):
            if a[0] != VALUE and b[0] != a[0]:
                which = "MAXVALUE" if a[0] == MAXVALUE else "MINVALUE"
                raise DatatypeMismatch(f"every bound following {which} must also be {which}")
        sides.append(tuple(pairs))
    return Bound("range", lo=sides[0], hi=sides[1])


def _check_modulus(part: Partitioned, bound: Bound) -> None:
    """Every hash modulus divides the next larger one (42P17 with PostgreSQL's DETAIL)."""
    for m in part.members:
        other = m.bound.modulus
        if not other:
            continue
        if other > bound.modulus and other % bound.modulus:
            detail = (f"The new modulus {bound.modulus} is not a factor of {other}, the "
                      f'modulus of existing partition "{m.table.name}".')
        elif other < bound.modulus and bound.modulus % other:
            detail = (f"The new modulus {bound.modulus} is not divisible by {other}, the "
                      f'modulus of existing partition "{m.table.name}".')
        else:
            continue
        raise InvalidObjectDefinition("every hash partition modulus must be a factor of the "
                                      "next larger modulus", detail=detail)


def _rows(s: SQLSession, table: Table) -> Any:
    """Every stored row of a table (all its leaves' when it is partitioned)."""
    cat = s.catalog()
    txn = s.ensure_txn()
    tables = [table] if not table.partkey else [
        m.table for m in partitioned(cat, table).members]
    for t in tables:
        if t.partkey:
            yield from _rows(s, t)
        else:
            for batch in txn.scan(ScanSpec(t.space, batch_size=4096)):
                yield from batch


def _check_default_rows(s: SQLSession, part: Partitioned, bound: Bound) -> None:
    """A new partition may not take rows the default partition holds already."""
    default = part.members[part.default].table  # type: ignore[index]  # set by the caller
    for r in _rows(s, default):
        if bound.holds(part.key_of(r)):
            raise CheckViolation(f'updated partition constraint for default partition '
                                 f'"{default.name}" would be violated by some row')


def check_attached_rows(s: SQLSession, parent: Table, table: Table) -> None:
    """ATTACH PARTITION: every row of the table fits its new bound (23514)."""
    part = partitioned(s.catalog(), parent)
    member = next(i for i, m in enumerate(part.members) if m.table.oid == table.oid)
    for r in _rows(s, table):
        if part.find(part.key_of(r)) != member:
            raise CheckViolation(f'partition constraint of relation "{table.name}" is violated '
                                 "by some row")


def same_layout(parent: Table, table: Table) -> bool:
    """ATTACH PARTITION's column checks, PostgreSQL's (42804): the table has the parent's
    live columns by name, of the same types, NOT NULL where the parent's are. True when they
    are at the parent's attnums too (else `ddl.relayout` moves them there)."""
    names = {c.name for c in parent.live_columns}
    extra = next((c for c in table.live_columns if c.name not in names), None)
    if extra is not None:
        raise DatatypeMismatch(f'table "{table.name}" contains column "{extra.name}" not found in '
                              f'parent "{parent.name}"',
                              detail="The new partition may contain only the columns present "
                                     "in parent.")
    mine = {c.name: c for c in table.live_columns}
    for p in parent.live_columns:
        c = mine.get(p.name)
        if c is None:
            raise DatatypeMismatch(f'child table is missing column "{p.name}"')
        if (c.type_oid, c.typmod) != (p.type_oid, p.typmod):
            raise DatatypeMismatch(f'child table "{table.name}" has different type for column '
                                   f'"{p.name}"')
        if p.not_null and not c.not_null:
            raise DatatypeMismatch(f'column "{p.name}" in child table must be marked NOT NULL')
    return len(parent.columns) == len(table.columns) and all(
        a.dropped == b.dropped and (a.dropped or a.name == b.name)
        for a, b in zip(parent.columns, table.columns, strict=True))


def index_partitions(s: SQLSession, table: Table, tree: exp.Create, attnums: list[int],
                     create: Callable[[SQLSession, exp.Create], str]) -> None:
    """CREATE INDEX on a partitioned table: a UNIQUE one must cover the key (0A000), and
    every partition gets the same index, named as PostgreSQL names it."""
    cat = s.catalog()
    if tree.args.get("unique"):
        key = partitioned(cat, table).key
        covers_key("UNIQUE", table.name, [n for n, a in zip(key.names, key.attnums, strict=True)
                                          if a not in attnums], bool(key.exprs))
    for part in partitions_of(cat, table.oid):
        schema = cat.schema_by_oid(part.schema_oid)
        sub = tree.copy()
        sub.this.set("this", None)
        sub.this.set("table", exp.Table(this=exp.Identifier(this=part.name, quoted=True),
                                        db=exp.Identifier(this=schema.name if schema else "",
                                                          quoted=True)))
        sub.set("exists", False)
        create(s, sub)


# ALTER TABLE actions on a partitioned table that its partitions take too (PostgreSQL
# recurses): their columns stay the parent's, at the same positions
_CASCADED = (exp.ColumnDef, exp.Drop, exp.AlterColumn, exp.RenameColumn)


def _column_action(action: exp.Expression) -> bool:
    return isinstance(action, _CASCADED) and not (
        isinstance(action, exp.Drop) and str(action.args.get("kind")).upper() != "COLUMN")


def _constraints(action: exp.Expression) -> list[exp.Expression]:
    """ADD CONSTRAINT's CHECK, UNIQUE and PRIMARY KEY items, which partitions take too (a
    foreign key holds for a partition's rows through its parent's, `dml.writer`)."""
    if not isinstance(action, exp.AddConstraint):
        return []
    items = [i for c in action.expressions for i in (
        c.expressions if isinstance(c, exp.Constraint) else [c])]
    return [i for i in items if isinstance(
        i, exp.CheckColumnConstraint | exp.UniqueColumnConstraint | exp.PrimaryKey)]


def _unnamed_keys(action: exp.Expression) -> exp.Expression:
    """ADD CONSTRAINT for a partition: a UNIQUE or PRIMARY KEY without its name (each
    partition's index is named as PostgreSQL names it), a CHECK with it."""
    out = []
    for c in action.expressions:
        inner = c.expressions if isinstance(c, exp.Constraint) else [c]
        if isinstance(c, exp.Constraint) and any(
                isinstance(i, exp.UniqueColumnConstraint | exp.PrimaryKey) for i in inner):
            out += [i.copy() for i in inner]
        else:
            out.append(c.copy())
    return exp.AddConstraint(expressions=out)


def check_alter(table: Table, tree: exp.Alter, action: exp.Expression) -> None:
    """A partition's columns are its parent's (adding, dropping or renaming one on the
    partition itself fails), and a partition key column can be neither dropped nor
    changed in type (42P16), as in PostgreSQL."""
    if table.partkey:
        for item in _constraints(action):
            cols = item.expressions if isinstance(item, exp.PrimaryKey) else (
                item.this.expressions if isinstance(item, exp.UniqueColumnConstraint)
                and isinstance(item.this, exp.Schema) else None)
            if cols is None:
                continue
            kind = "PRIMARY KEY" if isinstance(item, exp.PrimaryKey) else "UNIQUE"
            have = {ident(c) for c in cols}
            used, exprs = _key_columns(table)
            covers_key(kind, table.name, [n for n in used if n not in have], exprs)
    if not _column_action(action):
        return
    names = ([ident(c.this if isinstance(c, exp.Column) else c)
              for c in action.args.get("tables") or []] if isinstance(action, exp.Drop)
             else [ident(action.this.this if isinstance(action, exp.RenameColumn)
                         else action.this)])
    if table.partof and not tree.meta.get("cascaded"):
        if isinstance(action, exp.ColumnDef):
            raise WrongObjectType("cannot add column to a partition")
        if isinstance(action, exp.Drop | exp.RenameColumn):
            verb = "drop" if isinstance(action, exp.Drop) else "rename"
            raise InvalidTableDefinition(f'cannot {verb} inherited column "{names[0]}"')
    if table.partkey and (isinstance(action, exp.Drop) or (
            isinstance(action, exp.AlterColumn) and action.args.get("dtype"))):
        key, _ = _key_columns(table)
        for name in names:
            if name in key:
                verb = "drop" if isinstance(action, exp.Drop) else "alter"
                raise InvalidTableDefinition(
                    f'cannot {verb} column "{name}" because it is part of the partition key '
                    f'of relation "{table.name}"')


def _key_columns(table: Table) -> tuple[list[str], bool]:
    """The columns a partition key reads (its column items and those its expressions
    name), and whether it has expressions."""
    cols = {c.name for c in table.live_columns}
    items = key_items(table.partkey)
    exprs = [i for i in items if i not in cols]
    named = [c.name for e in exprs for c in parse_sql(f"SELECT {e}").find_all(exp.Column)]
    return [i for i in items if i in cols] + [n for n in named if n in cols], bool(exprs)


_WORD = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|[A-Za-z_][A-Za-z_0-9$]*")


def _renamed(item: str, old: str, new: str) -> str:
    """A key expression's text with column `old` named `new` (literals untouched)."""
    def one(m: re.Match[str]) -> str:
        w = m.group(0)
        name = w[1:-1].replace('""', '"') if w[0] == '"' else w if w[0] != "'" else None
        return quote_ident(new) if name == old else w
    return _WORD.sub(one, item)


def cascade_alter(s: SQLSession, before: Table, tree: exp.Alter, action: exp.Expression,
                  alter: Callable[[SQLSession, exp.Alter], str]) -> None:
    """Runs a column action done on partitioned table `before` on each of its partitions,
    and keeps the key's text naming a renamed key column."""
    if not before.partkey or not (_column_action(action) or (
            _constraints(action) and not tree.args.get("only"))):
        return  # NB: ALTER TABLE ONLY ... ADD CONSTRAINT: pg_dump adds each partition's
    cat = s.catalog()
    if isinstance(action, exp.RenameColumn):
        after = cat.existing_table(before.oid)
        key = parse_key(before.partkey, before)
        names = {c.attnum: c.name for c in after.columns}
        old, new = ident(action.this.this), ident(action.args["to"].this)
        text = PartKey(key.strategy, key.attnums, key.types,
                       tuple(names[a] if a else _renamed(n, old, new)
                             for a, n in zip(key.attnums, key.names, strict=True))).text()
        if text != after.partkey:
            s.store.put(s.ensure_txn(), s.db.oid, dataclasses.replace(after, partkey=text))
            s.catalog_changed()
    for part in partitions_of(cat, before.oid):
        schema = cat.schema_by_oid(part.schema_oid)
        sub = exp.Alter(this=exp.Table(this=exp.Identifier(this=part.name, quoted=True),
                                       db=exp.Identifier(this=schema.name if schema else "",
                                                         quoted=True)),
                        kind="TABLE", actions=[_unnamed_keys(action) if _constraints(action)
                                               else action.copy()])
        sub.meta["cascaded"] = True
        alter(s, sub)
