"""Checkpoints: restart from the files, replay the redo tail idempotently, survive splits/moves."""

from __future__ import annotations

import doctest

from cumulo.server.cluster import failover
from cumulo.server.kivi import checkpoint as ckpt
from cumulo.server.kivi import freeze, mvcc
from cumulo.server.kivi.api import Apply, Checkpoint, DropSpace, Get, Scan, Write
from cumulo.server.kivi.client import KiviClient
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.mvcc import VersionStore
from cumulo.server.kivi.node import KiviNode


def k(i):
    return encode_key((i,))


def commits():
    """A redo log: (ts, writes) with updates and deletes."""
    log = [(10, [Write(1, k(i), (i, "a")) for i in range(20)])]
    log.append((20, [Write(1, k(i), (i, "b")) for i in range(0, 20, 2)]))
    log.append((30, [Write(1, k(i), None) for i in range(0, 20, 3)] + [Write(2, k(0), (0,))]))
    log.append((40, [Write(1, k(100), (100, "c"))]))
    return log


def visible(node, ts):
    return node.scan(Scan(1, ts)).rows, node.scan(Scan(2, ts)).rows


def test_restart_and_replay(tmp_path):
    log = commits()
    node = KiviNode(tmp_path)
    assert node.checkpoint_ts == 0
    for ts, writes in log[:3]:
        node.apply(Apply(ts, writes))
    node.checkpoint(Checkpoint(25))  # ts 30 is applied but not in the checkpoint
    node.apply(Apply(*log[3]))
    expect = {ts: visible(node, ts) for ts in (15, 25, 35, 45)}

    restarted = KiviNode(tmp_path)
    assert restarted.checkpoint_ts == 25
    assert visible(restarted, 25) == expect[25]
    assert visible(restarted, 15) == expect[15]  # older versions are kept too
    assert visible(restarted, 45)[0] == expect[25][0]  # ts 30, 40 not there yet
    # Replay everything after the checkpoint, some of it twice: same state as before.
    for ts, writes in log:
        if ts > restarted.checkpoint_ts:
            restarted.apply(Apply(ts, writes))
            restarted.apply(Apply(ts, writes))
    assert {ts: visible(restarted, ts) for ts in expect} == expect


def test_checkpoint_is_atomic_and_cleans_up(tmp_path):
    node = KiviNode(tmp_path)
    node.apply(Apply(5, [Write(1, k(1), (1,)), Write(2, k(1), (2,))]))
    node.checkpoint(Checkpoint(5))
    d = tmp_path / "kivi"
    assert sorted(p.name for p in d.iterdir()) == [
        ckpt.MANIFEST, f"s1-{b''.hex()}.ckpt", f"s2-{b''.hex()}.ckpt"
    ]
    # A leftover temporary file from a crash mid-write is ignored and then removed.
    (d / "s1-.tmp").write_bytes(b"garbage")
    assert KiviNode(tmp_path).get(Get(1, 5, [k(1)])).rows == [(1,)]
    node.drop_space(DropSpace(2))
    assert not (d / "s2-.ckpt").exists()
    node.checkpoint(Checkpoint(6))
    assert sorted(p.name for p in d.iterdir()) == [ckpt.MANIFEST, "s1-.ckpt"]
    again = KiviNode(tmp_path)
    assert again.checkpoint_ts == 6
    assert again.get(Get(2, 6, [k(1)])).rows == [None]


def test_split_and_move_are_checkpointed(tmp_path):
    a, b = KiviNode(tmp_path / "a", "a"), KiviNode(tmp_path / "b", "b")
    client = KiviClient({"a": a, "b": b})
    space = 2  # starts on node "a" (2 mod 2 = 0)
    client.apply(Apply(5, [Write(space, k(i), (i,)) for i in range(10)]))
    client.checkpoint(Checkpoint(5))
    _, upper = client.split(space, k(5))
    client.move(upper, "b")
    # The moved region's file is written on b at once, as of a's checkpoint (a dropped its
    # own file: it must survive a restart of b before b's next checkpoint).
    assert b.checkpoint_ts == 5
    b_early = KiviNode(tmp_path / "b")
    assert [r[0] for r in b_early.scan(Scan(space, 5)).rows] == list(range(5, 10))
    # A restart of "a" before the next checkpoint must not bring the moved half back.
    a_early = KiviNode(tmp_path / "a")
    assert [(r.lo, r.hi) for r in a_early.regions()] == [(b"", k(5))]
    assert a_early.checkpoint_ts == 5
    client.checkpoint(Checkpoint(6))
    assert a.checkpoint_ts == b.checkpoint_ts == 6
    files = {p.name for p in (tmp_path / "a" / "kivi").iterdir()}
    assert files == {"s2-.ckpt", ckpt.MANIFEST}
    a2, b2 = KiviNode(tmp_path / "a"), KiviNode(tmp_path / "b")
    assert [r[0] for r in a2.scan(Scan(space, 6)).rows] == list(range(5))
    assert [r[0] for r in b2.scan(Scan(space, 6)).rows] == list(range(5, 10))


def test_load_all_rejects_foreign_files(tmp_path):
    d = ckpt.kivi_dir(tmp_path)
    (d / "s1-.ckpt").write_bytes(b"\x93\x01\x02\x03")
    try:
        ckpt.load_all(d)
    except ValueError as exc:
        assert "not a KiVi region checkpoint" in str(exc)
    else:
        raise AssertionError("a foreign file was accepted")


def test_an_older_checkpoint_lowers_checkpoint_ts(tmp_path):
    """The files hold the state as of the latest call's ts, so that is what must be reported."""
    node = KiviNode(tmp_path)
    node.apply(Apply(5, [Write(1, k(1), (1,))]))
    node.apply(Apply(9, [Write(1, k(2), (2,))]))
    node.checkpoint(Checkpoint(9))
    node.checkpoint(Checkpoint(6))
    assert node.checkpoint_ts == 6
    again = KiviNode(tmp_path)
    assert again.checkpoint_ts == 6
    assert again.get(Get(1, 9, [k(1), k(2)])).rows == [(1,), None]  # ts 9 comes from replay


def _crash_mid_checkpoint(node, ts, spaces):
    """Writes the files of `spaces` only, as a checkpoint at ts killed half-way would."""
    from cumulo.server.kivi.api import RegionData

    for space in spaces:
        for region in node._spaces[space].regions:
            d = region.export(ts)
            ckpt.write_region(node._dir, RegionData(d.space, d.lo, d.hi, d.keys, d.chains, ts))


def test_a_checkpoint_killed_half_way_reports_the_last_complete_one(tmp_path):
    node = KiviNode(tmp_path)
    node.apply(Apply(5, [Write(1, k(1), (1,))]))
    node.checkpoint(Checkpoint(5))
    node.apply(Apply(8, [Write(2, k(1), (21,))]))  # a new space: no file yet
    node.apply(Apply(9, [Write(1, k(2), (2,))]))
    _crash_mid_checkpoint(node, 9, [1])  # space 1 rewritten at 9, space 2 never written
    again = KiviNode(tmp_path)
    assert again.checkpoint_ts == 5  # not 9: the redo log after 5 is still needed


def test_the_first_checkpoint_killed_half_way_reports_nothing(tmp_path):
    node = KiviNode(tmp_path)
    node.apply(Apply(3, [Write(1, k(1), (1,)), Write(2, k(1), (2,))]))
    _crash_mid_checkpoint(node, 3, [1])
    assert KiviNode(tmp_path).checkpoint_ts == 0


def test_recovery_after_a_checkpoint_killed_half_way(tmp_path):
    """The crash loop's finding: a commit to a new table before a half-written checkpoint."""
    from cumulo.server.txn.embedded import open_embedded

    tm = open_embedded(str(tmp_path), gc_interval=None)
    t = tm.begin()
    t.put(1, [(k(1), (1,))])
    t.commit()
    tm.checkpoint()
    t = tm.begin()
    t.put(7, [(k(1), (7,))])  # the first write of space 7: a region with no file yet
    t.commit()
    t = tm.begin()
    t.put(1, [(k(2), (2,))])
    t.commit()
    _crash_mid_checkpoint(tm.kivi, tm.ltm.snapshots.snapshot, [1])
    tm.log.close()  # the process dies: nothing else is written
    again = open_embedded(str(tmp_path), gc_interval=None)
    try:
        txn = again.begin()
        assert txn.get(7, [k(1)]) == [(7,)]
        assert txn.get(1, [k(1), k(2)]) == [(1,), (2,)]
    finally:
        again.close()


def test_checkpoint_acks_its_ts_only_when_every_file_is_written(tmp_path):
    """The LTM trims the redo log below a checkpoint only on Ack(ts): a node (or one node of
    a cluster) that wrote nothing must not claim a durable checkpoint."""
    assert KiviNode(tmp_path / "a").checkpoint(Checkpoint(4)).value == 4
    assert KiviNode(None).checkpoint(Checkpoint(4)).value is None
    both = KiviClient({"a": KiviNode(tmp_path / "a"), "b": KiviNode(tmp_path / "b")})
    assert both.checkpoint(Checkpoint(4)).value == 4
    mixed = KiviClient({"a": KiviNode(tmp_path / "a"), "m": KiviNode(None)})
    assert mixed.checkpoint(Checkpoint(4)).value is None


def test_windowed_checkpoint_file_holds_the_export(tmp_path, monkeypatch):
    """A background checkpoint writes a region a window at a time (`export_windows`,
    `write_windows`); read back, the file is the store's `export(ts)`, cold rows, hot
    rows, tombstones and versions newer than ts (cut) alike; a restart reads it."""
    assert doctest.testmod(ckpt).failed == 0
    monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)  # as `cumulo serve` runs
    monkeypatch.setattr(freeze, "MIN_SEGMENT", 4)
    monkeypatch.setattr(freeze, "SEGMENT_ROWS", 64)
    keys = [k(i) for i in range(0, 900, 3)]
    store = VersionStore(cache_limit=8)
    store.apply_lists(1, keys, [(i, f"r{i}") for i in range(len(keys))])
    store.collect(2)
    assert len(store._cold) > 200  # most of it went cold
    store.apply(3, [(keys[5], (5, "new")), (keys[9], None), (k(1), (-1, "in"))])
    store.apply(4, [(keys[7], (7, "later"))])

    def norm(chains):
        return [[(ts, None if r is None else tuple(r)) for ts, r in c] for c in chains]

    for ts in (2, 3, None):
        path = ckpt.write_windows(tmp_path, ckpt.Windows(1, b"", None, ts or 4,
                                                         store.export_windows(ts, 50)()))
        got = ckpt.read_region(path)
        want_keys, want_chains = store.export(ts)
        assert got.keys == want_keys and norm(got.chains) == norm(want_chains)
    node = KiviNode(tmp_path / "n")
    node.apply(Apply(5, [Write(1, k(i), (i, "x")) for i in range(300)] + [Write(1, k(7), None)]))
    node.checkpoint(Checkpoint(5))
    assert (tmp_path / "n" / "kivi" / "s1-.ckpt").read_bytes().startswith(ckpt.MAGIC)
    assert KiviNode(tmp_path / "n").scan(Scan(1, 5)).rows == node.scan(Scan(1, 5)).rows
    # a region not written since its file is only restamped; a written one is rewritten
    node.apply(Apply(6, [Write(2, k(1), (1,))]))
    node.checkpoint(Checkpoint(6))
    s1 = tmp_path / "n" / "kivi" / "s1-.ckpt"
    body = s1.read_bytes()[len(ckpt.MAGIC) + 8:]
    node.apply(Apply(7, [Write(2, k(2), (2,))]))
    node.checkpoint(Checkpoint(8))
    assert s1.read_bytes()[len(ckpt.MAGIC) + 8:] == body
    assert ckpt.read_region(s1).checkpoint_ts == 8
    again = KiviNode(tmp_path / "n")
    assert again.checkpoint_ts == 8
    assert again.scan(Scan(1, 8)).rows == node.scan(Scan(1, 8)).rows
    assert again.scan(Scan(2, 8)).rows == [(1,), (2,)]
    # a cluster's failover reads a dead node's windowed file too
    zk = Znodes()
    failover.record_node(zk, "n", str(tmp_path / "n"))
    dead = failover.checkpoint_of(zk, "n", 1, b"", None)
    assert dead.checkpoint_ts == 8 and len(dead.keys) == 300


class Znodes:
    """The three ZooKeeper calls `failover.record_node` and `checkpoint_of` make, on a dict."""

    def __init__(self) -> None:
        self.nodes: dict[str, bytes] = {}

    def exists(self, path: str) -> bool:
        return path in self.nodes

    def create(self, path: str, body: bytes, makepath: bool = False) -> None:
        self.nodes[path] = body

    def get(self, path: str) -> tuple[bytes, None]:
        return self.nodes[path], None
