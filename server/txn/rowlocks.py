"""PostgreSQL's four row-lock modes on top of the conflict manager's single writer per key.

A conflict manager remembers one *holder* per key: the transaction that wrote
it (or locked it FOR UPDATE / FOR NO KEY UPDATE). PostgreSQL has four tuple
lock modes, and `SELECT ... FOR <mode>` must block exactly where PostgreSQL
blocks (its conflict table, "Row-Level Locks" in the manual):

                  KEY SHARE  SHARE  NO KEY UPDATE  UPDATE
    KEY SHARE                                        X
    SHARE                           X              X
    NO KEY UPDATE            X      X              X
    UPDATE          X        X      X              X

So the two strong modes (NO KEY UPDATE, UPDATE) conflict with each other and
live in the manager's holders; the two weak ones can be held by many
transactions at once and live here, in `shared` (space -> key -> {txn: mode}). A
plain write is a NO KEY UPDATE (PostgreSQL's non-key UPDATE) and keeps the fast path;
a delete or FOR UPDATE marks its key `exclusive`, so that KEY SHARE waits for it.

Everything here runs only once some transaction used a non-default mode (the
manager checks `bool(ShareLocks)`), so pgbench's writes pay nothing. It sees the
manager only through `holder`, `hold`, `committed_at`, `created_at` and `add_waiter`.

>>> from cumulo.server.txn.conflicts import Acquire, ConflictManager
>>> cm = ConflictManager()
>>> k = (1, b"a")
>>> cm.handle(Acquire(1, 5, (k,), KEY_SHARE))
[Granted(txn=1)]
>>> cm.handle(Acquire(2, 5, (k,), NO_KEY_UPDATE))  # compatible
[Granted(txn=2)]
>>> cm.handle(Acquire(3, 5, (k,), SHARE))  # SHARE waits for the NO KEY UPDATE
[Wait(txn=3, holder=2, key=(1, b'a'))]
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .conflicts import ConflictManager

KEY_SHARE, SHARE, NO_KEY_UPDATE, UPDATE = 0, 1, 2, 3
MODE_NAMES = ("FOR KEY SHARE", "FOR SHARE", "FOR NO KEY UPDATE", "FOR UPDATE")
WAIT, NOWAIT, SKIP = 0, 1, 2  # what a lock request does when another transaction holds the row

# CONFLICTS[requested][held]
CONFLICTS = (
    (False, False, False, True),
    (False, False, True, True),
    (False, True, True, True),
    (True, True, True, True),
)


class ShareLocks:
    """The weak row locks of one conflict manager, and which strong holders are exclusive.

    Kept per space and keyed by the key's bytes, as the manager's own records; a
    space's dict or set is dropped once empty, so `bool()` says whether any lock is left.
    """

    __slots__ = ("shared", "exclusive", "key_commits")

    def __init__(self) -> None:
        self.shared: dict[int, dict[bytes, dict[int, int]]] = {}  # -> {txn: KEY_SHARE | SHARE}
        self.exclusive: dict[int, set[bytes]] = {}  # keys whose holder holds UPDATE
        # space -> key -> commit ts of its newest delete (a "key update"): what a REPEATABLE
        # READ FOR KEY SHARE conflicts with (a non-key update after its snapshot does not)
        self.key_commits: dict[int, dict[bytes, int]] = {}

    def __bool__(self) -> bool:
        return bool(self.shared) or bool(self.exclusive)  # NB: key_commits only for KEY SHARE

    def disjoint(self, space: int, keys: tuple[bytes, ...] | list[bytes]) -> bool:
        """Tells whether no key is share-locked or exclusively held (a write may then take
        the manager's own path: a bulk load beside a few FOR KEY SHARE locks stays fast)."""
        sh = self.shared.get(space)
        ex = self.exclusive.get(space)
        return (sh is None or sh.keys().isdisjoint(keys)) and (ex is None or ex.isdisjoint(keys))

    def mark_exclusive(self, space: int, keys: tuple[bytes, ...] | list[bytes]) -> None:
        """Marks keys the holder took in UPDATE mode (a delete)."""
        if keys:
            ex = self.exclusive.get(space)
            if ex is None:
                self.exclusive[space] = set(keys)
            else:
                ex.update(keys)

    def acquire(self, cm: ConflictManager, txn: int, snapshot: int, space: int,
                keys: tuple[bytes, ...] | list[bytes], mode: int) -> tuple[Any, ...] | None:
        """`ConflictManager._acquire` with lock modes: None when every key is granted, else
        `("wait", holder, key)` or `("conflict", key, commit_ts)` (the manager makes them
        its `Wait` and `Conflict` answers)."""
        shared = self.shared.get(space)
        if shared is None:
            shared = self.shared[space] = {}
        exclusive = self.exclusive.get(space)
        if exclusive is None:
            exclusive = self.exclusive[space] = set()
        try:
            return self._acquire(cm, txn, snapshot, space, keys, mode, shared, exclusive)
        finally:
            if not shared:
                del self.shared[space]
            if not exclusive:
                del self.exclusive[space]

    def _acquire(self, cm: ConflictManager, txn: int, snapshot: int, space: int,
                 keys: tuple[bytes, ...] | list[bytes], mode: int,
                 shared: dict[bytes, dict[int, int]], exclusive: set[bytes]
                 ) -> tuple[Any, ...] | None:
        strong = mode >= NO_KEY_UPDATE
        for key in keys:
            h = cm.holder(space, key)
            mine = shared.get(key)
            if h == txn:  # a strong lock of ours covers every weaker request but UPDATE's
                if mode != UPDATE or key in exclusive:
                    continue
                other = self._conflicting_sharer(mine, txn, mode)
                if other is not None:
                    cm.add_waiter(other, txn)
                    return ("wait", other, (space, key))
                exclusive.add(key)
                continue
            if not strong and mine is not None and mine.get(txn, -1) >= mode:
                continue  # held already (checked when first taken)
            if h is not None and CONFLICTS[mode][UPDATE if key in exclusive else NO_KEY_UPDATE]:
                cm.add_waiter(h, txn)
                return ("wait", h, (space, key))
            other = self._conflicting_sharer(mine, txn, mode)
            if other is not None:
                cm.add_waiter(other, txn)
                return ("wait", other, (space, key))
            if mine is None or mine.get(txn, -1) < SHARE:
                # NB: a SHARE lock we hold was checked already and has kept writers out
                # since; a KEY SHARE one checked key changes only and lets other writes
                # commit, so its upgrade checks for them (REPEATABLE READ's 40001 after
                # FOR KEY SHARE, READ COMMITTED's recheck)
                if mode != KEY_SHARE:
                    ts = cm.committed_at(space, key)
                else:
                    kc = self.key_commits.get(space)
                    ts = None if kc is None else kc.get(key)
                    if ts is None:
                        ts = cm.created_at(space)
                if ts is not None and ts > snapshot:
                    return ("conflict", (space, key), ts)
            if strong:
                cm.hold(space, key, txn)
                if mode == UPDATE:
                    exclusive.add(key)
            elif mine is None:
                shared[key] = {txn: mode}
            else:
                mine[txn] = max(mode, mine.get(txn, -1))
        return None

    @staticmethod
    def _conflicting_sharer(mine: dict[int, int] | None, txn: int, mode: int) -> int | None:
        if not mine:
            return None
        row = CONFLICTS[mode]
        for t, m in mine.items():
            if t != txn and row[m]:
                return t
        return None

    def release(self, cm: ConflictManager, txn: int, space: int,
                keys: Collection[bytes], commit_ts: int | None) -> None:
        """Drops txn's weak locks and exclusive marks on keys; the manager then drops the
        holders (so this runs first: a key's exclusive mark is txn's only while it holds it)."""
        shared = self.shared.get(space)
        if shared:
            for key in keys:
                mine = shared.get(key)
                if mine is not None and mine.pop(txn, None) is not None and not mine:
                    del shared[key]
            if not shared:
                del self.shared[space]
        exclusive = self.exclusive.get(space)
        if exclusive:
            for key in keys:
                if key in exclusive and cm.holder(space, key) == txn:
                    exclusive.discard(key)
                    if commit_ts is not None:
                        kc = self.key_commits.get(space)
                        if kc is None:
                            kc = self.key_commits[space] = {}
                        kc[key] = commit_ts
            if not exclusive:
                del self.exclusive[space]

    def prune(self, low_water: int) -> None:
        """Forgets key commits that no snapshot is older than."""
        if self.key_commits:
            kept = {}
            for s, kc in self.key_commits.items():
                d = {k: t for k, t in kc.items() if t > low_water}
                if d:
                    kept[s] = d
            self.key_commits = kept
