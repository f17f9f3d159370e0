"""The fsync helper: a child process that fsyncs a redo log's segments for the event loop.

Why a process and not a thread: a thread of the server must take the GIL back after
every blocking call, and the loop thread, busy serving sessions, gives it up only when
`sys.getswitchinterval()` (5 ms) has passed. A syncer thread so waited up to 5 ms to
start each fsync and up to 5 ms again to report it, around an fsync of 1-3 ms on this
machine's disk, while the committing transactions held their row locks (pgbench's
branch rows: 40 % of its transactions waited for one). The child has an interpreter
of its own: it gets an order over a socket, fsyncs, and answers; the answer makes the
socket readable, and the logger completes the group from a reader callback on the
loop's thread, with no thread of the server in between.

Each order is one SOCK_SEQPACKET message: the segment's sequence number, with the
segment's file descriptor attached (SCM_RIGHTS) the first time, so the child syncs the
very open file the server writes (a writeback error reaches it as it would reach the
server). The answer is the sequence number and 0 or the fsync's errno. The child ends
when the socket closes, so a server killed with -9 leaves no helper behind.

    >>> import os, tempfile
    >>> h = FsyncHelper()
    >>> r, w = os.pipe()
    >>> h.order(3, w); h.result(block=True)  # a pipe cannot be fsynced: EINVAL
    (3, 22)
    >>> f = tempfile.TemporaryFile()
    >>> h.order(4, f.fileno()); h.result(block=True)
    (4, 0)
    >>> h.close(); f.close(); os.close(r); os.close(w)
"""

from __future__ import annotations

import socket
import struct
import subprocess
import sys

_ORDER = struct.Struct("<q")
_ANSWER = struct.Struct("<qi")

# The child's whole program (run with -I -S: nothing of the server is imported).
_CHILD = r"""
import os, socket, struct, sys
sock = socket.socket(fileno=int(sys.argv[1]))
fds = {}
while True:
    try:
        msg, got, _flags, _addr = socket.recv_fds(sock, 8, 1)
    except OSError:
        break
    if len(msg) != 8:
        break
    (seq,) = struct.unpack("<q", msg)
    for fd in got:
        for old in [s for s in fds if s < seq]:
            os.close(fds.pop(old))
        if seq in fds:
            os.close(fds[seq])
        fds[seq] = fd
    err = 0
    try:
        getattr(os, "fdatasync", os.fsync)(fds[seq])
    except OSError as exc:
        err = exc.errno or 5
    except KeyError:
        err = 9
    try:
        sock.send(struct.pack("<qi", seq, err))
    except OSError:
        break
"""


class FsyncHelper:
    """The parent's end: `order` sends an fsync, `result` reads an answer (see the module
    docstring); `fileno` is what the loop watches for answers."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _CHILD, str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, close_fds=True)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.sock = ours
        self._sent: int | None = None  # the segment whose fd the child holds last

    def fileno(self) -> int:
        return self.sock.fileno()

    def order(self, seq: int, fd: int) -> None:
        """Asks for an fsync of segment seq (file descriptor fd)."""
        msg = _ORDER.pack(seq)
        if self._sent == seq:
            self.sock.send(msg)
        else:
            socket.send_fds(self.sock, [msg], [fd])
            self._sent = seq

    def result(self, block: bool = False) -> tuple[int, int] | None:
        """The next answer, (seq, errno or 0); None when the child is gone. Without
        `block`, raises BlockingIOError when no answer is there yet."""
        try:
            data = self.sock.recv(_ANSWER.size, 0 if block else socket.MSG_DONTWAIT)
        except (ConnectionError, OSError) as exc:
            if isinstance(exc, BlockingIOError):
                raise
            return None
        if len(data) != _ANSWER.size:
            return None
        seq, err = _ANSWER.unpack(data)
        return seq, err

    def close(self) -> None:
        """Ends the child (it sees the socket close) and reaps it."""
        self.sock.close()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a child stuck in fsync
            self.proc.kill()
            self.proc.wait()
