"""Writes to a partitioned table: each row goes to the partition its key selects.

A partitioned table holds no rows (`ddl.partitions`). Its writer is a
`PartitionRouter`, which `writer.writer_for` hands out in place of a TableWriter,
so INSERT, COPY, UPDATE and DELETE keep their one write path: the router splits
a batch by partition (`partitions.members.Partitioned.route`, one pass) and hands
each part, in one call, to that partition's own writer, whose constraints,
indexes and triggers apply as for a row written to the partition directly. A
partition that is partitioned in turn has a router of its own.

A row read through the parent carries its leaf partition's OID in front of its
key (`tag`, made by `plan.partscan`), so UPDATE and DELETE send each key back to
the partition that holds it. An UPDATE whose new key belongs to another
partition moves the row: deleted from its partition, inserted through the root,
as PostgreSQL 15 does.
"""

from __future__ import annotations

import copy
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..catalog.model import Table
from ..partitions.members import descendants, leaves, partitioned

if TYPE_CHECKING:
    from ..session import SQLSession

_OID = struct.Struct(">I")
TAG = _OID.size


def tag(oid: int) -> Callable[[bytes], bytes]:
    """The function that prefixes a leaf partition's row keys with its OID.

    >>> untag(tag(16384)(b"k"))
    (16384, b'k')
    """
    prefix = _OID.pack(oid)
    return lambda key: prefix + key


def untag(key: bytes) -> tuple[int, bytes]:
    return _OID.unpack_from(key)[0], key[TAG:]


class PartitionRouter:
    """The writer of a partitioned table (see the module docstring)."""

    triggers = None  # NB: a partition's own row triggers fire in its writer
    deferrable: dict[int, Any] = {}
    converters: list[Any] = []  # NB: each partition's writer applies the typmods
    indexes: list[Any] = []
    fks: list[Any] = []
    pk: list[int] = []

    def __init__(self, s: SQLSession, table: Table,
                 writer_for: Callable[[SQLSession, Table], Any]) -> None:
        self.table = table
        self.space = table.space
        self.parts = partitioned(s.catalog(), table)
        self._writer_for = writer_for
        self._routed: dict[int, Any] = {}
        self._keys: frozenset[int] | None = None

    def member_writer(self, s: SQLSession, t: Table) -> Any:
        """The writer of one of its partitions (a router again for a partitioned one), for
        rows routed here: their partition constraint holds, so it is not checked again
        (PostgreSQL's ExecInsert skips it for routed rows too)."""
        w = self._routed.get(t.oid)
        if w is None:
            w = self._writer_for(s, t)
            if not t.partkey:
                w = copy.copy(w)
                w.bound = None
            self._routed[t.oid] = w
        return w

    def checked_writer(self, s: SQLSession, t: Table) -> Any:
        """The writer of partition `t` that checks its partition constraint (rows changed
        in place there, not routed)."""
        return self._writer_for(s, t)

    def split(self, s: SQLSession, rows: list[Any]) -> list[tuple[Any, list[Any]]]:
        """The rows grouped by leaf partition: (that leaf's writer, its rows), in one pass
        per level (COPY writes each group as one bulk batch)."""
        where = self.parts.route(rows)
        groups: dict[int, list[Any]] = {}
        for r, i in zip(rows, where, strict=True):
            groups.setdefault(i, []).append(r)
        out: list[tuple[Any, list[Any]]] = []
        for i, part in groups.items():
            w = self.member_writer(s, self.parts.members[i].table)
            out += w.split(s, part) if isinstance(w, PartitionRouter) else [(w, part)]
        return out

    def insert(self, s: SQLSession, rows: list[list[Any]], check_unique: bool = True,
               converted: frozenset[int] = frozenset()) -> int:
        return len(self.insert_rows(s, rows, check_unique))

    def insert_rows(self, s: SQLSession, rows: list[Any], check_unique: bool = True,
                    converted: frozenset[int] = frozenset(), before_fired: bool = False,
                    keys_out: list[bytes] | None = None) -> list[tuple[Any, ...]]:
        """Routes the rows and returns them as stored, in their order (`keys_out`: their
        keys in their leaves)."""
        where = self.parts.route(rows)
        groups: dict[int, list[int]] = {}
        for n, i in enumerate(where):
            groups.setdefault(i, []).append(n)
        out: list[Any] = [None] * len(rows)
        keys: list[Any] = [None] * len(rows)
        for i, positions in groups.items():
            w = self.member_writer(s, self.parts.members[i].table)
            got: list[bytes] = []
            stored = w.insert_rows(s, [rows[n] for n in positions], check_unique, keys_out=got)
            for n, r in zip(positions, stored, strict=True):
                out[n] = r
            for n, k in zip(positions, got, strict=False):
                keys[n] = k
        if keys_out is not None:
            keys_out.extend(keys)
        return out

    def leaf_of(self, s: SQLSession, row: Any) -> int:
        """The OID of the leaf partition a row belongs in (23514 if none takes it)."""
        parts = self.parts
        while True:
            i = parts.find(parts.key_of(row))
            if i is None:
                parts.no_partition(parts.key_of(row))
            t = parts.members[i].table
            if not t.partkey:
                return t.oid
            parts = partitioned(s.catalog(), t)

    def _key_positions(self, s: SQLSession) -> frozenset[int]:
        """The row positions of every level's partition key under this table."""
        if self._keys is None:
            cat = s.catalog()
            self._keys = frozenset(a - 1 for t in [self.table, *descendants(cat, self.table)]
                                   if t.partkey for a in partitioned(cat, t).key.attnums)
        return self._keys

    def _by_leaf(self, keys: list[bytes]) -> dict[int, list[int]]:
        groups: dict[int, list[int]] = {}
        for n, k in enumerate(keys):
            groups.setdefault(_OID.unpack_from(k)[0], []).append(n)
        return groups

    def delete(self, s: SQLSession, keys: list[bytes], rows: list[tuple[Any, ...]]) -> int:
        return len(self.delete_rows(s, keys, rows))

    def delete_rows(self, s: SQLSession, keys: list[bytes], rows: list[tuple[Any, ...]]
                    ) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        cat = s.catalog()
        for oid, positions in self._by_leaf(keys).items():
            w = self.member_writer(s, cat.existing_table(oid))
            out += w.delete_rows(s, [keys[n][TAG:] for n in positions], [rows[n] for n in positions])
        return out

    def update(self, s: SQLSession, keys: list[bytes], old: list[tuple[Any, ...]],
               new: list[list[Any]], kept: frozenset[int] = frozenset()) -> int:
        return len(self.update_rows(s, keys, old, new, kept))

    def update_rows(self, s: SQLSession, keys: list[bytes], old: list[tuple[Any, ...]],
                    new: list[list[Any]], kept: frozenset[int] = frozenset()
                    ) -> list[tuple[Any, ...]]:
        """Updates each row in its partition, or moves it to the one its new key selects."""
        cat = s.catalog()
        out: list[Any] = [None] * len(keys)
        moved: list[int] = []
        # NB: an UPDATE that sets no key column of any level moves nothing: no routing
        fixed = self._key_positions(s) <= kept
        for oid, positions in self._by_leaf(keys).items():
            stay = positions if fixed else [n for n in positions
                                            if self.leaf_of(s, new[n]) == oid]
            kept_here = set(stay)
            gone = [n for n in positions if n not in kept_here]
            w = self.member_writer(s, cat.existing_table(oid))
            if stay:
                stored = w.update_rows(s, [keys[n][TAG:] for n in stay], [old[n] for n in stay],
                                       [new[n] for n in stay], kept)
                for n, r in zip(stay, stored, strict=True):
                    out[n] = r
            if gone:
                w.delete_rows(s, [keys[n][TAG:] for n in gone], [old[n] for n in gone])
                moved += gone
        if moved:
            root = self
            stored = root.insert_rows(s, [list(new[n]) for n in moved])
            for n, r in zip(moved, stored, strict=True):
                out[n] = r
        return [r for r in out if r is not None]


def leaf_groups(writer: Any, s: SQLSession, rows: list[Any]) -> list[tuple[Any, list[Any]]]:
    """The rows as (leaf writer, rows) groups when `writer` is a router, else as one group."""
    if isinstance(writer, PartitionRouter):
        return writer.split(s, rows)
    return [(writer, rows)]


def routed_conflict(s: SQLSession, node: Any, table: Table, alias: str | None, params: Any,
                    analyse: Callable[..., Any]) -> Callable[..., int]:
    """INSERT ... ON CONFLICT into a partitioned table: each row's arbiter check and DO
    UPDATE run in the leaf partition it goes to, against that partition's own unique
    indexes (`analyse` is insert's ON CONFLICT analysis, made once per leaf). DO UPDATE
    names the target as the statement does (its alias, else the partitioned table)."""
    name = alias or table.name
    per_leaf = {leaf.oid: (leaf, analyse(s, node, leaf, name, params))
                for leaf in leaves(s.catalog(), table)}

    def apply(sess: SQLSession, writer: Any, rows: list[list[Any]], ctx: Any,
              out_rows: list[tuple[Any, ...]], returning: Any) -> int:
        n = 0
        for r in rows:  # NB: one at a time, in order, as the one-table path
            leaf, fn = per_leaf[writer.leaf_of(sess, r)]
            # NB: its checked writer: a DO UPDATE may not take the row out of its partition
            n += fn(sess, writer.checked_writer(sess, leaf), [r], ctx, out_rows, returning)
        return n

    return apply
