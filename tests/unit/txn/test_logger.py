"""The redo log: framing, torn tails, group commit, trimming, and the record codec."""

from __future__ import annotations

import datetime
import doctest
import os
import signal
import threading
import uuid
from decimal import Decimal

import greenlet

from cumulo.server import waits
from cumulo.server.errors import IOError_
from cumulo.server.kivi.api import Write
from cumulo.server.txn import fsyncer
from cumulo.server.txn.codec import pack_record, unpack_record
from cumulo.server.txn.logger import LogGroup, RedoLog, read_log, read_segment
from tests.hubsessions import on_a_hub


def test_codec_round_trips_typed_rows():
    tz = datetime.timezone(datetime.timedelta(hours=2))
    row = (1, None, True, 1.5, Decimal("12.340"), "x", b"\x00", datetime.date(2024, 2, 29),
           datetime.datetime(2024, 1, 1, 12, 0, tzinfo=tz), datetime.time(1, 2, 3),
           datetime.timedelta(days=1, microseconds=5), uuid.UUID(int=7), [1, 2], {"a": [1]},
           1 << 70)
    ts, writes, drops = unpack_record(pack_record(9, [Write(3, b"k", row), Write(3, b"d", None)],
                                                  [5]))
    assert ts == 9 and drops == [5]
    assert writes == [Write(3, b"k", row), Write(3, b"d", None)]
    assert type(writes[0].row) is tuple and type(writes[0].row[12]) is list


def test_records_survive_reopen_and_torn_tail(tmp_path):
    log = RedoLog(str(tmp_path))
    for i in range(1, 6):
        log.log(i, pack_record(i, [Write(1, b"k", (i,))]))
    log.close()
    (seg,) = [p for p in os.listdir(tmp_path) if p.endswith(".log")]
    with open(tmp_path / seg, "ab") as f:
        f.write(b"\x10\x00\x00\x00garbage")  # a torn frame: crash in the middle of a write
    got = [unpack_record(p)[0] for p in read_log(str(tmp_path))]
    assert got == [1, 2, 3, 4, 5]
    # A corrupt byte inside a record stops that segment there.
    data = bytearray((tmp_path / seg).read_bytes())
    data[40] ^= 0xFF
    (tmp_path / seg).write_bytes(bytes(data))
    assert len(list(read_segment(str(tmp_path / seg)))) < 5
    # Reopening starts a new segment; the old records stay readable.
    log = RedoLog(str(tmp_path))
    log.log(6, pack_record(6, []))
    log.close()
    assert 6 in [unpack_record(p)[0] for p in read_log(str(tmp_path))]


def test_group_commit_shares_fsyncs(tmp_path):
    log = RedoLog(str(tmp_path))
    n_threads, per = 8, 40

    def work(t):
        for i in range(per):
            ts = t * 1000 + i
            log.log(ts, pack_record(ts, []))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert log.fsyncs < n_threads * per  # some commits shared an fsync
    log.close()
    assert len(list(read_log(str(tmp_path)))) == n_threads * per


def test_sync_commit_off_acknowledges_before_fsync(tmp_path):
    log = RedoLog(str(tmp_path), sync_commit=False, flush_interval=0.3)
    log.log(1, pack_record(1, []))
    assert log._synced == 0  # acknowledged, not yet durable
    pause = threading.Event()
    for _ in range(300):
        if log._synced == 1:
            break
        pause.wait(0.01)
    assert log._synced == 1  # the flusher made it durable shortly after
    log.close()


def test_a_record_nobody_waits_for_is_fsynced_soon_after(tmp_path):
    # a session's synchronous_commit = off on a log that otherwise waits for its fsyncs
    log = RedoLog(str(tmp_path), sync_commit=True, flush_interval=0.3)
    log.log(1, pack_record(1, []), durable=False)
    assert log._synced == 0 and log.fsyncs == 0  # acknowledged, not yet durable
    pause = threading.Event()
    for _ in range(300):
        if log._synced == 1:
            break
        pause.wait(0.01)
    assert log._synced == 1 and log.fsyncs == 1  # the flusher made it durable shortly after
    log.log(2, pack_record(2, []))  # a durable commit waits for its own fsync as before
    assert log._synced == 2
    log.close()


def test_durable_commits_do_not_wake_the_flusher(tmp_path):
    # The flusher of synchronous_commit = off records waits for its interval only: woken by
    # every durable group's completion, it took the GIL from the serving thread ~1,000
    # times a second under pgbench (perf trace: 6 futex calls per transaction).
    log = RedoLog(str(tmp_path), sync_commit=True, flush_interval=30)
    log.log(1, pack_record(1, []), durable=False)  # starts the flusher
    for ts in range(2, 22):
        log.log(ts, pack_record(ts, []))  # each waits for, and completes, its fsync
    assert log._synced == 21 and log.ticks == 0
    log.close()
    assert log.ticks == 0  # close ends it without a pass


def test_trim_removes_covered_segments(tmp_path):
    group = LogGroup(str(tmp_path), 2, segment_bytes=200)
    for ts in range(1, 41):
        group.log(ts, pack_record(ts, [Write(1, b"k", ("x" * 20,))]))
    before = len(os.listdir(tmp_path))
    assert before > 4  # small segments: several per logger
    removed = group.trim(20)
    assert removed > 0
    left = sorted(unpack_record(p)[0] for p in read_log(str(tmp_path)))
    assert all(ts in left for ts in range(21, 41))  # nothing above the checkpoint is lost
    group.trim(40)
    assert list(read_log(str(tmp_path))) == []
    group.close()


def test_sync_commit_returns_only_when_durable(tmp_path, monkeypatch):
    import cumulo.server.txn.logger as logger_mod

    calls = []
    real = logger_mod._fsync
    monkeypatch.setattr(logger_mod, "_fsync", lambda fd: (calls.append(fd), real(fd)))
    log = RedoLog(str(tmp_path))
    before = len(calls)
    log.log(1, pack_record(1, []))
    assert len(calls) == before + 1 and log._synced == log._written == 1
    log.close()


def test_sync_commit_off_hands_the_record_to_the_os_before_returning(tmp_path):
    """A commit acknowledged without fsync must already be in the file (the page cache), so
    that a kill -9 right after the acknowledgement loses nothing; also across a trim."""
    log = RedoLog(str(tmp_path), sync_commit=False, flush_interval=60)
    for ts in range(1, 6):
        log.log(ts, pack_record(ts, []))
        assert ts in {unpack_record(p)[0] for p in read_log(str(tmp_path))}
        log.trim(ts - 1)  # rolls the segment; drops only records <= ts - 1
        assert ts in {unpack_record(p)[0] for p in read_log(str(tmp_path))}
    assert log.fsyncs == 0  # no commit waited for an fsync (segment rolls sync on close)
    log.close()


def test_loop_commits_are_made_durable_by_the_syncer(tmp_path, monkeypatch):
    """On the loop front end the fsyncs run on the logger's syncer thread, not the loop's;
    every commit returns durable; a failed fsync fails the commits it covered, and the
    log goes on."""
    import cumulo.server.txn.logger as logger_mod

    real, fsynced_on, fail = logger_mod._fsync, [], [True]

    def fsync(fd):
        fsynced_on.append(threading.get_ident())
        if fail[0]:
            fail[0] = False
            raise OSError(5, "Input/output error")
        real(fd)

    monkeypatch.setattr(logger_mod, "_fsync", fsync)
    monkeypatch.setattr(logger_mod, "FSYNC_HELPER", False)  # the thread, when no helper runs
    log = RedoLog(str(tmp_path))
    first = on_a_hub(*[lambda ts=ts: log.log(ts, pack_record(ts, [])) for ts in range(1, 9)]).results
    assert isinstance(first[0], IOError_) and first[0].sqlstate == "58030"
    assert all(g is None or isinstance(g, IOError_) for g in first)
    assert on_a_hub(*[lambda ts=ts: log.log(ts, pack_record(ts, [])) for ts in range(9, 13)]).results \
        == [None] * 4
    assert log._synced == log._written == 12
    assert fsynced_on and threading.get_ident() not in fsynced_on
    log.close()
    assert sorted(unpack_record(p)[0] for p in read_log(str(tmp_path))) == list(range(1, 13))


def test_loop_commits_are_made_durable_by_the_helper_process(tmp_path, monkeypatch):
    """On the loop front end the fsyncs run in the logger's helper process (`fsyncer`):
    every commit returns durable, a failed fsync fails the commits it covered, and when
    the helper dies the syncer thread takes over, losing no commit."""
    FsyncHelper = fsyncer.FsyncHelper  # noqa: N806 - the class, patched below

    log = RedoLog(str(tmp_path))
    batch = on_a_hub(*[lambda ts=ts: log.log(ts, pack_record(ts, [])) for ts in range(1, 9)])
    assert batch.results == [None] * 8 and log._synced == log._written == 8
    helper = log._helper
    assert isinstance(helper, FsyncHelper) and helper.proc.poll() is None
    real, bad = FsyncHelper.order, [True]
    pipe = os.pipe()

    def order(self, seq, fd):  # the first order hands the helper a pipe: EINVAL
        if bad[0]:
            bad[0] = False
            self._sent = None
            real(self, seq, pipe[1])
            self._sent = None  # NB: the next order sends the segment's fd again
        else:
            real(self, seq, fd)

    monkeypatch.setattr(FsyncHelper, "order", order)
    failed = on_a_hub(*[lambda ts=ts: log.log(ts, pack_record(ts, [])) for ts in range(9, 13)])
    # NB: the four commit in one loop pass, so the one order covers (and fails) them all,
    # the leader's (parked by `_wait_locked`) and the three followers' (parked by `log`)
    assert all(isinstance(g, IOError_) and g.sqlstate == "58030" for g in failed.results)
    os.close(pipe[0])
    os.close(pipe[1])
    helper.proc.kill()
    helper.proc.wait()
    after = on_a_hub(*[lambda ts=ts: log.log(ts, pack_record(ts, [])) for ts in range(13, 17)])
    assert after.results == [None] * 4 and log._helper is False
    assert log._synced == log._written == 16
    log.close()
    assert sorted(unpack_record(p)[0] for p in read_log(str(tmp_path))) == list(range(1, 17))


def test_commits_parked_on_a_helper_that_dies_are_made_durable_by_the_syncer(tmp_path,
                                                                           monkeypatch, caplog):
    """The helper dies with an order in flight and four commits parked on it: the answer
    that never comes (the socket's end instead) hands that order to the syncer thread,
    and every parked commit returns, durable."""
    FsyncHelper = fsyncer.FsyncHelper  # noqa: N806 - the class, patched below

    log = RedoLog(str(tmp_path))
    assert on_a_hub(lambda: log.log(1, pack_record(1, []))).results == [None]
    helper = log._helper
    assert isinstance(helper, FsyncHelper)
    real = FsyncHelper.order

    def order(self, seq, fd):  # the child gets the order stopped, and dies without answering
        os.kill(self.proc.pid, signal.SIGSTOP)
        real(self, seq, fd)
        self.proc.kill()
        self.proc.wait()

    monkeypatch.setattr(FsyncHelper, "order", order)
    run = on_a_hub(*[lambda ts=ts: log.log(ts, pack_record(ts, [])) for ts in range(2, 6)])
    assert run.results == [None] * 4
    assert "fsync helper ended" in caplog.text  # NB: its answer's read saw the end, not a send
    assert log._helper is False and helper.proc.returncode is not None
    assert log._synced == log._written == 5
    log.close()
    assert sorted(unpack_record(p)[0] for p in read_log(str(tmp_path))) == list(range(1, 6))


def test_a_helper_answer_wakes_only_the_commits_it_covered(tmp_path):
    """Eight sessions commit while the first one's fsync is in flight: its answer wakes
    only that commit, the seven later ones share the next order and wake once it is
    answered. Each commit parks exactly once (a wake-up of every waiter made the
    uncovered ones park again), and every one returns durable."""
    log = RedoLog(str(tmp_path))
    per = 5
    run = on_a_hub(*[lambda s=s: [log.log(s * per + i + 1, pack_record(s * per + i + 1, []))
                                  for i in range(per)] for s in range(8)])
    assert run.results == [[None] * per] * 8
    assert run.parks == 8 * per
    assert log._synced == log._written == 8 * per and log.fsyncs < 8 * per
    assert log._parked == []
    log.close()
    assert sorted(unpack_record(p)[0] for p in read_log(str(tmp_path))) \
        == list(range(1, 8 * per + 1))


def test_a_commit_thrown_out_of_its_wait_leaves_the_parked_ones(tmp_path):
    """A commit parked on the helper's order in flight and thrown out of its wait (a
    session ended under it) leaves the parked list at once: the answer must never switch
    to its greenlet. The other commits return durable, and its record is in the files
    (written before the wait, as a commit whose client went away)."""
    log = RedoLog(str(tmp_path))
    gs: dict[str, object] = {}
    seen: list[list[int]] = []

    def second():
        gs["g"] = greenlet.getcurrent()
        log.log(2, pack_record(2, []))

    def thrower():
        hub = waits.current_hub()
        assert hub is not None

        def throw():  # NB: from the loop (a callback), before the order is even sent
            seen.append([lsn for lsn, _w in log._parked])
            gs["g"].throw(KeyError("thrown"))  # type: ignore[attr-defined]
            seen.append([lsn for lsn, _w in log._parked])

        hub.loop.call_soon(throw)

    run = on_a_hub(lambda: log.log(1, pack_record(1, [])), second, thrower)
    assert run.results[0] is None and run.results[2] is None
    assert isinstance(run.results[1], KeyError)
    assert seen == [[1, 2], [1]]
    assert log._synced == log._written == 2 and log._parked == []
    log.close()
    assert sorted(unpack_record(p)[0] for p in read_log(str(tmp_path))) == [1, 2]


def test_commits_of_one_loop_pass_share_the_helpers_fsync(tmp_path):
    """The fsync order waits for the end of the loop's pass: eight sessions that commit in
    the same pass (started together, none parks before its commit) share one fsync."""
    log = RedoLog(str(tmp_path))
    run = on_a_hub(*[lambda ts=ts: log.log(ts, pack_record(ts, [])) for ts in range(1, 9)])
    assert run.results == [None] * 8 and run.parks == 8
    assert log.fsyncs == 1 and log._synced == log._written == 8
    log.close()


def test_a_commit_of_the_next_loop_pass_shares_the_helpers_fsync(tmp_path):
    """The order waits one loop pass more: a session started two passes after the first
    commit ordered its fsync (so after the end of that pass) commits before the order goes
    out, and the one fsync covers both commits."""
    log = RedoLog(str(tmp_path))

    def second():
        log.log(2, pack_record(2, []))

    def first():
        hub = waits.current_hub()
        assert hub is not None
        # NB: runs in the pass after this one, and starts `second` in the pass after that
        hub.loop.call_soon(hub.loop.call_soon, hub.spawn, second)
        log.log(1, pack_record(1, []))

    run = on_a_hub(first)
    assert run.results == [None]
    assert log._synced == log._written == 2
    assert log.fsyncs == 1
    log.close()


def test_loop_commits_survive_segment_rolls_during_the_helpers_fsync(tmp_path):
    """Segments of a few records: rolls happen while the helper syncs the old segment (it
    is closed, and its records made durable, when the answer comes). Every commit
    returns durable after one park, and every record is in the files."""
    log = RedoLog(str(tmp_path), segment_bytes=60)
    per = 6
    run = on_a_hub(*[lambda s=s: [log.log(s * per + i + 1, pack_record(s * per + i + 1, []))
                                  for i in range(per)] for s in range(4)])
    assert run.results == [[None] * per] * 4
    assert run.parks == 4 * per
    assert log._synced == log._written == 4 * per and log._parked == []
    log.close()
    assert len(os.listdir(tmp_path)) > 4  # it rolled
    assert sorted(unpack_record(p)[0] for p in read_log(str(tmp_path))) \
        == list(range(1, 4 * per + 1))


def test_fsyncer_doctests():
    assert doctest.testmod(fsyncer).failed == 0
