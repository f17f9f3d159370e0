"""KiVi nodes in placement mode (cluster mode's routing checks) and the client's retries.

A node in placement mode serves only the regions it was given; stale routing gets
`WrongRegion`, a region being moved `RegionMoving`. `KiviClient` refreshes its map
and retries, so its caller never sees either. A split cutting a region that a scan
is reading makes the scan resume rather than miss rows. (The cluster-level test with
ZooKeeper and real processes is tests/integration/test_cluster_placement.py.)
"""

from __future__ import annotations

import threading
import time

import pytest

from cumulo.server.cluster.failover import region_applies
from cumulo.server.kivi.api import (
    Apply,
    DropRegion,
    ExportRegion,
    Get,
    ImportRegion,
    LatestCommit,
    RegionData,
    Scan,
    SpaceWrites,
    SplitRegion,
    Write,
)
from cumulo.server.kivi.client import KiviClient
from cumulo.server.kivi.fanout import paged
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.regionmap import RegionInfo, RegionMap
from cumulo.server.kivi.routing import (
    READ_ANY,
    FreezeRegion,
    OpenRegion,
    RecoverRegion,
    RegionMoving,
    UnfreezeRegion,
    WrongRegion,
)
from cumulo.server.txn.codec import pack_record

S = 7


def k(i: int) -> bytes:
    return encode_key((i,))


def test_a_placement_node_serves_only_the_regions_it_was_given():
    node = KiviNode(placement=True)
    with pytest.raises(WrongRegion):
        node.apply(Apply(1, [Write(S, k(1), (1,))]))
    with pytest.raises(WrongRegion):
        node.get(Get(S, 1, [k(1)]))
    with pytest.raises(WrongRegion):
        node.scan(Scan(S, 1))
    node.handle(OpenRegion(S, b"", k(5)))
    node.apply(Apply(1, [Write(S, k(i), (i,)) for i in range(5)]))
    assert [r[0] for r in node.scan(Scan(S, 1, hi=k(5))).rows] == list(range(5))
    assert [r[0] for r in node.scan(Scan(S, 1, lo=k(1), hi=k(3))).rows] == [1, 2]
    with pytest.raises(WrongRegion):  # the scan reaches past what the node holds
        node.scan(Scan(S, 1))
    with pytest.raises(WrongRegion):
        node.get(Get(S, 1, [k(7)]))
    with pytest.raises(WrongRegion):  # all or nothing: the first write is not applied either
        node.apply(Apply(2, [Write(S, k(0), (100,)), Write(S, k(9), (9,))]))
    assert node.get(Get(S, 2, [k(0)])).rows == [(0,)]
    # Opening the whole space fills the gap only: the data held stays.
    node.handle(OpenRegion(S, b"", None))
    assert [(r.lo, r.hi) for r in node.regions()] == [(b"", k(5)), (k(5), None)]
    assert len(node.scan(Scan(S, 1)).rows) == 5
    # A node outside placement mode makes regions on demand, as in embedded mode.
    plain = KiviNode()
    plain.apply(Apply(1, [Write(S, k(1), (1,))]))
    assert plain.get(Get(S, 1, [k(1)])).rows == [(1,)]


def test_a_frozen_region_answers_moving_until_unfrozen_or_dropped():
    node = KiviNode(placement=True)
    node.handle(OpenRegion(S, b"", None))
    node.apply(Apply(1, [Write(S, k(i), (i,)) for i in range(3)]))
    with pytest.raises(WrongRegion):  # only a region held exactly so can be frozen
        node.handle(FreezeRegion(S, b"", k(2)))
    node.handle(FreezeRegion(S, b"", None))
    for req in (Apply(2, [Write(S, k(9), (9,))]), Get(S, 1, [k(1)]), Scan(S, 1)):
        with pytest.raises(RegionMoving):
            node.handle(req)
    assert len(node.handle(ExportRegion(S, b"")).keys) == 3  # the mover still reads it
    node.handle(UnfreezeRegion(S, b""))
    assert node.get(Get(S, 1, [k(1)])).rows == [(1,)]
    node.handle(FreezeRegion(S, b"", None))
    node.handle(DropRegion(S, b""))
    with pytest.raises(WrongRegion):
        node.get(Get(S, 1, [k(1)]))


def test_a_moving_region_serves_reads_up_to_the_snapshot_it_was_given():
    """A move freezes its source for applies only, then (before the switch) lets reads
    through only at snapshots the source surely holds (`cluster.placer`)."""
    node = KiviNode(placement=True)
    node.handle(OpenRegion(S, b"", None))
    node.apply(Apply(5, [Write(S, k(i), (i,)) for i in range(3)]))
    node.handle(FreezeRegion(S, b"", None, READ_ANY))
    with pytest.raises(RegionMoving):
        node.handle(Apply(6, [Write(S, k(9), (9,))]))
    assert node.handle(Get(S, 1 << 40, [k(1)])).rows == [(1,)]
    assert len(node.handle(Scan(S, 1 << 40)).rows) == 3
    node.handle(FreezeRegion(S, b"", None, 5))  # just before the switch
    assert node.handle(Get(S, 5, [k(1), k(2)])).rows == [(1,), (2,)]
    assert len(node.handle(Scan(S, 5)).rows) == 3
    for req in (Get(S, 6, [k(1)]), Scan(S, 6), LatestCommit(S, [k(1)])):
        with pytest.raises(RegionMoving):
            node.handle(req)
    node.handle(DropRegion(S, b""))
    with pytest.raises(WrongRegion):
        node.get(Get(S, 5, [k(1)]))


@pytest.mark.parametrize("reverse", [False, True])
def test_a_split_during_a_scan_loses_no_row(monkeypatch, reverse):
    """The split cuts the store the scan is reading, between two of its chunks."""
    node = KiviNode(placement=True)
    node.handle(OpenRegion(S, b"", None))
    n = 20000  # more than one chunk (MAX_CHUNK)
    node.apply(Apply(1, [Write(S, k(i), (i,)) for i in range(n)]))
    chunks = node._chunks
    done = []

    def split_after_first(region, req, rev, *sizes):
        for i, c in enumerate(chunks(region, req, rev, *sizes)):
            yield c
            if i == 0 and not done:
                done.append(True)
                node.split_region(SplitRegion(S, k(n // 2 if not reverse else n // 4)))

    monkeypatch.setattr(node, "_chunks", split_after_first)
    rows = [r[0] for batch in paged(node, Scan(S, 1, batch_size=n, reverse=reverse))
            for r in batch]
    assert done
    assert rows == (list(range(n)) if not reverse else list(range(n - 1, -1, -1)))
    assert [(r.lo, r.hi) for r in node.regions()] == [
        (b"", k(n // 2 if not reverse else n // 4)), (k(n // 2 if not reverse else n // 4), None)]
    assert sum(len(b) for b in paged(node, Scan(S, 1, batch_size=n))) == n  # both halves


class TruthMap(RegionMap):
    """A map re-read from `truth` (what ZooKeeper is to `cluster.zkmap.ZkRegionMap`)."""

    def __init__(self, nodes: list[str], truth: dict[int, list[RegionInfo]]) -> None:
        super().__init__(nodes)
        self.truth = truth
        self.refreshes = 0

    def _load(self, space: int) -> list[RegionInfo]:
        return list(self.truth[space])

    def refresh(self, spaces: set[int]) -> bool:
        self.refreshes += 1
        for s in spaces:
            self._install(s, self._load(s))
        return True


def test_the_client_retries_stale_routing_and_waits_out_a_move():
    a, b = KiviNode(placement=True, node_id="a"), KiviNode(placement=True, node_id="b")
    truth = {S: [RegionInfo(S, b"", None, "a", 1, 1)]}
    rmap = TruthMap(["a", "b"], truth)
    client = KiviClient({"a": a, "b": b}, rmap)
    # The region exists in the map but not yet on its node: the client has it opened.
    client.apply(Apply(1, [Write(S, k(i), (i,)) for i in range(10)]))
    assert rmap.refreshes == 1 and [r.lo for r in a.regions()] == [b""]

    # A move while a writer runs: its apply waits (RegionMoving), then lands on b.
    a.handle(FreezeRegion(S, b"", None))
    result: list[object] = []
    writer = threading.Thread(target=lambda: result.append(
        client.apply(Apply(2, [Write(S, k(3), (33,))]))))
    writer.start()
    time.sleep(0.05)
    assert not result  # waiting for the move
    b.handle(ImportRegion(a.handle(ExportRegion(S, b""))))
    truth[S] = [RegionInfo(S, b"", None, "b", 1, 2)]
    a.handle(DropRegion(S, b""))
    writer.join(10)
    assert result and not writer.is_alive()
    # The client's map was stale (it routed to a): WrongRegion, refresh, retry on b.
    assert client.get(Get(S, 2, [k(3), k(4)])).rows == [(33,), (4,)]
    assert rmap.locate(S, k(3)).node == "b"
    assert [r[0] for r in client.scan(Scan(S, 2)).rows] == [0, 1, 2, 33, *range(4, 10)]


def test_failover_replays_only_the_region_s_records_above_its_checkpoint(tmp_path):
    """What a dead node's region is rebuilt from: its checkpoint file, then its share of
    the redo records above the checkpoint (`cluster.failover`)."""
    records = [
        pack_record(5, [Write(S, k(1), (1,)), Write(S, k(8), (8,))]),  # below the checkpoint
        pack_record(9, [Write(S, k(2), (2,)), Write(S, k(7), (7,)), Write(S + 1, k(2), (0,))]),
        pack_record(12, [], spaces=[SpaceWrites(S, [k(3), k(6)], [(3,), None])]),
        pack_record(11, [Write(S, k(9), (9,))]),  # outside the range only
    ]
    applies = region_applies(records, S, k(0), k(5), after=6)
    assert [(a.ts, [(w.space, w.key) for w in a.writes],
             [(sw.space, sw.keys, sw.rows) for sw in a.spaces]) for a in applies] == [
        (9, [(S, k(2))], []), (12, [], [(S, [k(3)], [(3,)])])]
    # Replayed onto the checkpoint in a recovering region: applies land, reads wait.
    node = KiviNode(tmp_path, "b", placement=True)
    node.handle(RecoverRegion(RegionData(S, k(0), k(5), [k(1)], [((5, (1,)),)], 6)))
    for a in applies:
        node.apply(a)
    with pytest.raises(RegionMoving):
        node.get(Get(S, 20, [k(1)]))
    node.handle(UnfreezeRegion(S, k(0)))
    assert [r[0] for r in node.scan(Scan(S, 20, lo=k(0), hi=k(5))).rows] == [1, 2, 3]
    # Its file was written at once: a restart of b has the checkpoint's rows.
    again = KiviNode(tmp_path, "b", placement=True)
    assert [(r.lo, r.hi) for r in again.regions()] == [(k(0), k(5))]
