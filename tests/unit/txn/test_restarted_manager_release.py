"""A transaction whose locks died with one of two conflict managers releases those it holds
at the other one.

Cluster mode, two managers: a transaction holds a key at each. The first manager dies and
a new process takes its place (`cluster.cmfailover`); until the MasterMind resets it, it
refuses every request (57P03). The engine dooms the transaction, whose end releases its
keys manager by manager: the refusal of the first stopped the release there, and the key
held at the second manager kept every later writer of it waiting for ever.

The managers are real `ConflictService`s served over TCP (`kivi.remote`), as in a cluster.
"""

from __future__ import annotations

import pytest

from cumulo.server.cluster.manager import bucket_shares
from cumulo.server.cluster.proxies import RemoteConflictManager
from cumulo.server.cluster.services import ConflictService
from cumulo.server.errors import SerializationFailure
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode
from cumulo.server.txn.conflicts import bucket_of
from cumulo.server.txn.ltm import LocalTxnManager
from cumulo.server.txn.sequencer import CommitSequencer
from cumulo.server.txn.snapshot import SnapshotServer

S, BUCKETS = 7, 2


def _key_of(share: frozenset[int]) -> bytes:
    """A key whose bucket is in `share`."""
    return next(k for k in (b"k%d" % i for i in range(100)) if bucket_of((S, k), BUCKETS) in share)


def test_a_doomed_transaction_releases_its_keys_at_the_managers_that_survived() -> None:
    shares = bucket_shares(2, BUCKETS)
    services = [ConflictService(share) for share in shares]
    servers = [NodeServerThread(svc, offload=svc.offload) for svc in services]
    proxies = [RemoteConflictManager(s.host, s.port, share, ltm_id=1)
               for s, share in zip(servers, shares, strict=True)]
    ltm = LocalTxnManager(KiviNode(None), sequencer=CommitSequencer(1),
                          snapshots=SnapshotServer(0), conflict_managers=proxies,  # type: ignore[arg-type]
                          buckets=BUCKETS, ltm_id=1)
    replacement = None
    try:
        first, second = (_key_of(share) for share in shares)
        t = ltm.begin()
        t.put(S, [(first, (1,)), (second, (2,))])
        assert services[1].cm.holder(S, second) == t.tid
        # The first manager dies; a new one, not reset yet, takes its place; the engine
        # follows it and dooms the transactions that were active (`cmfailover`).
        servers[0].stop()
        replacement = NodeServerThread(ConflictService(shares[0], needs_reset=True))
        old, proxies[0].client = proxies[0].client, RemoteNode(replacement.host, replacement.port)
        old.close()
        assert ltm.doom_active() == 1
        with pytest.raises(SerializationFailure):
            t.commit()
        assert services[1].cm.holder(S, second) is None
    finally:
        ltm.close()
        for p in proxies:
            p.close()
        for s in [*servers[1:], *([replacement] if replacement else [])]:
            s.stop()
