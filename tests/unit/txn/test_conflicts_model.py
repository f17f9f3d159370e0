"""The conflict manager's per-space bulk paths against a plain model of its rules.

`ConflictManager` keeps holders and last commits per space, keyed by key bytes,
and answers big batches with C-level dict passes. The model below keeps one
`(space, key)` dict each and answers key by key, exactly as the module doc
states the rules. Random histories (bulk and single acquires through both
message forms, out-of-order commit timestamps, new spaces, prunes, deletes and
row locks) must get the same answers and leave the same state.
"""

from __future__ import annotations

import random

import pytest

from cumulo.server.txn.conflicts import (
    LATEST,
    SEALED_MAX,
    Acquire,
    AcquireSpace,
    Conflict,
    ConflictManager,
    Granted,
    Prune,
    Release,
    ReleaseSpaces,
    Wait,
    Woken,
)
from cumulo.server.txn.rowlocks import KEY_SHARE, NO_KEY_UPDATE, SHARE, UPDATE


class Model:
    """First-updater-wins, key by key (write mode only)."""

    def __init__(self) -> None:
        self.holders: dict[tuple[int, bytes], int] = {}
        self.last: dict[tuple[int, bytes], int] = {}
        self.born: dict[int, int] = {}
        self.waiters: dict[int, set[int]] = {}

    def acquire(self, txn, snapshot, keys):
        for key in keys:
            h = self.holders.get(key)
            if h == txn:
                continue
            if h is not None:
                self.waiters.setdefault(h, set()).add(txn)
                return Wait(txn, h, key)
            ts = self.last.get(key, self.born.get(key[0]))
            if ts is not None and ts > snapshot:
                return Conflict(txn, key, ts)
            self.holders[key] = txn
        return Granted(txn)

    def release(self, txn, keys, cts, spaces=()):
        if spaces and cts is not None:
            self.born.update(dict.fromkeys(spaces, cts))
        for key in keys:
            if self.holders.get(key) == txn:
                del self.holders[key]
                if cts is not None and self.last.get(key, -1) < cts:
                    self.last[key] = cts
        woken = self.waiters.pop(txn, None)
        return [Woken(tuple(woken))] if woken else []

    def prune(self, low):
        self.last = {k: t for k, t in self.last.items() if t > low}
        self.born = {s: t for s, t in self.born.items() if t > low}


def _grouped(keys, views=False):
    """Keys per space, as tuples or (as the LTM passes its write set) dict key views."""
    out: dict[int, list[bytes]] = {}
    for s, k in keys:
        out.setdefault(s, []).append(k)
    if views:
        return tuple((s, dict.fromkeys(ks).keys()) for s, ks in out.items())
    return tuple((s, tuple(ks)) for s, ks in out.items())


@pytest.mark.parametrize("seed", range(12))
def test_random_histories_match_the_model(seed):
    rnd = random.Random(seed)
    cm, model = ConflictManager(), Model()
    spaces = [3, 4, 5]
    universe = [(s, b"%03d" % i) for s in spaces for i in range(60)]
    active: dict[int, tuple[int, list]] = {}  # txn -> (snapshot, keys it asked for)
    ts = 10
    next_txn = 1
    for _ in range(400):
        op = rnd.random()
        if op < 0.45 or not active:  # acquire: a bulk batch of one space or a few keys
            if not active or rnd.random() < 0.3:
                active[next_txn] = (ts - rnd.randrange(0, 8), [])
                next_txn += 1
            txn = rnd.choice(list(active))
            snap, asked = active[txn]
            if rnd.random() < 0.5:
                space = rnd.choice(spaces)
                start = rnd.randrange(0, 50)
                keys = [(space, b"%03d" % i) for i in range(start, start + rnd.randrange(1, 40))]
                got = cm.handle(AcquireSpace(txn, snap, space, tuple(k for _, k in keys)))
            else:
                keys = rnd.sample(universe, rnd.randrange(1, 5))
                if len({s for s, _ in keys}) > 1:
                    keys.sort(key=lambda k: spaces.index(k[0]))  # the manager goes per space
                got = cm.handle(Acquire(txn, snap, tuple(keys)))
            want = model.acquire(txn, snap, keys)
            assert got == [want], (seed, txn, keys)
            asked += keys
        elif op < 0.8:  # end a transaction: commit (ts may run behind) or abort
            txn = rnd.choice(list(active))
            _, asked = active.pop(txn)
            cts = None if rnd.random() < 0.25 else ts + rnd.randrange(-3, 4)
            ts += 2
            born = (rnd.choice(spaces + [6]),) if cts is not None and rnd.random() < 0.1 else ()
            if rnd.random() < 0.6:
                views = rnd.random() < 0.7
                got = cm.handle(ReleaseSpaces(txn, _grouped(asked, views), cts, born))
            else:
                got = cm.handle(Release(txn, tuple(asked), cts, born))
            want = model.release(txn, asked, cts, born)
            assert [sorted(w.txns) for w in got] == [sorted(w.txns) for w in want]
        else:
            low = min([s for s, _ in active.values()] + [ts]) - 1
            cm.handle(Prune(low))
            model.prune(low)
        assert dict(cm.holders) == model.holders
        assert dict(cm.last_commit) == model.last
        assert cm.born == model.born
    for txn in list(active):  # a clean end leaves nothing held
        cm.handle(ReleaseSpaces(txn, _grouped(active.pop(txn)[1]), None))
    assert not cm.holders


def test_a_new_space_conflicts_with_older_snapshots_in_bulk_and_singly():
    cm = ConflictManager()
    cm.handle(ReleaseSpaces(1, (), 50, (9,)))  # txn 1 created space 9 at 50
    keys = tuple(b"%04d" % i for i in range(100))
    assert cm.handle(AcquireSpace(2, 49, 9, keys)) == [Conflict(2, (9, keys[0]), 50)]
    assert not cm.holders
    assert cm.handle(AcquireSpace(2, 50, 9, keys)) == [Granted(2)]
    cm.handle(Prune(50))
    assert cm.born == {}


def test_an_older_commit_released_late_keeps_the_newest():
    cm = ConflictManager()
    keys = tuple(b"%04d" % i for i in range(100))
    cm.handle(AcquireSpace(1, 0, 1, keys[:50]))
    cm.handle(AcquireSpace(2, 0, 1, keys[50:]))
    cm.handle(ReleaseSpaces(1, ((1, keys[:50]),), 200))
    cm.handle(AcquireSpace(3, LATEST, 1, keys[:60]))  # READ COMMITTED relocks
    cm.handle(ReleaseSpaces(2, ((1, keys[50:]),), 150))
    cm.handle(ReleaseSpaces(3, ((1, keys[:60]),), 120))  # its ts came from an older batch
    assert cm.last_commit[(1, keys[0])] == 200 and cm.last_commit[(1, keys[55])] == 150
    cm.handle(Prune(160))
    assert (1, keys[55]) not in cm.last_commit and cm.last_commit[(1, keys[0])] == 200
    cm.handle(Prune(200))
    assert not cm.last_commit


def test_row_locks_in_one_space_leave_a_bulk_load_of_another_fast_and_exact():
    cm = ConflictManager()
    assert cm.handle(Acquire(1, 5, ((1, b"a"),), KEY_SHARE)) == [Granted(1)]
    assert cm.handle(Acquire(1, 5, ((1, b"b"),), SHARE)) == [Granted(1)]
    keys = tuple(b"%04d" % i for i in range(100))
    assert cm.handle(AcquireSpace(2, 5, 2, keys)) == [Granted(2)]  # another space: no locks
    # the same bytes in space 1: b"a" is only KEY SHARE locked, b"b" SHARE locked
    assert cm.handle(AcquireSpace(2, 5, 1, (b"a",))) == [Granted(2)]
    assert cm.handle(AcquireSpace(2, 5, 1, (b"b",))) == [Wait(2, 1, (1, b"b"))]
    assert cm.handle(AcquireSpace(3, 5, 1, (b"a",), UPDATE)) == [Wait(3, 2, (1, b"a"))]
    cm.handle(ReleaseSpaces(1, ((1, (b"a", b"b")),), None))
    assert not cm.locks
    assert cm.handle(AcquireSpace(2, 5, 1, (b"b",), NO_KEY_UPDATE)) == [Granted(2)]
    cm.handle(ReleaseSpaces(2, ((1, (b"a", b"b")), (2, keys)), 9))
    assert cm.handle(AcquireSpace(3, 5, 1, (b"a",), UPDATE)) == [Conflict(3, (1, b"a"), 9)]
    assert not cm.holders and not cm.locks


def test_a_bulk_delete_marks_its_keys_exclusive_until_released():
    cm = ConflictManager()
    keys = tuple(b"%04d" % i for i in range(100))
    assert cm.handle(AcquireSpace(1, 5, 1, keys, UPDATE)) == [Granted(1)]
    assert cm.handle(Acquire(2, 5, ((1, keys[7]),), KEY_SHARE)) == [Wait(2, 1, (1, keys[7]))]
    assert cm.handle(ReleaseSpaces(1, ((1, keys),), 8)) == [Woken((2,))]
    assert not cm.locks
    # a REPEATABLE READ FOR KEY SHARE conflicts with the delete (a key update) after its snapshot
    assert cm.handle(Acquire(2, 5, ((1, keys[7]),), KEY_SHARE)) == [Conflict(2, (1, keys[7]), 8)]


def test_a_bulk_commit_is_sealed_whole_and_still_conflicts_prunes_and_folds():
    cm = ConflictManager()
    for n in range(SEALED_MAX + 2):  # bulk loads of one space, one after the other
        keys = dict.fromkeys(b"%d-%04d" % (n, i) for i in range(100))
        assert cm.handle(AcquireSpace(10 + n, 100 + n, 1, tuple(keys))) == [Granted(10 + n)]
        cm.handle(ReleaseSpaces(10 + n, ((1, keys.keys()),), 200 + n))
        assert not cm.holders
    assert len(cm._sealed[1]) == SEALED_MAX  # the oldest were folded into per-key records
    assert cm.last_commit[(1, b"0-0007")] == 200 and cm.last_commit[(1, b"5-0099")] == 205
    assert len(cm.last_commit) == 600
    # an older snapshot conflicts on a sealed key, in bulk and one by one
    assert cm.handle(AcquireSpace(30, 203, 1, (b"4-0001",))) == [Conflict(30, (1, b"4-0001"), 204)]
    many = tuple(b"4-%04d" % i for i in range(50))
    assert cm.handle(AcquireSpace(30, 203, 1, many)) == [Conflict(30, (1, many[0]), 204)]
    assert cm.handle(AcquireSpace(31, 205, 1, many)) == [Granted(31)]
    cm.handle(ReleaseSpaces(31, ((1, dict.fromkeys(many).keys()),), 150))  # an older ts, late
    assert cm.last_commit[(1, many[3])] == 204  # the newest stays
    cm.handle(Prune(203))
    assert (1, b"0-0001") not in cm.last_commit and cm.last_commit[(1, many[0])] == 204
    cm.handle(Prune(205))
    assert not cm.last_commit and not cm._sealed


def test_a_release_of_keys_others_also_hold_is_not_sealed():
    cm = ConflictManager()
    mine = dict.fromkeys(b"%04d" % i for i in range(100))
    cm.handle(AcquireSpace(1, 5, 1, tuple(mine)))
    cm.handle(AcquireSpace(2, 5, 1, (b"x",)))
    assert cm.handle(ReleaseSpaces(1, ((1, mine.keys()),), 9)) == []
    assert dict(cm.holders) == {(1, b"x"): 2} and cm.last_commit[(1, b"0001")] == 9
    assert cm.handle(AcquireSpace(3, 5, 1, (b"0001",))) == [Conflict(3, (1, b"0001"), 9)]
