"""Key ranges (`keyspan`) let bulk checks skip lookups, never a conflict or a wait.

The conflict manager and the write set answer "does this batch share a key with
that set?" from the sets' key ranges when the ranges are apart. Keys a bulk holder
took one by one lie outside its batches' range; they must still be found.
"""

from __future__ import annotations

from cumulo.server.txn.conflicts import (
    SEALED_MAX,
    AcquireSpace,
    Conflict,
    ConflictManager,
    Granted,
    ReleaseSpaces,
    Wait,
)
from cumulo.server.txn.writeset import WriteSet

S = 7


def keys(lo: int, hi: int) -> list[bytes]:
    return [i.to_bytes(4, "big") for i in range(lo, hi)]


def bulk(cm: ConflictManager, txn: int, snapshot: int, ks: list[bytes],
         held: dict[bytes, object]) -> bool:
    """acquire_bulk as the LTM runs it: the keys go into the held dict when granted."""
    ok = cm.acquire_bulk(txn, snapshot, S, ks, held)
    if ok:
        held.update(dict.fromkeys(ks))
    return ok


def test_ranges_apart_grant_and_overlaps_still_conflict() -> None:
    cm = ConflictManager()
    h1: dict[bytes, object] = {}
    h2: dict[bytes, object] = {}
    assert bulk(cm, 1, 5, keys(0, 100), h1) and bulk(cm, 2, 5, keys(100, 200), h2)
    assert bulk(cm, 1, 5, keys(300, 400), h1)  # h1's range now spans h2's: lookups decide
    assert not bulk(cm, 2, 5, keys(150, 350), {})  # 300..349 are txn 1's
    assert cm.handle(AcquireSpace(2, 5, S, tuple(keys(350, 351)))) == [
        Wait(2, 1, (S, keys(350, 351)[0]))]
    cm.release_bulk(1, 9)
    cm.release_bulk(2, 10)
    h3: dict[bytes, object] = {}
    assert bulk(cm, 3, 9, keys(500, 600), h3)  # past every sealed range
    assert not bulk(cm, 4, 9, keys(180, 199), {})  # txn 2 committed them at 10 > 9
    out = cm.handle(AcquireSpace(4, 9, S, tuple(keys(180, 199))))
    assert out == [Conflict(4, (S, keys(180, 181)[0]), 10)]


def test_a_key_taken_one_by_one_outside_the_batches_is_found() -> None:
    cm = ConflictManager()
    h1: dict[bytes, object] = {}
    assert bulk(cm, 1, 5, keys(0, 50), h1)
    far = keys(200, 201)[0]
    assert cm.handle(AcquireSpace(1, 5, S, (far,))) == [Granted(1)]
    h1[far] = None  # the write set's dict holds it too
    assert not bulk(cm, 2, 5, keys(150, 250), {})  # it waits for `far`, key by key
    done, _ = cm.release_bulk(1, 9)
    assert S not in done  # `far` is released (and recorded) one by one
    cm.handle(ReleaseSpaces(1, ((S, h1.keys()),), 9))
    assert not bulk(cm, 2, 5, keys(150, 250), {})
    assert cm.committed_at(S, far) == 9 and cm.committed_at(S, keys(10, 11)[0]) == 9
    # a snapshot that saw the commit: granted key by key (a remembered commit is no bulk)
    assert cm.handle(AcquireSpace(2, 9, S, tuple(keys(150, 250)))) == [Granted(2)]


def test_folded_sealed_sets_keep_their_range() -> None:
    cm = ConflictManager()
    for i in range(SEALED_MAX + 2):  # the oldest sets fold into per-key records
        assert bulk(cm, 10 + i, 5, keys(100 * i, 100 * i + 50), {})
        cm.release_bulk(10 + i, 20 + i)
    assert cm.committed_at(S, keys(10, 11)[0]) == 20
    assert bulk(cm, 30, 5, keys(5000, 5100), {})  # outside everything
    assert not bulk(cm, 31, 5, keys(40, 60), {})  # 40..49 committed at 20 > 5
    assert bulk(cm, 32, 5, keys(50, 100), {})  # between the batches: no key shared


def test_write_set_fresh() -> None:
    ws = WriteSet()
    assert ws.fresh(S, keys(0, 20))
    ws.put_new(S, keys(0, 20), [(i,) for i in range(20)])
    assert ws.fresh(S, keys(100, 120))  # apart
    ws.put_new(S, keys(100, 120), [(i,) for i in range(20)])
    assert ws.fresh(S, keys(20, 100))  # inside the range, no key shared
    assert not ws.fresh(S, keys(110, 130))
    ws.put(S, keys(500, 501)[0], (1,))  # a single write: the range is dropped
    assert not ws.fresh(S, keys(490, 510))
    assert ws.fresh(S, keys(600, 620))
    token = ws.savepoint()
    ws.put_new(S, keys(700, 720), [(i,) for i in range(20)])
    ws.rollback_to(token)
    assert ws.fresh(S, keys(700, 720))
