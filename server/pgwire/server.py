"""The threaded front end: asyncio accepts connections, one thread per connection does its I/O.

(`cumulo serve --frontend loop` selects the event-loop front end instead: `loop.py`.)

asyncio runs the edges: the listening socket, the signals (in `cli.py`) and the
shutdown. Each accepted connection gets a thread of its own that owns the
socket, with blocking I/O: `recv_into` a reusable buffer, `protocol.Connection.
feed`, `sendall` the reply. Session methods are synchronous and may block for a
long time (lock waits, commit fsync, long scans), so they cannot run on the
loop; and handing bytes between the loop and a worker costs two thread
wake-ups per round trip. Measured on this 2-core machine with a prepared
`SELECT 1` (raw socket client): the loop-and-worker handoff took 60-250 us per
round trip depending on the load, a connection thread doing its own I/O
45-120 us, the bare asyncio floor about 35 us. The GIL is released in `recv`
and `sendall`, so an idle or slow client costs a parked thread, not CPU.

- Reads go into one 256 KiB `bytearray` per connection (`recv_into`): a fresh
  256 KiB `bytes` per read makes glibc map and unmap memory on every read
  (ARCHITECTURE.md).
- Flow control is the socket's: `sendall` blocks while the client does not
  read, so a big result never piles up in memory, and the thread reads its
  next input only when it has answered the last.
- A client has `AUTH_TIMEOUT` seconds for its startup and password
  exchange, as in PostgreSQL; an authenticated session may idle forever.
- CancelRequest arrives on a fresh connection; its thread looks the
  (pid, secret) up in the server's registry and calls `Session.cancel()`.
- `Server.close()` is PostgreSQL's fast shutdown: stop accepting, cancel every
  running statement, send each session FATAL 57P01 and wait for the threads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import select
import socket
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import AdminShutdown, SQLError, TooManyConnections, to_fields
from . import messages as M
from .auth import METHODS
from .backend import Engine, Session
from .loop import (
    IDLE_MESSAGE,
    TRUE_WORDS,
    LoopServer,
    cancel_request,
    end_sessions,
    fatal_bytes,
    log_disconnection,
    peer_text,
    serve_loop,
    session_setting,
    setting_ms,
)
from .protocol import AUTH, READY, STARTUP, Connection
from .unixsock import UnixListener, UnixSpec, listen, remove

log = logging.getLogger("cumulo.pgwire")

READ_BUFFER = 256 * 1024
AUTH_TIMEOUT = 60.0  # PostgreSQL's authentication_timeout: startup and password, then no limit
SHUTDOWN_MESSAGE = "terminating connection due to administrator command"


def _shutdown_bytes() -> bytes:
    fields = to_fields(AdminShutdown(SHUTDOWN_MESSAGE))
    fields["S"] = fields["V"] = "FATAL"
    return M.error_fields(b"E", fields)


class Server:
    """A listening pgwire server; `close()` shuts it down gracefully."""

    def __init__(self, engine: Engine, auth: str, ssl_context: ssl.SSLContext | None,
                 max_connections: int = 100, log_connections: bool = False,
                 log_disconnections: bool = False) -> None:
        self.engine = engine
        self.auth = auth
        self.ssl_context = ssl_context
        self.max_connections = max_connections
        self.log_connections = log_connections
        self.log_disconnections = log_disconnections
        self.sessions = 0  # connections past their startup packet (max_connections counts them)
        self.counting = threading.Lock()
        self.registry: dict[tuple[int, int], Session] = {}
        self.relay_cancel: Callable[[tuple[int, int]], None] | None = None  # see cancel_request
        self.handlers: set[ConnectionThread] = set()
        self.host = ""
        self.port = 0
        self._listener: socket.socket | None = None
        self._accepting: list[asyncio.Task[None]] = []
        self.unix_listeners: list[UnixListener] = []  # removed at close (`unixsock.remove`)
        self._closing = False

    def accept(self, listener: socket.socket, local: bool = False) -> None:
        """Starts accepting connections on a listening socket (`local`: a Unix-domain one)."""
        loop = asyncio.get_running_loop()
        self._accepting.append(loop.create_task(self._accept_loop(listener, local)))

    async def _accept_loop(self, listener: socket.socket, local: bool) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, _addr = await loop.sock_accept(listener)
            except asyncio.CancelledError:
                raise
            except OSError as e:  # e.g. EMFILE: keep serving the connections we have
                log.warning("accept failed: %s", e)
                await asyncio.sleep(0.1)
                continue
            if self._closing:
                sock.close()
                continue
            handler = ConnectionThread(self, sock, loop, local)
            if self.log_connections:
                log.info("connection received: %s", peer_text(handler.conn))
            self.handlers.add(handler)
            try:
                handler.start()
            except RuntimeError as e:  # no thread for it (a resource limit): refuse this one
                log.warning("cannot serve a new connection: %s", e)
                self.handlers.discard(handler)
                with contextlib.suppress(OSError):
                    sock.sendall(fatal_bytes(TooManyConnections(
                        "sorry, too many clients already")))
                    sock.close()

    async def close(self, grace: float = 3.0, smart: bool = False) -> None:
        """Stops accepting and terminates every session with FATAL 57P01.

        Running statements are cancelled; a connection whose statement has not
        ended after `grace` seconds (one that does not check for cancel) has its
        client told and disconnected from here, and its thread is left behind:
        a daemon thread, whose uncommitted work is lost as in a crash.
        """
        if self._closing:
            return
        self._closing = True
        for task in self._accepting:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._listener is not None:
            self._listener.close()
        remove(self.unix_listeners)
        await end_sessions(lambda: list(self.handlers), smart, grace)


class ConnectionThread:
    """One client connection: its socket, its `protocol.Connection`, its thread."""

    def __init__(self, server: Server, sock: socket.socket, loop: asyncio.AbstractEventLoop,
                 local: bool = False) -> None:
        self.server = server
        self.sock: Any = sock
        self.loop = loop
        self.finished: asyncio.Future[None] = loop.create_future()
        # NB: two locks: `state` is never held across I/O, so the loop can always take it;
        # `writing` is held by whoever writes. Only a busy thread writes, except the loop's
        # FATAL to an idle session, and `abandon`.
        self.state = threading.Lock()
        self.writing = threading.Lock()
        self.busy = False  # inside conn.feed: the thread answers for itself
        self.stopping = False
        self.told = False  # the FATAL 57P01 went out
        self.tls = False
        self._reset_for: Any = None  # the session whose reset_cancel is cached in _reset
        self._reset: Callable[[], None] | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None  # TLS only, see shutdown
        self.counted = False  # counted in server.sessions
        self.self_terminated = False  # pg_terminate_backend(pg_backend_pid())
        self.idle_timeout: float | None = None  # idle_in_transaction_session_timeout, armed
        self.started = time.monotonic()
        # NB: over a Unix socket (`local`) SSLRequest is answered N, as PostgreSQL does
        self.conn = Connection(server.engine, auth=server.auth,
                               tls=server.ssl_context is not None and not local,
                               registry=server.registry, send=self._send)
        self.conn.local = local
        if local:
            self.conn.peer_port = -1  # a Unix socket: no address, port -1 as PG shows it
        else:
            with contextlib.suppress(OSError, IndexError, TypeError):
                self.conn.peer = str(sock.getpeername()[0])
                self.conn.peer_port = int(sock.getpeername()[1])
        self.thread = threading.Thread(target=self._run, name="pgwire-conn", daemon=True)

    def start(self) -> None:
        """Starts the connection's thread."""
        sock = self.sock
        sock.settimeout(AUTH_TIMEOUT)  # NB: blocking, but a silent client cannot hold a thread
        if not self.conn.local:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.thread.start()

    # -- called from the loop -------------------------------------------------------

    def shutdown(self) -> None:
        """Ends the session with FATAL 57P01: wakes an idle thread, cancels a busy one's
        statement; the thread then says goodbye itself."""
        self.conn.terminate(AdminShutdown(SHUTDOWN_MESSAGE))
        with self.state:
            self.stopping = True
            idle = not self.busy
        if idle:
            # NB: wake the thread from its recv and let it write the FATAL itself. A plain
            # socket is shut for reading; a TLS one must not be touched by a second thread
            # while one reads it, so its thread waits in select() on a wake-up socket too.
            wake = self._wake
            with contextlib.suppress(OSError):
                if wake is not None:
                    wake[1].send(b"x")
                elif not self.tls:
                    self.sock.shutdown(socket.SHUT_RD)
        else:
            session = self.conn.session
            if session is not None:
                try:
                    session.cancel()
                except Exception:
                    log.exception("cancel during shutdown failed")

    def terminated(self) -> None:
        """pg_terminate_backend's hook: FATAL 57P01 for this session (its own statement, or
        another session's, or the loop's)."""
        if threading.current_thread() is self.thread:  # the session ends itself
            self.self_terminated = True
            self.conn.terminate(AdminShutdown(SHUTDOWN_MESSAGE))
            return
        self.shutdown()

    def _arm_idle_timeout(self, session: Session) -> None:
        """Makes the next recv time out after idle_in_transaction_session_timeout, inside a
        transaction block; no timeout otherwise."""
        timeout: float | None = None
        if session.transaction_status != "I":
            ms = setting_ms(session_setting(session, "idle_in_transaction_session_timeout"))
            if ms > 0:
                timeout = ms / 1000.0
        if timeout != self.idle_timeout:
            self.idle_timeout = timeout
            self.sock.settimeout(timeout)

    def abandon(self) -> None:
        """Disconnects a client whose statement ignores cancel: FATAL 57P01, then hang up."""
        if self.writing.acquire(timeout=0.5):
            try:
                self._tell_and_hang_up()
            finally:
                self.writing.release()
        else:  # NB: the thread is stuck in a write: no room for a whole message
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)
        self._finish()

    def notified(self) -> None:
        """Pushes LISTEN notifications to an idle session at once, as PostgreSQL does (called
        from the notifying session's thread). A busy session, or one inside a transaction
        block, gets them with its next ReadyForQuery."""
        with self.state:
            if self.busy or self.stopping:
                return
            if self.tls:
                wake = self._wake
                if wake is not None:
                    with contextlib.suppress(OSError):
                        wake[1].send(b"n")
                return
            self.busy = True  # NB: claims the socket, so a shutdown does not write meanwhile
        try:
            self._push_notifications()
        except OSError:
            pass  # the client went away: its own thread notices
        finally:
            with self.state:
                self.busy = False

    def _push_notifications(self) -> None:
        conn = self.conn
        session = conn.session
        if session is None or session.transaction_status != "I":
            return
        out = b"".join(M.notification(pid, chan, payload)
                       for pid, chan, payload in session.take_notifications())
        self._send(out)

    def _tell_and_hang_up(self) -> None:
        """Sends FATAL 57P01 (once) and shuts the socket down, which ends the thread's recv."""
        if not self.told:
            self.told = True
            with contextlib.suppress(OSError):
                self.sock.sendall(_shutdown_bytes())
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)

    def _finish(self) -> None:
        self.server.handlers.discard(self)
        if not self.finished.done():
            self.finished.set_result(None)

    # -- the connection's thread ------------------------------------------------------

    def _send(self, data: bytes) -> None:
        """Writes to the client (blocks while it does not read: that is the flow control)."""
        if data:
            with self.writing:
                if not self.told:
                    self.sock.sendall(data)

    def _run(self) -> None:
        conn = self.conn
        buf = bytearray(READ_BUFFER)
        view = memoryview(buf)
        timed = True
        try:
            while True:
                if self._wake is not None and not self.sock.pending():
                    ready, _, _ = select.select([self.sock, self._wake[0]], [], [],
                                                self.sock.gettimeout())
                    if self._wake[0] in ready:
                        if self._wake[0].recv(64).endswith(b"n") and not self.stopping:
                            self._push_notifications()  # NB: only TLS sessions get here
                            continue
                        break
                    if not ready:
                        raise TimeoutError("authentication timeout")
                n = self.sock.recv_into(view)
                if n == 0:
                    break
                was = conn.phase
                with self.state:
                    if self.stopping:
                        break
                    self.busy = True
                session = conn.session
                if session is not None and self._reset_for is not session:
                    self._reset_for = session
                    self._reset = session.reset_cancel
                    session.notify_hook = self.notified
                if self._reset is not None:
                    self._reset()  # NB: a cancel that came while idle is no-op, as in PG
                try:
                    out = conn.feed(view[:n])
                    if timed and conn.session is not None:
                        # pg_terminate_backend from another session ends this one at once.
                        # NB: hooked before BackendKeyData reaches the client: nobody can
                        # know this backend's pid before then.
                        conn.session.terminate_hook = self.terminated
                        if self.server.log_connections:
                            log.info("connection authorized: user=%s database=%s", conn.user,
                                     conn.startup_params.get("database", ""))
                    if not self.counted and was == STARTUP and conn.phase in (AUTH, READY):
                        with self.server.counting:
                            self.counted = True
                            self.server.sessions += 1
                            full = self.server.sessions > self.server.max_connections
                        if full:
                            out = fatal_bytes(TooManyConnections(
                                "sorry, too many clients already"))
                            conn.close()
                    if self.self_terminated and not conn.closed:
                        out = _shutdown_bytes()
                        conn.close()
                    if conn.start_tls:
                        self._send(out)
                        tls = self._start_tls()
                        if tls is None:
                            break
                        self._wake = socket.socketpair()
                        self.sock, self.tls = tls, True
                        conn.tls_started()
                        continue
                    self._send(out)
                finally:
                    with self.state:
                        self.busy = False
                        stop = self.stopping
                if not stop and conn.session is not None and conn.session.inbox:
                    self.notified()  # a NOTIFY that arrived while we were busy: push it now
                if timed and conn.session is not None:
                    timed = False
                    self.sock.settimeout(None)
                session = conn.session
                if session is not None and not timed and (
                        self.idle_timeout is not None or session.transaction_status != "I"):
                    self._arm_idle_timeout(session)  # NB: idle, none armed: nothing to change
                if conn.cancel_key is not None:
                    cancel_request(self.server.registry, conn.cancel_key,
                                   self.server.relay_cancel)
                if conn.closed or stop:
                    break
        except TimeoutError:
            if self.idle_timeout is not None and conn.session is not None:  # idle in a txn
                with self.writing:
                    if not self.told:
                        self.told = True
                        with contextlib.suppress(OSError):
                            self.sock.sendall(fatal_bytes(SQLError(IDLE_MESSAGE,
                                                                    sqlstate="25P03")))
            else:
                log.info("closing connection: authentication timeout")
        except OSError as e:  # the client went away
            log.debug("connection lost: %s", e)
        except Exception:
            log.exception("pgwire connection thread failed")
        finally:
            if self.stopping and not conn.closed:  # a shutdown, not the client, ended it
                with self.writing:
                    self._tell_and_hang_up()
            conn.close()
            with contextlib.suppress(OSError):
                self.sock.close()
            if self._wake is not None:
                for end in self._wake:
                    end.close()
            if self.counted:
                with self.server.counting:
                    self.server.sessions -= 1
            if self.server.log_disconnections and conn.user:
                log_disconnection(self.started, conn)
            with contextlib.suppress(RuntimeError):  # the loop is gone: shutdown abandoned us
                self.loop.call_soon_threadsafe(self._finish)

    def _start_tls(self) -> Any:
        ctx = self.server.ssl_context
        assert ctx is not None
        try:
            return ctx.wrap_socket(self.sock, server_side=True)
        except (ssl.SSLError, OSError) as e:
            log.info("TLS handshake failed: %s", e)
            return None


async def serve(
    engine: Engine,
    host: str = "127.0.0.1",
    port: int = 5433,
    *,
    auth: str = "trust",
    ssl_context: ssl.SSLContext | None = None,
    on_ready: Callable[[str, int], None] | None = None,
    frontend: str = "threads",
    settings: Mapping[str, str] | None = None,
    reuse_port: bool = False,
    unix: UnixSpec | None = None,
) -> Server | LoopServer:
    """Starts listening; returns the server (port 0 picks a free port, see `Server.port`).

    `frontend` chooses the event-loop front end (`loop.py`) or a thread per connection;
    `settings` are the server-wide ones (max_connections, log_connections, ...);
    `reuse_port` lets several query-engine processes listen on one port (SO_REUSEPORT:
    the kernel spreads the connections, `cumulo serve --workers`); `unix` adds the
    Unix-domain sockets for the port TCP got (`unixsock`: raises UnixSocketError).
    """
    opts = settings or {}
    limits: dict[str, Any] = {
        "max_connections": int(opts.get("max_connections", "100")),
        "log_connections": str(opts.get("log_connections", "off")).lower() in TRUE_WORDS,
        "log_disconnections": str(opts.get("log_disconnections", "off")).lower() in TRUE_WORDS,
    }
    if frontend == "loop":
        if unix is None or not unix.directories:
            return await serve_loop(engine, host, port, auth=auth, ssl_context=ssl_context,
                                    on_ready=on_ready, reuse_port=reuse_port, **limits)
        loop_server = await serve_loop(engine, host, port, auth=auth, ssl_context=ssl_context,
                                       reuse_port=reuse_port, **limits)
        try:
            listeners = listen(unix, loop_server.port)
            await loop_server.add_unix(listeners)
        except BaseException:
            await loop_server.close()
            raise
        if on_ready is not None:
            on_ready(loop_server.host, loop_server.port)
        return loop_server
    if auth not in METHODS:
        raise ValueError(f"auth must be one of {METHODS}, not {auth!r}")
    server = Server(engine, auth, ssl_context, **limits)
    listener = socket.create_server((host, port), backlog=1024, reuse_port=reuse_port)
    listener.setblocking(False)
    server._listener = listener
    server.host, server.port = listener.getsockname()[:2]
    if unix is not None and unix.directories:
        try:
            server.unix_listeners = listen(unix, server.port)
        except BaseException:
            listener.close()
            raise
    server.accept(listener)
    for lst in server.unix_listeners:
        server.accept(lst.sock, local=True)
    if on_ready is not None:
        on_ready(server.host, server.port)
    return server
