"""The catalog store: OIDs, sequences in blocks, snapshot caching."""

from __future__ import annotations

from cumulo.server.sql.catalog.model import FIRST_USER_OID, Sequence
from cumulo.server.sql.catalog.store import SEQ_BLOCK, CatalogStore
from cumulo.server.txn.embedded import open_embedded


def test_oids_are_unique_and_user_range():
    store = CatalogStore(open_embedded(None, gc_interval=None))
    store.bootstrap()
    oids = [store.allocate_oid() for _ in range(200)]
    assert len(set(oids)) == 200 and min(oids) >= FIRST_USER_OID
    assert oids == sorted(oids)


def test_sequences_descending_and_cycle():
    store = CatalogStore(open_embedded(None, gc_interval=None))
    down = Sequence(20000, "down", 2200, start=-1, increment=-2, min_value=-5, max_value=-1)
    assert [store.nextval(down) for _ in range(3)] == [-1, -3, -5]
    cyc = Sequence(20001, "cyc", 2200, start=1, max_value=2, cycle=True)
    assert [store.nextval(cyc) for _ in range(5)] == [1, 2, 1, 2, 1]
    assert store.setval(cyc, 2, False) == 2 and store.nextval(cyc) == 2


def test_sequence_resumes_after_reserved_block(tmp_path):
    tm = open_embedded(str(tmp_path), gc_interval=None)
    store = CatalogStore(tm)
    seq = Sequence(20000, "s", 2200)
    assert [store.nextval(seq) for _ in range(3)] == [1, 2, 3]
    tm.close()
    tm = open_embedded(str(tmp_path), gc_interval=None)
    store = CatalogStore(tm)
    v = store.nextval(seq)
    assert 3 < v <= 1 + SEQ_BLOCK  # never repeats; skips at most the unused block
    tm.close()


def test_snapshot_cached_until_bump():
    store = CatalogStore(open_embedded(None, gc_interval=None))
    store.bootstrap()
    db = next(d for d in store.snapshot(0).databases if d.name == "cumulo")
    first = store.snapshot(db.oid)
    assert store.snapshot(db.oid) is first
    store.bump()
    again = store.snapshot(db.oid)
    assert again is not first and again.version == first.version + 1
    assert [s.name for s in again.schemas] == ["pg_catalog", "information_schema", "public"]
