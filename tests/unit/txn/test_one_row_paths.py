"""A keyed UPDATE's calls (`get_one`, `lock_row`, `put` of one row) and a commit of a small write
set take shortcuts: one-key paths in `Transaction`, `ConflictManager.try_acquire` and
`LocalTxnManager.lock_space`, and `ConflictManager.release_writes` at the end. Each script
here runs twice, once with one key per call (the shortcuts) and once with the key given
twice (the general, list-based paths), and both runs must end alike: the same answers and
errors, the same holders and last commits in the manager, the same row locks and
conflict counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from cumulo.server.txn.embedded import EmbeddedTxnManager
from cumulo.server.txn.rowlocks import KEY_SHARE, NO_KEY_UPDATE, NOWAIT, SHARE, SKIP, UPDATE

S, K, J = 7, b"k", b"j"


def _keys(k: bytes, twice: bool) -> list[bytes]:
    return [k, k] if twice else [k]


def _items(k: bytes, row: Any, twice: bool) -> list[tuple[bytes, Any]]:
    return [(k, row), (k, row)] if twice else [(k, row)]


def _get(t: Any, k: bytes, twice: bool) -> Any:
    """The row of k: `get_one` (the one-key read), or `get` of the key twice."""
    return t.get(S, [k, k])[0] if twice else t.get_one(S, k)


def _setup() -> EmbeddedTxnManager:
    tm = EmbeddedTxnManager(None, gc_interval=None)
    t = tm.ltm.begin()
    t.put(S, [(K, (0,)), (J, (0,))])
    t.commit()
    return tm


def _state(tm: EmbeddedTxnManager, txns: list[Any]) -> tuple[Any, ...]:
    cm = tm.ltm.cms[0]
    base = min(t.tid for t in txns)
    return (
        {k: h - base for k, h in cm.holders.items()},  # tids relative: runs number alike
        dict(cm.last_commit),
        [dict(t.locked) for t in txns],
        tm.ltm.stats["conflicts"],
        dict(cm.waiters),
    )


def _outcome(f: Callable[[], Any]) -> Any:
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return type(e).__name__


def _script_update_as_pgbench(tm: EmbeddedTxnManager, twice: bool) -> tuple[list[Any], list[Any]]:
    """A keyed UPDATE of a row committed after the snapshot (READ COMMITTED relocks it),
    a read of the own write, a row only locked, then the commit."""
    ltm = tm.ltm
    t1 = ltm.begin()
    out = [_get(t1, K, twice)]
    t2 = ltm.begin()
    t2.put(S, _items(K, (2,), twice))
    out.append(t2.commit())
    out.append(t1.lock_row(S, _keys(K, twice), NO_KEY_UPDATE))
    out.append(t1.min_snapshot)
    with t1.fresh_snapshot():
        out.append(_get(t1, K, twice))
    t1.put(S, _items(K, (3,), twice))
    out.append(_get(t1, K, twice))
    out.append(_get(t1, b"absent", twice))
    out.append(t1.lock_row(S, _keys(J, twice), UPDATE))
    out.append(_state(tm, [t1, t2]))
    out.append(t1.commit())
    return out, [t1, t2]


def _script_modes(tm: EmbeddedTxnManager, twice: bool) -> tuple[list[Any], list[Any]]:
    """Weak row locks upgraded by a write, NOWAIT and SKIP LOCKED against a holder, a
    repeatable read's lock of a row changed since its snapshot, a delete."""
    ltm = tm.ltm
    t1 = ltm.begin()
    out = [t1.lock_row(S, _keys(K, twice), KEY_SHARE), t1.lock_row(S, _keys(K, twice), SHARE)]
    t1.put(S, _items(K, (1,), twice))
    t2 = ltm.begin()
    out.append(_outcome(lambda: t2.lock_row(S, _keys(K, twice), UPDATE, NOWAIT)))
    out.append(_outcome(lambda: t2.lock_row(S, _keys(K, twice), UPDATE, SKIP)))
    t3 = ltm.begin(isolation="repeatable read")
    out.append(_get(t3, J, twice))
    t2.put(S, _items(J, (5,), twice))
    out.append(_state(tm, [t1, t2, t3]))
    out.append(t2.commit())
    out.append(_outcome(lambda: t3.lock_row(S, _keys(J, twice), NO_KEY_UPDATE)))
    t3.abort()
    t1.delete(S, _keys(K, twice))
    out.append(_get(t1, K, twice))
    out.append(_state(tm, [t1, t2, t3]))
    t1.abort()
    out.append(_state(tm, [t1, t2, t3]))
    return out, [t1, t2, t3]


def _script_serializable_and_runs(tm: EmbeddedTxnManager, twice: bool
                                  ) -> tuple[list[Any], list[Any]]:
    """A SERIALIZABLE updater's reads (recorded: a write over one fails it), reads in a
    space with a sorted run (a bulk batch) and after a rollback to a savepoint."""
    ltm = tm.ltm
    t1 = ltm.begin(isolation="serializable")
    out = [_get(t1, K, twice)]
    t1.put(S, _items(J, (7,), twice))
    out.append(_get(t1, J, twice))
    t2 = ltm.begin()
    t2.put(S, _items(K, (8,), twice))
    out.append(t2.commit())
    out.append(_outcome(lambda: t1.put(S, _items(b"x", (1,), twice))))
    out.append(_outcome(lambda: t1.commit()))
    t3 = ltm.begin()
    keys = [bytes([1, i]) for i in range(40)]
    t3.put_bulk(S, keys, [(i,) for i in range(40)])
    assert t3.ws.runs.get(S)  # NB: the batch is a sorted run
    out.append([_get(t3, k, twice) for k in (keys[0], keys[39], b"\x01", K)])
    token = t3.savepoint()
    t3.put(S, _items(K, (9,), twice))
    out.append(_get(t3, K, twice))
    t3.rollback_to(token)
    out.append([_get(t3, K, twice), _get(t3, J, twice)])
    out.append(_state(tm, [t1, t2, t3]))
    out.append(t3.commit())
    return out, [t1, t2, t3]


def _script_own_space_and_read_only(tm: EmbeddedTxnManager, twice: bool
                                    ) -> tuple[list[Any], list[Any]]:
    """Writes to a space the transaction created (`claim_space`: no conflict check), a row
    of it locked first and then written, a write of a key committed after the snapshot,
    and a write in a READ ONLY transaction; `put_one` called directly against `put` of the key twice."""
    ltm = tm.ltm
    P = 9

    def put(t: Any, space: int, k: bytes, row: Any) -> Any:
        return t.put(space, _items(k, row, True)) if twice else t.put_one(space, k, row)

    t1 = ltm.begin()
    t1.claim_space(P)
    put(t1, P, K, (1,))
    put(t1, P, K, (2,))
    out = [_get(t1, K, twice), t1.get(P, [K]), t1.lock_row(P, _keys(J, twice), KEY_SHARE)]
    put(t1, P, J, (3,))
    put(t1, S, K, (4,))
    t2 = ltm.begin(isolation="repeatable read")
    out.append(_get(t2, K, twice))
    t3 = ltm.begin(read_only=True)
    out.append(_outcome(lambda: put(t3, S, J, (6,))))
    out.append(_state(tm, [t1, t2, t3]))
    out.append(sorted(t1.ws.spaces[P].items()))
    out.append(t1.commit())
    out.append(_outcome(lambda: put(t2, S, K, (5,))))  # NB: committed after its snapshot
    out.append(_state(tm, [t1, t2, t3]))
    return out, [t1, t2, t3]


def _lock_put(t: Any, k: bytes, row: Any, mode: int, twice: bool) -> Any:
    """`lock_put_one` (a keyed UPDATE's lock and write in one call), or `lock_row` and,
    when it answers 0, `put` of the key twice."""
    if not twice:
        return _outcome(lambda: t.lock_put_one(S, k, row, mode))

    def general() -> Any:
        got = t.lock_row(S, [k, k], mode)
        if got == 0:
            t.put(S, [(k, row), (k, row)], mode)
        return got
    return _outcome(general)


def _script_lock_and_write(tm: EmbeddedTxnManager, twice: bool) -> tuple[list[Any], list[Any]]:
    """A keyed UPDATE's lock and write of its row: a row committed after the snapshot
    (READ COMMITTED locks it, writes nothing), then written at a fresh snapshot; a row
    locked weakly first; a row written, then locked and written in a stronger mode (the
    upgrade); repeatable read meeting a newer version; SERIALIZABLE; READ ONLY."""
    ltm = tm.ltm
    t1 = ltm.begin()
    out = [_get(t1, K, twice)]
    t2 = ltm.begin()
    t2.put(S, _items(K, (2,), twice))
    out.append(t2.commit())
    out.append(_lock_put(t1, K, (3,), NO_KEY_UPDATE, twice))
    out.append([_get(t1, K, twice), t1.min_snapshot, _state(tm, [t1, t2])])
    with t1.fresh_snapshot():
        out.append(_lock_put(t1, K, (4,), NO_KEY_UPDATE, twice))
    out.append(_get(t1, K, twice))
    out.append(t1.lock_row(S, _keys(J, twice), KEY_SHARE))
    out.append(_lock_put(t1, J, (5,), NO_KEY_UPDATE, twice))
    out.append(_lock_put(t1, J, (6,), UPDATE, twice))
    out.append(_lock_put(t1, b"new", (7,), NO_KEY_UPDATE, twice))
    out.append([_get(t1, k, twice) for k in (K, J, b"new")])
    out.append(_state(tm, [t1, t2]))
    t3 = ltm.begin(isolation="repeatable read")
    out.append(_get(t3, b"x", twice))
    t4 = ltm.begin(isolation="serializable")
    out.append(_get(t4, b"y", twice))
    out.append(t1.commit())
    out.append(_lock_put(t3, K, (8,), NO_KEY_UPDATE, twice))
    out.append(_lock_put(t4, b"y", (9,), NO_KEY_UPDATE, twice))
    out.append(_lock_put(t4, J, (9,), NO_KEY_UPDATE, twice))
    t5 = ltm.begin(read_only=True)
    out.append(_lock_put(t5, K, (10,), NO_KEY_UPDATE, twice))
    out.append(_state(tm, [t1, t2, t3, t4, t5]))
    t3.abort()
    out.append(_outcome(t4.commit))
    out.append(_state(tm, [t1, t2, t3, t4, t5]))
    return out, [t1, t2, t3, t4, t5]


@pytest.mark.parametrize("script", [_script_update_as_pgbench, _script_modes,
                                    _script_serializable_and_runs,
                                    _script_own_space_and_read_only, _script_lock_and_write])
def test_one_key_calls_end_as_the_general_paths(script: Any) -> None:
    one, many = _setup(), _setup()
    got, txns_one = script(one, False)
    want, txns_many = script(many, True)
    got.append(_state(one, txns_one))
    want.append(_state(many, txns_many))
    assert got == want
