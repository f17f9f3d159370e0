"""Unix-domain sockets, as PostgreSQL listens on them: `unix_socket_directories`.

Why: psql, pgbench and every libpq tool connect to `<dir>/.s.PGSQL.<port>` when no
host is given (`psql -p 5433`), drivers do with `host=<dir>`, and a round trip over
a Unix socket costs less kernel time than over loopback TCP.

Both front ends listen on these sockets besides TCP (`server.serve`). Each socket
file has PostgreSQL's lock file beside it, `.s.PGSQL.<port>.lock`, with its five
lines (pid, data directory, start time, port, socket directory):

- a lock held by a live process is another server on this directory and port: the
  server refuses to start, with PostgreSQL's FATAL `lock file ... already exists`;
- a lock whose process is gone (a killed server) is stale: it and the socket file
  are replaced. NB: a pid may have been reused by an unrelated process since, so a
  lock whose process lives but whose socket accepts no connection counts as stale too.
- at shutdown the server removes both files (`remove`).

Errors, as PostgreSQL 15: a directory where the lock file cannot be created
(missing, not writable) stops the start-up; a socket that cannot be bound is a
warning, and no socket at all from a non-empty list stops the start-up. One
difference: when unix_socket_directories was not set and its default directory
(/var/run/postgresql, the postgres package's) is not writable by this user, the
server warns and serves TCP only. PostgreSQL runs as the user owning that
directory; `cumulo serve` often does not, and must still start.

As in PostgreSQL, a relative directory is relative to the data directory, and one that
starts with `@` names a socket in Linux's abstract namespace (`@name/.s.PGSQL.<port>`,
libpq's `host=@name`): no file, so no lock file and no mode; a second server's bind
fails instead.

Sessions over these sockets: no client address (inet_client_addr() and
pg_stat_activity.client_addr NULL), SSLRequest answered `N`, `local` lines of
cumulo_hba.conf (see `pgwire.hba`).
"""

from __future__ import annotations

import contextlib
import errno
import grp
import logging
import os
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass

log = logging.getLogger("cumulo.pgwire")

SOCKET_NAME = ".s.PGSQL.%d"
PATH_MAX = 107  # sizeof(sockaddr_un.sun_path) - 1 on Linux
BACKLOG = 1024


class UnixSocketError(Exception):
    """Why the server cannot start with these sockets: one line for the operator."""


@dataclass(frozen=True)
class UnixSpec:
    """What to listen on: the settings unix_socket_directories, _permissions and _group."""

    directories: tuple[str, ...]
    mode: int = 0o777
    group: str = ""
    data_dir: str = ""
    configured: bool = True  # False: the default directory, which may be someone else's


@dataclass
class UnixListener:
    """One listening socket file and its lock file."""

    sock: socket.socket
    path: str
    lock_path: str


def directories(value: str) -> tuple[str, ...]:
    """unix_socket_directories as a list: comma-separated, blanks and double quotes trimmed.

    >>> directories(' /tmp, "/var/run/postgresql" ,,')
    ('/tmp', '/var/run/postgresql')
    >>> directories('')
    ()
    """
    out = []
    for item in value.split(","):
        item = item.strip().strip('"').strip()
        if item:
            out.append(item)
    return tuple(out)


def permissions(value: str) -> int:
    """unix_socket_permissions as a mode, read as PostgreSQL's integers are (C's strtol base 0:
    a leading 0 is octal, 0x hexadecimal).

    >>> oct(permissions("0777")), oct(permissions("0770")), oct(permissions("511"))
    ('0o777', '0o770', '0o777')
    """
    v = value.strip().lower()
    try:
        if v.startswith("0x"):
            mode = int(v[2:], 16)
        elif v.startswith("0") and len(v) > 1:
            mode = int(v[1:], 8)
        else:
            mode = int(v, 10)
    except ValueError:
        raise UnixSocketError(
            f'invalid value for parameter "unix_socket_permissions": "{value}"') from None
    if not 0 <= mode <= 0o777:
        raise UnixSocketError(f"{mode} is outside the valid range for parameter "
                              '"unix_socket_permissions" (0 .. 511)')
    return mode


def socket_path(directory: str, port: int) -> str:
    """The socket file's path, as libpq builds it from a host that is a directory."""
    return os.path.join(directory, SOCKET_NAME % port)


def _address(path: str) -> str:
    """What bind() takes: an abstract name (`@...`) starts with a NUL byte instead."""
    return "\0" + path[1:] if path.startswith("@") else path


def listen(spec: UnixSpec, port: int) -> list[UnixListener]:
    """Creates the listening sockets (non-blocking) for `port`; raises UnixSocketError."""
    gid = _group_id(spec.group)
    out: list[UnixListener] = []
    try:
        for directory in dict.fromkeys(spec.directories):
            listener = _listen_one(spec, directory, port, gid)
            if listener is not None:
                out.append(listener)
    except BaseException:
        remove(out)
        raise
    if spec.directories and not out and spec.configured:
        raise UnixSocketError("could not create any Unix-domain sockets")
    return out


def probe(spec: UnixSpec, port: int) -> None:
    """Fails early (UnixSocketError) if another live server holds a socket's lock for this
    port: before recovery, which may take a while (`listen` checks again, for real)."""
    if not spec.configured:
        return  # NB: the default directory's troubles are warnings, not worth probing for
    for directory in spec.directories:
        if directory.startswith("@"):
            continue
        if spec.data_dir:
            directory = os.path.join(spec.data_dir, directory)
        lock_path = socket_path(directory, port) + ".lock"
        if os.path.exists(lock_path) and _live_owner(lock_path):
            raise UnixSocketError(_held(lock_path))


def _held(lock_path: str) -> str:
    return (f'lock file "{lock_path}" already exists (Is another server (PID '
            f'{_owner_pid(lock_path)}) using socket file "{lock_path[:-5]}"?)')


def remove(listeners: Iterable[UnixListener]) -> None:
    """Closes the sockets and removes their files and lock files (shutdown, failed start)."""
    for lst in listeners:
        with contextlib.suppress(OSError):
            lst.sock.close()
        if lst.path.startswith("@"):
            continue  # NB: an abstract name goes with its socket
        for path in (lst.path, lst.lock_path):
            with contextlib.suppress(OSError):
                os.unlink(path)


def _group_id(name: str) -> int | None:
    if not name:
        return None
    if name.isdigit():
        return int(name)
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        raise UnixSocketError(f'group "{name}" does not exist') from None


def _listen_one(spec: UnixSpec, directory: str, port: int, gid: int | None
                ) -> UnixListener | None:
    if spec.data_dir and not directory.startswith("@"):
        directory = os.path.join(spec.data_dir, directory)  # NB: unless absolute already
    abstract = directory.startswith("@")
    path = socket_path(directory, port)
    if len(path.encode()) > PATH_MAX:
        log.warning('Unix-domain socket path "%s" is too long (maximum %d bytes)', path,
                    PATH_MAX)
        log.warning('could not create Unix-domain socket in directory "%s"', directory)
        return None
    lock_path = "" if abstract else path + ".lock"
    try:
        if not abstract:
            _lock(lock_path, spec, directory, port)
    except UnixSocketError as e:
        if spec.configured:
            raise
        log.warning("%s", e)
        log.warning('could not create Unix-domain socket in directory "%s" (the default '
                    'unix_socket_directories); listening on TCP only', directory)
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if not abstract:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)  # a stale socket file: its lock was stale (or gone) too
        sock.bind(_address(path))
        if not abstract:
            os.chmod(path, spec.mode)
            if gid is not None:
                os.chown(path, -1, gid)
        sock.listen(BACKLOG)
        sock.setblocking(False)
    except OSError as e:
        sock.close()
        if lock_path:  # NB: a file at `path` now is ours (bound before chmod failed)
            for own in (path, lock_path):
                with contextlib.suppress(OSError):
                    os.unlink(own)
        log.warning('could not bind Unix address "%s": %s', path, os.strerror(e.errno or 0)
                    if e.errno else e)
        log.warning('could not create Unix-domain socket in directory "%s"', directory)
        return None
    log.info('listening on Unix socket "%s"', path)
    return UnixListener(sock, path, lock_path)


def _lock(lock_path: str, spec: UnixSpec, directory: str, port: int) -> None:
    """Takes the socket's lock file as PostgreSQL's CreateLockFile does (a stale one is
    replaced); raises UnixSocketError when another server holds it or it cannot be made."""
    lines = [str(os.getpid()), os.path.abspath(spec.data_dir) if spec.data_dir else "",
             str(int(time.time())), str(port), directory]
    for _attempt in range(100):
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if _live_owner(lock_path):
                raise UnixSocketError(_held(lock_path)) from None
            with contextlib.suppress(FileNotFoundError):
                os.unlink(lock_path)
            continue
        except OSError as e:
            raise UnixSocketError(f'could not create lock file "{lock_path}": '
                                  f"{os.strerror(e.errno) if e.errno else e}") from None
        try:
            os.write(fd, ("\n".join(lines) + "\n").encode())
        finally:
            os.close(fd)
        return
    raise UnixSocketError(f'could not create lock file "{lock_path}": too many attempts')


def _owner_pid(lock_path: str) -> int | None:
    try:
        with open(lock_path, encoding="utf-8", errors="replace") as f:
            first = f.readline().strip()
    except OSError:
        return None
    return int(first) if first.lstrip("-").isdigit() else None


def _live_owner(lock_path: str) -> bool:
    """Whether the lock file belongs to a running server (see the module docstring)."""
    pid = _owner_pid(lock_path)
    if pid is None or pid <= 0 or pid == os.getpid():
        return False  # NB: PostgreSQL's rule: a garbled lock, or our own pid's (a reused pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(5.0)
        probe.connect(lock_path[: -len(".lock")])
    except OSError as e:
        return e.errno not in (errno.ECONNREFUSED, errno.ENOENT)
    finally:
        probe.close()
    return True
