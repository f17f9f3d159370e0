"""Two catalog stores over one transaction manager behave as two query engines of a cluster.

Each engine caches its own sequence block and catalog snapshot; these tests show that a
block never overlaps another engine's (nor one reserved before a restart), and that a
catalog change announced by another engine (`remote_bump`) makes the cache stale.
"""

from __future__ import annotations

from cumulo.server.sql.catalog.model import Sequence
from cumulo.server.sql.catalog.store import SEQ_BLOCK, CatalogStore
from cumulo.server.txn.embedded import open_embedded


def test_interleaved_engines_never_hand_out_a_value_twice():
    tm = open_embedded(None, gc_interval=None)
    a, b = CatalogStore(tm), CatalogStore(tm)
    for seq in (Sequence(20000, "up", 2200), Sequence(20001, "down", 2200, start=-1,
                                                      increment=-3, min_value=-10**6,
                                                      max_value=-1)):
        got = []
        for i in range(5 * SEQ_BLOCK):
            got.append((a if i % 3 else b).nextval(seq))
        got.append(CatalogStore(tm).nextval(seq))  # a third engine, or one restarted
        assert len(set(got)) == len(got), got
        assert got[:2] == [seq.start, seq.start + seq.increment * SEQ_BLOCK]


def test_remote_bump_makes_the_cached_catalog_stale():
    tm = open_embedded(None, gc_interval=None)
    store = CatalogStore(tm)
    store.bootstrap()
    told: list[int] = []
    store.publish = told.append
    before = store.snapshot(5)
    assert store.snapshot(5) is before
    store.remote_bump(0)
    after = store.snapshot(5)
    assert after is not before and after.version > before.version
    store.bump(1)  # NB: a commit the bootstrap made visible: the reload waits to see it
    assert told == [1] and store.snapshot(5).version > after.version
    assert store.min_ts == 1  # this engine's own next reload must see its DDL too
