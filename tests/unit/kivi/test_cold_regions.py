"""Cold rows on a cluster's KiVi node (`cumulo kivi` keeps them by default): the
region operations the MasterMind drives and a restart's recovery keep frozen rows.

A node with a data dir is loaded, its rows frozen by a collect (as the query engines'
GC sends it), then: checkpointed and reopened (recovery reads the checkpoint back);
split by hand (a split rewrites the checkpoint as two files); one half moved to a second
node the way `cluster.placer` moves it (`ExportChunk` pieces, then `ImportRegion`);
written to after the freeze (a cold key goes hot). Every key reads back the same at the
newest snapshot and at the load's.
"""

from __future__ import annotations

import pytest

from cumulo.server.kivi import mvcc
from cumulo.server.kivi.api import (
    Apply,
    Checkpoint,
    Collect,
    Get,
    ImportRegion,
    RegionData,
    SpaceWrites,
    SplitRegion,
    Write,
)
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.routing import ExportChunk

N = 10_000
SPACE = 7


def _key(i: int) -> bytes:
    return b"k%06d" % i


def _cold(node: KiviNode) -> int:
    return sum(len(r.store._cold) for sr in node._spaces.values() for r in sr.regions)


@pytest.fixture(autouse=True)
def _cold_rows_on(monkeypatch):
    monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)


def test_frozen_rows_survive_restart_split_and_move(tmp_path):
    keys = [_key(i) for i in range(N)]
    rows = [(i, f"row {i}", i * 0.5) for i in range(N)]
    node = KiviNode(tmp_path / "a", node_id="a")
    node.apply(Apply(10, [], [SpaceWrites(SPACE, keys, rows)]))
    node.collect(Collect(20))
    assert _cold(node) == N, "nothing went cold: the test tests nothing"
    node.apply(Apply(30, [Write(SPACE, keys[5], (5, "hot again", 0.0))]))
    want = list(rows)
    want[5] = (5, "hot again", 0.0)

    def read(n: KiviNode, ks: list[bytes], ts: int = 40) -> list:
        return n.get(Get(SPACE, ts, ks)).rows

    assert node.handle(Checkpoint(35)).value == 35
    node = KiviNode(tmp_path / "a", node_id="a")  # recovery: the checkpoint, read back
    assert read(node, keys) == want and read(node, keys, 15) == rows
    node.collect(Collect(36))
    assert _cold(node) >= N - 1
    # a split by hand, then the upper half moved to node b in chunks
    mid = keys[N // 2]
    node.split_region(SplitRegion(SPACE, mid))
    got_keys: list[bytes] = []
    chains: list = []
    after = None
    while True:
        part = node.export_chunk(ExportChunk(SPACE, mid, after, 2000))
        if not part.keys:
            break
        got_keys += part.keys
        chains += part.chains
        after = part.keys[-1]
    assert len(got_keys) == N - N // 2
    other = KiviNode(tmp_path / "b", node_id="b")
    other.import_region(ImportRegion(RegionData(SPACE, mid, None, got_keys, chains, 35)))
    assert read(other, keys[N // 2:]) == want[N // 2:]
    assert read(node, keys[:N // 2]) == want[:N // 2]
    node = KiviNode(tmp_path / "a", node_id="a")  # the split's two files, read back
    assert read(node, keys) == want
