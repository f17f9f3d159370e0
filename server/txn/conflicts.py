"""Conflict managers: first-updater-wins write-write detection, per hash bucket of keys.

Each key `(space, key)` falls into bucket `hash(space, key) mod B`; each
conflict manager owns some buckets, so the managers split the work and the
LTM sends a key only to its owner. A manager remembers, for its keys:

- the *holder*: the active transaction that has written the key (at most one);
- the *last commit*: the commit timestamp of the key's newest committed write,
  kept while some active snapshot may be older than it (pruned by `Prune`).

`Acquire(txn, snapshot, keys)` answers, key by key:

- holder is another transaction -> `Wait(txn, holder)`: the caller blocks
  until the holder ends and then asks again (PostgreSQL behaviour);
- last commit > snapshot -> `Conflict(txn, key, ts)`: a lost update, 40001
  (or a statement retry under READ COMMITTED);
- otherwise the txn becomes the holder; `Granted(txn)` once every key is held.
  A key the txn already holds passes at once. A snapshot of `LATEST` waives the
  last-commit check: READ COMMITTED's row locks (EvalPlanQual) use it.

`Release(txn, keys, commit_ts)` drops the holds (recording the commit when
`commit_ts` is set) and answers `Woken(waiters)`. Keys of a space the
transaction created itself are never held (nobody else can see that space
before the commit): its Release records the whole space as committed at
`commit_ts` (`spaces`; kept in `born` until pruned), which then counts as the
last commit of every key of that space that has none of its own.
SERIALIZABLE's messages (`Validate`, `Probe`, `Settle`) go to the manager's
`ser` half (see `validate`). The managers are state
machines with no I/O and no threads; blocking and the wait-for graph
(`WaitForGraph`, deadlock detection across all managers) live with the caller.
"""

from __future__ import annotations

import zlib
from collections import deque
from dataclasses import dataclass
from itertools import repeat
from operator import itemgetter
from typing import Any

from .rowlocks import NO_KEY_UPDATE, UPDATE, ShareLocks
from .validate import Probe as Probe
from .validate import SerialState, Settle, Validate

Key = tuple[int, bytes]
LATEST = (1 << 63) - 1  # a snapshot newer than any commit



@dataclass(frozen=True)
class Acquire:
    """Asks for keys in a PostgreSQL row-lock mode (`rowlocks`): a put takes NO_KEY_UPDATE,
    a delete UPDATE, SELECT ... FOR <mode> its mode."""

    txn: int
    snapshot: int
    keys: tuple[Key, ...]
    mode: int = NO_KEY_UPDATE


@dataclass(frozen=True)
class Release:
    """Drops txn's holds on keys; with `commit_ts`, records them (and `spaces`) as committed.

    `spaces` are spaces the transaction created itself (a new table, TRUNCATE's or
    ADD PRIMARY KEY's new space), whose keys it wrote without holding them: nobody
    else could see them before the commit.
    """

    txn: int
    keys: tuple[Key, ...]
    commit_ts: int | None = None
    spaces: tuple[int, ...] = ()


@dataclass(frozen=True)
class Prune:
    """Forgets last commits at or below `low_water` (no snapshot is older than it)."""

    low_water: int


@dataclass(frozen=True)
class Granted:
    txn: int


@dataclass(frozen=True)
class Wait:
    txn: int
    holder: int
    key: Key


@dataclass(frozen=True)
class Conflict:
    txn: int
    key: Key
    commit_ts: int


@dataclass(frozen=True)
class Woken:
    txns: tuple[int, ...]


def bucket_of(key: Key, buckets: int) -> int:
    """Returns the bucket of a key (stable across processes: no salted str/bytes hash)."""
    # NB: Python's hash of bytes is salted per process; cluster mode needs the same bucket
    # everywhere, hence crc32 (in C, about 0.1 us for a short key).
    h = zlib.crc32(key[1], key[0] & 0xFFFFFFFF)
    return h % buckets


class ConflictManager:
    """Holds and last-commit records for the keys of the buckets it owns."""

    def __init__(self, owned: frozenset[int] | None = None) -> None:
        self.owned = owned  # None: every bucket (a single manager)
        self.holders: dict[Key, int] = {}
        self.last_commit: dict[Key, int] = {}
        self.born: dict[int, int] = {}  # space -> commit ts of the txn that created it
        self.waiters: dict[int, set[int]] = {}  # holder txn -> txns waiting on it
        self.ser = SerialState()  # SERIALIZABLE: read timestamps, prepared writers, ranges
        self.locks = ShareLocks()  # FOR SHARE / FOR KEY SHARE holders, FOR UPDATE/delete marks

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        """Processes one message and returns the answers."""
        match msg:
            case Acquire(txn, snapshot, keys, mode):
                if mode != NO_KEY_UPDATE or (self.locks and not self.locks.disjoint(keys)):
                    return [self._acquire_mode(txn, snapshot, keys, mode)]
                return [self._acquire(txn, snapshot, keys)]
            case Release(txn, keys, commit_ts, spaces):
                if spaces and commit_ts is not None:
                    self.born.update(dict.fromkeys(spaces, commit_ts))
                return self._release(txn, keys, commit_ts)
            case Prune(low_water):
                self.last_commit = {k: t for k, t in self.last_commit.items() if t > low_water}
                if self.born:
                    self.born = {s: t for s, t in self.born.items() if t > low_water}
                self.ser.prune(low_water)
                self.locks.prune(low_water)
                return []
            case Validate() | Probe() | Settle():
                return self.ser.handle(self, msg)
        raise TypeError(f"conflict manager: unexpected message {msg!r}")

    def _acquire(self, txn: int, snapshot: int, keys: tuple[Key, ...]) -> Any:
        holders = self.holders
        last = self.last_commit
        born = self.born
        if (len(keys) > 64 and holders.keys().isdisjoint(keys) and last.keys().isdisjoint(keys)
                and (not born or born.keys().isdisjoint(map(itemgetter(0), keys)))):
            holders.update(dict.fromkeys(keys, txn))  # a bulk load of fresh keys: C-level only
            return Granted(txn)
        for key in keys:
            h = holders.get(key)
            if h == txn:
                continue  # checked when first taken (or waived by a READ COMMITTED lock)
            if h is not None:
                self.waiters.setdefault(h, set()).add(txn)
                return Wait(txn, h, key)
            ts = last.get(key)
            if ts is None and born:
                ts = born.get(key[0])  # NB: a key of a new space: the space's creation
            if ts is not None and ts > snapshot:
                return Conflict(txn, key, ts)
            holders[key] = txn
        return Granted(txn)

    def _acquire_mode(self, txn: int, snapshot: int, keys: tuple[Key, ...], mode: int) -> Any:
        """`_acquire` for a lock mode other than a write's, or once such locks exist."""
        if mode == UPDATE and not self.locks:  # a delete meeting no row lock: the fast path
            out = self._acquire(txn, snapshot, keys)
            if type(out) is Granted:
                self.locks.exclusive.update(keys)
            return out
        out = self.locks.acquire(self, txn, snapshot, keys, mode)
        if out is None:
            return Granted(txn)
        if out[0] == "wait":
            return Wait(txn, out[1], out[2])
        return Conflict(txn, out[1], out[2])

    def _release(self, txn: int, keys: tuple[Key, ...], commit_ts: int | None) -> list[Any]:
        holders = self.holders
        if self.locks:
            self.locks.release(self, txn, keys, commit_ts)
        if len(keys) > 64 and list(map(holders.get, keys)).count(txn) == len(keys) and (
            commit_ts is None or self.last_commit.keys().isdisjoint(keys)
        ):  # all held by txn, none committed before (a bulk load): C-level only
            deque(map(holders.pop, keys, repeat(None)), maxlen=0)
            if commit_ts is not None:
                self.last_commit.update(dict.fromkeys(keys, commit_ts))
            one_by_one: tuple[Key, ...] = ()
        else:
            one_by_one = keys
        for key in one_by_one:
            if holders.get(key) == txn:
                del holders[key]
                if commit_ts is not None:
                    last = self.last_commit.get(key)
                    if last is None or last < commit_ts:
                        self.last_commit[key] = commit_ts
        if self.ser.prepared:
            self.ser.release(txn, keys)  # NB: in the same step as last_commit (see validate)
        woken = self.waiters.pop(txn, None)
        return [Woken(tuple(woken))] if woken else []


class WaitForGraph:
    """Who waits for whom; a waiter waits for one holder at a time, so cycles are chains."""

    def __init__(self) -> None:
        self.edges: dict[int, int] = {}

    def would_deadlock(self, waiter: int, holder: int) -> bool:
        """Tells whether waiter -> holder closes a cycle."""
        seen = 0
        t: int | None = holder
        while t is not None:
            if t == waiter:
                return True
            t = self.edges.get(t)
            seen += 1
            if seen > len(self.edges) + 1:  # a cycle not through us (cannot happen; be safe)
                return False
        return False

    def add(self, waiter: int, holder: int) -> None:
        """Records that waiter waits for holder."""
        self.edges[waiter] = holder

    def remove(self, waiter: int) -> None:
        """Forgets waiter's edge."""
        self.edges.pop(waiter, None)
