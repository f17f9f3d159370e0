"""The write set's sorted runs (`txn.runs`): bulk batches kept as lists behave as the same
writes in a dict, whatever the mix of batches (ascending, extending, overlapping, not
ascending), point writes and deletes of their keys, and savepoint rollbacks; and a
transaction's batches stay held whole in the conflict manager."""

from __future__ import annotations

import random

import pytest

from cumulo.server.errors import SerializationFailure
from cumulo.server.kivi.ascending import AscendingKeys
from cumulo.server.txn.writeset import ABSENT, WriteSet

S = 3


def _key(i: int) -> bytes:
    return i.to_bytes(4, "big")


def _check(ws: WriteSet, model: dict[bytes, object], rnd: random.Random, top: int) -> None:
    probe = [_key(rnd.randint(0, top)) for _ in range(rnd.choice((3, 40)))]
    assert ws.lookup(S, probe) == [model.get(k, ABSENT) for k in probe]
    assert [ws.contains(S, k) for k in probe] == [k in model for k in probe]
    pairs = [(S, k) for k in probe] + [(S + 1, probe[0])]  # a space never written too
    assert ws.unwritten(pairs) == tuple(p for p in pairs if p[0] != S or p[1] not in model)
    lo, hi = sorted((_key(rnd.randint(0, top)), _key(rnd.randint(0, top))))
    rev = rnd.random() < 0.3
    want = sorted((k, r) for k, r in model.items() if lo <= k < hi)
    assert ws.range(S, lo, hi, rev) == (want[::-1] if rev else want)
    assert ws.count(S) == len(model) and bool(ws) == bool(model)
    assert sorted(k for _, k in ws.keys()) == sorted(model)
    assert sorted((k, r) for _, k, r in ws.items()) == sorted(model.items())
    writes, spaces = ws.for_commit(bulk=rnd.choice((1, 10_000)))
    got = {w.key: w.row for w in writes}
    for sw in spaces:
        assert len(sw.keys) == len(set(sw.keys)) == len(sw.rows)
        if type(sw.keys) is AscendingKeys:
            assert sw.keys == sorted(sw.keys)
        got.update(zip(sw.keys, sw.rows, strict=True))
    assert got == model


def test_random_batches_writes_and_rollbacks_match_a_dict() -> None:
    rnd = random.Random(13)
    for _ in range(40):
        ws, model = WriteSet(), {}
        saves: list[tuple[int, dict]] = []
        nxt = 0
        for _ in range(120):
            op = rnd.random()
            if op < 0.35:  # a batch of new keys: following, inside a gap, reversed, plain list
                n = rnd.randint(1, 60)
                start = nxt + rnd.randint(0, 3) if rnd.random() < 0.6 else rnd.randint(0, nxt)
                keys = [_key(i) for i in range(start, start + n) if _key(i) not in model]
                if not keys or not ws.fresh(S, keys):
                    continue
                how = rnd.random()
                if how < 0.2:
                    keys.reverse()
                elif how < 0.7:
                    keys = AscendingKeys(keys)
                rows = [(k, rnd.random()) for k in keys]
                ws.put_new(S, keys, rows)
                model.update(zip(keys, rows, strict=True))
                nxt = max(nxt, start + n)
            elif op < 0.6:  # a point write or delete, often of a key of a batch
                k = _key(rnd.randint(0, nxt + 3))
                row = None if rnd.random() < 0.3 else (k, "p")
                ws.put(S, k, row)
                model[k] = row
            elif op < 0.7:
                saves.append((ws.savepoint(), dict(model)))
            elif op < 0.8 and saves:
                token, snap = saves.pop(rnd.randrange(len(saves)))
                saves = [s for s in saves if s[0] <= token]
                before = dict(model)
                gone = ws.rollback_to(token)
                assert sorted(k for _, k in gone) == sorted(set(before) - set(snap))
                model = snap
            _check(ws, model, rnd, nxt + 3)


def test_since_gives_the_writes_after_a_token_with_their_rows() -> None:
    ws = WriteSet()
    ws.put_new(S, AscendingKeys([_key(1), _key(2)]), [(1,), (2,)])
    token = ws.savepoint()
    ws.put_new(S, AscendingKeys([_key(3), _key(4)]), [(3,), (4,)])  # extends the run
    ws.put(S, _key(1), (10,))
    ws.put(S, _key(9), None)
    assert ws.since(token) == [(S, _key(3), (3,)), (S, _key(4), (4,)),
                               (S, _key(1), (10,)), (S, _key(9), None)]


def test_a_point_write_does_not_change_the_callers_lists() -> None:
    keys, rows = AscendingKeys([_key(1), _key(2)]), [(1,), (2,)]
    ws = WriteSet()
    ws.put_new(S, keys, rows)
    ws.put(S, _key(2), None)
    ws.put_new(S, AscendingKeys([_key(5)]), [(5,)])
    assert keys == [_key(1), _key(2)] and rows == [(1,), (2,)]
    assert ws.lookup(S, [_key(2), _key(5)]) == [None, (5,)]


def test_many_batches_stay_one_run_held_whole(tm) -> None:
    t = tm.begin()
    for b in range(0, 1000, 100):
        t.put_bulk(S, AscendingKeys(_key(i) for i in range(b, b + 100)),
                   [(i,) for i in range(b, b + 100)])
    cm = tm.ltm.cms[0]
    assert cm.bulk_held(t.tid) and not cm._holds  # no holder entry per key
    assert len(t.ws.runs[S]) == 1 and not t.ws.spaces[S]
    t.put(S, [(_key(500), ("u",))])  # an UPDATE of a just-loaded row: in place
    assert t.get(S, [_key(500), _key(999)]) == [("u",), (999,)]
    ts = t.commit()
    assert cm.committed_at(S, _key(999)) == ts
    r = tm.begin()
    assert r.get(S, [_key(0), _key(500), _key(1000)]) == [(0,), ("u",), None]


def test_sealed_sets_no_snapshot_needs_are_dropped_at_the_next_bulk_commit(tm) -> None:
    def load(b: int) -> int:
        t = tm.begin()
        t.put_bulk(S, AscendingKeys(_key(i) for i in range(b, b + 50)), [(b,)] * 50)
        return t.commit()

    cm = tm.ltm.cms[0]
    old = tm.begin(isolation="repeatable read")
    old.get(S, [_key(0)])  # a snapshot before every load: each sealed set matters to it
    for b in range(0, 500, 50):
        load(b)
    assert sum(len(ks) for ks, _, _ in cm._sealed[S]) + len(cm._commits.get(S, ())) == 500
    with pytest.raises(SerializationFailure):
        old.put(S, [(_key(10), ("late",))])  # committed after its snapshot
    old.abort()
    ts = load(500)  # nobody is older than the last commit now: the older sets go
    assert [t for _, t, _ in cm._sealed[S]] == [ts]
    assert cm.committed_at(S, _key(520)) == ts
