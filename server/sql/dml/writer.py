"""The write path of one table: constraint checks and index maintenance, a batch at a time.

A `TableWriter` is built once per (table, catalog version) and cached on the
session's catalog snapshot; it precomputes positions, length/precision
converters, compiled CHECK expressions and the foreign keys in both
directions, so a batch of rows costs a few list comprehensions plus one
`txn.get` / `txn.put` per space rather than per-row dispatch.

Checks, in PostgreSQL's order: typmods (22001, 22003), NOT NULL (23502),
CHECK (23514), primary key and unique indexes (23505), EXCLUDE constraints (23P01,
`exclusion`), foreign keys (23503).
A unique or primary key is checked as PostgreSQL 15 does: a plain one row by
row, so an UPDATE whose new key meets the old key of a row it has not reached
yet fails (`SET id = id + 1` over 1, 2, 3, in the order it reads them); a
DEFERRABLE one at the end of the statement (`check_unique`'s batch), or at
COMMIT while it is deferred (`deferstate` records the key values). A row's
primary key is its KiVi key, so a DEFERRABLE primary key, which two rows may hold
until COMMIT, keeps its rows under row ids and is a unique index of its own
(`ddl.constraints.primary_key_of`).
Secondary index entries: key `encode_key(index values + primary key values)`,
value the primary key tuple; NULLs never collide in a unique index.
"""

from __future__ import annotations

import datetime as dt
import struct
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import partial
from itertools import islice, repeat
from operator import is_, itemgetter, lt
from typing import TYPE_CHECKING, Any, cast

from ...errors import (
    CheckViolation,
    ForeignKeyViolation,
    NotNullViolation,
    SerializationFailure,
    UniqueViolation,
)
from ...kivi.ascending import AscendingKeys
from ...kivi.keycodec import encode_key
from ...pgtypes import oids as T
from ...pgtypes.fardate import round_timestamp
from ...txn.api import ScanSpec, Txn
from ...txn.rowlocks import KEY_SHARE, UPDATE
from ...txn.validate import RW_MESSAGE
from ..catalog.model import CatalogSnapshot, Constraint, Index, Table
from ..context import ParamTypes
from ..ddl.indexkeys import key_function, predicate_function
from ..expr.casts import cast_function, to_text
from ..parse import parse_sql
from ..partitions.members import ancestors, bound_check, leaves
from ..pgcatalog.collations import wrappers
from ..pgcatalog.partfks import error_name
from ..plan.compiler import COMPILER
from .cascade import on_parent_delete, on_parent_update
from .deferstate import defer_child_rows, defer_unique_keys, is_deferred
from .domaincheck import for_table as domain_checks
from .exclusion import exclusions_of
from .firetriggers import TableTriggers
from .keydetail import key_detail, value_text
from .partrouter import PartitionRouter
from .values import compile_value, table_scope
from .viewcheck import check_rows as check_view_rows
from .viewcheck import in_force as view_checks

if TYPE_CHECKING:
    from ..session import SQLSession

ROWID_BLOCK = 4096
_INT_TYPES = frozenset({T.INT2, T.INT4, T.INT8})
_pack_q = struct.Struct(">Q").pack
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1
_BIAS = 1 << 63  # an int64 key element is v + 2**63, big-endian (`kivi.keycodec`)


def int_keys(values: Sequence[Any]) -> list[bytes] | None:
    """Encodes one-integer keys in a batch, as `encode_key((v,))` would; None if one is not int64.

    NB: the layout (tag 0x11, then v + 2**63 big-endian) is `kivi.keycodec`'s; a unit
    test holds the two equal.
    """
    if not values:
        return []
    if type(values) is not range and set(map(type, values)) != {int}:
        return None
    if min(values) < _I64_MIN or max(values) > _I64_MAX:
        return None
    bias = _BIAS
    return [b"\x11" + _pack_q(v + bias) for v in values]


def prefix_end(prefix: bytes) -> bytes | None:
    """Returns the smallest key greater than every key that starts with `prefix`."""
    p = bytearray(prefix)
    while p and p[-1] == 0xFF:
        p.pop()
    if not p:
        return None
    p[-1] += 1
    return bytes(p)


_FRACTIONAL = {T.TIMESTAMP, T.TIMESTAMPTZ, T.TIME, T.TIMETZ}


def _round_fraction(precision: int) -> Callable[[Any], Any]:
    """Rounds a timestamp's or time's microseconds to `precision` digits (timestamp(p))."""

    unit = 10 ** (6 - precision)

    def conv(v: Any) -> Any:
        us = v.microsecond
        r = (us + unit // 2) // unit * unit
        if r == us:
            return v
        if isinstance(v, dt.datetime):
            return round_timestamp(v, unit)  # NB: PG's own rounding (pgtypes.fardate)
        full = dt.datetime.combine(dt.date(2000, 1, 1), v.replace(microsecond=0))
        return (full + dt.timedelta(microseconds=r)).timetz() if v.tzinfo else \
            (full + dt.timedelta(microseconds=r)).time()

    return conv


def collating(convs: list[tuple[int, Callable[[Any], Any]]],
              wraps: dict[int, Callable[[Any], Any]]) -> list[tuple[int, Callable[[Any], Any]]]:
    """The converters with each ICU column's value wrapper after its typmod (one converter
    per column, as COPY and ALTER TYPE apply them: `pgcatalog.collations.wrappers`)."""
    if not wraps:
        return convs
    out = [(pos, partial(_then, conv, wraps.pop(pos)) if pos in wraps else conv)
           for pos, conv in convs]
    return out + list(wraps.items())


def _then(first: Callable[[Any], Any], second: Callable[[Any], Any], v: Any) -> Any:
    return second(first(v))


def _convert(rows: list[list[Any]], convs: list[tuple[int, Callable[[Any], Any]]]) -> None:
    """Applies each (position, typmod converter) to the non-NULL values of that column."""
    for pos, conv in convs:
        for r in rows:
            v = r[pos]
            if v is not None:
                r[pos] = conv(v)


class TableWriter:
    """Everything needed to insert, update and delete rows of one table."""

    def __init__(self, s: SQLSession, table: Table) -> None:
        cat = s.catalog()
        self.table = table
        schema = cat.schema_by_oid(table.schema_oid)
        self.schema = schema.name if schema is not None else None  # the errors' s field
        self.space = table.space
        self.ncols = len(table.columns)
        self.pk = [a - 1 for a in table.primary_key]
        self.int_pk = len(self.pk) == 1 and table.columns[self.pk[0]].type_oid in _INT_TYPES
        self.pk_name = next((c.name for c in cat.constraints_of(table.oid) if c.kind == "p"), "")
        # DEFERRABLE unique and primary keys, by index OID: checked at the statement's end
        self.deferrable = {c.index_oid: c for c in cat.constraints_of(table.oid)
                           if c.kind in ("p", "u") and c.deferrable}
        self.pk_deferrable = any(c.kind == "p" for c in self.deferrable.values())
        self.not_null = [(c.attnum - 1, c.name) for c in table.live_columns if c.not_null]
        self.converters: list[tuple[int, Callable[[Any], Any]]] = []
        for c in table.live_columns:
            if c.type_oid in _FRACTIONAL and 0 <= c.typmod < 6:
                self.converters.append((c.attnum - 1, _round_fraction(c.typmod)))
            elif c.typmod > 4 or (c.typmod >= 0 and c.type_oid in T.ELEMENT_OF):
                f = cast_function(c.type_oid, c.type_oid, c.typmod)  # arrays: per element
                if f is not None:
                    self.converters.append((c.attnum - 1, f))
        self.converters = collating(self.converters, wrappers(cat, table))  # ICU columns
        # `converters` less the columns converted already, per such set (`prepare_rows`)
        self._convs: dict[frozenset[int], list[tuple[int, Callable[[Any], Any]]]] = {}
        self.indexes: list[Index] = [i for i in cat.indexes_of(table.oid) if i.space]
        self.checks = [c for c in cat.constraints_of(table.oid) if c.kind == "c"]
        # NB: a partition's rows keep its parents' foreign keys, and rows referencing its
        # parents reference it (sql.partitions)
        lineage = (table.oid, *ancestors(cat, table)) if table.partof else (table.oid,)
        self.fks = [c for o in lineage for c in cat.constraints_of(o) if c.kind == "f"]
        self.children = [c for c in cat.constraints if c.kind == "f" and c.ref_table_oid in lineage]
        # the columns children reference: an UPDATE that keeps them all has no ON UPDATE work
        self._referenced = frozenset(a - 1 for c in self.children for a in c.ref_columns)
        self._check_fns: list[tuple[str, Any]] | None = None
        self.generated = [c for c in table.live_columns if c.generated]
        self.domains = domain_checks(s, cat, table)  # CREATE DOMAIN columns
        self._gen_fns: list[tuple[int, Any]] | None = None
        self._session = s
        self._index_keys: dict[int, Callable[[tuple[Any, ...]], tuple]] = {}
        self._predicates: dict[int, Callable[[tuple[Any, ...]], bool] | None] = {}
        self.triggers = TableTriggers.of(cat, table)  # None: no enabled trigger (the usual)
        self.exclusions = exclusions_of(s, table)  # EXCLUDE constraints, compiled
        self.bound = bound_check(cat, table) if table.partof else None  # a partition's

    # -- keys ---------------------------------------------------------------

    def key_of(self, row: tuple[Any, ...]) -> bytes:
        """Returns the KiVi key of a row (primary-key tables only)."""
        return encode_key(tuple(row[i] for i in self.pk))

    def new_keys(self, s: SQLSession, rows: list[tuple[Any, ...]]) -> list[bytes]:
        """Returns the keys of new rows: primary-key values or fresh hidden row ids."""
        if self.pk:
            if self.int_pk:
                keys = int_keys(list(map(itemgetter(self.pk[0]), rows)))
                if keys is not None:
                    return keys
            return [encode_key(tuple(r[i] for i in self.pk)) for r in rows]
        start = s.store.allocate_rowids(self.table.oid, len(rows))
        if len(rows) == 1 and start <= _I64_MAX:  # NB: an OLTP INSERT's one row id, as
            return [b"\x11" + _pack_q(start + _BIAS)]  # `int_keys` encodes it (no call)
        return int_keys(range(start, start + len(rows))) or [
            encode_key((start + i,)) for i in range(len(rows))]

    # -- checks -------------------------------------------------------------

    def prepare_rows(self, s: SQLSession, rows: list[list[Any]] | list[tuple[Any, ...]],
                     converted: frozenset[int] = frozenset(),
                     stored: frozenset[int] = frozenset()) -> list[tuple[Any, ...]]:
        """Computes generated columns, applies typmods, checks NOT NULL and CHECK constraints.

        Rows may be lists or tuples (COPY's batch path hands tuples); only the
        generated columns and typmod converters need lists to write into. Columns in
        `converted` already had their typmods applied (COPY does it a column at a time,
        where it can say which line a bad value came from). Columns in `stored` hold
        the values stored before (an UPDATE's columns it does not set): their NOT NULL
        held when they were written, so it is not checked again.

        `s` is the writing session: the writer is shared by every session on the same
        catalog, and its checks (a view's WITH CHECK OPTION subquery, a CHECK or domain
        calling a function) run in the writer's transaction and settings, not in those of
        the session that built the writer (which may have ended).
        """
        convs = self._convs.get(converted)
        if convs is None:  # NB: an UPDATE's columns it does not set: one set per statement
            convs = self._convs[converted] = [c for c in self.converters
                                              if c[0] not in converted]
        if convs and not self.generated and len(rows) == 1:
            # NB: one row (an OLTP INSERT or UPDATE): converted in a copy, not transposed
            # (`_convert`'s steps for it, inline)
            one = list(rows[0])
            for pos, conv in convs:
                v = one[pos]
                if v is not None:
                    one[pos] = conv(v)
            out = [tuple(one)]
        elif convs and not self.generated and rows:
            # NB: transposed, each typmod runs over a whole column in one comprehension and
            # the rows are rebuilt by zip in C (no list per row); same order of errors
            cols = list(zip(*rows, strict=True))
            for pos, conv in convs:
                cols[pos] = tuple([None if v is None else conv(v) for v in cols[pos]])
            out = list(zip(*cols, strict=True))
        elif self.generated or convs:
            # NB: a generated column reads the others as stored, after their typmods (a
            # numeric(5,1) given 3.37 is 3.4 to it), and then gets its own
            lists = [r if type(r) is list else list(r) for r in rows]
            gen = {c.attnum - 1 for c in self.generated}
            _convert(lists, [pc for pc in convs if pc[0] not in gen])
            if self.generated:
                self._compute_generated(s, lists)
            _convert(lists, [pc for pc in convs if pc[0] in gen])
            out = [tuple(r) for r in lists]
        elif rows and type(rows[0]) is tuple and set(map(type, rows)) == {tuple}:
            out = rows  # all tuples: COPY's batches, no pass
        else:
            out = list(map(tuple, rows))  # NB: C-level; a tuple's tuple() is the tuple itself
        if self.bound is not None:  # NB: before NOT NULL and CHECK, as ExecInsert
            self.bound(out, partial(_row_text, table=self.table))
        for pos, name in self.not_null:
            if pos in stored:
                continue
            # NB: one C-level pass per column, by identity: `None in` compares each value with
            # None, and Decimal's == runs an ABC instance check (a numeric column cost 2 us/row)
            if not any(map(is_, map(itemgetter(pos), out), repeat(None))):
                continue
            for row in out:
                if row[pos] is None:
                    raise NotNullViolation(
                        f'null value in column "{name}" of relation "{self.table.name}" violates '
                        "not-null constraint",
                        detail=f"Failing row contains ({_row_text(row, self.table)}).",
                        table=self.table.name, schema=self.schema, column=name)
        if self.domains is not None:
            self.domains.run(s, out)
        if self.checks:
            self._run_checks(s, out)
        if view_checks() is not None:
            check_view_rows(s, self.table, out, lambda r: _row_text(r, self.table))
        return out

    def _compute_generated(self, s: SQLSession, rows: list[list[Any]]) -> None:
        """Fills GENERATED ALWAYS AS (expr) STORED columns from the other values of each row."""
        if self._gen_fns is None:

            scope = table_scope(self.table)
            self._gen_fns = []
            for c in self.generated:
                tree = parse_sql(f"SELECT {c.generated}").expressions[0]
                self._gen_fns.append((c.attnum - 1, compile_value(s, tree, c, scope,
                                                                  ParamTypes())))
        ctx = s.exec_context([])
        for r in rows:
            base = tuple(r)
            for pos, fn in self._gen_fns:
                r[pos] = fn(base, ctx)

    def _run_checks(self, s: SQLSession, rows: list[tuple[Any, ...]]) -> None:
        if self._check_fns is None:

            scope = table_scope(self.table)
            self._check_fns = []
            for c in self.checks:
                tree = parse_sql(f"SELECT {c.check}").expressions[0]
                fn = COMPILER.compile_scalar(tree, scope, s.catalog(), ParamTypes(),
                                             s.search_path(), 16)
                self._check_fns.append((c.name, fn.fn))
        ctx = s.exec_context([])
        for name, fn in self._check_fns:
            for r in rows:
                if fn(r, ctx) is False:
                    raise CheckViolation(
                        f'new row for relation "{self.table.name}" violates check constraint '
                        f'"{name}"', detail=f"Failing row contains ({_row_text(r, self.table)}).",
                        table=self.table.name, schema=self.schema, constraint=name)

    def check_unique(self, s: SQLSession, txn: Any, keys: list[bytes],
                     rows: list[tuple[Any, ...]], skip_pk: bool = False) -> None:
        """Raises 23505 if a new row collides with a stored row or with another new row."""
        if self.pk and not skip_pk and not self._pk_range_free(txn, keys):
            seen: set[bytes] = set()
            existing = txn.get_unread(self.space, keys)
            if txn.isolation == "read committed" and any(o is not None for o in existing):
                existing = self._pk_recheck(txn, keys, existing)
            elif txn.isolation == "repeatable read" and any(o is not None for o in existing):
                existing = self._pk_newest(txn, keys)
            for k, old, r in zip(keys, existing, rows, strict=True):
                if old is not None or k in seen:
                    self._dup(self.pk_name, tuple(a + 1 for a in self.pk),
                              tuple(r[i] for i in self.pk))
                seen.add(k)
        for idx in self.indexes:
            if idx.unique:
                con = self.deferrable.get(idx.oid)
                if con is not None and is_deferred(s, con):
                    self._defer_unique(s, con, idx, rows)
                else:
                    self._check_index_unique(txn, idx, rows, set())
        for ex in self.exclusions:
            ex.check(s, keys, rows)

    def _defer_unique(self, s: SQLSession, con: Constraint, idx: Index,
                      rows: list[tuple[Any, ...]]) -> None:
        """Records the rows' keys in a deferred unique index for COMMIT's check (locked
        as `_claim` says, so that a concurrent writer of one waits for this one), noting
        whether one met another entry or an earlier row of the batch, as PostgreSQL's
        UNIQUE_CHECK_PARTIAL insert queues the recheck only then."""
        txn = s.txn
        wanted = [w for w in self._claim(txn, idx, rows) if w is not None]
        covers = self._covers(idx)
        met = len({p for _, p in wanted}) < len(wanted)
        with txn.fresh_snapshot(latest=True):
            for _, prefix in wanted:
                if met:
                    break
                for batch in txn.scan(ScanSpec(idx.space, prefix, prefix_end(prefix),
                                               limit=None if covers else 1, with_keys=True)):
                    met = met or any(covers is None or self._entry_covered(txn, covers, e)
                                     for e in batch)
        defer_unique_keys(s, con, [w[0] for w in wanted], met)

    def recheck_unique(self, txn: Any, idx: Index, wanted: list[tuple[Any, ...]]) -> None:
        """COMMIT's check of a deferred unique index: 23505 for a key more than one row holds."""
        covers = self._covers(idx)
        with txn.fresh_snapshot(latest=True):
            for vals in wanted:
                prefix = encode_key(vals)
                n = 0
                for batch in txn.scan(ScanSpec(idx.space, prefix, prefix_end(prefix),
                                               with_keys=True)):
                    n += sum(1 for entry in batch
                             if covers is None or self._entry_covered(txn, covers, entry))
                if n > 1:
                    self._dup(idx.name, idx.columns, vals, idx.exprs)

    def _pk_recheck(self, txn: Txn, keys: list[bytes], existing: list[Any]) -> list[Any]:
        """READ COMMITTED: a key the snapshot shows taken is locked, and read again at
        the newest commit when it changed since the snapshot.

        Why: a concurrent transaction may be deleting that row (or moving its key).
        PostgreSQL's inserter waits for it and then finds the entry dead: the INSERT
        succeeds. Checking the snapshot alone raised 23505 for a row already gone.
        """
        taken = [k for k, o in zip(keys, existing, strict=True) if o is not None]
        if not txn.lock_row(self.space, taken, UPDATE):
            return existing  # NB: every one as the snapshot saw it: still there
        with txn.fresh_snapshot(latest=True):
            return txn.get(self.space, keys)

    def _pk_newest(self, txn: Txn, keys: list[bytes]) -> list[Any]:
        """REPEATABLE READ: the keys' rows at the newest commit; one the snapshot shows
        but a concurrent transaction has deleted since is locked in that newest version.

        Why: PostgreSQL checks uniqueness against every committed entry, whatever the
        snapshot: a key inserted concurrently is 23505 (here a write-write conflict,
        40001, `write_rows`), and a key whose row was deleted concurrently is free (the
        INSERT succeeds; checking the snapshot alone raised 23505).
        """
        with txn.fresh_snapshot(latest=True):
            newest = txn.get(self.space, keys)
        gone = [k for k, o in zip(keys, newest, strict=True) if o is None]
        if not gone:
            return newest
        txn.lock_row(self.space, gone, UPDATE, latest=True)  # NB: waits for a re-inserter
        with txn.fresh_snapshot(latest=True):
            return txn.get(self.space, keys)

    def _pk_taken(self, txn: Txn, keys: list[bytes], rows: list[tuple[Any, ...]]) -> None:
        """REPEATABLE READ, after a write-write conflict on new keys: 23505 for the first
        key a concurrent transaction committed a row under, as PostgreSQL reports."""
        with txn.fresh_snapshot(latest=True):
            newest = txn.get(self.space, keys)
        for old, r in zip(newest, rows, strict=True):
            if old is not None:
                self._dup(self.pk_name, tuple(a + 1 for a in self.pk),
                          tuple(r[i] for i in self.pk))

    def _pk_range_free(self, txn: Txn, keys: list[bytes]) -> bool:
        """Tells, with one short scan, that no stored key lies within the batch's key range.

        A bulk load of new ids (COPY, multi-row INSERT) then skips one lookup per
        row. The keys must also be distinct; otherwise the per-key check reports
        the duplicate. SERIALIZABLE keeps the point reads: a range read would
        make concurrent inserts elsewhere in the range look like conflicts.
        """
        if len(keys) < 64 or txn.isolation == "serializable":
            return False
        ascending = type(keys) is AscendingKeys or all(  # NB: a load's usual order
            map(lt, keys, islice(keys, 1, None)))
        lo, hi = (keys[0], keys[-1]) if ascending else (min(keys), max(keys))
        for batch in txn.scan(ScanSpec(self.space, lo, hi + b"\x00", projection=(), limit=1)):
            if batch:
                return False
        return ascending or len(set(keys)) == len(keys)

    def _check_index_unique(self, txn: Any, idx: Index, rows: list[tuple[Any, ...]],
                            ignore: set[bytes], old: list[tuple[Any, ...]] | None = None
                            ) -> None:
        """23505 if a row's key is in the index or in an earlier row. With `old` (an
        UPDATE's rows before it, whose entries are gone already), a row's key also
        collides with the old key of a later row: PostgreSQL checks each row as it
        writes it, while the rows after it still hold their old keys."""
        key = self.index_key(idx)
        covers = self._covers(idx)
        claimed = self._claim(txn, idx, rows)
        seen: set[bytes] = set()
        waiting: dict[bytes, int] = {}  # old keys of the rows not reached yet
        old_keys: list[bytes | None] = []
        for r in old or ():
            vals = key(r)
            k = None if (None in vals and not idx.nulls_not_distinct) or (
                covers is not None and not covers(r)) else encode_key(vals)
            old_keys.append(k)
            if k is not None:
                waiting[k] = waiting.get(k, 0) + 1
        with txn.fresh_snapshot(latest=True):  # NB: every committed entry, as PG's check
            for i, wanted in enumerate(claimed):
                if old_keys and old_keys[i] is not None:
                    waiting[old_keys[i]] -= 1  # type: ignore[index]
                if wanted is None:
                    continue
                vals, prefix = wanted
                if prefix in seen or waiting.get(prefix):
                    self._dup(idx.name, idx.columns, vals, idx.exprs)
                seen.add(prefix)
                for batch in txn.scan(ScanSpec(idx.space, prefix, prefix_end(prefix),
                                               limit=2 if covers is None else None,
                                               with_keys=True)):
                    for entry in batch:
                        if entry[0] not in ignore and (
                                covers is None or self._entry_covered(txn, covers, entry)):
                            self._dup(idx.name, idx.columns, vals, idx.exprs)

    def _claim(self, txn: Any, idx: Index, rows: list[tuple[Any, ...]]
               ) -> list[tuple[tuple[Any, ...], bytes] | None]:
        """Each row's (key values, encoded) in a unique index (None: NULL or not covered),
        after locking each key value (`encode_key(vals)`, which no entry has: entries end
        with the row's key) FOR UPDATE until the transaction ends.

        Why: two transactions inserting one value would each find no entry at their
        snapshots, and both commit. With the lock the second waits for the first, as
        PostgreSQL's inserter waits on the first one's in-progress entry, and then checks
        the entries committed by then (`fresh_snapshot(latest=True)`): 23505 as in PG.
        """
        key = self.index_key(idx)
        covers = self._covers(idx)
        out: list[tuple[tuple[Any, ...], bytes] | None] = []
        for r in rows:
            vals = key(r)
            out.append(None if (None in vals and not idx.nulls_not_distinct) or (
                covers is not None and not covers(r)) else (vals, encode_key(vals)))
        claims = sorted({w[1] for w in out if w is not None})
        if claims and idx.space not in (txn.private or ()):  # NB: a space it made: no rival
            txn.lock_row(idx.space, claims, UPDATE)
        return out

    def _covers(self, idx: Index) -> Callable[[tuple[Any, ...]], bool] | None:
        """A partial index's predicate over rows (None: a full index covers every row)."""
        if not idx.predicate:
            return None
        fn = self._predicates.get(idx.oid)
        if fn is None:

            fn = self._predicates[idx.oid] = predicate_function(self._session, self.table, idx)
        return fn

    def _entry_covered(self, txn: Any, covers: Callable[[tuple[Any, ...]], bool],
                       entry: tuple[Any, ...]) -> bool:
        """Tells whether the row an index entry points at is covered by the predicate.

        Entries are written for every row (the planner may read a partial index as a
        full one), so a partial unique index checks each candidate's row.
        """
        ref = entry[1:]
        tkey = encode_key(ref) if self.pk else ref[0]
        (row,) = txn.get(self.space, [tkey])
        return row is not None and covers(row)

    def _dup(self, name: str, cols: tuple[int, ...], vals: tuple[Any, ...],
             exprs: tuple[str, ...] = ()) -> None:
        raise UniqueViolation(
            f'duplicate key value violates unique constraint "{name}"',
            detail=key_detail(self.table, cols, vals, exprs), table=self.table.name, schema=self.schema,
            constraint=name)

    def index_key(self, idx: Index) -> Callable[[tuple[Any, ...]], tuple]:
        """Returns row -> key values of a secondary index (compiled once per writer)."""
        fn = self._index_keys.get(idx.oid)
        if fn is None:

            fn = self._index_keys[idx.oid] = key_function(self._session, self.table, idx)
        return fn

    def check_fks(self, s: SQLSession, txn: Any, rows: list[tuple[Any, ...]],
                  old: list[tuple[Any, ...]] | None = None,
                  keys: list[bytes] | None = None, only_fk: Constraint | None = None) -> None:
        """Raises 23503 if a new row references a missing parent row.

        With `keys` (the rows' keys), a deferred foreign key records them for COMMIT
        instead (`deferred`); `only_fk` runs one constraint's check (COMMIT's). With `old`
        (an UPDATE's rows before it), a row whose referencing columns kept values equal
        to their old ones is not checked, as PostgreSQL's RI_FKey_fk_upd_check_required:
        no parent read, no FOR KEY SHARE on it (TPC-C's `UPDATE order_line SET
        ol_delivery_d` looked its parents up again); a deferred key by the same rule
        (`defer_child_rows`)."""
        cat = s.catalog()
        for fk in self.fks if only_fk is None else [only_fk]:
            if keys is not None and fk.deferrable and is_deferred(s, fk):
                defer_child_rows(s, fk, keys, None if old is None else (old, rows))
                continue
            pos = [a - 1 for a in fk.columns]
            fk_rows = rows
            if old is not None:
                refs = itemgetter(*pos)
                fk_rows = [r for o, r in zip(old, rows, strict=True) if refs(o) != refs(r)]
            parent = cat.table_by_oid(fk.ref_table_oid)
            wanted = {}
            for r in fk_rows:
                vals = tuple(r[i] for i in pos)
                if None not in vals:
                    wanted[vals] = r
            if not wanted or parent is None:
                continue
            refd = list(wanted)
            casts = parent_casts(self.table, parent, fk)
            if casts is not None:  # NB: an int8 key into a numeric one looks for the numeric
                refd = [tuple(v if f is None else f(v) for f, v in zip(casts, vals, strict=True))
                        for vals in refd]
            # NB: a primary key's values are encoded once, for the read and for the lock
            pkeys = [encode_key(v) for v in refd] \
                if tuple(parent.primary_key) == tuple(fk.ref_columns) else None
            missing = find_missing_parents(s, txn, parent, fk.ref_columns, refd, pkeys)
            if not missing and pkeys is not None:
                # NB: as PostgreSQL's RI check, FOR KEY SHARE on the parents: a concurrent
                # DELETE of one waits for this transaction; one committed first is rechecked
                got = txn.lock_row(parent.space, pkeys, KEY_SHARE)
                if got > 0:
                    with txn.fresh_snapshot():
                        missing = find_missing_parents(s, txn, parent, fk.ref_columns, refd)
            if missing:
                vals = missing[0]
                names = ", ".join(self.table.columns[i].name for i in pos)
                shown = ", ".join(to_text(v) for v in vals)
                con = error_name(cat, fk, self.table.oid, True)  # NB: a partition's copy
                raise ForeignKeyViolation(
                    f'insert or update on table "{self.table.name}" violates foreign key '
                    f'constraint "{con}"',
                    detail=f'Key ({names})=({shown}) is not present in table "{parent.name}".',
                    table=self.table.name, schema=self.schema, constraint=con)

    # -- writes -------------------------------------------------------------

    def index_entries(self, idx: Index, keys: list[bytes], rows: list[tuple[Any, ...]]
                      ) -> list[tuple[bytes, tuple[Any, ...]]]:
        """Returns the entries of one secondary index for some rows."""
        key = self.index_key(idx)
        if self.pk:
            return [(encode_key(key(r) + tuple(r[i] for i in self.pk)),
                     tuple(r[i] for i in self.pk)) for r in rows]
        return [(encode_key(key(r)) + k, (k,)) for k, r in zip(keys, rows, strict=True)]

    def insert(self, s: SQLSession, rows: list[list[Any]], check_unique: bool = True,
               converted: frozenset[int] = frozenset()) -> int:
        """Checks and writes new rows; returns how many (`converted`: see prepare_rows)."""
        return len(self.insert_rows(s, rows, check_unique, converted))

    def insert_rows(self, s: SQLSession, rows: list[list[Any]], check_unique: bool = True,
                    converted: frozenset[int] = frozenset(), before_fired: bool = False,
                    keys_out: list[bytes] | None = None) -> list[tuple[Any, ...]]:
        """As `insert`, and returns the rows as stored: after typmods and generated
        columns, which is what RETURNING shows (`prepare_rows` may build new tuples
        rather than write into `rows`). `before_fired`: the caller ran the BEFORE INSERT
        triggers already (ON CONFLICT: on the proposed row, before the arbiter check).
        `keys_out` gets the rows' keys, in order (RETURNING ctid of a row id)."""
        if self.triggers is not None:  # NB: the table's row triggers around `write_rows`
            return self.triggers.insert(self, s, rows, check_unique, converted, before_fired,
                                        keys_out)
        return self.write_rows(s, rows, check_unique, converted, keys_out)

    def write_rows(self, s: SQLSession, rows: list[list[Any]], check_unique: bool = True,
                   converted: frozenset[int] = frozenset(),
                   keys_out: list[bytes] | None = None) -> list[tuple[Any, ...]]:
        """`insert_rows` without triggers (what `firetriggers` runs between them)."""
        txn = s.txn
        tuples = self.prepare_rows(s, rows, converted)
        keys = self.new_keys(s, tuples)
        if keys_out is not None:
            keys_out.extend(keys)
        if check_unique and (self.pk or self.indexes or self.exclusions):  # NB: else no call
            self.check_unique(s, txn, keys, tuples)
        try:
            if len(keys) == 1:  # NB: one row (an OLTP INSERT): no list of pairs
                txn.put_one(self.space, keys[0], tuples[0])
            else:
                txn.put(self.space, list(zip(keys, tuples, strict=True)))
        except SerializationFailure as e:
            # NB: PostgreSQL's 23505 for a key a concurrent transaction inserted, unless
            # SERIALIZABLE reports the rival's read of it (RW_MESSAGE, `serial._hidden_insert`)
            if self.pk and check_unique and txn.isolation != "read committed" \
                    and e.message != RW_MESSAGE:
                self._pk_taken(txn, keys, tuples)
            raise
        for idx in self.indexes:
            txn.put(idx.space, self.index_entries(idx, keys, tuples))
        if self.fks:  # NB: after the writes, so rows of this batch can reference each other
            self.check_fks(s, txn, tuples, keys=keys)
        return tuples

    def delete(self, s: SQLSession, keys: list[bytes], rows: list[tuple[Any, ...]]) -> int:
        """Deletes rows by key (with their index entries and referencing rows)."""
        return len(self.delete_rows(s, keys, rows))

    def delete_rows(self, s: SQLSession, keys: list[bytes], rows: list[tuple[Any, ...]]
                    ) -> list[tuple[Any, ...]]:
        """As `delete`, and returns the rows deleted (a BEFORE trigger may keep some)."""
        if self.triggers is not None:
            return self.triggers.delete(self, s, keys, rows)
        return self.remove_rows(s, keys, rows)

    def remove_rows(self, s: SQLSession, keys: list[bytes], rows: list[tuple[Any, ...]]
                    ) -> list[tuple[Any, ...]]:
        """`delete_rows` without triggers."""
        txn = s.txn
        txn.delete(self.space, keys)
        for idx in self.indexes:
            txn.delete(idx.space, [k for k, _ in self.index_entries(idx, keys, rows)])
        if self.children:  # NB: after the deletes: rows deleted together may reference each other
            on_parent_delete(s, self, rows)
        return rows

    def child_writer(self, s: SQLSession, fk: Constraint) -> TableWriter:
        """The writer of the table whose foreign key `fk` references this one (cascades)."""
        return writer_for(s, s.catalog().existing_table(fk.table_oid))

    def update(self, s: SQLSession, keys: list[bytes], old: list[tuple[Any, ...]],
               new: list[list[Any]], kept: frozenset[int] = frozenset()) -> int:
        """Replaces rows: checks, moves rows whose primary key changed, maintains indexes.
        `kept`: columns the UPDATE does not set (stored values: their typmods hold already)."""
        return len(self.update_rows(s, keys, old, new, kept))

    def update_rows(self, s: SQLSession, keys: list[bytes], old: list[tuple[Any, ...]],
                    new: list[list[Any]], kept: frozenset[int] = frozenset()
                    ) -> list[tuple[Any, ...]]:
        """As `update`, and returns the new rows as stored (see `insert_rows`)."""
        if self.triggers is not None:
            return self.triggers.update(self, s, keys, old, new, kept)
        return self.replace_rows(s, keys, old, new, kept)

    def puts_one(self, kept: frozenset[int]) -> bool:
        """Whether `replace_rows` of one row by an UPDATE keeping the columns `kept` is
        `prepare_rows` and one `put` (a keyed UPDATE takes those two steps itself, with no
        list per argument): the table has no index, foreign key or exclusion constraint,
        and the UPDATE keeps the primary key and every column a foreign key references."""
        return not (self.indexes or self.fks or (self.children and not kept >= self._referenced)
                    or not kept.issuperset(self.pk))

    def prepares_plainly(self, kept: frozenset[int]) -> bool:
        """Whether `prepare_rows(s, rows, kept, kept)` (an UPDATE keeping the columns `kept`)
        is each row's `tuple` while no view check is in force (`viewcheck.in_force`): no
        typmod to apply or NOT NULL to check outside `kept`, no generated column, partition
        bound, domain or CHECK constraint (a keyed UPDATE's one row, `dml.update`)."""
        return not (self.generated or self.bound is not None or self.domains is not None
                    or self.checks or any(pos not in kept for pos, _ in self.converters)
                    or any(pos not in kept for pos, _ in self.not_null))

    def replace_rows(self, s: SQLSession, keys: list[bytes], old: list[tuple[Any, ...]],
                     new: list[list[Any]], kept: frozenset[int] = frozenset()
                     ) -> list[tuple[Any, ...]]:
        """`update_rows` without triggers."""
        txn = s.txn
        rows = self.prepare_rows(s, new, kept, kept)
        # NB: a primary key the statement does not set keeps the stored values, so the
        # stored keys (pgbench's UPDATEs: no key encoded again per row)
        new_keys = [self.key_of(r) for r in rows] if self.pk and not kept.issuperset(self.pk) \
            else keys
        moved = [i for i in range(len(rows)) if new_keys[i] != keys[i]] \
            if new_keys is not keys else []
        if moved:
            txn.delete(self.space, [keys[i] for i in moved])
            got = txn.get(self.space, [new_keys[i] for i in moved])
            seen = set()
            # NB: a plain key is checked row by row: the rows not reached yet hold their old keys
            waiting = set() if self.pk_deferrable else {keys[i] for i in moved}
            for i, g in zip(moved, got, strict=True):
                waiting.discard(keys[i])
                if g is not None or new_keys[i] in seen or new_keys[i] in waiting:
                    self._dup(self.pk_name, tuple(a + 1 for a in self.pk),
                              tuple(rows[i][p] for p in self.pk))
                seen.add(new_keys[i])
        for idx in self.indexes:
            key = self.index_key(idx)
            covers = self._covers(idx) if idx.unique else None
            changed = [i for i in range(len(rows)) if new_keys[i] != keys[i]
                       or key(old[i]) != key(rows[i])
                       or (covers is not None and covers(old[i]) != covers(rows[i]))]
            if not changed:
                continue
            old_entries = self.index_entries(idx, [keys[i] for i in changed],
                                             [old[i] for i in changed])
            txn.delete(idx.space, [k for k, _ in old_entries])
            new_rows = [rows[i] for i in changed]
            if idx.unique:
                con = self.deferrable.get(idx.oid)
                if con is None:
                    self._check_index_unique(txn, idx, new_rows, set(), [old[i] for i in changed])
                elif is_deferred(s, con):
                    self._defer_unique(s, con, idx, new_rows)
                else:  # NB: DEFERRABLE INITIALLY IMMEDIATE: at the end of the statement
                    self._check_index_unique(txn, idx, new_rows, set())
            txn.put(idx.space, self.index_entries(idx, [new_keys[i] for i in changed], new_rows))
            for ex in self.exclusions:
                if ex.idx.oid == idx.oid:  # NB: after the entries: a row skips its own
                    ex.check(s, [new_keys[i] for i in changed], new_rows)
        try:
            txn.put(self.space, list(zip(new_keys, rows, strict=True)))
        except SerializationFailure:
            if moved and txn.isolation == "repeatable read":  # NB: as `write_rows`
                self._pk_taken(txn, [new_keys[i] for i in moved], [rows[i] for i in moved])
            raise
        if self.children and not kept >= self._referenced:
            # NB: after the write: ON UPDATE CASCADE's children need the new key
            on_parent_update(s, self, old, rows)
        if self.fks:
            self.check_fks(s, txn, rows, old, keys=new_keys)
        return rows


def writer_for(s: SQLSession, table: Table) -> TableWriter:
    """Returns the cached TableWriter of a table for the session's current catalog."""
    cat = s.catalog()
    cache = cat.derived.setdefault("writers", {})
    w = cache.get(table.oid)
    if w is None or w.table is not table:
        # NB: a partitioned table's router answers INSERT's, COPY's, UPDATE's and DELETE's
        # batch calls by its partitions' writers (dml.partrouter)
        w = cast(TableWriter, PartitionRouter(s, table, writer_for)) if table.partkey \
            else TableWriter(s, table)
        cache[table.oid] = w
    return w


def writer_of(s: SQLSession, table: Table, cat: CatalogSnapshot | None = None) -> TableWriter:
    """Returns the TableWriter of `table` as the session's current catalog has it.

    The same as `writer_for(s, catalog.table_by_oid(table.oid) or table)`, minus the
    search of the catalog's tables on every statement (remembered per catalog). `cat`:
    that catalog when the caller has it at hand (its statement's ExecContext's), which
    saves the `s.catalog()` call.
    """
    if cat is None:
        cat = s.catalog()
    resolved = cat.derived.setdefault("resolved_writers", {})
    w = resolved.get(table.oid)
    if w is None:
        w = resolved[table.oid] = writer_for(s, cat.table_by_oid(table.oid) or table)
    return w


_INTS = frozenset((T.INT2, T.INT4, T.INT8))


def parent_casts(child: Table, parent: Table, fk: Constraint) -> list[Any] | None:
    """Per foreign-key column, how a child's value becomes the referenced column's type
    where the two are stored apart (an integer key referencing numeric or float8, which
    PostgreSQL compares after the implicit cast); None when every column matches. Key
    encodings differ by type: an int 5 is not found among numeric keys as Decimal 5."""
    casts: list[Any] = []
    for a, b in zip(fk.columns, fk.ref_columns, strict=True):
        ct, pt = child.columns[a - 1].type_oid, parent.columns[b - 1].type_oid
        if pt == T.NUMERIC and ct in _INTS:
            casts.append(Decimal)
        elif pt in (T.FLOAT4, T.FLOAT8) and ct != pt and (ct in _INTS or ct == T.NUMERIC):
            casts.append(float)
        else:
            casts.append(None)
    return casts if any(casts) else None


def find_missing_parents(s: SQLSession, txn: Any, parent: Table, ref_cols: tuple[int, ...],
                         wanted: list[tuple[Any, ...]], keys: list[bytes] | None = None
                         ) -> list[tuple[Any, ...]]:
    """Returns the value tuples of `wanted` that no row of `parent` has in `ref_cols`
    (`keys`: their encoded keys, when `ref_cols` are the parent's primary key)."""
    if parent.partkey:  # NB: a partitioned table's rows are its partitions'
        for leaf in leaves(s.catalog(), parent):
            wanted = find_missing_parents(s, txn, leaf, ref_cols, wanted) if wanted else wanted
        return wanted
    if tuple(parent.primary_key) == tuple(ref_cols):
        got = txn.get(parent.space, keys if keys is not None else [encode_key(v) for v in wanted])
        return [v for v, g in zip(wanted, got, strict=True) if g is None]
    cat = s.catalog()
    idx = next((i for i in cat.indexes_of(parent.oid) if i.space and i.columns == ref_cols), None)
    missing = []
    for v in wanted:
        if idx is not None:
            p = encode_key(v)
            spec = ScanSpec(idx.space, p, prefix_end(p), limit=1)
        else:
            conds = [("cmp", "=", ("col", a - 1), ("const", x)) for a, x in zip(
                ref_cols, v, strict=True)]
            spec = ScanSpec(parent.space, filter=("and", conds), limit=1)
        if not any(batch for batch in txn.scan(spec)):
            missing.append(v)
    return missing


def validate_existing(s: SQLSession, table: Table, con: Constraint) -> None:
    """Checks a newly added FOREIGN KEY or CHECK constraint against the stored rows."""
    txn = s.ensure_txn()
    w = TableWriter(s, table)
    for batch in txn.scan(ScanSpec(table.space, batch_size=4096)):
        if con.kind == "f":
            w.fks = [con]
            w.check_fks(s, txn, batch)
        elif con.kind == "c":
            w.checks = [con]
            w._check_fns = None
            try:
                w._run_checks(s, batch)
            except CheckViolation:
                raise CheckViolation(  # NB: PostgreSQL's wording for existing rows
                    f'check constraint "{con.name}" of relation "{table.name}" is violated by '
                    "some row", table=table.name, constraint=con.name) from None


def _row_text(r: tuple[Any, ...], table: Table) -> str:
    return ", ".join("null" if r[c.attnum - 1] is None else value_text(r[c.attnum - 1])
                     for c in table.live_columns)
