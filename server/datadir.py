"""The data directory: checked, created and locked by one server at a time.

Two servers on one data directory corrupt it: each trims the redo log below its
own checkpoint, and the other then replays (or closes) files that are gone. So,
as PostgreSQL does with `postmaster.pid`, a server writes its pid into
`<data_dir>/postmaster.pid` at start and removes it at exit, and a second server
refuses to start while the first is alive.

The lock is an exclusive `flock` on that file, held for the life of the process.
The kernel drops it when the process dies, however it dies (kill -9 included),
so a lock file left by a dead server is *stale* and is simply taken over; and a
live server is never mistaken for a dead one because its pid was reused. The
pid in the file is only there to tell the operator who holds the lock.

    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> lock = DataDirLock.acquire(d, port=5433)
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

    def __init__(self, path: str, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, data_dir: str, *, port: int | None = None, host: str = "") -> DataDirLock:
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
                 "" if port is None else str(port), host]
        os.ftruncate(fd, 0)
        os.pwrite(fd, ("\n".join(lines) + "\n").encode(), 0)
        os.fsync(fd)
        return cls(path, fd)

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
