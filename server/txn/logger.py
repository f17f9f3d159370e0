"""The durable redo log: segment files, group commit, trimming after checkpoints.

A commit is acknowledged only when its redo record (commit ts + write set,
msgpack, see `codec`) is on disk. fsync costs about a millisecond or more
whatever its size, so concurrent commits share one: *group commit* by
leader/follower. Each committer appends its record (a `write` under the lock,
cheap) and then waits for durability; the first waiter finding no flush in
progress becomes the leader, fsyncs everything written so far without the
lock, and wakes every follower its fsync covered. Commits that arrive during
that fsync are covered by the next leader's single fsync. The decisions are
the state machine `groupcommit.GroupCommit`'s; this module does the I/O.

    committer A: append a1 | lead: fsync(a1) .................| ack
    committer B:    append b1 | wait ...........| lead: fsync(b1, c1) | ack
    committer C:       append c1 | wait ........................... | ack

On the event-loop front end (the committers are greenlets of one thread, see
`waits`) the leader does not fsync itself: it hands the fsync to the logger's
*helper process* (`fsyncer`; `CUMULO_FSYNC_HELPER=0` turns it off) and waits
like a follower. The order goes at the end of the loop's *next* pass, so the commits
of the sessions served later in that pass and in the next one share it (see
`_send_deferred`). The helper's answer makes a
socket readable; a reader callback on the loop's thread resumes the commits it
covered, and only those, and sends the next order at once if records were
written meanwhile (their committers are waiting). A thread could do the fsync
too (the *syncer*, still used when no helper can run), but it must take the
GIL back after the fsync and after every other blocking call, and a busy loop
thread gives it up only every switch interval (5 ms). With a thread kept busy
in Python beside it (2 loaded cores, fsyncs of 1.4-8 ms), an order took 55-88 ms
to be reported by a thread and 3-25 ms by the helper. A failed fsync fails the
commits it covered (58030), not the later ones.

With `sync_commit` off, commits are acknowledged right after the write (the
record is in the OS page cache: it survives a crash of the process, not of the
machine), and a flusher thread fsyncs every `flush_interval` seconds.

Layout: `<data_dir>/log/<name>-<seq>.log`; each record is framed as
`<u32 length><u32 crc32><payload>`. A logger starts a new segment whenever it
opens, so a torn write (a crash mid-record) can only be the tail of a segment:
readers stop at the first bad frame of a segment. Several loggers may share
the records (`LogGroup`, chosen by commit ts); recovery reads them all.
`trim(ts)` deletes closed segments whose records are all <= ts (covered by a
storage checkpoint).

A record too large for one request to a remote logger (a COPY's: ~100 MB for a
million pgbench rows) travels as *parts* (`split_record`, cluster mode's
`RemoteLogGroup`), each an ordinary record on the logger's side, made durable and
acknowledged before the next is sent. A part is `[ts, "part", id, index, count,
bytes]` (six items, so its first byte tells it from a whole record's three or
four). `read_log` hands a split record back whole, and only once every one of its
parts is in the files: a crash mid-way leaves parts that recovery ignores, as it
ignores a torn tail, and the commit was not acknowledged (that waits for the last
part's fsync).

In embedded mode a record made in pieces (`codec.record_pieces`: a COPY's) is
written by `RedoLog.log_pieces` as parts of about `LOG_PART_BYTES` each as the
pieces come, so the whole packed record is never in memory at once (with a
million-row COPY's columns and rows, it was the largest allocation of its
commit). Its count is known only at the end: every part but the last says -1,
the last one the real count.

    >>> parts = split_record(7, b"abcdefghij", 4, 99)
    >>> len(parts), [_record_ts(p) for p in parts]
    (3, [7, 7, 7])
    >>> list(assemble(parts[::-1])), list(assemble(parts[:2]))
    ([b'abcdefghij'], [])
"""

from __future__ import annotations

import bisect
import logging
import operator
import os
import secrets
import struct
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

import greenlet
import msgpack

from .. import waits
from ..errors import IOError_
from .fsyncer import FsyncHelper
from .groupcommit import (
    CloseSegment,
    DeleteSegment,
    Durable,
    GroupCommit,
    OpenSegment,
    StartFsync,
    Tick,
    Trim,
)

log_ = logging.getLogger("cumulo.txn")
_FRAME = struct.Struct("<II")
SEGMENT_BYTES = 64 << 20
# On a hub, fsync in a child process (`fsyncer`); CUMULO_FSYNC_HELPER=0: the syncer thread.
FSYNC_HELPER = os.environ.get("CUMULO_FSYNC_HELPER", "1") != "0"
_fsync = getattr(os, "fdatasync", os.fsync)
_LSN = operator.itemgetter(0)  # a parked (LSN, waiter)'s LSN


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _segments(log_dir: str, name: str | None = None) -> list[tuple[str, int, str]]:
    """Lists (logger name, seq, path) of the segment files, oldest first per logger."""
    out: list[tuple[str, int, str]] = []
    if not os.path.isdir(log_dir):
        return out
    for fn in os.listdir(log_dir):
        if not fn.endswith(".log") or "-" not in fn:
            continue
        lname, _, seq = fn[:-4].rpartition("-")
        if (name is None or lname == name) and seq.isdigit():
            out.append((lname, int(seq), os.path.join(log_dir, fn)))
    out.sort()
    return out


def read_segment(path: str) -> Iterator[bytes]:
    """Yields the payloads of one segment, stopping at a torn or corrupt frame."""
    with open(path, "rb") as f:
        data = f.read()
    pos, end = 0, len(data)
    while pos + _FRAME.size <= end:
        length, crc = _FRAME.unpack_from(data, pos)
        start = pos + _FRAME.size
        payload = data[start : start + length]
        if len(payload) < length or zlib.crc32(payload) != crc:
            return
        yield payload
        pos = start + length


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


# The largest piece of a redo record sent to a remote logger in one request (see the
# module docstring). Tests lower it (CUMULO_LOG_PART_BYTES) to split small COPYs.
LOG_PART_BYTES = _env_int("CUMULO_LOG_PART_BYTES", 8 << 20)
_PART = "part"
_PART_HEAD = 0x96  # msgpack's fixarray of six items: a part (a record has three or four)


def split_record(ts: int, payload: bytes, part_bytes: int, ident: int) -> list[bytes]:
    """Cuts one record into parts of at most part_bytes of its payload (see the module
    docstring); `ident` tells this record's parts from another's with the same ts."""
    view = memoryview(payload)
    count = max(1, -(-len(payload) // part_bytes))
    return [_pack_part(ts, ident, i, count, view[i * part_bytes:(i + 1) * part_bytes])
            for i in range(count)]


def _pack_part(ts: int, ident: int, index: int, count: int, chunk: bytes | memoryview) -> bytes:
    return msgpack.packb([ts, _PART, ident, index, count, chunk], use_bin_type=True)


def _part(payload: bytes) -> list[Any] | None:
    """The fields of a part, or None for a whole record."""
    if not payload or payload[0] != _PART_HEAD:
        return None
    item = msgpack.unpackb(payload, raw=False)
    return item if item[1] == _PART else None


def is_part(payload: bytes) -> bool:
    """Tells a part of a split record (see the module docstring) from a whole record."""
    return _part(payload) is not None


def assemble(payloads: Iterator[bytes] | list[bytes]) -> Iterator[bytes]:
    """Yields whole records, a split one once all its parts went by (in any order, a
    part seen twice counting once); the parts of a record never completed are dropped."""
    pending: dict[tuple[int, int], dict[int, bytes]] = {}
    counts: dict[tuple[int, int], int] = {}
    for p in payloads:
        part = _part(p)
        if part is None:
            yield p
            continue
        ts, _mark, ident, index, count, chunk = part
        got = pending.setdefault((ts, ident), {})
        got[index] = chunk
        if count >= 0:  # NB: -1: a part of a record written as it was made (`log_pieces`)
            counts[(ts, ident)] = count
        if len(got) == counts.get((ts, ident)):
            del pending[(ts, ident)], counts[(ts, ident)]
            yield b"".join(got[i] for i in range(len(got)))


def read_log(log_dir: str) -> Iterator[bytes]:
    """Yields every record payload of every logger under log_dir (in no particular ts order);
    split records come back whole, or not at all when a part is missing."""
    return assemble(p for _name, _seq, path in _segments(log_dir) for p in read_segment(path))


class RedoLog:
    """One logger: the I/O and the blocking around a `GroupCommit` state machine."""

    def __init__(
        self,
        log_dir: str,
        name: str = "L0",
        *,
        sync_commit: bool = True,
        flush_interval: float = 0.2,
        segment_bytes: int = SEGMENT_BYTES,
    ) -> None:
        self.dir = log_dir
        self.name = name
        self.sync_commit = sync_commit
        os.makedirs(log_dir, exist_ok=True)
        self._lock = threading.Lock()
        self._cond = waits.Condition(self._lock)
        self._closed = False
        self.fsyncs = 0  # how many fsyncs the group commit needed (for tests and stats)
        existing: dict[int, int | None] = {s: None for _n, s, _p in _segments(log_dir, name)}
        self.gc = GroupCommit(
            max(existing, default=0) + 1, existing, segment_bytes, flush_interval
        )
        self._fds: dict[int, int] = {}
        self._run([OpenSegment(self.gc.seq)])
        # the syncer (started by the first leader on a hub): its next order, its wake-up,
        # and the LSNs (after, upto] of an fsync that failed, with the error
        self._order: StartFsync | None = None
        self._wake = threading.Condition(self._lock)
        self._syncer: threading.Thread | None = None
        self._failed: tuple[int, int, BaseException] | None = None
        # the fsync helper process (see `fsyncer`), the loop watching its answers, and
        # its order in flight with the LSN synced before it; False once it failed
        self._helper: FsyncHelper | None | bool = None
        self._helper_loop: Any = None
        self._helper_thread = 0  # the thread of that loop
        self._inflight: tuple[StartFsync, int] | None = None
        self._deferred = False  # that order waits for the end of the loop's next pass
        # the hub greenlets waiting for the helper's fsyncs, (LSN, waiter) in LSN order:
        # a report wakes exactly those it covered, a prefix (`_covered`), the later ones
        # stay parked for the next order, which the answer sends at once (`_report`)
        self._parked: list[tuple[int, waits.Waiter]] = []
        # the flusher's own wake-up (only `close` notifies it): on `_cond` every group's
        # completion woke it too, and it then fought the loop thread for the GIL
        self._flusher: threading.Thread | None = None
        self._tick = threading.Condition(self._lock)
        self.ticks = 0  # the flusher's passes (stats and tests)
        if not sync_commit:
            self._start_flusher()

    def _path(self, seq: int) -> str:
        return os.path.join(self.dir, f"{self.name}-{seq:08d}.log")

    def _run(self, outputs: list[Any]) -> None:
        """Carries out the state machine's orders (caller holds the lock, except at init)."""
        for out in outputs:
            match out:
                case OpenSegment(seq):
                    self._fds[seq] = os.open(
                        self._path(seq), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600
                    )
                    _fsync_dir(self.dir)  # the new file's directory entry must be durable too
                case CloseSegment(seq):
                    fd = self._fds.pop(seq)
                    _fsync(fd)
                    os.close(fd)
                case DeleteSegment(seq):
                    os.unlink(self._path(seq))
                case Durable(upto):
                    self._cond.notify_all()
                    if self._parked:
                        self._wake_covered(upto)
                case StartFsync():
                    self._lead(out, waits.current_hub())

    def _wake_covered(self, upto: int) -> None:
        """Wakes the parked greenlets whose records are durable now, with one scheduled
        callback (caller holds the lock; `_on_answer` resumes them itself)."""
        ws = self._covered(upto)
        if ws:
            waits.wake_all([w for _lsn, w in ws])

    def _covered(self, upto: int) -> list[tuple[int, waits.Waiter]]:
        """Takes the parked (LSN, waiter)s whose records are durable now, the list's
        prefix up to `upto`, out of the parked list and returns them (caller holds the
        lock)."""
        parked = self._parked
        i = bisect.bisect_right(parked, upto, key=_LSN)
        if i == len(parked):
            self._parked = []
            return parked
        self._parked = parked[i:]
        return parked[:i]

    def _park(self, lsn: int, hub: waits.Hub) -> None:
        """Parks the calling greenlet until a report covers `lsn` (caller holds the lock,
        released meanwhile); only while the helper has an order in flight, whose answer
        wakes it or chains the order that will."""
        w = waits.Waiter(hub)
        bisect.insort(self._parked, (lsn, w), key=_LSN)  # NB: another may have parked a later LSN
        self._lock.release()
        woke = False
        try:
            woke = w.park(None)
        finally:
            self._lock.acquire()
            if not woke:  # NB: thrown out of its wait: no report may switch to it
                w.done = True
                self._parked = [p for p in self._parked if p[1] is not w]

    def _lead(self, order: StartFsync, hub: waits.Hub | None) -> None:
        """fsyncs for everyone with the lock released, then reports (caller holds the lock);
        a greenlet of the loop front end (`hub`: the caller's, `waits.current_hub`) hands
        the fsync to the helper process (or, if that cannot run, the syncer thread)
        instead."""
        if hub is not None and self._helper is not False and self._send_helper(order, hub):
            return
        if hub is not None:
            self._start_syncer(order)
            return
        fd = self._fds[order.seq]
        self._lock.release()
        try:
            waits.blocking(_fsync, fd)  # NB: on the loop front end, off the loop's thread
        finally:
            self._lock.acquire()
            self.fsyncs += 1
            self._run(self.gc.fsync_done(order.upto))

    def _send_helper(self, order: StartFsync, hub: waits.Hub) -> bool:
        """Hands an fsync to the helper process (caller holds the lock); False when there
        is no helper (the caller then uses the syncer thread)."""
        if not FSYNC_HELPER:
            return False
        try:
            if self._helper is None:
                self._helper = FsyncHelper()
            assert isinstance(self._helper, FsyncHelper)
            self._watch(hub)
        except OSError:
            log_.exception("the redo log's fsync helper failed; fsyncs go to a thread")
            self._drop_helper()
            return False
        self._inflight = (order, self.gc.synced)
        self._deferred = True
        hub.loop.call_soon(self._send_deferred, hub.loop)
        return True

    def _send_deferred(self, loop: Any) -> None:
        """The loop's callback at the end of the pass that ordered an fsync: waits one
        pass more, whose callback (`_send_deferred_now`) sends it.

        Why a second pass: each order costs the loop's thread far more than its Python
        (a send that wakes the helper on the other core, the answer's read and loop pass:
        TPC-B ran 15 % faster without any orders, with `--no-sync-commit`), and with 8
        pgbench clients about one commit arrived per fsync, so there were ~0.66 orders per
        transaction. A pass of a busy loop serves the statements that came meanwhile, the
        next COMMITs among them, which then share the order; an idle loop runs the next
        pass at once (a callback is due: its poll does not wait), so a lone commit waits
        only a poll longer. Measured (TPC-B, 8 clients, interleaved runs): median 2,994 ->
        3,134 tps; 1 and 4 clients unchanged. A third pass measured no better."""
        loop.call_soon(self._send_deferred_now)

    def _send_deferred_now(self) -> None:
        """Sends the order `_send_deferred` held, covering every commit appended in the
        two passes (see `_send_order`)."""
        with self._lock:
            self._send_order()

    def _send_order(self) -> None:
        """Sends the helper the order in flight if it is not sent yet (caller holds the
        lock). An order waits for the end of the loop's next pass (`_send_deferred`), as replies
        do (`LoopServer.flush_replies`): the sessions that commit later in the same pass
        append before the fsync starts, and it covers them too (`GroupCommit.widen`)."""
        if not self._deferred:
            return
        self._deferred = False
        if self._inflight is None or not isinstance(self._helper, FsyncHelper):
            return  # pragma: no cover - the helper is gone, its order went to the syncer
        order = self.gc.widen() or self._inflight[0]
        self._inflight = (order, self._inflight[1])
        try:
            self._helper.order(order.seq, self._fds[order.seq])
        except OSError:
            log_.exception("the redo log's fsync helper failed; fsyncs go to a thread")
            self._inflight = None
            self._fall_back(order)

    def _watch(self, hub: waits.Hub) -> None:
        """Makes the hub's loop read the helper's answers (caller holds the lock). A log
        outlives loops (tests run one per batch of sessions): an answer left unread by an
        old loop is read by the next one."""
        if self._helper_loop is hub.loop or not isinstance(self._helper, FsyncHelper):
            return
        self._unwatch()
        hub.loop.add_reader(self._helper.fileno(), self._on_answer)
        self._helper_loop, self._helper_thread = hub.loop, hub.thread

    def _loop_reads_answers(self) -> bool:
        """Tells whether a running loop on another thread reads the helper's answers."""
        loop = self._helper_loop
        return (loop is not None and threading.get_ident() != self._helper_thread
                and loop.is_running())

    def _unwatch(self) -> None:
        loop, self._helper_loop = self._helper_loop, None
        if loop is not None and isinstance(self._helper, FsyncHelper):
            try:
                loop.remove_reader(self._helper.fileno())
            except (RuntimeError, ValueError, OSError):  # NB: that loop is closed
                pass

    def _drop_helper(self) -> None:
        """Stops using the helper for good: its orders go to the syncer thread."""
        self._unwatch()
        if isinstance(self._helper, FsyncHelper):
            self._helper.close()
        self._helper = False

    def _on_answer(self) -> None:
        """The loop's reader callback: an answer of the helper came. The commits it made
        durable resume from here, once the lock is released: no callback is scheduled.
        The usual answer (its order sent) is read here and reported by `_report`."""
        with self._lock:
            helper = self._helper
            if self._deferred or type(helper) is not FsyncHelper:
                woken = self._complete(block=False)
            else:
                try:
                    answer = helper.result(False)
                except BlockingIOError:
                    return
                woken = self._report(helper, answer)
        if not woken:
            return
        here = threading.get_ident()
        for _lsn, w in woken:
            hub = w.hub
            if hub.thread != here:  # NB: a session of another loop on the same log
                waits.wake_all([w])
            elif not w.done:  # NB: `Waiter._resume` inline (parked with no timer to cancel)
                w.done = True
                hub.switched_at = time.monotonic()
                w.g.switch(True)

    def _complete(self, block: bool) -> list[tuple[int, waits.Waiter]]:
        """Reads the helper's answer to the order in flight and reports it (`_report`;
        caller holds the lock); returns the parked (LSN, waiter)s it made durable, taken
        out of the parked list for the caller to resume."""
        helper = self._helper
        if not isinstance(helper, FsyncHelper):
            return []
        if self._deferred:  # NB: an order still waiting for its pass to end gets no answer
            self._send_order()
            if self._helper is not helper:  # NB: its send failed: the syncer has it
                return []
        try:
            answer = helper.result(block and self._inflight is not None)
        except BlockingIOError:
            return []
        return self._report(helper, answer)

    def _report(self, helper: FsyncHelper,
                answer: tuple[int, int] | None) -> list[tuple[int, waits.Waiter]]:
        """Reports the helper's answer to the order in flight as the syncer thread does
        (caller holds the lock): the group's threads wake, the parked (LSN, waiter)s it
        made durable are returned (`_complete`), and the next fsync starts at once if records
        were written meanwhile."""
        inflight, self._inflight = self._inflight, None
        if answer is None:  # NB: the child is gone: the syncer thread takes over
            log_.error("the redo log's fsync helper ended; fsyncs go to a thread")
            self._fall_back(None if inflight is None else inflight[0])
            return []
        if inflight is None:  # pragma: no cover - an answer to no order
            return []
        order, synced = inflight
        if answer[1]:
            err = OSError(answer[1], os.strerror(answer[1]))
            self._failed = (synced, order.upto, err)
        self.fsyncs += 1
        outputs = self.gc.fsync_done(order.upto)
        if len(outputs) > 1:  # NB: segments closed meanwhile: `_run`'s cases, then Durable's
            self._run(outputs[:-1])
        self._cond.notify_all()
        woken = self._covered(outputs[-1].upto) if self._parked else []
        if self.gc.synced < self.gc.written and self.gc.flushing is None and not self._closed:
            nxt = self.gc.wait_durable(self.gc.written, time.monotonic())
            if nxt and type(nxt[0]) is StartFsync:
                try:
                    helper.order(nxt[0].seq, self._fds[nxt[0].seq])
                    self._inflight = (nxt[0], self.gc.synced)
                except OSError:
                    self._fall_back(nxt[0])
        return woken

    def _fall_back(self, order: StartFsync | None) -> None:
        """Stops using the helper (it failed or ended) and hands the order it had, if
        any, to the syncer thread (caller holds the lock)."""
        self._drop_helper()
        if order is not None:
            self._start_syncer(order)

    def _start_syncer(self, order: StartFsync) -> None:
        """Hands an fsync order to the syncer thread, started at the first one (caller
        holds the lock)."""
        self._order = order
        if self._syncer is None:
            self._syncer = threading.Thread(target=self._sync_loop, name="redo-syncer",
                                            daemon=True)
            self._syncer.start()
        else:
            self._wake.notify()

    def _sync_loop(self) -> None:
        """The syncer: fsyncs each order, reports it (one wake-up of every waiter), and
        chains the next fsync while records are waiting for one."""
        with self._lock:
            while True:
                while self._order is None and not self._closed:
                    self._wake.wait()
                order, self._order = self._order, None
                while order is not None:
                    fd, synced = self._fds[order.seq], self.gc.synced
                    self._lock.release()
                    try:
                        _fsync(fd)
                    except BaseException as exc:  # NB: its waiters fail, no one else
                        self._failed = (synced, order.upto, exc)
                    finally:
                        self._lock.acquire()
                    self.fsyncs += 1
                    self._run(self.gc.fsync_done(order.upto))
                    order = None
                    if self.gc.synced < self.gc.written and self.gc.flushing is None:
                        nxt = self.gc.wait_durable(self.gc.written, time.monotonic())
                        if nxt and type(nxt[0]) is StartFsync:
                            order = nxt[0]
                if self._closed:
                    return

    def append(self, ts: int, payload: bytes) -> int:
        """Writes one record (not yet durable) and returns its LSN."""
        frame = _FRAME.pack(len(payload), zlib.crc32(payload)) + payload
        with self._lock:
            return self._write_frame(ts, frame)

    def _write_frame(self, ts: int, frame: bytes) -> int:
        """`append`'s write of a framed record (caller holds the lock); returns its LSN."""
        if self._closed:
            raise IOError_("the redo log is closed")
        gc = self.gc
        rolled = gc.append(ts, len(frame))
        if rolled:
            self._run(rolled)
        fd = self._fds[gc.seq]
        done = os.write(fd, frame)
        if done < len(frame):  # NB: a short write (a huge record): write the rest
            view = memoryview(frame)
            while done < len(frame):
                done += os.write(fd, view[done:])
        return gc.written

    def wait_durable(self, lsn: int) -> None:
        """Blocks until record `lsn` is on disk, leading an fsync for everyone if none runs."""
        hub = waits.current_hub()
        with self._lock:  # NB: `_cond`'s lock, without the Condition's Python __enter__
            self._wait_locked(lsn, hub)

    def _wait_locked(self, lsn: int, hub: waits.Hub | None) -> None:
        """`wait_durable` with the lock held (`hub`: `waits.current_hub()`'s)."""
        gc = self.gc
        while gc.synced < lsn:
            if gc.flushing is not None and hub is not None and self._inflight is not None:
                # NB: a follower of the helper's order in flight (`gc.wait_durable` would
                # answer nothing): park for the answer, two calls fewer per commit
                if self._helper_loop is not hub.loop:
                    self._watch(hub)
                self._park(lsn, hub)
                continue
            outputs = gc.wait_durable(lsn, time.monotonic())
            if outputs:
                if type(outputs[0]) is StartFsync:
                    self._lead(outputs[0], hub)
                else:
                    self._run(outputs)
                if self._inflight is not None and self.gc.synced < lsn:
                    if hub is not None:  # NB: the helper has our order, its answers watched
                        self._park(lsn, hub)
                    else:
                        self._cond.wait()
                continue
            if self._inflight is not None:
                if hub is not None:
                    self._watch(hub)
                    self._park(lsn, hub)
                    continue
                elif not self._loop_reads_answers():
                    # NB: no loop would read the answer
                    waits.wake_all([w for _lsn, w in self._complete(block=True)])
                    continue
                else:
                    self._cond.wait(0.05)  # NB: that loop may end meanwhile (tests)
                    continue
            self._cond.wait()
        failed = self._failed
        if failed is not None and failed[0] < lsn <= failed[1]:
            raise IOError_(f"could not fsync the redo log: {failed[2]}") from failed[2]

    def log(self, ts: int, payload: bytes, durable: bool = True) -> None:
        """Appends a record and, with sync_commit, returns only once it is durable
        (`durable=False`: a session's synchronous_commit = off, see `_flush_soon`).

        A durable commit is `append` then `wait_durable` under one hold of the lock, and
        its usual cases on the loop front end, a commit arriving while the helper has an
        order in flight or with none (its own order then), order and park here at once
        (`_send_helper`'s, `_park`'s and `Waiter.park`'s steps, inline):
        the loop's thread runs this once per commit, and the calls between were a sixth
        of the durable commit's Python."""
        if not durable or not self.sync_commit:
            self.append(ts, payload)
            if self.sync_commit:
                self._flush_soon()
            return
        frame = _FRAME.pack(len(payload), zlib.crc32(payload)) + payload
        hub: waits.Hub | None = waits.THREAD.hub  # NB: `waits.current_hub` inline
        if hub is not None and greenlet.getcurrent() is hub.main:
            hub = None
        lock = self._lock
        with lock:
            lsn = self._write_frame(ts, frame)
            gc = self.gc
            if hub is not None and self._helper_loop is hub.loop:  # NB: its helper, watched
                if gc.flushing is None and FSYNC_HELPER:
                    # NB: no order in flight: this commit's is the helper's next, sent at the
                    # end of the loop's next pass (`_wait_locked`'s, `_lead`'s and
                    # `_send_helper`'s steps in this case, inline)
                    self._inflight = (gc.wait_durable(lsn, time.monotonic())[0], gc.synced)
                    self._deferred = True
                    hub.loop.call_soon(self._send_deferred, hub.loop)
                if gc.flushing is not None and self._inflight is not None and gc.synced < lsn:
                    # NB: `_wait_locked`'s first pass in this case: `_park`, inline
                    w = waits.Waiter(hub)
                    self._parked.append((lsn, w))  # NB: the largest LSN yet: stays in order
                    lock.release()
                    woke = False
                    try:
                        hub.parks += 1
                        woke = bool(hub.main.switch())
                    finally:
                        lock.acquire()
                        if not woke:  # NB: thrown out of its wait: no report may switch to it
                            w.done = True
                            self._parked = [p for p in self._parked if p[1] is not w]
            if gc.synced < lsn or self._failed is not None:
                self._wait_locked(lsn, hub)

    def _flush_soon(self) -> None:
        """Makes sure a record nobody waits for gets its fsync within `flush_interval`
        (PostgreSQL's WAL writer does that for synchronous_commit = off): the flusher
        thread of a log without sync_commit, started at the first such record. A later
        durable commit's fsync covers it anyway (one file, written in order)."""
        if self._flusher is None:
            with self._lock:
                if self._flusher is None and not self._closed:
                    self._start_flusher()

    def _start_flusher(self) -> None:
        """Starts the thread that fsyncs every `flush_interval` what nobody waits for."""
        self._flusher = threading.Thread(target=self._flush_loop, name="redo-flusher",
                                         daemon=True)
        self._flusher.start()

    def log_pieces(self, ts: int, pieces: Iterable[bytes], durable: bool = True,
                   part_bytes: int = 0) -> None:
        """`log` of the record the pieces make (see the module docstring): a record of
        more than `part_bytes` (default `LOG_PART_BYTES`) goes as parts, appended as the
        pieces come; durable (with sync_commit) once the last one is."""
        part_bytes = part_bytes or LOG_PART_BYTES
        ident = secrets.randbits(63)
        buf: list[bytes] = []
        size = index = 0
        for piece in pieces:
            buf.append(piece)
            size += len(piece)
            if size >= part_bytes:
                self.append(ts, _pack_part(ts, ident, index, -1, b"".join(buf)))
                buf, size, index = [], 0, index + 1
        rest = b"".join(buf)
        del buf
        lsn = self.append(ts, rest if index == 0 else _pack_part(ts, ident, index, index + 1, rest))
        if self.sync_commit:
            if durable:
                self.wait_durable(lsn)
            else:
                self._flush_soon()

    def trim(self, upto_ts: int) -> int:
        """Deletes closed segments whose records are all <= upto_ts; returns how many."""
        with self._cond:
            for seq, max_ts in list(self.gc.closed.items()):
                if max_ts is None and seq not in self._fds:
                    top = max((_record_ts(p) for p in read_segment(self._path(seq))), default=0)
                    self.gc.learn_max_ts(seq, top)
            outputs = self.gc.handle(Trim(upto_ts))
            self._run(outputs)
        gone = sum(1 for o in outputs if type(o) is DeleteSegment)
        if gone:
            _fsync_dir(self.dir)
        return gone

    def _flush_loop(self) -> None:
        with self._lock:
            while not self._closed:
                self._tick.wait(self.gc.flush_interval)
                if not self._closed:
                    self.ticks += 1
                    self._run(self.gc.handle(Tick(time.monotonic())))

    def close(self) -> None:
        """Makes everything durable and closes the segment files."""
        with self._cond:
            if self._closed:
                return
            while self.gc.flushing is not None:
                if self._inflight is not None:
                    # NB: the loop may be gone or be this thread
                    waits.wake_all([w for _lsn, w in self._complete(block=True)])
                else:
                    self._cond.wait()
            self._closed = True
            for seq in list(self._fds):
                self._run([CloseSegment(seq)])
            self._cond.notify_all()
            parked, self._parked = self._parked, []
            waits.wake_all([w for _lsn, w in parked])
            self._wake.notify()
            self._tick.notify()
        if self._helper is not None:
            self._drop_helper()
        if self._flusher is not None:
            self._flusher.join()
        if self._syncer is not None:
            self._syncer.join()

    @property
    def _synced(self) -> int:
        return self.gc.synced

    @property
    def _written(self) -> int:
        return self.gc.written


def _record_ts(payload: bytes) -> int:
    """Reads a record's commit ts without decoding its write set."""
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(payload)
    unpacker.read_array_header()
    return int(unpacker.unpack())


class LogGroup:
    """Several loggers sharing the records: each commit goes to one, chosen by its ts."""

    def __init__(self, log_dir: str, count: int = 1, **options: object) -> None:
        self.loggers = [
            RedoLog(log_dir, f"L{i}", **options)  # type: ignore[arg-type]
            for i in range(count)
        ]

    def log(self, ts: int, payload: bytes, durable: bool = True) -> None:
        """Makes one record durable (or, without sync_commit or `durable`, written) on
        its logger."""
        self.loggers[ts % len(self.loggers)].log(ts, payload, durable)

    def log_pieces(self, ts: int, pieces: Iterable[bytes], durable: bool = True) -> None:
        """`log` of a record made in pieces (`RedoLog.log_pieces`)."""
        self.loggers[ts % len(self.loggers)].log_pieces(ts, pieces, durable)

    def trim(self, upto_ts: int) -> int:
        """Trims every logger; returns how many segments went."""
        return sum(lg.trim(upto_ts) for lg in self.loggers)

    @property
    def fsyncs(self) -> int:
        """Returns the fsyncs done so far by all loggers."""
        return sum(lg.fsyncs for lg in self.loggers)

    def close(self) -> None:
        """Closes every logger."""
        for lg in self.loggers:
            lg.close()
