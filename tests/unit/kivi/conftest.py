"""Fixtures: the same KiVi API as one in-process node, over TCP, and sharded over several nodes."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from cumulo.server.kivi.client import KiviClient
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode


@dataclass
class Setup:
    api: object
    client: KiviClient | None = None
    closers: list = field(default_factory=list)

    def reshard(self, space: int, cuts=(10, 25, 40)) -> None:
        """Splits a space at the given int keys and spreads the pieces over the nodes."""
        if self.client is None:
            return
        names = sorted(self.client.nodes)
        for c in cuts:
            self.client.split(space, encode_key((c,)))
        for i, info in enumerate(self.client.map.regions(space)):
            self.client.move(info, names[(i + 1) % len(names)])


def _remote(node, closers):
    server = NodeServerThread(node)
    client = RemoteNode(server.host, server.port)
    closers.append(server.stop)
    closers.append(client.close)
    return client


@pytest.fixture(params=["local", "remote", "cluster", "remote-cluster"])
def kivi(request):
    kind = request.param
    closers: list = []
    if kind == "local":
        setup = Setup(KiviNode())
    elif kind == "remote":
        setup = Setup(_remote(KiviNode(), closers))
    else:
        nodes = {f"n{i}": KiviNode(node_id=f"n{i}") for i in range(3)}
        if kind == "remote-cluster":
            nodes = {k: _remote(v, closers) for k, v in nodes.items()}
        client = KiviClient(nodes)
        closers.append(client.close)
        setup = Setup(client, client)
    setup.closers = closers
    yield setup
    for close in reversed(closers):
        close()
