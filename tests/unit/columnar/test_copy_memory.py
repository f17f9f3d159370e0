"""Memory of the columnar copy: packs drop the begin/end arrays no snapshot needs, and a
dropped, truncated or cascaded table's copy is freed with its space (an SQL engine over
an in-process node: `columnar.access.copy_bytes` lists every built copy)."""

from __future__ import annotations

import gc
import weakref

import pytest

from cumulo.server.kivi.columnar import copy as ccopy
from cumulo.server.kivi.columnar.access import copy_bytes
from cumulo.server.kivi.columnar.compact import KeyBlob
from cumulo.server.kivi.columnar.copy import ColumnarCopy
from cumulo.server.kivi.mvcc import VersionStore
from tests.unit.columnar.sqlrun import run


def key(i: int) -> bytes:
    return i.to_bytes(4, "big")


def row_path(store: VersionStore, ts: int) -> list[tuple]:
    return sorted(r for _, r in store.scan(None, None, ts))


def col_path(store: VersionStore, ts: int) -> list[tuple]:
    snap = store.columnar(ts)
    assert snap is not None
    return sorted(snap.rows())


def packs(store: VersionStore) -> list[ccopy.Pack]:
    col = store._col  # noqa: SLF001  # the packs' arrays are what this test is about
    assert isinstance(col, ColumnarCopy)
    return list(col.packs.values())


def test_stamps_are_kept_only_while_a_snapshot_needs_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ccopy, "PACK_ROWS", 64)
    s = VersionStore()
    n = 640
    s.apply_lists(2, [key(i) for i in range(n)], [(i, i * 0.5, f"s{i % 7}") for i in range(n)])
    s.apply(3, [(key(i), (i, -1.0, "late")) for i in range(0, 64, 4)])
    assert col_path(s, 2) == row_path(s, 2)
    ps = packs(s)
    assert all(p.end is None for p in ps if p.min_end == ccopy.INF)  # never stamped: no end
    assert any(p.end is not None for p in ps)  # the updated rows' pack was stamped
    assert all(p.begin is not None for p in ps)  # snapshot 2 still valid: begins matter
    s.collect(3)
    assert all(p.begin is None for p in packs(s))  # every row began at or below 3
    for ts in (3, 4):
        assert col_path(s, ts) == row_path(s, ts)
    s.apply(5, [(key(100), None), (key(101), (101, 0.0, "new"))])
    for ts in (3, 4, 5, 6):
        assert col_path(s, ts) == row_path(s, ts)
    for p in packs(s):
        for j in range(3):
            p.column(j)
    clean = [p for p in packs(s) if p.begin is None and p.end is None]
    assert clean
    # the columns, plus the keys' blob (compact) or the keys' and rows' pointers: no stamps
    assert all(p.nbytes == (p.keys.nbytes if isinstance(p.keys, KeyBlob) else 16 * p.n)
               + sum(c.nbytes for c in p.cols if c is not None) for p in clean)


def test_a_copy_built_after_gc_has_no_begin_arrays() -> None:
    s = VersionStore()
    s.apply(2, [(key(i), (i,)) for i in range(100)])
    s.apply(4, [(key(i), (i + 1000,)) for i in range(10)])
    s.collect(4)
    assert col_path(s, 4) == row_path(s, 4)
    assert all(p.begin is None and p.end is None for p in packs(s))
    s.apply(6, [(key(3), None)])
    assert col_path(s, 5) == row_path(s, 5)
    assert col_path(s, 6) == row_path(s, 6)


def built(engine) -> dict[int, int]:  # type: ignore[no-untyped-def]
    return copy_bytes(engine.tm.ltm.kivi)


@pytest.mark.parametrize("drop", ["DROP TABLE t", "TRUNCATE t", "DROP SCHEMA s CASCADE",
                                  "DROP DATABASE other"])
def test_drop_frees_the_copy(engine, drop: str) -> None:  # type: ignore[no-untyped-def]
    # NB: only this test's copies: earlier tests' engines in this process may keep theirs
    gc.collect()
    older = {id(o) for o in gc.get_objects() if isinstance(o, ColumnarCopy)}
    admin = engine.open_session("cumulo", "cumulo", {})
    run(admin, "CREATE DATABASE other")
    s = engine.open_session("cumulo", "other", {})
    run(s, "SET cumulo.columnar = on")
    run(s, "CREATE SCHEMA s")
    run(s, "SET search_path = s, public")
    run(s, "CREATE TABLE t (id int PRIMARY KEY, g int, x int)")
    run(s, "INSERT INTO t SELECT i, i % 10, i FROM generate_series(1, 5000) i")
    assert run(s, "SELECT g, count(*), sum(x) FROM t GROUP BY g ORDER BY g")[-1][0] == (0, 500, 1252500)
    assert len(built(engine)) == 1
    refs = [weakref.ref(o) for o in gc.get_objects()
            if isinstance(o, ColumnarCopy) and id(o) not in older]
    assert refs
    if drop == "DROP DATABASE other":
        s.close()
        run(admin, drop)
    else:
        run(s, drop)
        s.close()
    admin.close()
    gc.collect()
    assert built(engine) == {}
    assert all(r() is None for r in refs)  # nothing else holds a copy (plans, caches)


def test_temp_table_copy_freed_at_session_end(engine) -> None:  # type: ignore[no-untyped-def]
    s = engine.open_session("cumulo", "cumulo", {})
    run(s, "SET cumulo.columnar = on")
    run(s, "CREATE TEMP TABLE tt (id int PRIMARY KEY, x int)")
    run(s, "INSERT INTO tt SELECT i, i FROM generate_series(1, 3000) i")
    assert run(s, "SELECT count(*), sum(x) FROM tt")[-1] == [(3000, 4501500)]
    assert len(built(engine)) == 1
    s.close()
    assert built(engine) == {}


def test_string_dictionary_shares_the_row_stores_strings() -> None:
    from cumulo.server.kivi.columnar.encode import encode

    vals = [None if i % 5 == 0 else f"comment {i * 7919 % 1000:04d} of a customer"
            for i in range(3000)]
    c = encode(vals)
    assert c.kind == "str" and c.dictionary is not None
    assert c.to_pylist() == vals
    d = c.dictionary.tolist()
    assert d == sorted(set(v for v in vals if v is not None))
    own = {id(v) for v in vals if v is not None}
    assert all(id(s) in own for s in d)  # the values' own objects, not copies
    assert (c.lo, c.hi) == (d[0], d[-1])
    assert c.nbytes == c.values.nbytes + c.valid.nbytes + 8 * len(d)  # type: ignore[union-attr]
