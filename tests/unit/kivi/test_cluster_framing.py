"""The MasterMind's per-transaction messages in fixed frame layouts (`cluster.mmframing`),
over a real socket, and the sequence marks it keeps (`cluster.seqmarks`): doctests, and
a served MasterMind answering snapshot asks, commit reports, timestamp batches and
sequence blocks through `kivi.remote`."""

from __future__ import annotations

import doctest

import pytest

from cumulo.server.cluster import mmframing, seqmarks
from cumulo.server.cluster.leaderclient import Led
from cumulo.server.cluster.mastermind import MasterMindService, PollSnapshot, SnapshotIs
from cumulo.server.cluster.seqmarks import SeqBlock, SeqReserve, SeqSet
from cumulo.server.kivi import framing
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode
from cumulo.server.txn.sequencer import Batch, RequestBatch
from cumulo.server.txn.snapshot import Advanced, Readable


@pytest.mark.parametrize("module", [mmframing, seqmarks, framing])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted and not result.failed


class Unwrap:
    """What `leader.MasterMindRole` does with a `Led` (without the election)."""

    def __init__(self, mm: MasterMindService) -> None:
        self.mm = mm

    def handle(self, msg):
        assert type(msg) is Led, msg  # NB: it arrived through its fixed layout, whole
        return self.mm.handle(msg.msg)


def test_a_served_mastermind_answers_in_fixed_layouts():
    mm = MasterMindService()
    server = NodeServerThread(Unwrap(mm), offload=lambda m: mm.offload(m.msg))
    client = RemoteNode(server.host, server.port)
    try:
        assert client.handle(Led(1, PollSnapshot(0, 0.0), 5)) == SnapshotIs(0)
        (batch,) = client.handle(Led(1, RequestBatch(3, 4), 6))
        assert batch == Batch(3, 1, 4)
        assert client.handle(Led(1, Readable((1, 2)), 7)) == [Advanced(2)]
        assert client.handle(Led(1, Readable((4,)), 8)) == []  # 3 is still out
        assert client.handle(Led(1, PollSnapshot(0, 0.0), 9)) == SnapshotIs(2)
        # Sequence blocks go the general way (offloaded: they may write ZooKeeper).
        assert client.handle(Led(1, SeqReserve(70, 1, 1, 10, False, 1, 100), 10)) == \
            SeqBlock(1, 10)
        client.handle(Led(1, SeqSet(70, 50), 11))
        assert client.handle(Led(1, SeqReserve(70, 1, 1, 10, False, 1, 100), 12)) == \
            SeqBlock(51, 60)
        # A number the layout cannot hold: the general way, answered all the same.
        assert client.handle(Led(1, PollSnapshot(1 << 70, 0.0), 13)) == SnapshotIs(2)
    finally:
        client.close()
        server.stop()
