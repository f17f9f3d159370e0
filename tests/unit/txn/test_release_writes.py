"""`ConflictManager.release_writes` (a commit's release at the one in-process manager: its
one-row-per-space steps inline) ends as the general path does: `_release` of the keys
only locked, then `release_spaces` of the written ones. Random transactions (seeded)
acquire keys of a few spaces, some only locked, and end committed in order, committed
with an older ts than a later one (per-LTM ts batches), or rolled back; after every end
both managers must hold the same holders, last commits, woken waiters, and committed key
ranges (a range too narrow would let a bulk batch skip a conflict it has)."""

from __future__ import annotations

import random

import pytest

from cumulo.server.txn.conflicts import ConflictManager


def _ranges(cm: ConflictManager) -> dict[int, tuple[bytes, bytes] | None]:
    return {s: span.bounds() for s, span in cm._spans.items()}  # noqa: SLF001 - the state compared


@pytest.mark.parametrize("seed", range(6))
def test_release_writes_ends_as_release_spaces(seed: int) -> None:
    rnd = random.Random(seed)
    fast, general = ConflictManager(), ConflictManager()
    ts, live = 100, {}
    for tid in range(1, 400):
        written: dict[int, dict[bytes, tuple[int]]] = {}
        locked: dict[tuple[int, bytes], int] = {}
        for space in rnd.sample((1, 2, 3), rnd.randint(1, 3)):
            keys = [b"k%02d" % rnd.randrange(40) for _ in range(rnd.choice((1, 1, 1, 2, 3)))]
            answers = [cm.acquire(tid, ts, space, keys) for cm in (fast, general)]
            assert answers[0] == answers[1]
            if type(answers[0]).__name__ != "Granted":
                continue  # NB: a wait or a conflict: keys it got stay held, as a real txn's
            for k in keys:
                if rnd.random() < 0.2:
                    locked[(space, k)] = 1  # only locked, never written
                else:
                    written.setdefault(space, {})[k] = (tid,)
                    if rnd.random() < 0.3:
                        locked[(space, k)] = 1  # locked, then written (an UPDATE's)
        live[tid] = (written, locked)
        while live and rnd.random() < 0.6:
            end = rnd.choice(sorted(live))
            written, locked = live.pop(end)
            roll = rnd.random()
            cts = None if roll < 0.2 else ts - rnd.randint(1, 5) if roll < 0.35 else ts + 1
            ts = max(ts, cts or 0) + 1
            woken = fast.release_writes(end, written, locked, cts)
            only_locked = [k for k in locked if k[1] not in written.get(k[0], {})]
            for space in {s for s, _ in only_locked}:
                general._release(end, space, [k for s, k in only_locked if s == space], None)  # noqa: SLF001
            woken2 = general.release_spaces(end, [(s, list(w)) for s, w in written.items() if w], cts)
            assert sorted(woken) == sorted(woken2)
            assert dict(fast.holders) == dict(general.holders)
            assert dict(fast.last_commit) == dict(general.last_commit)
            assert _ranges(fast) == _ranges(general)
