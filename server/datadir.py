"""The data directory: checked, created and locked by one server at a time.

Two servers on one data directory corrupt it: each trims the redo log below its
own checkpoint, and the other then replays (or closes) files that are gone. So,
as PostgreSQL does with `postmaster.pid`, a server writes its pid into
`<data_dir>/postmaster.pid` at start and removes it at exit, and a second server
refuses to start while the first is alive.

The file has PostgreSQL 15's eight lines, which `pg_ctl` and monitoring tools read:
pid, data directory, start time (epoch seconds), port, the first Unix-socket directory
(empty if none), the first listen address (`*` for every interface), the shared memory
key (empty: Cumulo has no System V segment, and an empty line is what PostgreSQL's own
stale-file check skips) and the status: `starting`, `ready   ` once the server accepts
connections, `stopping` once it shuts down (padded to 8 characters, as PostgreSQL's, so
that a status change rewrites the line in place).

The lock is an exclusive `flock` on that file, held for the life of the process.
The kernel drops it when the process dies, however it dies (kill -9 included),
so a lock file left by a dead server is *stale* and is simply taken over; and a
live server is never mistaken for a dead one because its pid was reused. The
pid in the file is only there to tell the operator who holds the lock.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> lock = DataDirLock.acquire(d, port=5433)
    >>> open(lock.path).read().splitlines()[3:]
    ['5433', '', '', '', 'starting']
    >>> lock.listening("/tmp", "0.0.0.0")
    >>> open(lock.path).read().splitlines()[3:]
    ['5433', '/tmp', '*', '', 'ready   ']
    >>> lock.set_status(STOPPING)
    >>> open(lock.path).read().splitlines()[3:]
    ['5433', '/tmp', '*', '', 'stopping']
    >>> DataDirLock.acquire(d)
    Traceback (most recent call last):
    ...
    cumulo.server.datadir.DataDirError: lock file "postmaster.pid" already exists: ...
    >>> lock.release()
    >>> DataDirLock.acquire(d).release()
"""

from __future__ import annotations

import fcntl
import os
import time

LOCK_FILE = "postmaster.pid"

# The status line's values (PostgreSQL's PM_STATUS_*, pidfile.h): all 8 characters long.
STARTING = "starting"
READY = "ready   "
STOPPING = "stopping"

# --host values that mean every interface: listen_addresses says `*` for them
ANY_ADDRESS = ("", "*", "0.0.0.0", "::")


class DataDirError(Exception):
    """A data directory that cannot be used; the message is one line for the operator."""


def prepare(data_dir: str) -> str:
    """Creates the data directory if needed (mode 0700, as initdb); returns its absolute path.

    Refuses a path that exists but is not a directory, or one this user cannot write.
    """
    path = os.path.abspath(data_dir)
    if os.path.exists(path) and not os.path.isdir(path):
        raise DataDirError(f'data directory "{path}" exists but is not a directory')
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as e:
        raise DataDirError(f'could not create data directory "{path}": {e.strerror}') from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise DataDirError(f'data directory "{path}" is not writable by this user')
    return path


class DataDirLock:
    """An exclusive lock on a data directory, shown as `postmaster.pid` (see the module doc)."""

    def __init__(self, path: str, fd: int, lines: list[str]) -> None:
        self.path = path
        self._fd: int | None = fd
        self._lines = lines  # the file's eight lines, as last written

    @classmethod
    def acquire(cls, data_dir: str, *, port: int | None = None) -> DataDirLock:
        """Locks data_dir for this process, or raises DataDirError naming the holder's pid."""
        path = os.path.join(data_dir, LOCK_FILE)
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as e:
            raise DataDirError(f'could not create lock file "{path}": {e.strerror}') from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"PID {holder}" if holder else "another process"
            raise DataDirError(
                f'lock file "{LOCK_FILE}" already exists: is another server ({who}) running '
                f'in data directory "{os.path.abspath(data_dir)}"?'
            ) from None
        # NB: a pid left in the file is stale (its process died, or the kernel would
        # still hold the lock for it): overwrite it, as PostgreSQL does after its check.
        lines = [str(os.getpid()), os.path.abspath(data_dir), str(int(time.time())),
                 "" if port is None else str(port), "", "", "", STARTING]
        lock = cls(path, fd, lines)
        lock._write()
        return lock

    def listening(self, socket_dir: str, address: str) -> None:
        """Records where the server listens (its first Unix-socket directory, "" for none, and
        its TCP address) and that it is ready: PostgreSQL's lines 5, 6 and 8."""
        self._lines[4] = socket_dir
        self._lines[5] = "*" if address in ANY_ADDRESS else address
        self.set_status(READY)

    def set_status(self, status: str) -> None:
        """Rewrites the status line (STARTING, READY or STOPPING)."""
        self._lines[7] = status
        self._write()

    def _write(self) -> None:
        if self._fd is None:
            return
        data = ("\n".join(self._lines) + "\n").encode()
        # NB: write, then cut what a longer old content left: a reader never sees the file
        # empty (a status change has the same length, as PostgreSQL's)
        os.pwrite(self._fd, data, 0)
        os.ftruncate(self._fd, len(data))
        os.fsync(self._fd)

    def release(self) -> None:
        """Removes the lock file and drops the lock (idempotent)."""
        if self._fd is None:
            return
        try:
            # NB: unlink while still holding the lock, so a newcomer never sees our pid in
            # a file it could lock; it creates a new file instead.
            if _read_pid(self._fd) == os.getpid():
                os.unlink(self.path)
        except OSError:
            pass
        os.close(self._fd)
        self._fd = None


def _read_pid(fd: int) -> int | None:
    """The pid on the first line of a lock file, None if there is none."""
    try:
        first = os.pread(fd, 64, 0).split(b"\n", 1)[0]
        return int(first) if first.strip() else None
    except (OSError, ValueError):
        return None
