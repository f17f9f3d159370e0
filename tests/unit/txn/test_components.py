"""The transaction components as state machines: sequencer, snapshot server, conflict manager."""

from __future__ import annotations

import random

from cumulo.server.txn import groupcommit as g
from cumulo.server.txn.conflicts import (
    Acquire,
    Conflict,
    ConflictManager,
    Granted,
    Prune,
    Release,
    Wait,
    WaitForGraph,
    Woken,
    bucket_of,
)
from cumulo.server.txn.sequencer import Batch, CommitSequencer, LocalBatch, Recovered, RequestBatch
from cumulo.server.txn.snapshot import Advanced, Discarded, Readable, SnapshotServer


def test_sequencer_hands_out_disjoint_increasing_batches():
    seq = CommitSequencer()
    (a,) = seq.handle(RequestBatch(0, 10))
    (b,) = seq.handle(RequestBatch(1, 5))
    assert a == Batch(0, 1, 10)
    assert b == Batch(1, 11, 15)
    seq.handle(Recovered(100))
    (c,) = seq.handle(RequestBatch(0, 1))
    assert c.first == 101
    seq.handle(Recovered(50))  # never goes back
    assert seq.handle(RequestBatch(0, 1))[0].first == 102


def test_local_batch_take_and_drain():
    lb = LocalBatch()
    assert lb.take() is None
    lb.refill(Batch(0, 5, 8), 0.0)
    assert [lb.take(), lb.take()] == [5, 6]
    assert lb.drain() == [7, 8]
    assert lb.take() is None


def test_snapshot_is_the_gap_free_prefix():
    s = SnapshotServer(0)
    assert s.handle(Readable((2,))) == []
    assert s.handle(Discarded((3,))) == []
    assert s.snapshot == 0
    assert s.handle(Readable((1,))) == [Advanced(3)]
    assert s.handle(Readable((4,))) == [Advanced(4)]
    assert s.handle(Readable((6, 7))) == []
    assert s.pending == 2
    assert s.handle(Discarded((5,))) == [Advanced(7)]


def test_snapshot_random_orders():
    rng = random.Random(7)
    for _ in range(50):
        stamps = list(range(1, 60))
        rng.shuffle(stamps)
        s = SnapshotServer(0)
        done: set[int] = set()
        for t in stamps:
            s.handle(Readable((t,)) if t % 3 else Discarded((t,)))
            done.add(t)
            expect = 0
            while expect + 1 in done:
                expect += 1
            assert s.snapshot == expect


K = (1, b"k")


def test_conflict_manager_first_updater_wins():
    cm = ConflictManager()
    assert cm.handle(Acquire(1, 10, (K,))) == [Granted(1)]
    assert cm.handle(Acquire(1, 10, (K,))) == [Granted(1)]  # re-acquire is fine
    assert cm.handle(Acquire(2, 10, (K,))) == [Wait(2, 1, K)]
    assert cm.handle(Release(1, (K,), 11)) == [Woken((2,))]
    assert cm.handle(Acquire(2, 10, (K,))) == [Conflict(2, K, 11)]
    assert cm.handle(Acquire(3, 11, (K,))) == [Granted(3)]
    assert cm.handle(Release(3, (K,), None)) == []  # aborted: last commit unchanged
    assert cm.last_commit[K] == 11
    cm.handle(Prune(11))
    assert K not in cm.last_commit


def test_conflict_manager_release_of_foreign_key_is_ignored():
    cm = ConflictManager()
    cm.handle(Acquire(1, 0, (K,)))
    cm.handle(Release(2, (K,), 5))
    assert cm.holders[K] == 1
    assert K not in cm.last_commit


def test_bucket_is_stable_and_spread():
    keys = [(s, i.to_bytes(4, "big")) for s in (1, 2) for i in range(2000)]
    buckets = [bucket_of(k, 16) for k in keys]
    assert buckets == [bucket_of(k, 16) for k in keys]
    counts = [buckets.count(b) for b in range(16)]
    assert min(counts) > 150  # roughly 250 each


def test_wait_for_graph_cycles():
    g = WaitForGraph()
    g.add(1, 2)
    g.add(2, 3)
    assert g.would_deadlock(3, 1)
    assert not g.would_deadlock(4, 1)
    g.remove(2)
    assert not g.would_deadlock(3, 1)


def test_group_commit_leader_and_followers():
    gc = g.GroupCommit()
    assert gc.handle(g.Append(1, 10)) == [g.Write(1)]
    assert gc.handle(g.WaitDurable(1)) == [g.StartFsync(1, 1)]  # A leads
    assert gc.handle(g.Append(2, 10)) == [g.Write(2)]
    assert gc.handle(g.Append(3, 10)) == [g.Write(3)]
    assert gc.handle(g.WaitDurable(2)) == []  # B follows: an fsync is in flight
    assert gc.handle(g.WaitDurable(3)) == []
    assert gc.handle(g.FsyncDone(1)) == [g.Durable(1)]
    assert gc.handle(g.WaitDurable(2)) == [g.StartFsync(1, 3)]  # B leads for B and C
    assert gc.handle(g.WaitDurable(3)) == []
    assert gc.handle(g.FsyncDone(3)) == [g.Durable(3)]
    assert gc.handle(g.WaitDurable(3)) == [g.Durable(3)]


def test_group_commit_roll_waits_for_the_inflight_fsync():
    gc = g.GroupCommit(segment_bytes=15)
    gc.handle(g.Append(5, 10))
    gc.handle(g.Append(6, 10))  # the segment is now full
    assert gc.handle(g.WaitDurable(1)) == [g.StartFsync(1, 2)]
    assert gc.handle(g.Append(7, 10)) == [g.OpenSegment(2), g.Write(3)]  # no close under the leader
    assert gc.handle(g.FsyncDone(2)) == [g.CloseSegment(1), g.Durable(2)]
    gc.handle(g.Append(8, 10))
    assert gc.handle(g.Append(9, 10)) == [g.CloseSegment(2), g.OpenSegment(3), g.Write(5)]
    assert gc.synced == 4  # closing segment 2 made records 3 and 4 durable
    assert gc.closed == {1: 6, 2: 8}


def test_group_commit_widens_an_fsync_not_started_yet():
    gc = g.GroupCommit(segment_bytes=25)
    assert gc.widen() is None  # none in flight
    gc.handle(g.Append(1, 10))
    assert gc.handle(g.WaitDurable(1)) == [g.StartFsync(1, 1)]
    gc.handle(g.Append(2, 10))
    assert gc.widen() == g.StartFsync(1, 2) == gc.flushing  # covers what was written since
    assert gc.handle(g.WaitDurable(2)) == []
    gc.handle(g.Append(3, 10))  # the segment is now full
    assert gc.handle(g.Append(4, 10)) == [g.OpenSegment(2), g.Write(4)]
    # not after a roll (record 4 is in segment 2): record 3 is made durable by the close
    assert gc.widen() == g.StartFsync(1, 2)
    assert gc.handle(g.FsyncDone(2)) == [g.CloseSegment(1), g.Durable(3)]
    assert gc.synced == 3


def test_group_commit_tick_and_trim():
    gc = g.GroupCommit(first_seq=3, old_segments={1: None, 2: 4}, flush_interval=1.0)
    assert gc.handle(g.Tick(5.0)) == []  # nothing to flush
    gc.handle(g.Append(10, 5))
    assert gc.handle(g.Tick(5.0)) == [g.StartFsync(3, 1)]
    gc.handle(g.Append(11, 5))
    assert gc.handle(g.Tick(5.5)) == []  # one in flight (and too soon)
    # Segment 3 is being synced: it rolls, but is closed only after that fsync.
    assert gc.handle(g.Trim(10)) == [g.OpenSegment(4), g.DeleteSegment(2)]
    assert gc.handle(g.FsyncDone(1)) == [g.CloseSegment(3), g.Durable(2)]
    assert g.DeleteSegment(3) not in gc.handle(g.Trim(10))  # 3 holds ts 11
    assert 1 in gc.closed  # unknown max ts: kept until the driver learns it
    gc.learn_max_ts(1, 2)
    assert g.DeleteSegment(1) in gc.handle(g.Trim(10))
