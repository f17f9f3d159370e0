"""A partitioned table with its partitions, as one catalog snapshot has them: which
partition a row goes to, which ones a new bound would overlap.

Built once per (catalog snapshot, table) and kept in the snapshot's `derived`
cache, like the table writers: the snapshot never changes, so neither does this.
Partitions are listed in PostgreSQL's bound order (range by lower bound, list by
smallest value, hash by modulus and remainder, the default last), which is the
order of the Append that reads them.

Routing a row is a bisection over the range partitions' lower bounds, a dict
lookup for a list partition's value, or PostgreSQL's hash (`hashing`); a row no
partition takes goes to the default partition, else fails with PostgreSQL's 23514.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from ...errors import CheckViolation
from ..catalog.model import Table
from .bounds import MAXVALUE, MINVALUE, VALUE, Bound, PartKey, parse_bound, parse_key
from .hashing import row_hash

# (catalog, table, expression items) -> (their types, the attnums they read, one function
# row -> value each): set by `partitions.keyexprs`, which compiles SQL, a layer above this
KeyExprs = Callable[[Any, Table, tuple[str, ...]],
                    tuple[list[int], list[int], list[Callable[[Any], Any]], list[Any]]]
_KEY_EXPRS: list[KeyExprs] = []


def compile_key_exprs_with(fn: KeyExprs) -> None:
    """Installs the compiler of expression partition keys (`PARTITION BY RANGE (lower(x))`)."""
    _KEY_EXPRS[:] = [fn]


def key_exprs(cat: Any, table: Table, exprs: tuple[str, ...]
              ) -> tuple[list[int], list[int], list[Callable[[Any], Any]], list[Any]]:
    """The types, attnums read, row functions and bound trees (`expr.bound.E`, over the
    row's slots) of a key's expression items."""
    return _KEY_EXPRS[0](cat, table, exprs)


@dataclass(frozen=True)
class Member:
    table: Table
    bound: Bound


class Partitioned:
    """A partitioned table's key and partitions (see the module docstring)."""

    def __init__(self, cat: Any, parent: Table) -> None:
        self.table = parent
        self.key: PartKey = parse_key(parent.partkey, parent,
                                      lambda t, ex: key_exprs(cat, t, ex)[:2])
        members = [Member(t, parse_bound(t.partbound, self.key)) for t in cat.tables
                   if t.partof == parent.oid]
        members.sort(key=lambda m: m.bound.order())
        self.members = members
        self.default = next((i for i, m in enumerate(members) if m.bound.kind == "default"), None)
        self._pos = [a - 1 for a in self.key.attnums]
        self._items: list[tuple[int, Any]] | None = None
        # per key item: None for a column, the bound tree of an expression (pruning's)
        self.key_trees: list[Any] = [None] * len(self._pos)
        if self.key.exprs:  # NB: each expression item computed from the row
            _, _, fns, trees = key_exprs(cat, parent, self.key.exprs)
            it, tt = iter(fns), iter(trees)
            self._items = [(p, None) if p >= 0 else (-1, next(it)) for p in self._pos]
            self.key_trees = [None if p >= 0 else next(tt) for p in self._pos]
        self._ranges = [i for i, m in enumerate(members) if m.bound.kind == "range"]
        self._los = [members[i].bound.lo for i in self._ranges]
        self._values = {v: i for i, m in enumerate(members) if m.bound.kind == "list"
                        for v in m.bound.values}
        self._hashes = [(m.bound.modulus, m.bound.remainder, i) for i, m in enumerate(members)
                        if m.bound.kind == "hash"]
        # one-column range keys (the usual: a date, a timestamp, an id): plain values bisected,
        # with no tuple built per row; the partition from MINVALUE apart (no value is below)
        self._plain = self.key.strategy == "range" and len(self._pos) == 1 and not self.key.exprs
        firsts = [(members[i].bound.lo[0], members[i].bound.hi[0], i) for i in self._ranges]
        self._from_min = next(((hi, i) for (f, _), hi, i in firsts if f == MINVALUE), None)
        self._lo_vals = [v for (f, v), _, _ in firsts if f == VALUE]
        self._his = [(hi, i) for (f, _), hi, i in firsts if f == VALUE]

    def key_of(self, row: Any) -> tuple[Any, ...]:
        if self._items is None:
            return tuple(row[p] for p in self._pos)
        return tuple(row[p] if fn is None else fn(row) for p, fn in self._items)

    def find(self, key: tuple[Any, ...]) -> int | None:
        """The index of the member taking a row with this key (None: no partition)."""
        strategy = self.key.strategy
        if strategy == "range":
            if None not in key:
                k = tuple((VALUE, v) for v in key)
                j = bisect.bisect_right(self._los, k) - 1
                if j >= 0:
                    i = self._ranges[j]
                    if k < self.members[i].bound.hi:
                        return i
        elif strategy == "list":
            hit = self._values.get(key[0])
            if hit is not None:
                return hit
        else:
            h = row_hash(list(key), list(self.key.types))
            for modulus, remainder, i in self._hashes:
                if h % modulus == remainder:
                    return i
        return self.default

    def route(self, rows: list[Any]) -> list[int]:
        """The member index of each row; 23514 for a row no partition takes."""
        if self._plain:
            return self._route_plain(rows)
        out = []
        find, key_of = self.find, self.key_of
        for r in rows:
            i = find(key_of(r))
            out.append(self.no_partition(key_of(r)) if i is None else i)
        return out

    def _route_plain(self, rows: list[Any]) -> list[int]:
        """`route` for a one-column range key: a bisection of the plain value per row."""
        pos = self._pos[0]
        lo_vals, his, from_min = self._lo_vals, self._his, self._from_min
        right = bisect.bisect_right
        out = []
        for r in rows:
            v = r[pos]
            i = None
            if v is not None:
                j = right(lo_vals, v) - 1
                hit = his[j] if j >= 0 else from_min
                if hit is not None:
                    (flag, top), i = hit
                    if flag != MAXVALUE and not v < top:
                        i = None
            if i is None:
                i = self.default
                if i is None:
                    self.no_partition((v,))
            out.append(i)
        return out

    def no_partition(self, key: tuple[Any, ...]) -> NoReturn:
        raise CheckViolation(
            f'no partition of relation "{self.table.name}" found for row',
            detail=f"Partition key of the failing row contains {self.key.values_text(key)}.",
            table=self.table.name)

    def overlapping(self, bound: Bound) -> Member | None:
        """The existing partition a new (non-default) bound would overlap."""
        for m in self.members:
            b = m.bound
            if bound.kind == "range" and b.kind == "range":
                if b.lo < bound.hi and bound.lo < b.hi:
                    return m
            elif bound.kind == "list" and b.kind == "list":
                if set(b.values) & set(bound.values):
                    return m
            elif bound.kind == "hash" and b.kind == "hash":
                small = min(b.modulus, bound.modulus)
                if b.remainder % small == bound.remainder % small:
                    return m
        return None


def partitioned(cat: Any, table: Table) -> Partitioned:
    """The Partitioned of a partitioned table, cached on the catalog snapshot."""
    cache = cat.derived.setdefault("partitioned", {})
    p = cache.get(table.oid)
    if p is None or p.table is not table:
        p = cache[table.oid] = Partitioned(cat, table)
    return p


def partitions_of(cat: Any, oid: int) -> list[Table]:
    """The direct partitions of a table, in no particular order."""
    return [t for t in cat.tables if t.partof == oid]


def leaves(cat: Any, table: Table) -> list[Table]:
    """Every table holding rows under `table`: itself if it is not partitioned."""
    if not table.partkey:
        return [table]
    return [leaf for m in partitioned(cat, table).members for leaf in leaves(cat, m.table)]


def bound_check(cat: Any, table: Table) -> Callable[[list[Any], Callable[[Any], str]], None]:
    """The check that rows written to partition `table` itself belong there: under its
    own bound and its ancestors' (23514 "violates partition constraint", as PostgreSQL)."""
    chain = []
    t = table
    while t.partof:
        parent = cat.existing_table(t.partof)
        p = partitioned(cat, parent)
        chain.append((p, next(i for i, m in enumerate(p.members) if m.table.oid == t.oid)))
        t = parent

    def check(rows: list[Any], text: Callable[[Any], str]) -> None:
        for p, i in chain:
            find, key_of = p.find, p.key_of
            for r in rows:
                if find(key_of(r)) != i:
                    raise CheckViolation(
                        f'new row for relation "{table.name}" violates partition constraint',
                        detail=f"Failing row contains ({text(r)}).", table=table.name)
    return check


def descendants(cat: Any, table: Table) -> list[Table]:
    """Every partition under `table`, at any depth (TRUNCATE and DROP reach them all)."""
    return [d for t in partitions_of(cat, table.oid) for d in (t, *descendants(cat, t))]


def leaf_oid(cat: Any, table: Table, row: Any) -> int:
    """The OID of the leaf partition under `table` that a row belongs in (0: none)."""
    t = table
    while t.partkey:
        p = partitioned(cat, t)
        i = p.find(p.key_of(row))
        if i is None:
            return 0
        t = p.members[i].table
    return t.oid


def ancestors(cat: Any, table: Table) -> tuple[int, ...]:
    """The OIDs of the partitioned tables above a partition, nearest first (() for others):
    their foreign keys, and those referencing them, hold for its rows too."""
    out: list[int] = []
    t = table
    while t.partof:
        out.append(t.partof)
        t = cat.existing_table(t.partof)
    return tuple(out)
