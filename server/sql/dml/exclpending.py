"""The rows in-progress transactions wrote under EXCLUDE constraints, so that a writer waits
only for a conflicting one, as PostgreSQL does.

PostgreSQL's check_exclusion_or_unique_constraint reads the index with a dirty
snapshot: it sees the entries of transactions still running, waits for the writer of
one that conflicts with the new row, and looks again. A Cumulo writer sees only
committed rows and its own, so each writer of a row under an EXCLUDE constraint (in
one process: `LocalTxnManager.alone`) first locks a *claim* key of its own in the
constraint's index space (`claim`, one per transaction, held until it ends; no entry
has such a key), then registers the row's key values here and gets back those of the
other transactions. For each of those that conflicts with one of its rows it waits for
that transaction to end by locking the rival's claim, then reads the committed rows.
Of two writers racing, the one registered second sees the first, whose claim is held
already; if each sees the other, each waits for the other and one of them gets 40P01,
as two PostgreSQL writers of conflicting rows may.

A transaction's rows stay registered until it has ended, rows of a rolled-back
savepoint or statement too: a rival then waits for the transaction's end (unless the
claim itself was taken there and so released), where PostgreSQL waits only for the
subtransaction's. Each writer drops the rows of transactions marked done, in any space
(`ended`), after locking their claims (`forget`): the commit marks a transaction done
before its rows are applied, and releases its locks after, so until then its rows must
still be waited for.

    >>> class T:
    ...     done = False
    >>> p = Pending()
    >>> a, b = T(), T()
    >>> p.register(5, a, [((1,), b"ca")])
    []
    >>> p.register(5, b, [((2,), b"cb")]) == [(a, ((1,), b"ca"))]
    True
    >>> a.done = True
    >>> p.ended() == [(5, a)]
    True
    >>> p.forget(5, {a})
    >>> p.register(5, b, [])
    []
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

_CLAIM = b"\x00\x01"  # NB: no encoded key starts so (element tags are 0x10 and above)

Entry = tuple[tuple[Any, ...], bytes]  # (a row's key values, its claim)


def claim(tid: int) -> bytes:
    """The claim key of transaction `tid`'s rows (in the index's space)."""
    return _CLAIM + tid.to_bytes(8, "big")


class Pending:
    """The registered rows of one transaction manager, per index space (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rows: dict[int, dict[Any, list[Entry]]] = {}  # space -> txn -> entries

    def register(self, space: int, txn: Any, entries: list[Entry]) -> list[tuple[Any, Entry]]:
        """Adds txn's entries; returns the other transactions' (transaction, entry)."""
        with self._lock:
            by_txn = self._rows.setdefault(space, {})
            if entries:
                by_txn.setdefault(txn, []).extend(entries)
            return [(t, e) for t, es in by_txn.items() if t is not txn for e in es]

    def ended(self) -> list[tuple[int, Any]]:
        """(space, transaction) of every registered transaction marked done, in any space:
        a writer of any EXCLUDE table drops them (`forget`, after locking their claims), so
        the rows of a table nobody writes again are not kept."""
        with self._lock:
            return [(sp, t) for sp, by_txn in self._rows.items() for t in by_txn if t.done]

    def forget(self, space: int, txns: set[Any]) -> None:
        """Drops the entries of transactions that have ended (their claims released)."""
        with self._lock:
            by_txn = self._rows.get(space)
            if by_txn is None:
                return
            for t in txns:
                by_txn.pop(t, None)
            if not by_txn:
                del self._rows[space]


_PENDING: weakref.WeakKeyDictionary[Any, Pending] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def pending_of(ltm: Any) -> Pending:
    """The registry of one local transaction manager (made when first asked)."""
    with _LOCK:
        p = _PENDING.get(ltm)
        if p is None:
            p = _PENDING[ltm] = Pending()
        return p
