"""WriteSet keeps its sorted key list across appends of ascending keys (bulk loads).

The list used to be dropped on every new key, so a load transaction that checks
each batch's key range re-sorted its whole write set per statement (quadratic).
These tests check that ranges stay exact whatever the order of puts, bulk
puts, scans and savepoint rollbacks, against a brute-force model.
"""

from __future__ import annotations

import random

from cumulo.server.txn.writeset import WriteSet


def _model_range(model: dict[bytes, object], lo, hi, reverse=False):
    keys = sorted(k for k in model if (lo is None or k >= lo) and (hi is None or k < hi))
    if reverse:
        keys.reverse()
    return [(k, model[k]) for k in keys]


def _key(i: int) -> bytes:
    return i.to_bytes(4, "big")


def test_ascending_batches_keep_the_sorted_list() -> None:
    ws = WriteSet()
    for b in range(0, 1000, 100):
        ws.put_many(7, [(_key(i), (i,)) for i in range(b, b + 100)])
        assert ws.range(7, _key(b), _key(b + 100)) == [(_key(i), (i,)) for i in range(b, b + 100)]
        assert ws._sorted[7][-1] == _key(b + 99)  # extended, not dropped
    ws.put(7, _key(5000), (5000,))
    assert 7 in ws._sorted and ws.range(7, _key(4999), None) == [(_key(5000), (5000,))]
    ws.put(7, _key(3), (-3,))  # an existing key: no new entry
    ws.put(7, _key(4000), (4000,))  # out of order: the list is rebuilt on the next scan
    assert ws.range(7, _key(3), _key(4)) == [(_key(3), (-3,))]
    assert [k for k, _ in ws.range(7, _key(999), None)] == [_key(999), _key(4000), _key(5000)]


def test_random_operations_match_a_model() -> None:
    rnd = random.Random(6)
    for _ in range(30):
        ws, model = WriteSet(), {}
        saves: list[tuple[int, dict]] = []
        nxt = 0
        for _ in range(200):
            op = rnd.random()
            if op < 0.3:
                n = rnd.randint(1, 70)
                start = nxt if rnd.random() < 0.7 else rnd.randint(0, max(1, nxt))
                items = [(_key(i), (i, rnd.random())) for i in range(start, start + n)]
                ws.put_many(1, items)
                model.update(items)
                nxt = max(nxt, start + n)
            elif op < 0.5:
                i = rnd.randint(0, nxt + 5)
                row = None if rnd.random() < 0.2 else (i,)
                ws.put(1, _key(i), row)
                model[_key(i)] = row
                nxt = max(nxt, i + 1)
            elif op < 0.6:
                saves.append((ws.savepoint(), dict(model)))
            elif op < 0.67 and saves:
                token, snap = saves.pop(rnd.randrange(len(saves)))
                saves = [s for s in saves if s[0] <= token]
                ws.rollback_to(token)
                model = snap
            else:
                lo = None if rnd.random() < 0.2 else _key(rnd.randint(0, nxt + 2))
                hi = None if rnd.random() < 0.2 else _key(rnd.randint(0, nxt + 2))
                rev = rnd.random() < 0.3
                assert ws.range(1, lo, hi, rev) == _model_range(model, lo, hi, rev)
        assert ws.range(1, None, None) == _model_range(model, None, None)
