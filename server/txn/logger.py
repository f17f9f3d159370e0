"""The durable redo log: segment files, group commit, trimming after checkpoints.

A commit is acknowledged only when its redo record (commit ts + write set,
msgpack, see `codec`) is on disk. fsync costs about a millisecond or more
whatever its size, so concurrent commits share one: *group commit* by
leader/follower. Each committer appends its record (a `write` under the lock,
cheap) and then waits for durability; the first waiter finding no flush in
progress becomes the leader, fsyncs everything written so far without the
lock, and wakes every follower its fsync covered. Commits that arrive during
that fsync are covered by the next leader's single fsync.

    committer A: append a1 | lead: fsync(a1) .................| ack
    committer B:    append b1 | wait ...........| lead: fsync(b1, c1) | ack
    committer C:       append c1 | wait ........................... | ack

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
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from collections.abc import Iterator

from ..errors import IOError_

_FRAME = struct.Struct("<II")
SEGMENT_BYTES = 64 << 20
_fsync = getattr(os, "fdatasync", os.fsync)


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _segments(log_dir: str, name: str | None = None) -> list[tuple[str, int, str]]:
    """Lists (logger name, seq, path) of the segment files, oldest first per logger."""
    out = []
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


def read_log(log_dir: str) -> Iterator[bytes]:
    """Yields every record payload of every logger under log_dir (in no particular ts order)."""
    for _name, _seq, path in _segments(log_dir):
        yield from read_segment(path)


class RedoLog:
    """One logger: appends framed records to its segments, durable by group commit."""

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
        self.segment_bytes = segment_bytes
        os.makedirs(log_dir, exist_ok=True)
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._written = 0  # records written (the LSN of the last one)
        self._synced = 0  # records known durable
        self._flushing = False
        self._closed = False
        self.fsyncs = 0  # how many fsyncs the group commit needed (for tests and stats)
        # Closed segments: path -> max ts, None while unknown (segments from before a restart).
        self._closed_segments: dict[str, int | None] = {
            p: None for _n, _s, p in _segments(log_dir, name)
        }
        existing = _segments(log_dir, name)
        self._seq = existing[-1][1] if existing else 0
        self._fd = -1
        self._path = ""
        self._size = 0
        self._max_ts = 0
        self._open_segment()
        self._flusher: threading.Thread | None = None
        if not sync_commit:
            self._flush_interval = flush_interval
            self._flusher = threading.Thread(target=self._flush_loop, name="redo-flusher",
                                             daemon=True)
            self._flusher.start()

    def _open_segment(self) -> None:
        self._seq += 1
        self._path = os.path.join(self.dir, f"{self.name}-{self._seq:08d}.log")
        self._fd = os.open(self._path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._size = 0
        self._max_ts = 0
        _fsync_dir(self.dir)  # the new file's directory entry must be durable too

    def append(self, ts: int, payload: bytes) -> int:
        """Writes one record (not yet durable) and returns its LSN."""
        frame = _FRAME.pack(len(payload), zlib.crc32(payload)) + payload
        with self._lock:
            if self._closed:
                raise IOError_("the redo log is closed")
            if self._size >= self.segment_bytes:
                self._roll_locked()
            view = memoryview(frame)
            while view:
                n = os.write(self._fd, view)
                view = view[n:]
            self._size += len(frame)
            if ts > self._max_ts:
                self._max_ts = ts
            self._written += 1
            return self._written

    def wait_durable(self, lsn: int) -> None:
        """Blocks until record `lsn` is on disk, leading an fsync for everyone if none runs."""
        with self._cond:
            while self._synced < lsn:
                if self._flushing:
                    self._cond.wait()
                    continue
                self._flush_locked()

    def _flush_locked(self) -> None:
        """fsyncs everything written so far with the lock released (caller holds it)."""
        self._flushing = True
        target, fd = self._written, self._fd
        self._lock.release()
        try:
            _fsync(fd)
        finally:
            self._lock.acquire()
            self._flushing = False
            self._cond.notify_all()
        self.fsyncs += 1
        if target > self._synced:
            self._synced = target

    def log(self, ts: int, payload: bytes) -> None:
        """Appends a record and, with sync_commit, returns only once it is durable."""
        lsn = self.append(ts, payload)
        if self.sync_commit:
            self.wait_durable(lsn)

    def _roll_locked(self) -> None:
        while self._flushing:  # NB: the leader is fsyncing this fd; do not close it under it
            self._cond.wait()
        _fsync(self._fd)
        self._synced = self._written
        os.close(self._fd)
        self._closed_segments[self._path] = self._max_ts
        self._open_segment()

    def trim(self, upto_ts: int) -> int:
        """Deletes closed segments whose records are all <= upto_ts; returns how many."""
        with self._cond:
            if self._size:
                self._roll_locked()
            victims = []
            for path, max_ts in list(self._closed_segments.items()):
                if max_ts is None:
                    max_ts = 0
                    for payload in read_segment(path):
                        max_ts = max(max_ts, _record_ts(payload))
                    self._closed_segments[path] = max_ts
                if max_ts <= upto_ts:
                    victims.append(path)
            for path in victims:
                os.unlink(path)
                del self._closed_segments[path]
        if victims:
            _fsync_dir(self.dir)
        return len(victims)

    def _flush_loop(self) -> None:
        while True:
            with self._cond:
                if self._closed:
                    return
                self._cond.wait(self._flush_interval)
                if self._closed:
                    return
                if self._synced < self._written and not self._flushing:
                    self._flush_locked()

    def close(self) -> None:
        """Makes everything durable and closes the segment."""
        with self._cond:
            if self._closed:
                return
            while self._flushing:
                self._cond.wait()
            _fsync(self._fd)
            self._synced = self._written
            os.close(self._fd)
            self._closed = True
            self._cond.notify_all()
        if self._flusher is not None:
            self._flusher.join()


def _record_ts(payload: bytes) -> int:
    """Reads a record's commit ts without decoding its write set."""
    import msgpack

    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(payload)
    unpacker.read_array_header()
    return int(unpacker.unpack())


class LogGroup:
    """Several loggers sharing the records: each commit goes to one, chosen by its ts."""

    def __init__(self, log_dir: str, count: int = 1, **options: object) -> None:
        self.loggers = [RedoLog(log_dir, f"L{i}", **options) for i in range(count)]  # type: ignore[arg-type]

    def log(self, ts: int, payload: bytes) -> None:
        """Makes one record durable (or, without sync_commit, written) on its logger."""
        self.loggers[ts % len(self.loggers)].log(ts, payload)

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
