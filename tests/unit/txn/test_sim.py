"""Deterministic simulation of the transaction components (issue 2); see `simnet` and `simcheck`.

The seed is random per run unless `CUMULO_SIM_SEED` is set; a failure names the seed
that replays it. The injected-bug tests prove that the checker can fail: each one
breaks one component in a way that must be caught.
"""

from __future__ import annotations

import os
import random

import pytest

from cumulo.server.kivi.api import Get, GetReply
from cumulo.server.kivi.node import KiviNode
from cumulo.server.txn import groupcommit as gcm
from cumulo.server.txn.conflicts import LATEST, ConflictManager, Prune
from cumulo.server.txn.rowlocks import NO_KEY_UPDATE
from cumulo.server.txn.snapshot import Advanced, SnapshotServer

from .simcheck import Checker, SimViolation, TxnRecord
from .simnet import Config, Sim

SEED = int(os.environ.get("CUMULO_SIM_SEED") or random.SystemRandom().randrange(1 << 32))

# Four shapes of cluster and network; 25,000 transactions each: 100,000 per run.
CONFIGS = {
    "default": Config(txns=25_000),
    "lossy": Config(txns=25_000, drop=0.15, dup=0.15, delay=4.0),
    "wide": Config(txns=25_000, ltms=4, sessions=5, cms=4, loggers=3, nodes=3, max_batch=8),
    "big-txns": Config(txns=25_000, keys=3000, hot=40, ops=(3, 12), write_ratio=0.3,
                       drain_every=5.0),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_simulation(name):
    seed = SEED + list(CONFIGS).index(name)
    print(f"simulation {name}: CUMULO_SIM_SEED={seed}")
    sim = Sim(seed, CONFIGS[name]).run()
    counts = sim.checker.check()
    # The run must have exercised what it claims to check (else it proves nothing).
    assert counts["records"] == CONFIGS[name].txns
    assert counts["commits"] > CONFIGS[name].txns // 5, (seed, counts)
    assert counts["reads_checked"] > CONFIGS[name].txns // 2, (seed, counts)
    st = sim.stats
    assert st["conflicts"] > 0 and st["waits"] > 0 and st["discarded"] > 0, (seed, st)
    assert st["failed_commits"] > 0 and st["session_waits"] > 0, (seed, st)
    assert sim.net.lost > 0 and sim.net.dups > 0, seed
    assert sim.snap.snapshot == sim.handed_out > counts["commits"], seed


def _history(seed: int) -> list[tuple]:
    sim = Sim(seed, Config(txns=2000)).run()
    return [(r.tid, r.start, r.cts, tuple(r.reads.items()), tuple(r.writes.items()))
            for r in sim.checker.records]


def test_same_seed_same_history():
    assert _history(SEED) == _history(SEED)
    assert _history(SEED) != _history(SEED + 1)


# -- the checker can fail -------------------------------------------------------------------


class BothWritersWin(ConflictManager):
    """Grants every write lock: first-updater-wins is gone (in `try_acquire`'s one-key way
    too, which answers a Wait or Conflict itself)."""

    def _acquire(self, txn, snapshot, space, keys):
        return None  # granted

    def try_acquire(self, txn, snapshot, space, keys, mode=NO_KEY_UPDATE):
        return None  # granted


class PruneTooMuch(ConflictManager):
    """Garbage-collects every last commit, including those newer than active snapshots."""

    def handle(self, msg, now=0.0):
        if type(msg) is Prune:
            return super().handle(Prune(LATEST), now)
        return super().handle(msg, now)


class SnapshotOverGaps(SnapshotServer):
    """Advances to the newest finished timestamp, jumping over unfinished ones."""

    def handle(self, msg, now=0.0):
        top = max(msg.ts)
        if top > self.snapshot:
            self.snapshot = top
            return [Advanced(top)]
        return []


class LatestReadNode(KiviNode):
    """Ignores the snapshot timestamp of reads: returns the newest version."""

    def get(self, req):
        return GetReply([r.store.read(k, 1 << 62) if (r := self._region_for_read(req.space, k))
                         else None for k in req.keys])

    def get_rows(self, space, ts, keys):
        return self.get(Get(space, ts, keys)).rows


class AckBeforeFsync(gcm.GroupCommit):
    """Reports every written record durable at once, without waiting for its fsync."""

    def handle(self, msg, now=0.0):
        out = super().handle(msg, now)
        if type(msg) is gcm.WaitDurable:
            return [gcm.Durable(self.written)]
        return out


@pytest.mark.parametrize(
    ("bug", "expect"),
    [
        ({"cm_class": BothWritersWin}, "lost update|read key"),
        ({"cm_class": PruneTooMuch}, "lost update"),
        ({"snapshot_class": SnapshotOverGaps}, "gap|applied under snapshot"),
        ({"node_class": LatestReadNode}, "read key"),
        ({"logger_class": AckBeforeFsync}, "durable; it is not"),
    ],
    ids=["both-writers-win", "prune-too-much", "snapshot-over-gaps", "reads-ignore-snapshot",
         "ack-before-fsync"],
)
def test_checker_catches_injected_bugs(bug, expect):
    with pytest.raises(SimViolation, match=expect):
        Sim(SEED, Config(txns=3000), **bug).run()


def test_checker_on_hand_made_histories():
    def rec(tid, start, cts, reads=None, writes=None, session=None):
        return TxnRecord(tid, session or tid, start, cts, 0, reads or {}, writes or {}, True)

    ok = Checker(0)
    for r in (rec(1, 0, 1, writes={7: 1}), rec(2, 1, 2, reads={7: 1}, writes={7: 2}),
              rec(3, 1, None, reads={7: 1})):
        ok.add(r)
    assert ok.check()["reads_checked"] == 2
    concurrent = Checker(0)
    concurrent.add(rec(1, 0, 1, writes={7: 1}))
    concurrent.add(rec(2, 0, 2, writes={7: 2}))
    with pytest.raises(SimViolation, match="lost update"):
        concurrent.check()
    stale = Checker(0)
    stale.add(rec(1, 0, 1, writes={7: 1}))
    stale.add(rec(2, 1, None, reads={7: None}))
    with pytest.raises(SimViolation, match="read key 7"):
        stale.check()
    session = Checker(0)
    session.add(TxnRecord(1, 5, 0, 3, 0, {}, {1: 1}, True))
    session.add(TxnRecord(2, 5, 2, None, 3, {}, {}, True))
    with pytest.raises(SimViolation, match="before its session"):
        session.check()


def test_snapshot_batched_reports_match_the_gap_free_prefix():
    """Batches of timestamps (consecutive or not, duplicated, out of order) as one message."""
    from cumulo.server.txn.snapshot import Discarded, Readable

    rng = random.Random(SEED)
    for _ in range(200):
        stamps = list(range(1, 80))
        rng.shuffle(stamps)
        s = SnapshotServer(0)
        done: set[int] = set()
        while stamps:
            k = rng.randint(1, 6)
            group, stamps = stamps[:k], stamps[k:]
            if rng.random() < 0.5:
                group.sort()
            if rng.random() < 0.1:
                group.append(group[0])  # a duplicate inside one report
            s.handle((Readable if rng.random() < 0.7 else Discarded)(tuple(group)))
            done.update(group)
            expect = 0
            while expect + 1 in done:
                expect += 1
            assert s.snapshot == expect, SEED


def test_batch_sizer_follows_the_commit_rate():
    from cumulo.server.txn.sequencer import Batch, BatchSizer, LocalBatch

    bs = BatchSizer(period=1.0, ceiling=100)
    assert bs.size(0.0) == 1  # nothing known yet
    for i in range(40):
        bs.commit(0.5 + i / 100)  # 40 commits in the period [0, 1)
    assert bs.size(1.2) == 40  # the next period asks for what the last one used
    for i in range(500):
        bs.commit(2.0 + i / 1000)
    assert bs.size(3.1) == 100  # capped
    assert bs.size(9.0) == 1  # idle for several periods: small again
    lb = LocalBatch()
    lb.refill(Batch(0, 1, 10), 5.0)
    assert not bs.stale(lb, 5.5) and bs.stale(lb, 6.0)
    lb.drain()
    assert not bs.stale(lb, 7.0)  # nothing left to give back
