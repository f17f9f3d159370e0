"""KiVi over TCP: an asyncio server in front of a node, and a synchronous client for it.

Frames are a 4-byte big-endian length followed by a body (`kivi.framing`: a fixed
layout for the hot messages, else `kivi.wire` msgpack). A request frame carries one
request dataclass; the reply frame carries `[0, reply]` or, when the node raised,
`[1, [class name, sqlstate, message]]`, which the client raises again as the same
`SQLError` subclass.

The SQL executor is synchronous and runs in worker threads, so `RemoteNode`
is a blocking client. Each call borrows an idle socket from a small pool (or
opens one), does one round trip, and returns the socket: threads never share
a socket mid-call and need no lock beyond the pool's. The server runs the
node's `handle` inline on the event loop (the node's own lock serialises work
anyway, and inline calls cost no thread hop), except aggregate scans, which
cover a whole range and go to the loop's executor.
"""

from __future__ import annotations

import asyncio
import os
import socket
import struct
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .. import errors
from ..errors import ConnectionFailure, SQLError
from .api import (
    Ack,
    Apply,
    Checkpoint,
    Collect,
    DropSpace,
    Get,
    GetReply,
    ImportRegion,
    LatestCommit,
    LatestCommitReply,
    NodeStatus,
    Row,
    Scan,
    ScanReply,
    SpaceWrites,
    Write,
)
from .framing import pack_error, pack_reply, pack_request, unpack_reply, unpack_request
from .routing import ERRORS as ROUTING_ERRORS
from .routing import Fenced, RecoverRegion

_LEN = struct.Struct(">I")
# The most writes one Apply request carries (`apply_parts`); tests lower it
# (CUMULO_APPLY_PART_ROWS) to cut a small COPY into pieces.
_rows = os.environ.get("CUMULO_APPLY_PART_ROWS", "")
APPLY_PART_ROWS = int(_rows) if _rows.isdigit() and int(_rows) > 0 else 50_000
_INSTALLS = (ImportRegion, RecoverRegion)
MAX_FRAME = 1 << 30


def _error_payload(exc: BaseException) -> list[Any]:
    if isinstance(exc, SQLError):
        return [type(exc).__name__, exc.sqlstate, exc.message]
    return ["InternalError", "XX000", f"KiVi node error: {exc!r}"]


def _raise(payload: list[Any]) -> None:
    name, sqlstate, message = payload
    cls = ROUTING_ERRORS.get(name) or getattr(errors, name, None)
    if isinstance(cls, type) and issubclass(cls, SQLError):
        raise cls(message, sqlstate=sqlstate)
    raise SQLError(message, sqlstate=sqlstate)


def offload_aggregates(req: Any) -> bool:
    """The default `offload`: whole-range aggregate scans run in the thread pool, and so
    does installing a moved or recovered region (building its store and writing its file
    take a while; the node's other regions keep being served meanwhile)."""
    if type(req) is Fenced:
        req = req.msg
    return (isinstance(req, Scan) and req.aggregate is not None) or type(req) in _INSTALLS


class _Connection(asyncio.Protocol):
    """Serves one client connection: frames in, `node.handle`, frames out.

    A protocol rather than asyncio streams: a round trip is then one `data_received`
    call and one `write`, with no coroutine, future or `drain` per frame (that machinery
    cost the node more CPU per small request than the request itself). The client sends
    one request at a time and waits for its reply, so there is no backlog to push back
    on; an offloaded request holds the connection's later frames until it is answered.
    """

    def __init__(self, node: Any, offload: Callable[[Any], bool],
                 connections: set[asyncio.BaseTransport] | None) -> None:
        self.node, self.offload, self.connections = node, offload, connections
        self.buf = bytearray()
        self.need = 0  # NB: bytes `buf` must hold before a frame in it can be complete
        self.busy = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.connections is not None:
            self.connections.add(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.connections is not None and self.transport is not None:
            self.connections.discard(self.transport)

    def data_received(self, data: bytes) -> None:
        if self.buf:
            self.buf += data
            if self.busy or len(self.buf) < self.need:
                # NB: a large frame arrives in many 64 KiB pieces: copying the whole buffer
                # out at each one made receiving it quadratic (a 32 MiB redo record took
                # 8.5 s, a pgbench -s 10 COPY's 100 MB one longer than the client's timeout)
                return
            data = bytes(self.buf)
            self.buf.clear()
        self._serve(data)

    def _serve(self, data: bytes) -> None:
        """Answers the whole frames in data; keeps the rest for later (or while busy)."""
        pos, end = 0, len(data)
        while not self.busy and end - pos >= 4:
            (n,) = _LEN.unpack_from(data, pos)
            if n > MAX_FRAME:
                assert self.transport is not None
                self.transport.close()
                return
            if end - pos - 4 < n:
                break
            body = data[pos + 4:pos + 4 + n]
            pos += 4 + n
            try:
                req = unpack_request(body)
                if self.offload(req):
                    # A whole-range aggregate (or, for a logger, a wait for fsync) may take a
                    # while: run it off the event loop so that other connections keep flowing.
                    self.busy = True
                    fut = asyncio.get_running_loop().run_in_executor(None, self.node.handle, req)
                    fut.add_done_callback(self._offloaded)
                    break
                out = pack_reply(self.node.handle(req))
            except Exception as exc:  # noqa: BLE001 - every failure goes back to the caller
                out = pack_error(_error_payload(exc))
            self._send(out)
        if pos < end:
            self.buf += data[pos:]
            self.need = 4 + _LEN.unpack_from(data, pos)[0] if end - pos >= 4 else 4

    def _offloaded(self, fut: asyncio.Future[Any]) -> None:
        self.busy = False
        if fut.cancelled():
            return
        try:
            out = pack_reply(fut.result())
        except Exception as exc:  # noqa: BLE001 - every failure goes back to the caller
            out = pack_error(_error_payload(exc))
        self._send(out)
        data = bytes(self.buf)
        self.buf.clear()
        self._serve(data)

    def _send(self, out: bytes) -> None:
        t = self.transport
        if t is not None and not t.is_closing():
            t.write(_LEN.pack(len(out)) + out)


async def serve_node(
    node: Any,
    host: str = "127.0.0.1",
    port: int = 0,
    connections: set[asyncio.BaseTransport] | None = None,
    offload: Callable[[Any], bool] = offload_aggregates,
) -> asyncio.Server:
    """Starts serving a node's requests on host:port; returns the asyncio server.

    `connections`, when given, tracks the open connections so that a shutdown can close them.
    Any object with a `handle(request) -> reply` method can be served this way (cluster
    mode serves conflict managers and loggers too); `offload(request)` tells which
    requests run in the loop's thread pool instead of on the loop.
    """
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: _Connection(node, offload, connections), host, port)


class NodeServerThread:
    """Runs `serve_node` on its own event loop in a background thread (tests, embedded use)."""

    def __init__(
        self,
        node: Any,
        host: str = "127.0.0.1",
        port: int = 0,
        offload: Callable[[Any], bool] = offload_aggregates,
    ) -> None:
        self.offload = offload
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.BaseTransport] = set()
        self._thread = threading.Thread(
            target=self._run, args=(node, host, port), name="kivi-node-server", daemon=True
        )
        self._thread.start()
        self._ready.wait(10)
        if self._server is None:
            raise ConnectionFailure("the KiVi node server did not start")
        self.host, self.port = self._server.sockets[0].getsockname()[:2]

    def _run(self, node: Any, host: str, port: int) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self._server = self.loop.run_until_complete(
                serve_node(node, host, port, self._connections, self.offload)
            )
        finally:
            self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self.loop.shutdown_default_executor())
        self.loop.close()

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        # NB: wait_closed does not wait for open connections: close them, and let their
        # handlers see the end of stream and return.
        for w in list(self._connections):
            w.close()
        tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        await asyncio.gather(*tasks, return_exceptions=True)
        await self._server.wait_closed()

    def stop(self) -> None:
        """Stops the server, closes its connections and ends its thread."""
        if self.loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)


def apply_parts(req: Apply, rows: int) -> list[Apply]:
    """Cuts an Apply into Applies of at most `rows` writes each, all at its ts.

    Why: a COPY's write set was one request (a million pgbench rows, ~100 MB), which a
    node decodes and applies inline on its event loop, every other request of every
    engine waiting meanwhile; and one request has the socket timeout to do it all in.
    Pieces are safe: an Apply is idempotent, its keys are distinct, and no snapshot
    reaches its ts before the engine has had every piece applied (the commit is
    published after `apply` returns; a node lost mid-way replays the whole record).

        >>> from .api import SpaceWrites, Write
        >>> req = Apply(5, [Write(1, b"a", (1,))], [SpaceWrites(2, [b"x", b"y", b"z"], [(1,), (2,), None])])
        >>> [(len(p.writes), [len(sw.keys) for sw in p.spaces]) for p in apply_parts(req, 2)]
        [(1, [1]), (0, [2])]
        >>> apply_parts(req, 4) == [req]
        True
    """
    total = len(req.writes) + sum(len(sw.keys) for sw in req.spaces)
    if total <= rows:
        return [req]
    out: list[Apply] = []
    writes: Sequence[Write] = []
    spaces: list[SpaceWrites] = []
    room = rows

    def flush() -> None:
        nonlocal writes, spaces, room
        out.append(Apply(req.ts, writes, spaces))
        writes, spaces, room = [], [], rows

    for i in range(0, len(req.writes), rows):
        writes = req.writes[i:i + rows]
        room = rows - len(writes)
        if room == 0:
            flush()
    for sw in req.spaces:
        pos = 0
        while pos < len(sw.keys):
            take = min(room, len(sw.keys) - pos)
            spaces.append(SpaceWrites(sw.space, sw.keys[pos:pos + take], sw.rows[pos:pos + take]))
            pos += take
            room -= take
            if room == 0:
                flush()
    if writes or spaces:
        flush()
    return out


class RemoteNode:
    """A synchronous, thread-safe `KiviNodeAPI` client for a node served by `serve_node`."""

    def __init__(self, host: str, port: int, timeout: float | None = 60.0, pool: int = 8,
                 apply_rows: int = APPLY_PART_ROWS) -> None:
        self.host, self.port, self.timeout = host, port, timeout
        self.apply_rows = apply_rows
        self._idle: list[socket.socket] = []
        self._busy: set[socket.socket] = set()  # sockets waiting for a reply (`abort`)
        self._pool = pool
        self._lock = threading.Lock()
        self._closed = False
        self._aborted = False

    def _connect(self) -> socket.socket:
        if self._aborted:
            raise ConnectionFailure(f"KiVi node {self.host}:{self.port} was declared dead")
        try:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        except OSError as exc:
            raise ConnectionFailure(
                f"cannot reach KiVi node {self.host}:{self.port}: {exc}"
            ) from exc
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock

    def _recv_exact(self, sock: socket.socket, n: int) -> bytes:
        buf = bytearray(n)
        view = memoryview(buf)
        got = 0
        while got < n:
            k = sock.recv_into(view[got:], n - got)
            if not k:
                raise ConnectionFailure(f"KiVi node {self.host}:{self.port} closed the connection")
            got += k
        return bytes(buf)

    def _recv_reply(self, sock: socket.socket) -> bytes:
        """The body of the reply frame: a small reply (most are) in one `recv` call, since
        nothing but this reply can follow on the socket (one request at a time)."""
        data = sock.recv(65536)
        while len(data) < 4:
            if not data:
                raise ConnectionFailure(f"KiVi node {self.host}:{self.port} closed the connection")
            more = sock.recv(65536)
            if not more:
                data = b""
                continue
            data += more
        (n,) = _LEN.unpack_from(data)
        if n > MAX_FRAME:
            raise ConnectionFailure(f"KiVi node {self.host}:{self.port} sent a {n}-byte frame")
        if len(data) - 4 < n:
            return data[4:] + self._recv_exact(sock, n + 4 - len(data))
        return data[4:]

    def handle(self, request: Any) -> Any:
        """Sends one request and returns the node's reply (raising the node's error)."""
        body = pack_request(request)
        frame = _LEN.pack(len(body)) + body
        with self._lock:
            sock = self._idle.pop() if self._idle else None
        if sock is not None:
            try:
                status, payload = self._round_trip(sock, frame)
            except ConnectionFailure:
                # NB: a pooled socket may have been closed by a node that restarted. Every
                # request is safe to send twice (Apply is idempotent), so retry once afresh.
                sock = None
        if sock is None:
            sock = self._connect()
            status, payload = self._round_trip(sock, frame)
        with self._lock:
            self._busy.discard(sock)
            if not self._closed and len(self._idle) < self._pool:
                self._idle.append(sock)
                sock = None
        if sock is not None:
            sock.close()
        if status:
            _raise(payload)
        return payload

    def _round_trip(self, sock: socket.socket, frame: bytes) -> tuple[int, Any]:
        with self._lock:
            self._busy.add(sock)
        try:
            sock.sendall(frame)
            status, payload = unpack_reply(self._recv_reply(sock))
        except OSError as exc:
            self._drop(sock)
            raise ConnectionFailure(f"KiVi node {self.host}:{self.port}: {exc}") from exc
        except BaseException:
            self._drop(sock)
            raise
        return status, payload

    def _drop(self, sock: socket.socket) -> None:
        with self._lock:
            self._busy.discard(sock)
        sock.close()

    def abort(self) -> None:
        """Fails the requests waiting for a reply now (ConnectionFailure) and closes the
        pool: the node was declared dead (cluster mode: its ZooKeeper session expired), and
        a paused node would otherwise keep them waiting for the whole `timeout`."""
        with self._lock:
            self._aborted = True
            busy, idle, self._idle = list(self._busy), self._idle, []
        for s in busy:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for s in idle:
            s.close()

    def close(self) -> None:
        """Closes the pooled connections."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for s in idle:
            s.close()

    @property
    def checkpoint_ts(self) -> int:
        """The remote node's checkpoint ts (replay redo records after it)."""
        return self.handle(NodeStatus()).checkpoint_ts

    def scan(self, req: Scan) -> ScanReply:
        """Scans on the remote node."""
        return self.handle(req)

    def get(self, req: Get) -> GetReply:
        """Reads keys on the remote node."""
        return self.handle(req)

    def get_rows(self, space: int, ts: int, keys: list[bytes]) -> list[Row | None]:
        """`get`'s rows (KiviNodeAPI)."""
        return self.get(Get(space, ts, keys)).rows

    def apply(self, req: Apply) -> Ack:
        """Applies a write set on the remote node, a large one in pieces (`apply_parts`)."""
        for part in apply_parts(req, self.apply_rows):
            self.handle(part)
        return Ack()

    def latest_commit(self, req: LatestCommit) -> LatestCommitReply:
        """Asks the remote node for the keys' newest commit ts."""
        return self.handle(req)

    def drop_space(self, req: DropSpace) -> Ack:
        """Drops a space on the remote node."""
        return self.handle(req)

    def collect(self, req: Collect) -> Ack:
        """Garbage-collects on the remote node."""
        return self.handle(req)

    def checkpoint(self, req: Checkpoint) -> Ack:
        """Checkpoints the remote node."""
        return self.handle(req)
