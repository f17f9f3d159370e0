"""pg_inherits and pg_partitioned_table: declarative partitioning as
PostgreSQL's catalog shows it (psql's `\\d+`, pg_dump, ORMs' introspection).

A partition is listed in pg_inherits under its parent, and so is each of its
indexes under the parent's index on the same columns (PostgreSQL attaches a
partition's copy of a partitioned index). pg_partitioned_table holds the key:
strategy letter, key columns, their default btree operator classes and
collations, and the default partition.
"""

from __future__ import annotations

from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..partitions.bounds import STRATEGIES, VALUE, literal
from ..partitions.members import partitioned
from .ddltext import format_type
from .opclasses import oid_of
from .partindexes import index_parent
from .registry import pg_relation

_COLLATABLE = frozenset({T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME})


@pg_relation("pg_catalog", "pg_inherits")
def pg_inherits(ctx: Any) -> list[tuple[Any, ...]]:
    """(inhrelid, inhparent, inhseqno, inhdetachpending): partitions and their indexes."""
    cat: M.CatalogSnapshot = ctx.catalog
    rows = []
    for t in cat.tables:
        if not t.partof:
            continue
        rows.append((t.oid, t.partof, 1, False))
        rows.extend((i.oid, parent, 1, False) for i in cat.indexes_of(t.oid)
                    if (parent := index_parent(cat, i)))
    return rows


@pg_relation("pg_catalog", "pg_partitioned_table")
def pg_partitioned_table(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per partitioned table: its key (partattrs and the rest are int2/oid vectors)."""
    cat: M.CatalogSnapshot = ctx.catalog
    rows = []
    for t in cat.tables:
        if not t.partkey:
            continue
        p = partitioned(cat, t)
        default = p.members[p.default].table.oid if p.default is not None else 0
        key = p.key
        rows.append((t.oid, STRATEGIES[key.strategy], len(key.attnums), default,
                     list(key.attnums), [oid_of("", x) for x in key.types],
                     [100 if x in _COLLATABLE else 0 for x in key.types], None))
    return rows



def constraint_text(cat: M.CatalogSnapshot, table: M.Table) -> str | None:
    """pg_get_partition_constraintdef: a partition's bound, and its ancestors' before it, as
    one condition; for one-column range and list bounds and hash bounds (None when a level
    has another: psql then shows none)."""
    conds: list[str] = []
    t = table
    while t.partof:
        parent = cat.existing_table(t.partof)
        level = _conjuncts(cat, parent, t)
        if level is None:
            return None
        conds[:0] = level
        t = parent
    if not conds:
        return None
    return conds[0] if len(conds) == 1 else f"({' AND '.join(conds)})"


def _conjuncts(cat: M.CatalogSnapshot, parent: M.Table, table: M.Table) -> list[str] | None:
    """The conditions of one partition's own bound (a default's: none)."""
    part = partitioned(cat, parent)
    member = next((m for m in part.members if m.table.oid == table.oid), None)
    key = part.key
    if member is None or len(key.attnums) != 1 and member.bound.kind != "hash":
        return None
    b = member.bound
    name = key.items()[0] if key.names else ""  # NB: an expression as it is
    typ = key.types[0] if key.types else 0

    def const(v: Any) -> str:
        text = literal(v, typ)
        return text if not text.startswith("'") else f"{text}::{format_type(typ, None)}"

    if b.kind == "hash":
        cols = ", ".join(key.items())
        return [f"satisfies_hash_partition('{parent.oid}'::oid, {b.modulus}, {b.remainder}, "
                f"{cols})"]
    if b.kind == "range":
        parts = [f"({name} IS NOT NULL)"]
        if b.lo[0][0] == VALUE:
            parts.append(f"({name} >= {const(b.lo[0][1])})")
        if b.hi[0][0] == VALUE:
            parts.append(f"({name} < {const(b.hi[0][1])})")
        return parts
    if b.kind == "list":
        values = [v for v in b.values if v is not None]
        arr = f"({name} = {const(values[0])})" if len(values) == 1 else \
            f"({name} = ANY (ARRAY[{', '.join(map(const, values))}]))"
        if None in b.values:
            return [f"(({name} IS NULL) OR {arr})" if values else f"({name} IS NULL)"]
        return [f"({name} IS NOT NULL)", arr]
    return None
