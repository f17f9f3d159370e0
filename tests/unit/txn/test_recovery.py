"""Recovery: checkpoint + log replay, and kill -9 after commit() returned loses nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from decimal import Decimal

from cumulo.server.txn.api import ScanSpec
from cumulo.server.txn.embedded import open_embedded

S = 11


def _all(tm, space=S):
    t = tm.begin()
    out = {r[0]: r[1:] for b in t.scan(ScanSpec(space, with_keys=True)) for r in b}
    t.abort()
    return out


def test_reopen_replays_the_log(tmp_path):
    tm = open_embedded(str(tmp_path), gc_interval=None)
    t = tm.begin()
    t.put(S, [(b"a", (1, Decimal("1.50"))), (b"b", (2, None))])
    c1 = t.commit()
    t = tm.begin()
    t.delete(S, [b"b"])
    t.put(S, [(b"c", (3, "x"))])
    c2 = t.commit()
    tm.close()
    tm = open_embedded(str(tmp_path), gc_interval=None)
    assert tm.replayed == 2
    assert _all(tm) == {b"a": (1, Decimal("1.50")), b"c": (3, "x")}
    t = tm.begin()
    t.put(S, [(b"d", (4,))])
    assert t.commit() > c2 > c1  # timestamps continue above the recovered ones
    tm.close()


def test_checkpoint_trims_log_and_recovers(tmp_path):
    tm = open_embedded(str(tmp_path), gc_interval=None)
    for i in range(20):
        t = tm.begin()
        t.put(S, [(bytes([i]), (i,))])
        t.commit()
    t = tm.begin()
    t.delete(S, [bytes([0])])
    t.commit()
    tm.checkpoint()
    t = tm.begin()
    t.put(S, [(bytes([99]), (99,))])
    t.delete(S, [bytes([1])])
    t.commit()
    tm.close()
    tm = open_embedded(str(tmp_path), gc_interval=None)
    assert tm.replayed == 1  # only the commit after the checkpoint
    expect = {bytes([i]): (i,) for i in range(2, 20)}
    expect[bytes([99])] = (99,)
    assert _all(tm) == expect
    tm.close()


def test_drop_space_survives_replay(tmp_path):
    tm = open_embedded(str(tmp_path), gc_interval=None)
    t = tm.begin()
    t.put(S, [(b"a", (1,))])
    t.put(S + 1, [(b"a", (1,))])
    t.commit()
    tm.drop_space(S)
    assert _all(tm) == {}
    tm.close()
    tm = open_embedded(str(tmp_path), gc_interval=None)
    assert _all(tm) == {}
    assert _all(tm, S + 1) == {b"a": (1,)}
    tm.close()


CHILD = textwrap.dedent(
    """
    import os, signal, sys, threading
    from cumulo.server.txn.embedded import open_embedded
    data_dir, mode = sys.argv[1], sys.argv[2]
    tm = open_embedded(data_dir, gc_interval=None, sync_commit=mode != "nosync")
    lock = threading.Lock()

    def work(w):
        for i in range(60):
            t = tm.begin(session=w)
            t.put(11, [(b"%d-%d" % (w, i), (w, i))])
            ts = t.commit(not (mode == "async" and w == 1))  # synchronous_commit = off
            with lock:
                sys.stdout.write("%d %d %d\\n" % (w, i, ts))
                sys.stdout.flush()
            if mode != "parent" and w == 0 and i == 30:
                tm.checkpoint()
            if mode != "parent" and w == 0 and i == 50:
                os.kill(os.getpid(), signal.SIGKILL)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    os._exit(0)
    """
)


def _run_child(data_dir: str, mode: str) -> list[tuple[int, int, int]]:
    env = dict(os.environ)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, data_dir, mode],
                            stdout=subprocess.PIPE, env=env, text=True)
    acked = []
    assert proc.stdout is not None
    for line in proc.stdout:
        acked.append(tuple(int(x) for x in line.split()))
        if mode == "parent" and len(acked) == 70:
            proc.send_signal(signal.SIGKILL)
            break
    proc.wait(30)
    if mode == "parent":
        acked += [tuple(int(x) for x in line.split()) for line in proc.stdout]
    assert proc.returncode == -signal.SIGKILL or (mode == "parent" and proc.returncode == 0)
    return acked


def test_sigkill_after_commit_loses_nothing(tmp_path):
    # "nosync": sync_commit off still survives a crash of the process (not of the machine);
    # "async": so do one session's commits with synchronous_commit = off among durable ones.
    for mode in ("self", "parent", "nosync", "async"):
        d = str(tmp_path / mode)
        acked = _run_child(d, mode)
        assert len(acked) >= 50
        tm = open_embedded(d, gc_interval=None)
        rows = _all(tm)
        for w, i, _ts in acked:
            assert rows.get(b"%d-%d" % (w, i)) == (w, i), (mode, w, i)
        top = max(ts for _w, _i, ts in acked)
        t = tm.begin()
        t.put(S, [(b"after", (0,))])
        assert t.commit() > top
        tm.close()


def test_torn_tail_of_the_log_is_ignored(tmp_path):
    tm = open_embedded(str(tmp_path), gc_interval=None)
    for i in range(3):
        t = tm.begin()
        t.put(S, [(bytes([i]), (i,))])
        t.commit()
    tm.close()
    (seg,) = [p for p in (tmp_path / "log").iterdir() if p.stat().st_size]
    with open(seg, "ab") as f:
        f.write(b"\x40\x00\x00\x00\x00\x00\x00\x00half a rec")  # a crash mid-append
    tm = open_embedded(str(tmp_path), gc_interval=None)
    assert _all(tm) == {bytes([i]): (i,) for i in range(3)}
    t = tm.begin()
    t.put(S, [(b"z", (9,))])
    t.commit()
    tm.close()
    tm = open_embedded(str(tmp_path), gc_interval=None)
    assert _all(tm)[b"z"] == (9,)
    tm.close()


def test_checkpoint_of_a_node_without_files_keeps_the_log(tmp_path):
    """A storage node that keeps no checkpoint files (in memory, or one of a cluster that acked
    nothing) must not let the LTM record a checkpoint and trim the redo log: the log is then
    the only copy of the commits. Deterministic: no threads, the 'crash' drops the node."""
    from cumulo.server.kivi.node import KiviNode

    tm = open_embedded(str(tmp_path), KiviNode(None), gc_interval=None)
    for i in range(5):
        t = tm.begin()
        t.put(S, [(bytes([i]), (i,))])
        t.commit()
    tm.checkpoint()  # the node has nowhere to write: an Ack without a ts
    t = tm.begin()
    t.put(S, [(b"late", (9,))])
    t.commit()
    tm.log.close()  # the process dies; its in-memory node is gone
    again = open_embedded(str(tmp_path), KiviNode(None), gc_interval=None)
    try:
        expect = {bytes([i]): (i,) for i in range(5)}
        expect[b"late"] = (9,)
        assert _all(again) == expect
        assert not os.path.exists(os.path.join(str(tmp_path), "txn", "checkpoint"))
    finally:
        again.close()
