"""`AscendingKeys` through the write set to KiVi: the promise is passed on only while true.

A write set hands its commit `AscendingKeys` (which KiVi applies with no sort or
order check) only while every write of the space came from `put_new` batches of
`AscendingKeys`, each above the one before. Any other write, a batch out of
order, or a savepoint rollback ends the promise for that space; the commit then
sends a plain list, and KiVi checks. Each case is checked against the dict's
own order and against what a store reads back after applying the commit.
"""

from __future__ import annotations

import random

import pyarrow as pa

from cumulo.server.kivi.ascending import AscendingKeys, ascends
from cumulo.server.kivi.mvcc import VersionStore
from cumulo.server.sql.direct.colkeys import int_column_keys
from cumulo.server.txn.keyspan import bounds_of
from cumulo.server.txn.writeset import WriteSet


def _keys(lo: int, hi: int) -> AscendingKeys:
    return AscendingKeys(i.to_bytes(4, "big") for i in range(lo, hi))


def _commit_keys(ws: WriteSet, space: int = 1) -> list[bytes]:
    (sw,) = [sw for sw in ws.for_commit(bulk=1)[1] if sw.space == space]
    return sw.keys


def test_the_promise_holds_only_while_batches_follow_each_other() -> None:
    ws = WriteSet()
    a, b = _keys(0, 100), _keys(100, 250)
    ws.put_new(1, a, [(i,) for i in range(100)])
    ws.put_new(1, b, [(i,) for i in range(100, 250)])
    keys = _commit_keys(ws)
    assert type(keys) is AscendingKeys and keys == sorted(keys) and len(keys) == 250

    ws.put_new(1, _keys(500, 600), [(i,) for i in range(100)])  # a gap is fine
    assert type(_commit_keys(ws)) is AscendingKeys
    ws.put_new(1, _keys(300, 400), [(i,) for i in range(100)])  # below the last batch
    keys = _commit_keys(ws)
    assert type(keys) is list and not ascends(keys)

    ws2 = WriteSet()
    ws2.put_new(1, _keys(0, 100), [(i,) for i in range(100)])
    ws2.put(1, b"\xff", (1,))  # a single write: still ascending here, but not vouched for
    assert type(_commit_keys(ws2)) is list

    ws3 = WriteSet()
    ws3.put_new(1, _keys(0, 100), [(i,) for i in range(100)])
    token = ws3.savepoint()
    ws3.put_new(1, _keys(100, 200), [(i,) for i in range(100)])
    ws3.rollback_to(token)  # the run is cut back: what is left still ascends
    assert type(_commit_keys(ws3)) is AscendingKeys and _commit_keys(ws3) == _keys(0, 100)

    ws4 = WriteSet()  # a plain list batch that ascends is a run too (one C-level pass)
    ws4.put_new(1, list(_keys(0, 100)), [(i,) for i in range(100)])
    assert type(_commit_keys(ws4)) is AscendingKeys
    ws5 = WriteSet()  # one that does not goes into the dict
    ws5.put_new(1, list(_keys(0, 100))[::-1], [(i,) for i in range(100)])
    assert type(_commit_keys(ws5)) is list and not ws5.runs.get(1)

    ws6 = WriteSet()  # runs that do not overlap ascend together, in whatever order they came
    ws6.put_new(1, _keys(300, 400), [(i,) for i in range(100)])
    ws6.put_new(1, _keys(0, 100), [(i,) for i in range(100)])
    assert len(ws6.runs[1]) == 2 and _commit_keys(ws6) == _keys(0, 100) + _keys(300, 400)
    assert type(_commit_keys(ws6)) is AscendingKeys


def test_producers_and_readers_of_the_promise() -> None:
    asc = int_column_keys(pa.chunked_array([[-5, 0, 7, 2**40]]))
    assert type(asc) is AscendingKeys and asc == sorted(asc)
    assert type(int_column_keys(pa.chunked_array([[3, 1]]))) is list
    assert type(int_column_keys(pa.chunked_array([[3, 3]]))) is list  # a repeat: not strict
    assert bounds_of(asc) == (min(asc), max(asc))
    assert bounds_of(AscendingKeys()) is None
    assert type(asc[1:]) is list  # a slice vouches for nothing


def test_commits_of_ascending_runs_read_back_as_applied() -> None:
    """Four writers' slices of one key range committed in a shuffled order (the Spark
    write's shape), then an overlapping update: the store holds what a model holds."""
    rng = random.Random(5)
    store, model = VersionStore(cache_limit=16), {}
    slices = [(i * 250, (i + 1) * 250) for i in range(4)]
    rng.shuffle(slices)
    ts = 0
    for lo, hi in slices:
        ts += 1
        ws = WriteSet()
        for b in range(lo, hi, 50):  # batches of 50 in key order, as a task sends them
            ws.put_new(1, _keys(b, b + 50), [(i, ts) for i in range(b, b + 50)])
        (sw,) = ws.for_commit()[1]
        assert type(sw.keys) is AscendingKeys
        store.apply_lists(ts, sw.keys, sw.rows)
        model.update(zip(sw.keys, sw.rows, strict=True))
    ts += 1
    upd = _keys(200, 800)[::3]  # every third key: among stored keys, a plain list
    rows = [None if i % 2 else (i, ts) for i in range(len(upd))]
    store.apply_lists(ts, upd, rows)
    for k, r in zip(upd, rows, strict=True):
        model[k] = r
    keys, chains = store.export()
    assert keys == sorted(model)
    assert {k: c[0][1] for k, c in zip(keys, chains, strict=True)} == model
    assert store.latest_commit(_keys(200, 201)[0]) == ts
