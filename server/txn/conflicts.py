"""Conflict managers: first-updater-wins write-write detection, per hash bucket of keys.

Each key `(space, key)` falls into bucket `hash(space, key) mod B`; each
conflict manager owns some buckets, so the managers split the work and the
LTM sends a key only to its owner. A manager remembers, for its keys:

- the *holder*: the active transaction that has written the key (at most one);
- the *last commit*: the commit timestamp of the key's newest committed write,
  kept while some active snapshot may be older than it (pruned by `Prune`).

Both are kept per space, as dicts keyed by the key's bytes: a bytes object caches
its hash and the write set already computed it, so a bulk load's keys cost
C-level dict passes only (a dict keyed by `(space, key)` tuples rehashes a new
tuple per key and per lookup, which made COPY spend a quarter of the server here).

`Acquire(txn, snapshot, keys)` answers, key by key:

- holder is another transaction -> `Wait(txn, holder)`: the caller blocks
  until the holder ends and then asks again (PostgreSQL behaviour);
- last commit > snapshot -> `Conflict(txn, key, ts)`: a lost update, 40001
  (or a statement retry under READ COMMITTED);
- otherwise the txn becomes the holder; `Granted(txn)` once every key is held.
  A key the txn already holds passes at once. A snapshot of `LATEST` waives the
  last-commit check: READ COMMITTED's row locks (EvalPlanQual) use it.

`AcquireSpace` is the same for keys of one space given as bytes (the LTM's form:
no tuple per key). `Release(txn, keys, commit_ts)` (and `ReleaseSpaces`, keys grouped
per space) drops the holds, recording the commit when `commit_ts` is set, and answers
`Woken(waiters)`. Keys of a space the
transaction created itself are never held (nobody else can see that space
before the commit): its Release records the whole space as committed at
`commit_ts` (`spaces`; kept in `born` until pruned), which then counts as the
last commit of every key of that space that has none of its own.
SERIALIZABLE's messages (`Validate`, `Probe`, `Settle`) go to the manager's
`ser` half (see `validate`); it and the row-lock modes (`rowlocks`) see the
manager only through `holder`, `hold`, `committed_at`, `created_at` and `add_waiter`. The managers are state
machines with no I/O and no threads; blocking and the wait-for graph
(`WaitForGraph`, deadlock detection across all managers) live with the caller.

>>> cm = ConflictManager()
>>> cm.handle(AcquireSpace(1, 10, 7, (b"a", b"b")))
[Granted(txn=1)]
>>> cm.handle(AcquireSpace(2, 10, 7, (b"c", b"b")))
[Wait(txn=2, holder=1, key=(7, b'b'))]
>>> cm.handle(ReleaseSpaces(1, ((7, (b"a", b"b")),), 11))
[Woken(txns=(2,))]
>>> cm.handle(AcquireSpace(2, 10, 7, (b"c", b"b")))  # b committed after snapshot 10
[Conflict(txn=2, key=(7, b'b'), commit_ts=11)]
>>> dict(cm.holders), dict(cm.last_commit)  # c stays held by 2 (its caller releases it)
({(7, b'c'): 2}, {(7, b'a'): 11, (7, b'b'): 11})
"""

from __future__ import annotations

import zlib
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import repeat
from operator import countOf
from typing import Any, Protocol

from .keyspan import Bounds, KeySpan, bounds_of
from .rowlocks import NO_KEY_UPDATE, UPDATE, ShareLocks
from .validate import Probe as Probe
from .validate import SerialState, Settle, Validate

Key = tuple[int, bytes]
LATEST = (1 << 63) - 1  # a snapshot newer than any commit
BULK = 8  # keys from which an acquire or release tries the C-level passes first
SEALED_MAX = 4  # sealed key sets per space before the oldest is folded into per-key records
_DICT_KEYS: type = type({}.keys())
_NONE: Mapping[bytes, Any] = {}  # `release_writes`' stand-in for a space not written (never changed)


class KeySet(Protocol):
    """Keys kept whole: a dict (of holders), or a write set's keys of a space
    (`txn.runs.Held`: its dict and its sorted runs), asked as a dict's keys are."""

    def __contains__(self, key: object) -> bool: ...
    def __iter__(self) -> Iterator[bytes]: ...
    def __len__(self) -> int: ...
    def keys(self) -> Any: ...  # NB: something with isdisjoint (dict_keys, Held)


# a sealed key set: the keys, their commit ts, and the range of the bulk batches among them
# (`keyspan`; None: unknown). Keys outside those batches are recorded per key as well.
Sealed = tuple[KeySet, int, KeySpan | None]


@dataclass(frozen=True)
class Acquire:
    """Asks for keys in a PostgreSQL row-lock mode (`rowlocks`): a put takes NO_KEY_UPDATE,
    a delete UPDATE, SELECT ... FOR <mode> its mode."""

    txn: int
    snapshot: int
    keys: tuple[Key, ...]
    mode: int = NO_KEY_UPDATE


@dataclass(frozen=True)
class AcquireSpace:
    """`Acquire` for keys of one space, as bytes (a batch of a bulk write: no tuple per key)."""

    txn: int
    snapshot: int
    space: int
    keys: tuple[bytes, ...]
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
class ReleaseSpaces:
    """`Release` with the keys grouped per space: `groups` is ((space, (key, ...)), ...)."""

    txn: int
    groups: tuple[tuple[int, Collection[bytes]], ...]  # in-process: the write set's key views
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


def by_space(keys: tuple[Key, ...] | list[Key]) -> dict[int, list[bytes]]:
    """Groups (space, key) pairs per space, in order of first appearance."""
    groups: dict[int, list[bytes]] = {}
    for s, k in keys:
        g = groups.get(s)
        if g is None:
            groups[s] = [k]
        else:
            g.append(k)
    return groups


class KeyView(Mapping[Key, int]):
    """A read-only `(space, key) -> value` view of per-space dicts (tests and debugging)."""

    __slots__ = ("_d",)

    def __init__(self, per_space: dict[int, dict[bytes, int]]) -> None:
        self._d = per_space

    def __getitem__(self, key: Key) -> int:
        return self._d[key[0]][key[1]]

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 2:
            return False
        d = self._d.get(key[0])
        return d is not None and key[1] in d

    def __iter__(self) -> Iterator[Key]:
        for s, d in list(self._d.items()):
            for k in list(d):
                yield (s, k)

    def __len__(self) -> int:
        return sum(map(len, self._d.values()))


class ConflictManager:
    """Holds and last-commit records for the keys of the buckets it owns."""

    def __init__(self, owned: frozenset[int] | None = None) -> None:
        self.owned = owned  # None: every bucket (a single manager)
        self._holds: dict[int, dict[bytes, int]] = {}  # space -> key -> holder txn
        self._commits: dict[int, dict[bytes, int]] = {}  # space -> key -> last commit ts
        self._newest: dict[int, int] = {}  # space -> the largest ts in _commits[space]
        # space -> [(keys, commit ts)]: a bulk commit's whole holders dict, kept as it was
        # (`_release`); a key's last commit is the newest of its record and these
        self._sealed: dict[int, list[Sealed]] = {}
        self._spans: dict[int, KeySpan] = {}  # space -> the range of the keys in _commits
        # space -> txn -> the keys txn holds there as a whole (`acquire_bulk`: its write
        # set's keys of the space, `WriteSet.held`, shared, not copied); sealed whole at
        # its commit
        self._bulk: dict[int, dict[int, KeySet]] = {}
        # (space, txn) -> the range of the batches of txn's bulk hold there; a key of the
        # held dict outside them was taken one by one (it is in _holds too)
        self._bulk_spans: dict[tuple[int, int], KeySpan] = {}
        self.born: dict[int, int] = {}  # space -> commit ts of the txn that created it
        self.waiters: dict[int, set[int]] = {}  # holder txn -> txns waiting on it
        self.ser = SerialState()  # SERIALIZABLE: read timestamps, prepared writers, ranges
        self.locks = ShareLocks()  # FOR SHARE / FOR KEY SHARE holders, FOR UPDATE/delete marks

    # -- the narrow interface of `rowlocks` and `validate` ------------------------------

    @property
    def holders(self) -> KeyView:
        """Every held key -> its holder (a view; a copy when keys are held in bulk)."""
        if not self._bulk:
            return KeyView(self._holds)
        merged = {s: dict(d) for s, d in self._holds.items()}
        for space, per_txn in self._bulk.items():
            d = merged.setdefault(space, {})
            for txn, keys in per_txn.items():
                d.update(dict.fromkeys(keys, txn))
        return KeyView(merged)

    @property
    def last_commit(self) -> KeyView:
        """Every remembered key -> its last commit ts (a copy when key sets are sealed)."""
        if not self._sealed:
            return KeyView(self._commits)
        merged = {s: dict(d) for s, d in self._commits.items()}
        for space, sealed in self._sealed.items():
            d = merged.setdefault(space, {})
            for keys, ts, _ in sealed:
                for k in keys:
                    if d.get(k, -1) < ts:
                        d[k] = ts
        return KeyView(merged)

    def holder(self, space: int, key: bytes) -> int | None:
        """The transaction holding key, or None."""
        d = self._holds.get(space)
        h = None if d is None else d.get(key)
        if h is None and self._bulk:
            h = self._bulk_holder(space, key)
        return h

    def hold(self, space: int, key: bytes, txn: int) -> None:
        """Makes txn the key's holder."""
        d = self._holds.get(space)
        if d is None:
            self._holds[space] = {key: txn}
        else:
            d[key] = txn

    def committed_at(self, space: int, key: bytes) -> int | None:
        """The key's last commit ts (its space's creation if it has none), or None."""
        d = self._commits.get(space)
        ts = None if d is None else d.get(key)
        if self._sealed:
            ts = self._sealed_ts(space, key, ts)
        if ts is None and self.born:
            ts = self.born.get(space)  # NB: a key of a new space: the space's creation
        return ts

    def created_at(self, space: int) -> int | None:
        """The commit ts of the transaction that created space, while remembered, or None."""
        return self.born.get(space) if self.born else None

    def add_waiter(self, holder: int, txn: int) -> None:
        """Records that txn waits for holder (the holder's release wakes it)."""
        self.waiters.setdefault(holder, set()).add(txn)

    def holdings(self, pick: Callable[[int], bool]) -> dict[int, dict[int, list[bytes]]]:
        """The keys held (written or row-locked) by the transactions `pick` selects:
        txn -> space -> keys. Cluster mode releases a dead query engine's transactions
        with them (`cluster.services.ReleaseLtm`).

        >>> cm = ConflictManager()
        >>> _ = cm.handle(AcquireSpace(1, 10, 7, (b"a",))), cm.handle(AcquireSpace(2, 10, 7, (b"b",)))
        >>> cm.holdings(lambda t: t == 2)
        {2: {7: [b'b']}}
        """
        out: dict[int, dict[int, list[bytes]]] = {}
        for (space, key), txn in self.holders.items():
            if pick(txn):
                out.setdefault(txn, {}).setdefault(space, []).append(key)
        for space, shared in self.locks.shared.items():
            for key, txns in shared.items():
                for txn in txns:
                    if pick(txn):
                        out.setdefault(txn, {}).setdefault(space, []).append(key)
        return out

    # -- messages ------------------------------------------------------------------------

    def handle(self, msg: Any, now: float = 0.0) -> list[Any]:
        """Processes one message and returns the answers."""
        match msg:
            case AcquireSpace(txn, snapshot, space, keys, mode):
                return [self.acquire(txn, snapshot, space, keys, mode)]
            case ReleaseSpaces(txn, groups, commit_ts, spaces):
                ended = self.release_spaces(txn, groups, commit_ts, spaces)
                return [Woken(ended)] if ended else []
            case Acquire(txn, snapshot, keys, mode):
                for space, ks in by_space(keys).items():
                    out = self.try_acquire(txn, snapshot, space, ks, mode)
                    if out is not None:
                        return [out]
                return [Granted(txn)]
            case Release(txn, keys, commit_ts, spaces):
                if spaces and commit_ts is not None:
                    self.born.update(dict.fromkeys(spaces, commit_ts))
                for space, ks in by_space(keys).items():
                    self._release(txn, space, ks, commit_ts)
                woken = self.waiters.pop(txn, None)
                return [Woken(tuple(woken))] if woken else []
            case Prune(low_water):
                self._prune(low_water)
                if self.born:
                    self.born = {s: t for s, t in self.born.items() if t > low_water}
                self.ser.prune(low_water)
                self.locks.prune(low_water)
                return []
            case Validate() | Probe() | Settle():
                return self.ser.handle(self, msg)
        raise TypeError(f"conflict manager: unexpected message {msg!r}")

    def release_spaces(self, txn: int, groups: Iterable[tuple[int, Collection[bytes]]],
                       commit_ts: int | None = None, spaces: tuple[int, ...] = ()
                       ) -> tuple[int, ...]:
        """Answers `ReleaseSpaces`: the transactions that waited for txn (to wake). The LTM
        calls an in-process manager directly, as `try_acquire`: a commit's release builds
        no message and no answer."""
        if spaces and commit_ts is not None:
            self.born.update(dict.fromkeys(spaces, commit_ts))
        for space, group in groups:
            self._release(txn, space, group, commit_ts)
        woken = self.waiters.pop(txn, None)
        return tuple(woken) if woken else ()

    def release_writes(self, txn: int, written: Mapping[int, Mapping[bytes, Any]],
                       locked: Iterable[Key], commit_ts: int | None) -> tuple[int, ...] | None:
        """The end of a transaction at the one in-process manager whose write set is dicts
        alone (`WriteSet.spaces`: no runs, no space of its own): drops the holds of the
        keys it row-locked (`locked`) and did not write (no commit recorded for them),
        then releases the written keys (space -> key -> row) as `release_spaces` does,
        recording them at `commit_ts`. Answers the transactions that waited for txn; None,
        with nothing done, when txn holds keys in bulk (`bulk_held`: the LTM's general
        release then).

        A space of a few keys (an OLTP transaction's), with no row lock of another mode
        and no SERIALIZABLE mark anywhere, takes one pass here: each key's hold is dropped
        and its commit recorded together, where `_release` and `_record` cost two calls
        and a list more per space. Anything else goes through `_release`.

        >>> cm = ConflictManager()
        >>> _ = cm.handle(AcquireSpace(1, 10, 7, (b"a", b"b"))), cm.handle(AcquireSpace(2, 10, 7, (b"a",)))
        >>> cm.release_writes(1, {7: {b"a": (1,)}}, ((7, b"a"), (7, b"b")), 11)
        (2,)
        >>> dict(cm.holders), dict(cm.last_commit)
        ({}, {(7, b'a'): 11})
        """
        if self._bulk and self.bulk_held(txn):
            return None
        unwritten: list[Key] | None = None
        for lk in locked:  # NB: a loop, not a list comprehension (a call in this Python)
            if lk[1] not in written.get(lk[0], _NONE):
                if unwritten is None:
                    unwritten = []
                unwritten.append(lk)
        if unwritten:
            for space, ks in by_space(unwritten).items():
                self._release(txn, space, ks, None)
        locks = self.locks
        general = bool(locks.shared or locks.exclusive or self.ser.prepared)
        holds, commits, newest, spans = self._holds, self._commits, self._newest, self._spans
        for space, w in written.items():
            if len(w) == 1 and not general:
                # NB: the steps below for a space's one row (OLTP's usual case) without the
                # list, the loop and min/max
                hs = holds.get(space)
                if hs is None:
                    continue
                (k,) = w
                if hs.get(k) == txn:
                    del hs[k]
                    if not hs:
                        del holds[space]
                else:
                    if not hs:
                        del holds[space]
                    continue
                if commit_ts is None:
                    continue
                last = commits.get(space)
                if last is None or commit_ts < newest[space]:
                    self._record(space, [k], commit_ts)
                    continue
                covered = spans.get(space)
                if covered is not None:  # NB: the range widened to k in place (no `add` call)
                    lo = covered.lo
                    if lo is None:
                        covered.add(w.keys(), (k, k))
                    elif k < lo:
                        covered.lo = k
                    elif k > covered.hi:  # type: ignore[operator]
                        covered.hi = k  # NB: above it: a table's next row id (an INSERT's)
                last[k] = commit_ts
                newest[space] = commit_ts
                continue
            if general or len(w) > BULK:
                if w:
                    self._release(txn, space, w.keys(), commit_ts)
                continue
            hs = holds.get(space)
            if hs is None:
                continue
            mine = []
            for k in w:
                if hs.get(k) == txn:
                    del hs[k]
                    mine.append(k)
            if not hs:
                del holds[space]
            if commit_ts is None or not mine:
                continue
            last = commits.get(space)
            if last is None or commit_ts < newest[space]:
                self._record(space, mine, commit_ts)
                continue
            covered = spans.get(space)  # NB: `_record`'s steps, inline
            if covered is not None:
                k = mine[0]
                covered.add(mine, (k, k) if len(mine) == 1 else (min(mine), max(mine)))
            for k in mine:
                last[k] = commit_ts
            newest[space] = commit_ts
        woken = self.waiters.pop(txn, None)
        return tuple(woken) if woken else ()

    def acquire(self, txn: int, snapshot: int, space: int,
                keys: tuple[bytes, ...] | list[bytes], mode: int = NO_KEY_UPDATE) -> Any:
        """Answers `AcquireSpace`."""
        return self.try_acquire(txn, snapshot, space, keys, mode) or Granted(txn)

    def try_acquire(self, txn: int, snapshot: int, space: int,
                    keys: tuple[bytes, ...] | list[bytes], mode: int = NO_KEY_UPDATE) -> Any:
        """`acquire`, but None when every key is granted: the LTM calls an in-process
        manager directly, so that a single row's write builds no message and no answer."""
        locks = self.locks
        if mode != NO_KEY_UPDATE or (
                (locks.shared or locks.exclusive) and not locks.disjoint(space, keys)):
            return self._acquire_mode(txn, snapshot, space, keys, mode)
        if len(keys) == 1 and not self._bulk:
            # NB: one key (a keyed UPDATE's row lock, a single-row INSERT) where no space
            # has bulk holds: `_acquire`'s steps for it, inline (with the sealed sets of a
            # bulk load's keys, `_sealed_ts`): granted, or its Wait or Conflict (a hot
            # pgbench row committed after the snapshot) with no `_acquire` call
            key = keys[0]
            hs = self._holds.get(space)
            h = None if hs is None else hs.get(key)
            if h == txn:
                return None
            if h is not None:
                self.add_waiter(h, txn)
                return Wait(txn, h, (space, key))
            last = self._commits.get(space)
            ts = None if last is None else last.get(key)
            if self._sealed:
                for ks, t, _ in self._sealed.get(space, ()):
                    if key in ks and (ts is None or t > ts):
                        ts = t
            if ts is None and self.born:
                ts = self.born.get(space)  # NB: a key of a new space: its creation
            if ts is not None and ts > snapshot:
                return Conflict(txn, (space, key), ts)
            if hs is None:
                self._holds[space] = {key: txn}
            else:
                hs[key] = txn
            return None
        return self._acquire(txn, snapshot, space, keys)

    def acquire_bulk(self, txn: int, snapshot: int, space: int, keys: list[bytes],
                     held: KeySet) -> bool:
        """Grants txn a batch of keys by holding `held`, its write set's keys of the space,
        whole: no holder entry per key, and at the commit the dict is sealed as it is
        (`release_bulk`). A direct-API upsert of a million rows then costs the managers a
        few C-level disjointness passes instead of a million-entry dict built, compared
        and moved, and not even those against a set whose bulk batches span a key range
        apart from the batch's (`keyspan`: concurrent loads of neighbouring slices).

        Only a plainly free batch is granted: no key held by another transaction (one
        way or the other), none with a remembered commit, no row lock on any, and the
        space not created after the snapshot. Otherwise nothing is taken and False
        tells the caller to ask key by key (`try_acquire`), which waits or conflicts as
        usual. The caller puts the keys into `held` at once, under the same lock as
        this call: from then on every key of `held` is txn's until `release_bulk`
        (keys a savepoint rollback removes from it are released with it).

        >>> cm, ws = ConflictManager(), {}
        >>> keys = [bytes([i]) for i in range(10)]
        >>> cm.acquire_bulk(1, 5, 7, keys, ws); ws.update(dict.fromkeys(keys))
        True
        >>> cm.holder(7, b"\\x03"), cm.handle(AcquireSpace(2, 5, 7, (b"\\x03",)))
        (1, [Wait(txn=2, holder=1, key=(7, b'\\x03'))])
        >>> cm.release_bulk(1, 9)
        ({7}, (2,))
        >>> cm.handle(AcquireSpace(2, 5, 7, (b"\\x03",)))  # committed at 9 > snapshot 5
        [Conflict(txn=2, key=(7, b'\\x03'), commit_ts=9)]
        """
        if len(keys) <= BULK:
            return False
        per_txn = self._bulk.get(space)
        if per_txn is not None and per_txn.get(txn, held) is not held:
            return False
        locks = self.locks
        if (locks.shared or locks.exclusive) and not locks.disjoint(space, keys):
            return False
        born = self.born.get(space) if self.born else None
        if born is not None and born > snapshot:
            return False
        hs = self._holds.get(space)
        last = self._commits.get(space)
        sealed = self._sealed.get(space)
        others = per_txn is not None and (len(per_txn) > 1 or txn not in per_txn)
        b = bounds_of(keys) if last is not None or sealed is not None or others else None
        spans = self._bulk_spans
        if not ((hs is None or hs.keys().isdisjoint(keys))
                and (last is None or _disjoint(last, self._spans.get(space), keys, b))
                and (sealed is None or all(_disjoint(ks, sp, keys, b) for ks, _, sp in sealed))
                and (per_txn is None or all(_disjoint(h, spans.get((space, t)), keys, b)
                                            for t, h in per_txn.items() if t != txn))):
            return False
        if per_txn is None:
            self._bulk[space] = {txn: held}
        else:
            per_txn[txn] = held
        span = spans.get((space, txn))
        if span is None:
            span = spans[(space, txn)] = KeySpan()
        span.add(keys, b)  # NB: without b, folded only if another writer comes to ask
        return True

    def bulk_held(self, txn: int) -> bool:
        """Tells whether txn holds keys in bulk (`acquire_bulk`) in some space."""
        return bool(self._bulk) and any(txn in per_txn for per_txn in self._bulk.values())

    def release_bulk(self, txn: int, commit_ts: int | None, low_water: int = 0
                     ) -> tuple[set[int], tuple[int, ...]]:
        """Ends txn's bulk holds: at a commit each held set is sealed whole as committed at
        `commit_ts`. Returns the spaces where that was all txn held (no per-key release
        is needed there) and the transactions waiting for txn (to wake).

        `low_water` (the oldest snapshot still active, as `Prune` gets it): sealed sets of
        the space committed at or below it can conflict with no snapshot any more and are
        dropped before the new one is added, so that a load of many commits (a COPY per
        batch) keeps few sets and folds none into per-key records."""
        done: set[int] = set()
        for space in [s for s, per_txn in self._bulk.items() if txn in per_txn]:
            per_txn = self._bulk[space]
            keys = per_txn.pop(txn)
            span = self._bulk_spans.pop((space, txn), None)
            if not per_txn:
                del self._bulk[space]
            if commit_ts is not None and keys:
                self._seal(space, keys, commit_ts, span, low_water)
            hs = self._holds.get(space)
            if (not self.locks and not self.ser.prepared
                    and (hs is None or not countOf(hs.values(), txn))):
                done.add(space)
        woken = self.waiters.pop(txn, None)
        return done, tuple(woken) if woken else ()

    def _bulk_holder(self, space: int, key: bytes) -> int | None:
        """The transaction holding key in bulk (`acquire_bulk`), or None."""
        for txn, keys in self._bulk.get(space, {}).items():
            if key in keys:
                return txn
        return None

    def _sealed_ts(self, space: int, key: bytes, ts: int | None) -> int | None:
        """ts, or the newer commit of a sealed key set holding key."""
        for keys, t, _ in self._sealed.get(space, ()):
            if key in keys and (ts is None or t > ts):
                ts = t
        return ts

    def _acquire(self, txn: int, snapshot: int, space: int,
                 keys: tuple[bytes, ...] | list[bytes]) -> Any:
        hs = self._holds.get(space)
        last = self._commits.get(space)
        born = self.born.get(space) if self.born else None
        sealed = self._sealed.get(space)
        bulk = self._bulk.get(space) if self._bulk else None
        if (len(keys) > BULK and (hs is None or hs.keys().isdisjoint(keys))
                and (last is None or last.keys().isdisjoint(keys))
                and (sealed is None or all(ks.keys().isdisjoint(keys) for ks, _, _ in sealed))
                and (bulk is None or all(b.keys().isdisjoint(keys) for b in bulk.values()))
                and (born is None or born <= snapshot)):
            if hs is None:  # a bulk load of fresh keys: C-level only
                self._holds[space] = dict.fromkeys(keys, txn)
            else:
                hs.update(dict.fromkeys(keys, txn))
            return None
        if hs is None:
            hs = self._holds[space] = {}
        out: Any = None
        for key in keys:
            h = hs.get(key)
            if h is None and bulk is not None:
                h = self._bulk_holder(space, key)
            if h == txn:
                continue  # checked when first taken (or waived by a READ COMMITTED lock)
            if h is not None:
                self.add_waiter(h, txn)
                out = Wait(txn, h, (space, key))
                break
            ts = None if last is None else last.get(key)
            if sealed is not None:
                ts = self._sealed_ts(space, key, ts)
            if ts is None:
                ts = born  # NB: a key of a new space: the space's creation
            if ts is not None and ts > snapshot:
                out = Conflict(txn, (space, key), ts)
                break
            hs[key] = txn
        if not hs:
            del self._holds[space]
        return out  # None: granted

    def _acquire_mode(self, txn: int, snapshot: int, space: int,
                      keys: tuple[bytes, ...] | list[bytes], mode: int) -> Any:
        """`_acquire` for a lock mode other than a write's, or once such locks exist."""
        if mode == UPDATE and not self.locks:  # a delete meeting no row lock: the fast path
            out = self._acquire(txn, snapshot, space, keys)
            if out is None:
                self.locks.mark_exclusive(space, keys)
            return out
        out = self.locks.acquire(self, txn, snapshot, space, keys, mode)
        if out is None:
            return None
        if out[0] == "wait":
            return Wait(txn, out[1], out[2])
        return Conflict(txn, out[1], out[2])

    def _release(self, txn: int, space: int, keys: Collection[bytes],
                 commit_ts: int | None) -> None:
        locks = self.locks
        if locks.shared or locks.exclusive:  # NB: `bool(locks)` without its Python call
            locks.release(self, txn, space, keys, commit_ts)
        hs = self._holds.get(space)
        if (commit_ts is not None and hs is not None and len(hs) > BULK
                and type(keys) is _DICT_KEYS and hs.keys() == keys
                and countOf(hs.values(), txn) == len(hs)):
            # NB: txn held exactly these keys of the space and nobody else held any (a bulk
            # load's commit; the LTM passes its write set's keys): the dict is sealed whole,
            # no key is moved
            del self._holds[space]
            self._seal(space, hs, commit_ts, None)
        elif hs:
            if len(keys) > BULK and list(map(hs.get, keys)).count(txn) == len(keys):
                # all held by txn (a bulk load): C-level only
                deque(map(hs.pop, keys, repeat(None)), maxlen=0)
                mine: Collection[bytes] = keys
            else:
                mine = []
                for k in keys:
                    if hs.get(k) == txn:  # NB: keys may repeat (written and locked): once
                        del hs[k]
                        mine.append(k)
            if not hs:
                del self._holds[space]
            if commit_ts is not None and mine:
                self._record(space, mine, commit_ts)
        if self.ser.prepared:
            self.ser.release(txn, space, keys)  # NB: in the same step as last commits (validate)

    def _seal(self, space: int, keys: KeySet, commit_ts: int,
              span: KeySpan | None, low_water: int = 0) -> None:
        """Keeps a committed key set whole; past SEALED_MAX the oldest is recorded per key.
        Sets committed at or below `low_water` go first (`release_bulk`)."""
        sealed = self._sealed.setdefault(space, [])
        if low_water and sealed:
            sealed[:] = [e for e in sealed if e[1] > low_water]
        sealed.append((keys, commit_ts, span))
        if len(sealed) > SEALED_MAX:
            old, ts, old_span = sealed.pop(0)
            self._record(space, old.keys(), ts, old_span)

    def _record(self, space: int, keys: Collection[bytes], commit_ts: int,
                span: KeySpan | None = None) -> None:
        """Records keys as committed at commit_ts, keeping each key's newest commit.
        `span`: a sealed set's batch range (its other keys were recorded one by one)."""
        last = self._commits.get(space)
        covered = self._spans.get(space) if last is not None else None
        if last is None or covered is not None:  # NB: _spans[space] covers every key of last
            if covered is None:
                covered = self._spans[space] = KeySpan()
            if span is not None:
                covered.merge(span)
            elif type(keys) is list and keys:  # NB: `bounds_of` without its call (a commit's)
                covered.add(keys, (min(keys), max(keys)))
            else:
                covered.add(keys, bounds_of(keys))
        if last is None:
            self._commits[space] = dict.fromkeys(keys, commit_ts)
            self._newest[space] = commit_ts
        elif commit_ts >= self._newest[space]:  # no key has a newer commit: C-level only
            last.update(dict.fromkeys(keys, commit_ts))
            self._newest[space] = commit_ts
        else:  # NB: commit ts come from per-LTM batches: an older one may release later
            for k in keys:
                old = last.get(k)
                if old is None or old < commit_ts:
                    last[k] = commit_ts

    def _prune(self, low_water: int) -> None:
        for space in list(self._sealed):
            kept = [e for e in self._sealed[space] if e[1] > low_water]
            if kept:
                self._sealed[space] = kept
            else:
                del self._sealed[space]
        commits, newest = self._commits, self._newest
        for space in list(commits):
            if newest[space] <= low_water:  # a whole space at once (a bulk load's keys)
                del commits[space], newest[space]
                self._spans.pop(space, None)
                continue
            d = commits[space]
            if min(d.values()) <= low_water:
                commits[space] = {k: t for k, t in d.items() if t > low_water}


def _disjoint(d: KeySet, span: KeySpan | None, keys: list[bytes],
              b: Bounds | None) -> bool:
    """Whether no key of `keys` (bounds b) is in d, whose bulk keys `span` covers (the
    rest of d must be checked elsewhere): by the ranges when they are apart, else by lookups."""
    if span is not None and b is not None and span.apart(*b):
        return True
    return d.keys().isdisjoint(keys)


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
