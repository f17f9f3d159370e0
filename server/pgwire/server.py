"""The asyncio front end: sockets in the event loop, one worker thread per connection.

The event loop only moves bytes. Each connection's `protocol.Connection` and
every `Session` call run in that connection's own worker thread, because
Session methods are synchronous and may block for a long time (lock waits,
commit fsync, long scans); one slow statement therefore never delays another
connection. The loop reads into a reusable buffer (`asyncio.BufferedProtocol`:
a plain `Protocol` allocates 256 KiB per read, which costs about 3x the CPU per
query, see ARCHITECTURE.md), hands the bytes to the worker through a queue, and
the worker hands replies back with `call_soon_threadsafe`.

Flow control both ways: when the transport's write buffer is full the worker
waits before producing more rows, and when a worker falls behind its input
(a fast COPY) the loop pauses reading.

CancelRequest arrives on a fresh connection; its (pid, secret) is looked up in
the server's registry and `Session.cancel()` is called from the loop thread.
`Server.close()` stops accepting, cancels running statements, sends each
session FATAL 57P01 and waits for the workers to finish.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import ssl
import threading
from collections.abc import Callable
from typing import Any

from ..errors import AdminShutdown
from .backend import Engine, Session
from .protocol import Connection

log = logging.getLogger("cumulo.pgwire")

READ_BUFFER = 256 * 1024
PAUSE_INPUT_AT = 4 * 1024 * 1024
_SHUTDOWN = object()
_LOST = object()


class Server:
    """A listening pgwire server; `close()` shuts it down gracefully."""

    def __init__(self, engine: Engine, auth: str, ssl_context: ssl.SSLContext | None) -> None:
        self.engine = engine
        self.auth = auth
        self.ssl_context = ssl_context
        self.registry: dict[tuple[int, int], Session] = {}
        self.handlers: set[PgProtocol] = set()
        self.host = ""
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._closing = False

    def cancel(self, key: tuple[int, int]) -> None:
        """Cancels the statement running in the session with this (pid, secret), if any."""
        session = self.registry.get(key)
        if session is not None:
            try:
                session.cancel()
            except Exception:
                log.exception("cancel failed")

    async def close(self, timeout: float = 30.0) -> None:
        """Stops accepting, terminates every session with 57P01 and waits for the workers."""
        if self._closing:
            return
        self._closing = True
        if self._server is not None:
            self._server.close()
        handlers = list(self.handlers)
        for h in handlers:
            h.shutdown()
        waits = [h.finished for h in handlers]
        if waits:
            done, pending = await asyncio.wait(waits, timeout=timeout)
            if pending:
                log.warning("%d connections did not finish within %.0fs", len(pending), timeout)
        if self._server is not None:
            await self._server.wait_closed()


class PgProtocol(asyncio.BufferedProtocol):
    """One client connection on the loop side: buffers in, a worker thread behind."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.loop = asyncio.get_running_loop()
        self.buffer = bytearray(READ_BUFFER)
        self.view = memoryview(self.buffer)
        self.inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.transport: Any = None
        self.finished: asyncio.Future[None] = self.loop.create_future()
        self.writable = threading.Event()
        self.writable.set()
        self.lost = False
        self.pending = 0  # bytes queued for the worker and not yet fed
        self.paused = False
        self.conn = Connection(server.engine, auth=server.auth, tls=server.ssl_context is not None,
                               registry=server.registry, send=self._send_from_worker)
        self.worker = threading.Thread(target=self._work, name="pgwire-conn", daemon=True)

    # -- loop side ---------------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        """Starts the connection's worker thread (called again with the TLS transport)."""
        self.transport = transport
        if not self.worker.is_alive() and self.worker.ident is None:
            self.server.handlers.add(self)
            self.worker.start()

    def get_buffer(self, sizehint: int) -> memoryview:
        """Returns the reusable read buffer."""
        return self.view

    def buffer_updated(self, nbytes: int) -> None:
        """Passes received bytes to the worker; pauses reading when it falls far behind."""
        self.pending += nbytes
        self.inbox.put(bytes(self.view[:nbytes]))
        if self.pending > PAUSE_INPUT_AT and not self.paused:
            self.paused = True
            self.transport.pause_reading()

    def eof_received(self) -> bool:
        """Closes on EOF."""
        return False

    def connection_lost(self, exc: BaseException | None) -> None:
        """Tells the worker to release the session."""
        self.lost = True
        self.writable.set()
        self.inbox.put(_LOST)

    def pause_writing(self) -> None:
        """Makes the worker wait before producing more output."""
        self.writable.clear()

    def resume_writing(self) -> None:
        """Lets the worker produce output again."""
        self.writable.set()

    def shutdown(self) -> None:
        """Asks the worker to terminate the session (57P01), cancelling its statement first."""
        session = self.conn.session
        if session is not None:
            try:
                session.cancel()
            except Exception:
                log.exception("cancel during shutdown failed")
        self.inbox.put(_SHUTDOWN)

    def _write(self, data: bytes) -> None:
        if not self.lost and self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _close_transport(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _finish(self) -> None:
        self.server.handlers.discard(self)
        if not self.finished.done():
            self.finished.set_result(None)

    def _reply(self, data: bytes, consumed: int) -> None:
        if data:
            self._write(data)
        self._resume_input(consumed)

    def _resume_input(self, nbytes: int) -> None:
        self.pending -= nbytes
        if self.paused and self.pending < PAUSE_INPUT_AT // 2 and not self.lost:
            self.paused = False
            self.transport.resume_reading()

    def _begin_tls(self, answer: bytes, done: threading.Event) -> None:
        # NB: stop reading before the client sees 'S', or its ClientHello could reach
        # buffer_updated before the TLS protocol is in place, and be lost.
        self.transport.pause_reading()
        self._write(answer)
        self.loop.create_task(self._start_tls(done))

    async def _start_tls(self, done: threading.Event) -> None:
        ctx = self.server.ssl_context
        assert ctx is not None
        try:
            self.transport = await self.loop.start_tls(self.transport, self, ctx, server_side=True)
        except Exception as e:
            log.info("TLS handshake failed: %s", e)
            self.lost = True
            self.inbox.put(_LOST)
        finally:
            done.set()

    # -- worker side ---------------------------------------------------------------

    def _send_from_worker(self, data: bytes) -> None:
        while not self.writable.wait(1.0):
            if self.lost:
                return
        self.loop.call_soon_threadsafe(self._write, data)

    def _work(self) -> None:
        conn, call = self.conn, self.loop.call_soon_threadsafe
        try:
            while True:
                item = self.inbox.get()
                if item is _LOST:
                    break
                if item is _SHUTDOWN:
                    out = conn.shutdown(AdminShutdown(
                        "terminating connection due to administrator command"))
                    call(self._write, out)
                    call(self._close_transport)
                    break
                data = item
                while True:  # coalesce whatever else already arrived
                    try:
                        more = self.inbox.get_nowait()
                    except queue.Empty:
                        break
                    if not isinstance(more, bytes):
                        self.inbox.put(more)  # NB: re-queued behind; handled next round
                        break
                    data += more
                out = conn.feed(data)
                if conn.start_tls:
                    call(self._resume_input, len(data))
                    done = threading.Event()
                    call(self._begin_tls, out, done)
                    done.wait()
                    conn.tls_started()
                    continue
                while not self.writable.wait(1.0) and not self.lost:
                    pass
                call(self._reply, out, len(data))  # one wake-up of the loop per round trip
                if conn.cancel_key is not None:
                    call(self.server.cancel, conn.cancel_key)
                if conn.closed:
                    call(self._close_transport)
                    break
        except Exception:
            log.exception("pgwire worker failed")
            call(self._close_transport)
        finally:
            conn.close()
            try:
                call(self._finish)
            except RuntimeError:  # the loop is gone already
                pass


async def serve(
    engine: Engine,
    host: str = "127.0.0.1",
    port: int = 5433,
    *,
    auth: str = "trust",
    ssl_context: ssl.SSLContext | None = None,
    on_ready: Callable[[str, int], None] | None = None,
) -> Server:
    """Starts listening; returns the Server (port 0 picks a free port, see `Server.port`)."""
    from .auth import METHODS

    if auth not in METHODS:
        raise ValueError(f"auth must be one of {METHODS}, not {auth!r}")
    loop = asyncio.get_running_loop()
    server = Server(engine, auth, ssl_context)
    server._server = await loop.create_server(lambda: PgProtocol(server), host, port)
    sock = server._server.sockets[0]
    server.host, server.port = sock.getsockname()[:2]
    if on_ready is not None:
        on_ready(server.host, server.port)
    return server
