"""Regions, the region map, and a node under concurrent readers and writers."""

from __future__ import annotations

import threading

import pytest

from cumulo.server.kivi.api import Apply, Get, Scan, Write
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.region import Region, SpaceRegions, clip_range
from cumulo.server.kivi.regionmap import RegionMap


def k(i):
    return encode_key((i,))


def test_clip_range():
    assert clip_range(b"", None, None, None) == (b"", None)
    assert clip_range(b"b", b"d", b"a", b"c") == (b"b", b"c")
    assert clip_range(b"b", b"d", b"c", None) == (b"c", b"d")
    assert clip_range(b"b", b"d", b"d", None) is None
    assert clip_range(b"b", b"d", None, b"b") is None


def test_region_split_moves_upper_keys():
    r = Region(1)
    r.store.apply(1, [(k(i), (i,)) for i in range(10)])
    upper = r.split(k(4))
    assert (r.lo, r.hi, upper.lo, upper.hi) == (b"", k(4), k(4), None)
    assert [x[1][0] for x in r.store.scan(None, None, 1)] == [0, 1, 2, 3]
    assert [x[1][0] for x in upper.store.scan(None, None, 1)] == list(range(4, 10))
    with pytest.raises(ValueError):
        r.split(k(4))
    with pytest.raises(ValueError):
        r.split(b"")


def test_space_regions_reject_overlap_and_find():
    sr = SpaceRegions()
    sr.add(Region(1, k(5), k(9)))
    sr.add(Region(1, b"", k(5)))
    with pytest.raises(ValueError):
        sr.add(Region(1, k(8), None))
    sr.add(Region(1, k(9), None))
    assert sr.find(k(7)).lo == k(5)
    assert sr.find(k(100)).lo == k(9)
    assert [r.lo for r in sr.overlapping(k(6), k(10))] == [k(5), k(9)]
    assert [r.lo for r in sr.overlapping(None, k(5))] == [b""]
    sr.remove(k(5))
    assert sr.find(k(7)) is None


def test_space_regions_store_is_the_whole_regions_only():
    """`SpaceRegions.store` (the commit's and the point read's one test per space) is the
    store of a region holding every key, and None once the space has any other shape."""
    sr = SpaceRegions()
    assert sr.store is None
    whole = Region(1)
    sr.add(whole)
    assert sr.store is whole.store
    sr.remove(b"")
    assert sr.store is None
    sr.add(Region(1, b"", k(5)))
    assert sr.store is None
    sr.add(Region(1, k(5), None))
    assert sr.store is None
    sr.remove(k(5))
    assert sr.store is None  # [b"", k(5)) alone does not hold every key


def test_a_split_between_commits_sends_each_write_to_its_half():
    """A commit applied and a key read after `SplitRegion` (which narrows the region in
    place) go to the half holding the key, not to the store of the whole region before."""
    from cumulo.server.kivi.api import DropRegion, ExportRegion, ImportRegion, SplitRegion

    node = KiviNode()
    node.apply(Apply(1, [Write(1, k(1), (1,)), Write(1, k(7), (7,))]))
    assert node.get_rows(1, 1, [k(1), k(7)]) == [(1,), (7,)]
    node.handle(SplitRegion(1, k(5)))
    node.apply(Apply(2, [Write(1, k(2), (2,)), Write(1, k(8), (8,))]))
    lower, upper = node._spaces[1].regions
    assert [key for key, _ in lower.store.scan(None, None, 2)] == [k(1), k(2)]
    assert [key for key, _ in upper.store.scan(None, None, 2)] == [k(7), k(8)]
    assert node.get_rows(1, 2, [k(2), k(8)]) == [(2,), (8,)]
    data = node.handle(ExportRegion(1, k(5)))
    node.handle(DropRegion(1, k(5)))
    node.handle(ImportRegion(data))  # moved back: two regions still, each its own keys
    node.apply(Apply(3, [Write(1, k(3), (3,)), Write(1, k(9), (9,))]))
    assert node.get_rows(1, 3, [k(1), k(3), k(7), k(9)]) == [(1,), (3,), (7,), (9,)]
    assert [key for key, _ in node._spaces[1].regions[0].store.scan(None, None, 3)] \
        == [k(1), k(2), k(3)]


def test_region_map_split_move_locate():
    m = RegionMap(["a", "b", "c"])
    assert m.locate(4, k(1)).node == "b"  # 4 mod 3
    first = m.locate(4, k(1))
    lower, upper = m.split(first, k(10))
    moved = m.move(upper, "c")
    assert m.locate(4, k(9)) == lower
    assert m.locate(4, k(10)) == moved and moved.node == "c"
    assert m.overlapping(4, k(9), k(11)) == [lower, moved]
    assert m.overlapping(4, k(10), None) == [moved]
    assert m.overlapping(4, None, k(10)) == [lower]
    with pytest.raises(ValueError):
        m.split(upper, k(20))  # stale: upper has moved
    with pytest.raises(ValueError):
        m.move(moved, "zz")
    m.drop_space(4)
    assert m.regions(4) == [m.locate(4, k(10))] and m.locate(4, k(10)).node == "b"


def test_node_rejects_keys_of_regions_it_does_not_hold():
    from cumulo.server.errors import InternalError
    from cumulo.server.kivi.api import DropRegion, SplitRegion

    node = KiviNode()
    node.apply(Apply(1, [Write(1, k(1), (1,))]))
    node.handle(SplitRegion(1, k(5)))
    node.handle(DropRegion(1, k(5)))
    with pytest.raises(InternalError):
        node.apply(Apply(2, [Write(1, k(7), (7,))]))
    with pytest.raises(InternalError):
        node.get(Get(1, 2, [k(7)]))
    with pytest.raises(InternalError):
        node.handle("not a request")


def test_concurrent_writers_and_readers_see_consistent_snapshots():
    """Writers commit pairs that keep sum(row) == 0; every snapshot read must see sum 0."""
    node = KiviNode()
    node.apply(Apply(1, [Write(1, k(i), (0,)) for i in range(200)]))
    done = threading.Event()
    errors: list[str] = []
    committed = [1]
    lock = threading.Lock()

    def writer(wid: int) -> None:
        for n in range(150):
            with lock:
                ts = committed[0] + 1
                a, b = (wid * 37 + n) % 200, (wid * 91 + n * 7 + 1) % 200
                if a == b:
                    continue
                ra, rb = node.get(Get(1, ts - 1, [k(a), k(b)])).rows
                node.apply(Apply(ts, [Write(1, k(a), (ra[0] + 5,)), Write(1, k(b), (rb[0] - 5,))]))
                committed[0] = ts

    def reader() -> None:
        while not done.is_set():
            ts = committed[0]
            rows = []
            req = Scan(1, ts, batch_size=37)
            while True:
                reply = node.scan(req)
                rows += reply.rows
                if reply.resume_key is None:
                    break
                req = Scan(1, ts, lo=reply.resume_key, batch_size=37)
            if len(rows) != 200 or sum(r[0] for r in rows) != 0:
                errors.append(f"ts {ts}: {len(rows)} rows, sum {sum(r[0] for r in rows)}")

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(3)]
    readers = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads + readers:
        t.start()
    for t in threads:
        t.join()
    done.set()
    for t in readers:
        t.join()
    assert not errors, errors[:3]
    assert committed[0] > 300
