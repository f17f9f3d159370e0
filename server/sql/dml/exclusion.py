"""EXCLUDE constraints at write time: a new row conflicts with a stored one when every
element's operator holds between their keys (23P01), as PostgreSQL's
check_exclusion_or_unique_constraint.

The constraint's index (`ddl.exclusion`) is ordered by its keys, so the candidates
of a row are the entries under its leading `=` keys (all of them when the first
operator is another); each candidate's row is read, its keys computed, and the
operators applied as one compiled expression over both rows' keys. A row with a
NULL key conflicts with nothing (the operators are strict), nor does a row outside
a `WHERE` predicate.

Concurrency as PostgreSQL's: a writer waits only for a transaction still running that
wrote a row conflicting with its own (`exclpending`: the rows such transactions wrote
are registered in the process, each writer holding a claim its rivals wait on), then
reads every committed entry (`fresh_snapshot(latest=True)`): 23P01 if that rival
committed. A stored conflicting row another transaction is deleting or updating is
waited for too, and looked at again. In cluster mode, where other engines' rows are not
registered here, a writer instead locks the value of its leading `=` keys in the index
space (FOR UPDATE until it ends; entries never have that key), so two writers of rows
with the same leading `=` keys (with none, any two writers of the table) wait for each
other even when their rows do not conflict.

A DEFERRABLE constraint, while deferred, records the rows' keys instead
(`deferstate.defer_exclusion`); COMMIT or SET CONSTRAINTS ... IMMEDIATE rechecks
each row still there against all the others (`recheck`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ...errors import ExclusionViolation
from ...kivi.keycodec import encode_key, prefix_upper_bound
from ...txn.api import ScanSpec
from ...txn.rowlocks import NO_KEY_UPDATE, UPDATE
from ...txn.transaction import Transaction
from ..catalog.model import Constraint, Index, Table
from ..context import ParamTypes, ScopeColumn
from ..ddl.indexkeys import expr_types, key_function, predicate_function
from ..parse import parse_sql
from ..plan.compiler import COMPILER
from .deferstate import defer_exclusion, is_deferred
from .exclpending import claim, pending_of
from .keydetail import key_text

if TYPE_CHECKING:
    from ..session import SQLSession

Row = tuple[Any, ...]


class Exclusion:
    """One EXCLUDE constraint of one table, compiled for its writer."""

    def __init__(self, s: SQLSession, table: Table, con: Constraint, idx: Index) -> None:
        self.con, self.idx, self.table = con, idx, table
        self.key = key_function(s, table, idx)
        self.covers = predicate_function(s, table, idx)
        self.pk = [a - 1 for a in table.primary_key]
        self.eq = 0  # how many leading keys are compared with =: the candidates' prefix
        while self.eq < len(con.operators) and con.operators[self.eq] == "=":
            self.eq += 1
        self._conflict = _compile(s, table, con, idx)
        self._ctx = s.exec_context([])

    def conflicts(self, a: Row, b: Row) -> bool:
        return self._conflict(a + b, self._ctx) is True

    def keys_of(self, row: Row) -> Row | None:
        """The row's key values, or None when it cannot conflict (NULL, not covered)."""
        if self.covers is not None and not self.covers(row):
            return None
        vals = self.key(row)
        return None if None in vals else vals

    def check(self, s: SQLSession, keys: list[bytes], rows: list[Row]) -> None:
        """New rows (`keys`: their table keys): 23P01 for one that conflicts with a stored
        row or an earlier one of `rows`; deferred, only recorded."""
        if self.con.deferrable and is_deferred(s, self.con):
            defer_exclusion(s, self.con, keys)
            return
        txn = s.txn
        wanted = [(k, v) for k, v in zip(keys, map(self.keys_of, rows), strict=True)
                  if v is not None]
        if not wanted:
            return
        rivals = self.idx.space not in (txn.private or ())  # NB: a space it made: no rival
        if rivals and isinstance(txn, Transaction) and txn.ltm.alone:
            self._await_rivals(txn, wanted)
        elif rivals:  # NB: cluster mode: other engines' rows are not registered here
            txn.lock_row(self.idx.space, sorted({encode_key(v[:self.eq]) for _, v in wanted}),
                         UPDATE)
        done: list[Row] = []
        mine = set(keys)  # NB: an UPDATE wrote the rows' new entries already
        with txn.fresh_snapshot(latest=True):
            for _, vals in wanted:
                for other in done:
                    if self.conflicts(vals, other):
                        self._fail(vals, other)
                for tkey, other in self._stored(txn, vals):
                    if tkey not in mine and self.conflicts(vals, other) \
                            and self._still_there(txn, tkey, vals):
                        self._fail(vals, other)
                done.append(vals)

    def _await_rivals(self, txn: Transaction, wanted: list[tuple[bytes, Row]]) -> None:
        """Claims the new rows and waits for each running transaction that wrote a row
        conflicting with one of them (`exclpending`)."""
        space = self.idx.space
        mine = claim(txn.tid)
        txn.lock_row(space, [mine], NO_KEY_UPDATE, latest=True)  # NB: once per transaction
        pending = pending_of(txn.ltm)
        met = pending.register(space, txn, [(v, mine) for _, v in wanted])
        waited: set[bytes] = set()
        for _, (other, their) in met:
            if their not in waited and any(self.conflicts(v, other) for _, v in wanted):
                waited.add(their)
                txn.lock_row(space, [their], NO_KEY_UPDATE, latest=True)  # NB: until it ends
                txn.unlock_row(space, [their])
        for where, other_txn in pending.ended():
            # NB: once its claim is released, its rows are committed (or gone)
            their = claim(other_txn.tid)
            if where != space or their not in waited:
                txn.lock_row(where, [their], NO_KEY_UPDATE, latest=True)
                txn.unlock_row(where, [their])
            pending.forget(where, {other_txn})

    def _still_there(self, txn: Any, tkey: bytes, vals: Row) -> bool:
        """Whether a stored conflicting row holds once a transaction writing it (a delete,
        an update) has ended, as PostgreSQL waits for such a row's writer and looks again."""
        space = self.table.space
        if txn.holds((space, tkey)):
            return True
        txn.lock_row(space, [tkey], NO_KEY_UPDATE, latest=True)  # NB: waits for writers
        txn.unlock_row(space, [tkey])
        row = txn.get(space, [tkey])[0]
        other = None if row is None else self.keys_of(row)
        return other is not None and self.conflicts(vals, other)

    def recheck(self, txn: Any, keys: list[bytes]) -> None:
        """COMMIT's check of rows written while deferred, against every other row."""
        with txn.fresh_snapshot(latest=True):
            rows = txn.get(self.table.space, keys)
            for k, row in zip(keys, rows, strict=True):
                vals = None if row is None else self.keys_of(row)
                if vals is None:
                    continue
                for tkey, other in self._stored(txn, vals):
                    if tkey != k and self.conflicts(vals, other):
                        self._fail(vals, other)

    def check_all(self, txn: Any, name: str) -> None:
        """ADD EXCLUDE: the stored rows against each other (23P01 `could not create`)."""
        for batch in txn.scan(ScanSpec(self.table.space, batch_size=4096, with_keys=True)):
            for entry in batch:
                vals = self.keys_of(tuple(entry[1:]))
                if vals is None:
                    continue
                for tkey, other in self._stored(txn, vals):
                    if tkey != entry[0] and self.conflicts(vals, other):
                        raise ExclusionViolation(
                            f'could not create exclusion constraint "{name}"',
                            detail=f"{self._shown(vals)} conflicts with "
                                   f"key {self._shown(other)[4:]}.",
                            table=self.table.name, constraint=name)

    def _stored(self, txn: Any, vals: Row) -> Iterator[tuple[bytes, Row]]:
        """(table key, key values) of the stored rows under `vals`' leading `=` keys."""
        prefix = encode_key(vals[:self.eq]) if self.eq else None
        spec = ScanSpec(self.idx.space, prefix, prefix_upper_bound(prefix) if prefix else None,
                        with_keys=True)
        for batch in txn.scan(spec):
            tkeys = [encode_key(e[1:]) if self.pk else e[1] for e in batch]
            for tkey, row in zip(tkeys, txn.get(self.table.space, tkeys), strict=True):
                other = None if row is None else self.keys_of(row)
                if other is not None:
                    yield tkey, other

    def _shown(self, vals: Row) -> str:
        """`Key (a, b)=(1, x)`, as PostgreSQL's DETAIL names a key."""
        return key_text(self.table, self.idx.columns, vals, self.idx.exprs)

    def _fail(self, vals: Row, other: Row) -> None:
        raise ExclusionViolation(
            f'conflicting key value violates exclusion constraint "{self.con.name}"',
            detail=f"{self._shown(vals)} conflicts with existing key {self._shown(other)[4:]}.",
            table=self.table.name, constraint=self.con.name)


def _compile(s: SQLSession, table: Table, con: Constraint, idx: Index
             ) -> Callable[[Row, Any], Any]:
    """(keys of a + keys of b, ctx) -> whether every element's operator holds."""
    cols = {c.attnum: c for c in table.columns}
    it = iter(expr_types(table, idx.exprs))
    typed = [(cols[a].type_oid, cols[a].typmod) if a else (next(it), -1) for a in idx.columns]
    scope = [ScopeColumn(side, f"k{i}", t, m) for side in ("a", "b")
             for i, (t, m) in enumerate(typed)]
    text = " AND ".join(f"(a.k{i} {op} b.k{i})" for i, op in enumerate(con.operators))
    tree = parse_sql(f"SELECT {text}").expressions[0]
    return COMPILER.compile_scalar(tree, scope, s.catalog(), ParamTypes(), s.search_path()).fn


def exclusions_of(s: SQLSession, table: Table) -> list[Exclusion]:
    """The table's EXCLUDE constraints, compiled (the writer keeps them per catalog)."""
    cat = s.catalog()
    out = []
    for con in cat.constraints_of(table.oid):
        if con.kind == "x":
            idx = next((i for i in cat.indexes_of(table.oid) if i.oid == con.index_oid), None)
            if idx is not None:
                out.append(Exclusion(s, table, con, idx))
    return out


def check_existing(s: SQLSession, table: Table, con: Constraint, idx: Index) -> None:
    """ADD EXCLUDE on a table with rows: 23P01 when two of them conflict."""
    Exclusion(s, table, con, idx).check_all(s.ensure_txn(), con.name)
