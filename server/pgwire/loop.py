"""The event-loop front end: one asyncio loop serves every connection; sessions are greenlets.

Why: with a thread per connection, every round trip costs thread wake-ups and
GIL hand-offs (about 23 context switches per pgbench TPC-B transaction). Here
the loop's thread reads each connection, runs the bytes through the connection's
`protocol.Connection` to completion, and writes the reply, with no other
thread involved.

Reads arrive as `data_received(bytes)` (`asyncio.Protocol`): uvloop reads into its
own buffer and copies just what came. `BufferedProtocol` would read into ours, but
it costs two Python calls per read (`get_buffer`, `buffer_updated`) and hands the
parser a memoryview, whose slices and comparisons cost 2-3x those of bytes; a
pgbench -S round trip is ~60 bytes, so the copy is the cheap part. It also keeps
no 256 KiB read buffer per connection. NB: this holds on uvloop, which `cli.py` always
runs this front end on; asyncio's own loop would allocate a 256 KiB bytes per read of
a plain Protocol (the slow case in the design notes' measurements of the floor).

Statements may still wait: for a row lock, for the log's fsync, in
`pg_sleep`. Each connection therefore runs its `feed` in a greenlet of its
own; the lower layers' waits go through `waits.Condition`/`waits.Event`,
which on this thread switch back to the loop and are switched in again when
notified (see `waits.py`). Input that arrives while a connection's greenlet
is parked is kept (up to `PENDING_MAX`; then reading pauses and the rest waits
in the kernel) and run when the statement ends. Calls that block in the kernel
for milliseconds (the group commit's fsync, CHECKPOINT) run on a helper thread
through `waits.blocking`, so only their own session waits for them.

The default front end (on uvloop); `--frontend threads` is the old one. An early
measurement, before uvloop and the OLTP lanes: on a quiet 2-core machine the two
measured alike (pgbench scale 1, -c 8: TPC-B 495 vs 464 tps, select-only 8,050
vs 6,211 tps, in separate runs), but on a loaded one the kernel shares the CPU
per thread, and one loop thread lost to the threaded server's many (TPC-B 70 vs
226 tps at load 15).

Replies: a statement's reply is held until the loop's pass over the readable
connections ends, then every held reply is written (`LoopServer.flush_replies`),
one write per connection as before; a direct write or a hang-up writes the
held reply first, so the order on each connection is unchanged.

Flow control: replies go to the transport; when its buffer passes the high
mark (a client that does not read), the connection's greenlet parks until it
drains, and reading from that client stops meanwhile. Other connections are
not affected, and memory per connection stays bounded.

Timers are the loop's: the authentication timeout, statement_timeout (armed
through `waits.call_later`), idle_in_transaction_session_timeout. Cancel
requests, `pg_terminate_backend` and shutdown run as loop callbacks.
`max_connections` is checked when a startup packet arrives, as PostgreSQL does
(FATAL 53300); cancel requests are not counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import socket
import ssl
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import greenlet

from .. import waits
from ..errors import AdminShutdown, SQLError, TooManyConnections, to_fields
from . import messages as M
from .auth import METHODS
from .backend import CancelFlag, Engine, Session
from .protocol import AUTH, READY, Connection
from .unixsock import UnixListener, remove

log = logging.getLogger("cumulo.pgwire")

PENDING_MAX = 1 << 20  # input kept while a session is parked; beyond it, reading pauses
WRITE_HIGH = 1 << 20  # a client this far behind parks its session until it reads
WRITE_LOW = 256 * 1024
AUTH_TIMEOUT = 60.0  # PostgreSQL's authentication_timeout
SHUTDOWN_MESSAGE = "terminating connection due to administrator command"
IDLE_MESSAGE = "terminating connection due to idle-in-transaction timeout"
TRUE_WORDS = ("on", "true", "yes", "1")
monotonic = time.monotonic  # NB: read per round trip (`Hub.switched_at`): one attribute load less


def fatal_bytes(exc: SQLError) -> bytes:
    fields = to_fields(exc)
    fields["S"] = fields["V"] = "FATAL"
    return M.error_fields(b"E", fields)


@functools.lru_cache(maxsize=64)  # NB: read after every statement inside a transaction block
def setting_ms(value: str | None) -> int:
    """A time setting's value in ms ('0', '5s', '250ms', '1min', a bare number: ms).

    >>> setting_ms("1min"), setting_ms("250ms"), setting_ms("2"), setting_ms(None)
    (60000, 250, 2, 0)
    """
    if not value or value == "0":  # NB: the default, read before every recv in a block
        return 0
    v = value.strip().lower()
    for unit, scale in (("ms", 1), ("min", 60_000), ("s", 1000), ("h", 3_600_000),
                        ("d", 86_400_000)):
        if v.endswith(unit):
            try:
                return int(float(v[: -len(unit)]) * scale)
            except ValueError:
                return 0
    try:
        return int(float(v))
    except ValueError:
        return 0


def session_setting(session: Session, name: str) -> str | None:
    """A session setting's value (None if the session has no such setting)."""
    return session.setting(name)


def peer_text(conn: Connection) -> str:
    """The client as PostgreSQL's connection log lines name it (a Unix socket: [local])."""
    return "host=[local]" if conn.local else f"host={conn.peer} port={conn.peer_port}"


def log_disconnection(started: float, conn: Connection) -> None:
    """log_disconnections' line, in PostgreSQL's words."""
    secs = time.monotonic() - started
    log.info("disconnection: session time: %d:%02d:%06.3f user=%s database=%s %s",
             secs // 3600, secs % 3600 // 60, secs % 60, conn.user,
             conn.startup_params.get("database", ""), peer_text(conn))


def cancel_request(registry: dict[tuple[int, int], Session], key: tuple[int, int],
                   relay: Callable[[tuple[int, int]], None] | None = None) -> None:
    """Cancels the statement running in the session with this (pid, secret), if any (a
    CancelRequest; both front ends). An unknown key goes to `relay`: the sibling engines
    behind the same port (`cumulo serve --workers`, `cluster.workers.CancelRelay`)."""
    session = registry.get(key)
    if session is None and relay is not None:
        relay(key)
    if session is not None:
        try:
            session.cancel()
        except Exception:
            log.exception("cancel failed")


class _Down:
    """The cancel flag of a connection without a session yet: never up."""

    up = False


_NEVER_UP = _Down()


def _nothing() -> None:
    pass


SMART_GRACE = 10.0


async def wait_quiet(states: Callable[[], list[tuple[bool, Any]]],
                     grace: float = SMART_GRACE) -> None:
    """Waits until no session runs a statement or holds a transaction block open."""
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if all(not busy and (s is None or s.transaction_status == "I")
               for busy, s in states()):
            return
        await asyncio.sleep(0.05)


async def end_sessions(live: Callable[[], list[Any]], smart: bool, grace: float) -> None:
    """Ends every connection of a stopping server, for both front ends.

    `live()` lists the connection handlers (each with `busy`, `conn`, `shutdown()`,
    `finished` and `abandon()`). Smart mode first lets running statements and open
    transaction blocks finish (`wait_quiet`); then each session is told to end, and the
    ones still running after `grace` seconds are disconnected.
    """
    if smart:
        await wait_quiet(lambda: [(h.busy, h.conn.session) for h in live()])
    handlers = live()
    for h in handlers:
        h.shutdown()
    finished = [h.finished for h in handlers]
    if finished:
        _done, pending = await asyncio.wait(finished, timeout=grace)
        if pending:
            log.warning("%d connections did not stop within %.0fs; disconnecting them",
                        len(pending), grace)
            for h in handlers:
                if not h.finished.done():
                    h.abandon()


class LoopServer:
    """A listening pgwire server on the running loop; `close()` shuts it down."""

    def __init__(self, engine: Engine, auth: str, ssl_context: ssl.SSLContext | None, *,
                 max_connections: int = 100, log_connections: bool = False,
                 log_disconnections: bool = False) -> None:
        self.engine = engine
        self.auth = auth
        self.ssl_context = ssl_context
        self.max_connections = max_connections
        self.log_connections = log_connections
        self.log_disconnections = log_disconnections
        self.registry: dict[tuple[int, int], Session] = {}
        # connections holding a reply (`flush_replies`): one list, kept by every handler
        self.outbox: list[PgProtocol] = []
        self.relay_cancel: Callable[[tuple[int, int]], None] | None = None  # see cancel_request
        self.handlers: set[PgProtocol] = set()
        self.sessions = 0  # connections past their startup packet (max_connections counts them)
        self.loop = asyncio.get_running_loop()
        self.hub = waits.Hub(self.loop).install()
        self.host = ""
        self.port = 0
        self._server: asyncio.AbstractServer | None = None
        self._unix_servers: list[asyncio.AbstractServer] = []
        self.unix_listeners: list[UnixListener] = []  # removed at close (`unixsock.remove`)
        self._closing = False

    async def add_unix(self, listeners: Sequence[UnixListener]) -> None:
        """Accepts on Unix-domain sockets too (`unixsock.listen`); the server owns them from
        here and removes their files when it closes."""
        self.unix_listeners += listeners
        for lst in listeners:
            self._unix_servers.append(await self.loop.create_unix_server(
                lambda: PgProtocol(self, local=True), sock=lst.sock, backlog=1024))

    def flush_replies(self) -> None:
        """Writes the replies held during this pass of the loop, one write each (a loop
        callback). Every connection that became readable in one pass runs its statement
        first, then all replies go out together: a client process serving several
        connections (pgbench's threads) wakes once for several replies, and the send
        system calls, each waking a client, no longer interleave with statement work."""
        box = self.outbox  # NB: the same list all along (each handler keeps it)
        try:
            for h in box:  # NB: each one's `_flush_reply`, inline: a Python call fewer per reply
                data, h.reply = h.reply, b""
                if data and (h.plain or not h.told and not h.lost):  # NB: `plain`: neither
                    h.transport.write(data)
        finally:
            box.clear()

    async def close(self, grace: float = 3.0, smart: bool = False) -> None:
        """Stops accepting and ends every session.

        Fast (SIGINT, as PostgreSQL's): running statements are cancelled and every session
        gets FATAL 57P01. Smart (SIGTERM): no new connections; running statements and open
        transaction blocks may finish first (up to `SMART_GRACE` seconds), then the idle
        sessions end as in fast. NB: PostgreSQL's smart mode also waits for idle clients
        to disconnect, which a pool never does; a server that must stop does not wait.
        """
        if self._closing:
            return
        self._closing = True
        if self._server is not None:
            self._server.close()
        for unix_server in self._unix_servers:
            unix_server.close()
        remove(self.unix_listeners)
        await end_sessions(lambda: list(self.handlers), smart, grace)
        self.hub.uninstall()


class PgProtocol(asyncio.Protocol):
    """One client connection: its transport, its `protocol.Connection`, its greenlet."""

    def __init__(self, server: LoopServer, local: bool = False) -> None:
        self.server = server
        self.outbox = server.outbox
        self.hub = server.hub
        self.loop = server.loop
        self.transport: Any = None
        # NB: over a Unix socket (`local`) SSLRequest is answered N, as PostgreSQL does
        self.conn = Connection(server.engine, auth=server.auth,
                               tls=server.ssl_context is not None and not local,
                               registry=server.registry, send=self._send)
        self.conn.local = local
        self.g: Any = greenlet.greenlet(self._main, parent=self.hub.main)
        self.finished: asyncio.Future[None] = self.loop.create_future()
        self.busy = False  # inside conn.feed (running, or parked in a wait)
        self.reading_paused = False
        self.write_paused = False
        self.lost = False
        self.stopping = False
        self.told = False  # a FATAL went out: nothing more is written
        self.counted = False  # counted in server.sessions
        self.self_terminated = False
        # NB: nothing rare about the connection: counted, hooked, and none of the flags
        # above (busy aside) up, no input kept while busy (`pending`). `_process` sets it
        # after a round trip; every setter of those lowers it, and `_main` then takes
        # `_process`'s full way again
        self.plain = False
        self._hooked: Any = None  # the session whose hooks are set
        self._reset: Callable[[], None] = _nothing  # the session's `reset_cancel`
        self._cancel_flag: CancelFlag = _NEVER_UP  # the session's, read before each batch
        self._drain: waits.Event | None = None
        self._auth_timer: asyncio.TimerHandle | None = None
        self._idle_timer: asyncio.TimerHandle | None = None
        self.started = time.monotonic()
        self.pending = bytearray()  # bytes that arrived while the greenlet was parked
        self.reply = b""  # a reply held until the loop's pass ends (`LoopServer.flush_replies`)

    # -- asyncio callbacks --------------------------------------------------------

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.server.handlers.add(self)
        if self.conn.local:  # a Unix socket: no address (port -1, as PG shows it), no Nagle
            peer = None
            self.conn.peer_port = -1
        else:
            sock = transport.get_extra_info("socket")
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple) and len(peer) >= 2:
            self.conn.peer, self.conn.peer_port = str(peer[0]), int(peer[1])
        transport.set_write_buffer_limits(high=WRITE_HIGH, low=WRITE_LOW)
        self._auth_timer = self.loop.call_later(AUTH_TIMEOUT, self._auth_expired)
        if self.server.log_connections:
            log.info("connection received: %s", peer_text(self.conn))

    def data_received(self, data: bytes) -> None:
        if self._idle_timer is not None:
            self._idle_timer.cancel()
            self._idle_timer = None
        if self.busy:  # parked mid-statement: keep what comes, up to a point
            self.pending += data
            self.plain = False  # NB: `_main` runs it after the statement
            if len(self.pending) > PENDING_MAX and not self.reading_paused and not self.lost:
                self.reading_paused = True
                self.plain = False
                self.transport.pause_reading()
            return
        # NB: no test of `g.dead`: a closed connection's transport reads nothing more, and
        # a switch to a dead greenlet comes straight back here (to its parent, the hub's main)
        self.hub.switched_at = monotonic()
        self.g.switch(data)

    def eof_received(self) -> bool | None:
        return None  # close the transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.plain = False
        # NB: the handler sits in reference cycles (its Connection sends through a bound
        # method of it), so a connection that lived long enough to reach the collector's
        # oldest generation is freed only by a full collection, which a busy server runs
        # seldom (the long fuzz run once saw a thousand dead handlers held that way): what
        # it kept of the input goes now; nothing reads it any more.
        self.pending = bytearray()
        for t in (self._auth_timer, self._idle_timer):
            if t is not None:
                t.cancel()
        if self._drain is not None:
            self._drain.set()
        if self.busy:  # parked mid-statement: stop it; the greenlet closes the session
            session = self.conn.session
            if session is not None:
                with contextlib.suppress(Exception):
                    session.cancel()
        else:
            self._close_session()
            if self.g and greenlet.getcurrent() is not self.g:
                # NB: the greenlet is parked waiting for input, and its frame holds this
                # handler. The garbage collector does not look into a suspended greenlet's
                # frames, so without this every connection a client dropped leaked its
                # handler and the session (290 KB each, with the read buffer it had then).
                self.g.throw()

    def pause_writing(self) -> None:
        self.write_paused = True
        self.plain = False

    def resume_writing(self) -> None:
        self.write_paused = False
        if self._drain is not None:
            self._drain.set()

    # -- the connection's greenlet --------------------------------------------------

    def _main(self, data: bytes) -> None:
        conn = self.conn
        feed = conn.feed
        main = self.hub.main
        box = self.outbox
        # NB: the session's, once `_process` has hooked it (only `_process` hooks)
        session: Any = None
        flag = self._cancel_flag
        while True:
            try:
                self.busy = True
                if flag.up:  # NB: no call else
                    self._reset()  # a cancel that came while idle is a no-op, as in PG
                out = feed(data)
                if self.plain and not conn.closed:
                    # NB: the usual round trip, nothing rare about the connection (`plain`):
                    # the reply held, the idle-in-transaction timer, the next input. A hooked
                    # session's connection is READY until it is closed (no TLS to start, no
                    # cancel request: those come before a session)
                    self.busy = False
                    if out:  # NB: as `_process` holds it
                        if self.reply:
                            self.reply += out
                        else:
                            self.reply = out
                            if not box:
                                self.loop.call_soon(self.server.flush_replies)
                            box.append(self)
                    if session.inbox:  # NB: `plain`: conn.session is the hooked one
                        self.notified()  # a NOTIFY that arrived while we were busy
                    if conn.ready_status != "I":  # NB: what `_ready` just read: no call
                        value = session.setting_values.get("idle_in_transaction_session_timeout")
                        if value != "0":  # NB: the default: nothing more per round trip in a block
                            self._arm_idle(value)
                    data = main.switch()  # NB: `plain`: no input came meanwhile (`pending`)
                    continue
                self._process(out)
            except greenlet.GreenletExit:
                self.busy = False
                raise
            except BaseException:
                log.exception("pgwire connection failed")
                self.busy = False
                self._hang_up()
                self._close_session()
            session = self._hooked
            flag = self._cancel_flag
            if conn.closed or self.lost:
                if self.lost:
                    self._finish()
                return
            if self.pending:
                data, self.pending = bytes(self.pending), bytearray()
                continue
            data = main.switch()

    def _process(self, out: bytes) -> None:
        """The rest of a round trip (after `conn.feed`) when something about the connection is
        rare: its startup, a hook to set, a TLS upgrade, a cancel request, a hang-up, a FATAL,
        a shutdown, a client that does not read. Ends with `plain` told whether the next round
        trips may take `_main`'s short way (every setter of these raises it back to here)."""
        conn = self.conn
        self.plain = False
        try:
            if not self.counted and conn.phase in (AUTH, READY):
                # NB: the startup packet was read by this feed (a phase past STARTUP is
                # counted by the round trip that reached it)
                self.counted = True
                self.server.sessions += 1
                if self.server.sessions > self.server.max_connections:
                    out = fatal_bytes(TooManyConnections("sorry, too many clients already"))
                    conn.close()
            if self._hooked is not conn.session and conn.session is not None:  # NB: once
                self._hook(conn.session)
            if self.self_terminated and not conn.closed:
                out = fatal_bytes(AdminShutdown(SHUTDOWN_MESSAGE))
                conn.close()
            if conn.start_tls:
                self._write(out)
                self._start_tls()
                return
            if out and not self.told and not self.lost:
                # NB: the usual reply, held for `LoopServer.flush_replies` (written at the
                # pass's end); anything written directly meanwhile (`_write`: a big result's
                # early part, a FATAL, a notification) and hanging up write it first
                if self.reply:
                    self.reply += out
                else:
                    self.reply = out
                    box = self.outbox
                    if not box:
                        self.loop.call_soon(self.server.flush_replies)
                    box.append(self)
            if conn.cancel_key is not None:
                cancel_request(self.server.registry, conn.cancel_key, self.server.relay_cancel)
            if conn.closed:
                self._hang_up()
                return
            if self.stopping:
                self._tell_and_hang_up()
                conn.close()
                return
            if self.lost:
                conn.close()
                return
            if self.write_paused:
                self._wait_drained()
        finally:
            self.busy = False
        if self.reading_paused and not self.lost:
            self.reading_paused = False
            self.transport.resume_reading()
        session = conn.session
        if session is None:
            return
        if session.inbox:
            self.notified()  # a NOTIFY that arrived while we were busy
        if conn.ready_status != "I":
            value = session.setting_values.get("idle_in_transaction_session_timeout")
            if value != "0":
                self._arm_idle(value)
        self.plain = self.counted and self._hooked is session and not (
            self.self_terminated or self.stopping or self.lost or self.told
            or self.write_paused or self.reading_paused)

    def _arm_idle(self, value: str | None) -> None:
        """Arms idle_in_transaction_session_timeout (its setting's `value`) after a round trip
        that left a transaction block open, as PostgreSQL does when it sends ReadyForQuery."""
        ms = setting_ms(value)
        if ms > 0:
            self._idle_timer = self.loop.call_later(ms / 1000.0, self._idle_expired)

    def _hook(self, session: Session) -> None:
        """Connects a new session's hooks to this connection."""
        self._hooked = session
        self._reset = session.reset_cancel
        self._cancel_flag = session.cancel_flag
        session.reset_cancel()  # NB: from now on pgwire forgets idle cancels (only when up)
        session.notify_hook = self.notified
        session.terminate_hook = self.terminated
        if self._auth_timer is not None:
            self._auth_timer.cancel()
            self._auth_timer = None
        if self.server.log_connections:
            log.info("connection authorized: user=%s database=%s", self.conn.user,
                     self.conn.startup_params.get("database", ""))

    def _write(self, data: bytes) -> None:
        if self.reply:
            self._flush_reply()  # NB: in order
        if data and not self.told and not self.lost:
            self.transport.write(data)

    def _flush_reply(self) -> None:
        data, self.reply = self.reply, b""
        if data and not self.told and not self.lost:
            self.transport.write(data)

    def _send(self, data: bytes) -> None:
        """Sends part of a big result early; parks while the client does not read."""
        self._write(data)
        self._wait_drained()

    def _wait_drained(self) -> None:
        while self.write_paused and not self.lost and waits.current_hub() is not None:
            if self._drain is None:
                self._drain = waits.Event()
            self._drain.clear()
            if self.write_paused and not self.lost:
                self._drain.wait()

    def _start_tls(self) -> None:
        """Upgrades the transport to TLS (the client's SSLRequest was answered `S`)."""
        ctx = self.server.ssl_context
        assert ctx is not None
        done = waits.Event()
        box: list[Any] = []

        def finished(task: asyncio.Task[Any]) -> None:
            box.append(task)
            done.set()

        task = self.loop.create_task(self.loop.start_tls(self.transport, self, ctx,
                                                         server_side=True))
        task.add_done_callback(finished)
        done.wait()
        try:
            transport = box[0].result()
        except (ssl.SSLError, OSError, ConnectionError) as e:
            log.info("TLS handshake failed: %s", e)
            transport = None
        if transport is None:
            self.lost = True
            self.plain = False
            self.conn.close()
            with contextlib.suppress(Exception):
                self.transport.close()
            return
        self.transport = transport
        self.reading_paused = False
        self.conn.tls_started()

    def _hang_up(self) -> None:
        if self.transport is not None and not self.lost:
            if self.reply:
                self._flush_reply()
            self.transport.close()

    def _tell_and_hang_up(self, exc: SQLError | None = None) -> None:
        if not self.told:
            self._write(fatal_bytes(exc or AdminShutdown(SHUTDOWN_MESSAGE)))
            self.told = True
            self.plain = False
        self._hang_up()

    def _close_session(self) -> None:
        """Releases the session (in a greenlet of its own: a rollback may wait)."""
        if self.finished.done():
            return
        if self.conn.session is not None or not self.conn.closed:
            if waits.current_hub() is None:
                self.hub.spawn(self._close_now)
            else:
                self._close_now()
        self._finish()

    def _close_now(self) -> None:
        try:
            self.conn.close()
        except Exception:
            log.exception("error while closing a session")

    def _finish(self) -> None:
        if self.finished.done():
            return
        self.server.handlers.discard(self)
        if self.counted:
            self.server.sessions -= 1
        if self.server.log_disconnections and self.conn.user:
            log_disconnection(self.started, self.conn)
        self.finished.set_result(None)

    # -- from the loop or other sessions ------------------------------------------

    def _auth_expired(self) -> None:
        self._auth_timer = None
        if self.conn.session is None and not self.busy:
            log.info("closing connection: authentication timeout")
            self._hang_up()

    def _idle_expired(self) -> None:
        self._idle_timer = None
        session = self.conn.session
        if self.busy or session is None or session.transaction_status == "I":
            return
        self._tell_and_hang_up(SQLError(IDLE_MESSAGE, sqlstate="25P03"))

    def terminated(self) -> None:
        """pg_terminate_backend's hook (any thread): ends this session with FATAL 57P01."""
        if greenlet.getcurrent() is self.g:  # the session ends itself
            self.self_terminated = True
            self.plain = False
            self.conn.terminate(AdminShutdown(SHUTDOWN_MESSAGE))
            return
        if not self.busy and self.hub.thread == threading.get_ident():
            # NB: an idle victim hears FATAL 57P01 and EOF before the terminator's own reply
            # goes out, as from a PostgreSQL backend that dies at once: else its client's
            # next query can land on a socket closed unread, which resets instead of EOF
            self._tell_and_hang_up()
        self._call(self.shutdown)

    def _call(self, fn: Callable[[], None]) -> None:
        try:
            if self.hub.thread == threading.get_ident():
                self.loop.call_soon(fn)
            else:
                self.loop.call_soon_threadsafe(fn)
        except RuntimeError:
            pass  # the loop is gone

    def shutdown(self) -> None:
        """Ends the session with FATAL 57P01 (on the loop): an idle one at once, a busy one
        by cancelling its statement (the greenlet then says goodbye itself)."""
        if self.finished.done():
            return
        self.conn.terminate(AdminShutdown(SHUTDOWN_MESSAGE))
        self.stopping = True
        self.plain = False
        if self.busy:
            session = self.conn.session
            if session is not None:
                try:
                    session.cancel()
                except Exception:
                    log.exception("cancel during shutdown failed")
            return
        self._tell_and_hang_up()
        if self.lost or self.transport is None:
            self._close_session()

    def abandon(self) -> None:
        """Disconnects a client whose statement ignores cancel."""
        if self.transport is not None:
            if self.reply:
                self._flush_reply()
            if not self.told:
                self.told = True
                self.plain = False
                with contextlib.suppress(Exception):
                    self.transport.write(fatal_bytes(AdminShutdown(SHUTDOWN_MESSAGE)))
            self.transport.abort()
        self._finish()

    def notified(self) -> None:
        """Pushes LISTEN notifications to an idle session at once (any thread)."""
        if self.hub.thread != threading.get_ident():
            self._call(self.notified)
            return
        if self.busy or self.stopping or self.lost or self.told:
            return
        conn = self.conn
        session = conn.session
        if session is None or session.transaction_status != "I":
            return
        out = b"".join(M.notification(pid, chan, payload)
                       for pid, chan, payload in session.take_notifications())
        self._write(out)


async def serve_loop(
    engine: Engine,
    host: str = "127.0.0.1",
    port: int = 5433,
    *,
    auth: str = "trust",
    ssl_context: ssl.SSLContext | None = None,
    on_ready: Callable[[str, int], None] | None = None,
    max_connections: int = 100,
    reuse_port: bool = False,
    log_connections: bool = False,
    log_disconnections: bool = False,
) -> LoopServer:
    """Starts listening on the running loop; returns the LoopServer (port 0: a free port)."""
    if auth not in METHODS:
        raise ValueError(f"auth must be one of {METHODS}, not {auth!r}")
    server = LoopServer(engine, auth, ssl_context, max_connections=max_connections,
                        log_connections=log_connections, log_disconnections=log_disconnections)
    aserver = await server.loop.create_server(lambda: PgProtocol(server), host, port,
                                              backlog=1024, reuse_port=reuse_port or None)
    server._server = aserver
    sockname = aserver.sockets[0].getsockname()
    server.host, server.port = sockname[0], sockname[1]
    if on_ready is not None:
        on_ready(server.host, server.port)
    return server
