"""The server side of one PostgreSQL v3 connection, as a state machine with no I/O inside.

`Connection.feed(data)` consumes whatever bytes arrived and returns the bytes to
send back; the caller (`server.py`, or a test script) does the socket work and
watches three signals: `closed` (send the returned bytes, then close),
`start_tls` (answered `S` to SSLRequest: upgrade the socket, then call
`tls_started()`), and `cancel_key` (a CancelRequest: cancel that backend, no
reply). A `send` callback, when given, receives large outputs early so a big
result streams instead of piling up.

Life of a connection:

1. startup: SSLRequest/GSSENCRequest (answered `N`, or `S` with TLS), then the
   StartupMessage (protocol 3.0; a newer minor or `_pq_.` options get
   NegotiateProtocolVersion);
2. authentication (`auth.Authenticator`), then `Engine.open_session`, the
   ParameterStatus values, BackendKeyData and ReadyForQuery;
3. the ready phase: simple queries here, the extended protocol in
   `extended.py` (a mixin of this class), COPY framing in both, FunctionCall in
   `fastpath.py` (another mixin).

Errors become ErrorResponse in `_error` only, through `errors.to_fields`;
anything that is not a SQLError is logged with its traceback as XX000. An
error in the extended protocol discards messages until Sync, as PostgreSQL
does; an error before a session exists is FATAL and closes the connection.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable, Generator
from typing import Any, NoReturn

from ..errors import (
    InvalidAuthorizationSpecification,
    ProtocolViolation,
    QueryCanceled,
    SQLError,
    to_fields,
)
from ..pgtypes.codecs import column_encoders
from ..pgtypes.text import timezone
from ..pgtypes.wirecodec import WireRecoder, canonical, recoder_for
from . import messages as M
from .auth import Authenticator
from .backend import Engine, Result, Session
from .batchenc import SMALL, append_batch, append_columns
from .extended import ExtendedQuery
from .fastpath import FunctionCalls
from .hba import connection_method

log = logging.getLogger("cumulo.pgwire")

STARTUP, AUTH, READY, CLOSED = range(4)
FLUSH_AT = 256 * 1024
MAX_STARTUP = 10_000
MAX_MESSAGE = 1 << 30  # PostgreSQL's MaxAllocSize: a bigger length is garbage
_FETCH_BATCH = 4096  # rows a result encodes at once (batchenc: whole columns through Arrow)
_COPY_KINDS = frozenset(b"dcfHSX")
_unpack = M.I32.unpack_from
_READY_STR = M.READY_STR
_COUNTED = ("SELECT ", "FETCH ", "MOVE ")
_SELECT_TAGS = (M.command_complete("SELECT 0"), M.command_complete("SELECT 1"))  # `_query`'s lane
_MOVE = re.compile(r'\s*move\s+(?:forward\s+)?(all|\d+)?\s*(?:(?:from|in)\s+)?'
                   r'("(?:[^"]|"")+"|[a-z_][\w$]*)\s*;?\s*', re.IGNORECASE)


def normalize_encoding(value: str) -> str:
    """Maps client_encoding spellings ('utf-8', "'utf-8'", 'unicode', 'UTF8') to PostgreSQL's."""
    name = value.strip().strip("'\"").strip()
    return canonical(name) or name  # NB: an unknown name is reported as the client spelled it


def fatal(exc: SQLError) -> SQLError:
    """Marks an error FATAL: it ends the connection."""
    exc.severity = "FATAL"
    return exc


class Connection(ExtendedQuery, FunctionCalls):
    """One client connection's protocol state; see the module docstring."""

    def __init__(
        self,
        engine: Engine,
        *,
        auth: str = "trust",
        tls: bool = False,
        registry: dict[tuple[int, int], Session] | None = None,
        send: Callable[[bytes], None] | None = None,
    ) -> None:
        super().__init__()
        self.engine = engine
        self.auth_method = auth
        self.tls = tls
        self.registry = registry if registry is not None else {}
        self.send = send
        self.phase = STARTUP
        # NB: `feed` may take its lane (a Bind first) without testing, one by one, what
        # rules it out: no partial message held, ready, no COPY, not skipping to Sync, not
        # closed, no TLS to start, no client_encoding to convert. Set at the end of `feed`;
        # whatever rules the lane out (`close`, `_error`'s skipping, `_begin_copy_in`,
        # `_apply_parameters`) lowers it
        self._lane = False
        self.buf = bytearray()
        self.out = bytearray()
        self.session: Session | None = None
        self.key: tuple[int, int] | None = None
        self.closed = False
        self.start_tls = False
        self.cancel_key: tuple[int, int] | None = None
        self.terminating: SQLError | None = None  # set by `terminate` (another thread)
        self.peer: str | None = None  # the client's address, set by the socket's owner
        self.ssl_in_use = False  # set by tls_started
        self.peer_port: int | None = None  # and its TCP port
        self.local = False  # over a Unix-domain socket (cumulo_hba.conf's `local` lines)
        self.tz: Any = timezone(None)
        self.user = ""
        self.startup_params: dict[str, str] = {}
        self._auth: Authenticator | None = None
        self._copy: Any = None  # a CopyIn in progress
        self._copy_gen: Generator[Result, None, None] | None = None  # its simple query, to resume after COPY
        self._shapes: dict[tuple[Any, ...], tuple[bytes, list[Any]]] = {}
        # the column list `_text_shape` answered last, and its answer
        self._last_shape: tuple[Any, tuple[bytes, list[Any]]] = (None, (b"", []))
        self._changed: dict[str, str] = {}
        self._recoder: WireRecoder | None = None  # client_encoding conversion (pgtypes.wirecodec)
        self._must_flush = False  # an error or notice went out: send what is held now
        # the transaction status the last ReadyForQuery reported (front ends arm the
        # idle-in-transaction timer by it, as PostgreSQL does after ReadyForQuery)
        self.ready_status = "I"
        self._texts: dict[bytes, str] = {}  # Query payloads already read, and their text
        self._dispatch = {
            ord("Q"): self._query, ord("P"): self._parse, ord("B"): self._bind,
            ord("D"): self._describe, ord("E"): self._execute, ord("C"): self._close,
            ord("S"): self._sync, ord("H"): self._flush, ord("X"): self._terminate,
            ord("d"): self._copy_data, ord("c"): self._copy_done, ord("f"): self._copy_fail,
            ord("F"): self._function_call,
        }

    # -- driving ---------------------------------------------------------------

    def feed(self, data: bytes | memoryview) -> bytes:
        """Consumes received bytes; returns the bytes to send (check the signals afterwards)."""
        held = self.buf
        pos = 0
        if self._lane:  # NB: the usual case: parse the caller's bytes in place
            buf: bytes | bytearray | memoryview = data
            n = len(data)
            lane = n >= 20 and data[0] == 66
        else:
            if self._recoder is not None:
                data = self._recoder.incoming(data)
            if held:
                held += data
                buf = held
            else:  # NB: keep only a partial tail
                buf = data
            n = len(buf)
            lane = False
        try:
            if lane:
                # NB: the usual arrival, one prepared round trip (Bind, [Describe,] Execute,
                # Sync: pgbench -M prepared, psycopg, asyncpg): straight to `_bind_run`
                end = 1 + _unpack(buf, 1)[0]
                if end >= 5:  # NB: a Bind not whole yet (end >= n): `_bind_run` runs nothing
                    pos = self._bind_run(buf, 0, end)
                    if pos == n and not self._in_extended and self._held is None and \
                            self._recoder is None:
                        self._must_flush = False  # NB: the end of `feed` for a whole Sync
                        written = self.out
                        reply = bytes(written)
                        written.clear()
                        return reply
            while not self.closed and not self.start_tls:
                phase = self.phase
                if phase == STARTUP:
                    if n - pos < 4:
                        break
                    length = _unpack(buf, pos)[0]
                    if not 8 <= length <= MAX_STARTUP:
                        self._drop("invalid length of startup packet")
                        break
                    if n - pos < length:
                        break
                    payload = bytes(buf[pos + 4 : pos + length])
                    pos += length
                    self._startup(payload)
                    continue
                if phase == CLOSED or n - pos < 5:
                    break
                if phase == READY and self._copy is None:
                    # NB: the hot loop: every ready-phase message outside COPY, with no
                    # per-message method call besides the handler's
                    dispatch = self._dispatch
                    while n - pos >= 5:
                        kind = buf[pos]
                        handler = dispatch.get(kind)
                        if handler is None:
                            self._bad_type(kind)
                        end = pos + 1 + _unpack(buf, pos + 1)[0]
                        if end < pos + 5 or end - pos > MAX_MESSAGE:
                            self._drop("invalid message length")
                            break
                        if end > n:
                            break
                        if kind == 66 and not self._skipping:  # B: maybe a whole round trip
                            stop = self._bind_run(buf, pos, end)
                            if stop != pos:
                                pos = stop
                                if self.phase != READY or self._copy is not None or \
                                        self.start_tls:
                                    break
                                continue
                        payload = bytes(buf[pos + 5 : end])
                        pos = end
                        if self._skipping and kind != 83 and kind != 88:  # S, X end skipping
                            continue
                        try:
                            handler(payload)
                        except SQLError as e:
                            if e.severity == "FATAL":
                                raise
                            self._message_failed(kind, e)
                        except Exception as e:  # a bug: report it and keep serving
                            self._message_failed(kind, e)
                        if self.phase != READY or self._copy is not None or self.start_tls:
                            break
                    else:
                        break  # every whole message is handled
                    if self.phase == READY and self._copy is None and not self.start_tls:
                        break  # a partial message (or a dropped connection): wait for more
                    continue
                kind = buf[pos]  # a typed message: authentication or the ready phase
                known = kind in self._dispatch if phase == READY else kind == 112  # p
                if not known:
                    self._bad_type(kind)  # NB: before the length, as PostgreSQL checks it
                end = pos + 1 + _unpack(buf, pos + 1)[0]
                if end < pos + 5 or end - pos > (MAX_MESSAGE if phase == READY else MAX_STARTUP):
                    self._drop("invalid message length")
                    break
                if end > n:
                    break
                payload = bytes(buf[pos + 5 : end])
                pos = end
                if phase == AUTH:
                    self._authenticate(kind, payload)
                elif not (self._skipping and kind != 83 and kind != 88):  # S, X end skipping
                    self._handle(kind, payload)
        except SQLError as e:
            if e.severity == "FATAL" or self.phase != READY:
                self._fatal(e)
            else:
                self._error(e)
        except Exception as e:  # a bug: report it, keep the connection if we can
            self._error(e)
            if self.phase != READY:
                self._close_now()
        if buf is held:
            del held[:pos]
        elif pos < n:
            held += buf[pos:]
        if self._held is not None and (self._must_flush or not self._in_extended):
            self._release()  # NB: replies go out now: held Executes run first (insertbatch)
        self._lane = not held and self.phase == READY and self._copy is None and \
            not self._skipping and not self.closed and not self.start_tls and \
            self._recoder is None
        if self._in_extended and not self._must_flush and self._copy is None \
                and self.phase == READY:
            return b""  # NB: as PostgreSQL, extended-protocol replies wait for Sync or Flush
        self._must_flush = False
        out = bytes(self.out)
        self.out.clear()
        return out if self._recoder is None else self._recoder.outgoing(out)

    def recode(self, data: bytes) -> bytes:
        """Server messages built outside `feed` (a front end's pushed notifications), in the
        client's encoding."""
        return data if self._recoder is None else self._recoder.outgoing(data)

    def _handle(self, kind: int, payload: bytes) -> None:
        """Runs one ready-phase message through its handler."""
        if self._copy is not None and kind not in _COPY_KINDS:
            self._copy_failed(ProtocolViolation(
                f"unexpected message type 0x{kind:02X} during COPY from stdin"), True)
            return
        try:
            self._dispatch[kind](payload)
        except SQLError as e:
            if e.severity == "FATAL":
                raise
            self._message_failed(kind, e)
        except Exception as e:  # a bug: report it and keep serving
            self._message_failed(kind, e)

    def _message_failed(self, kind: int, exc: BaseException) -> None:
        """Reports an error that escaped a message handler (a malformed message, a bug)."""
        self._in_extended = kind != 81  # Q
        self._error(exc, notify=True)
        if kind == 81:
            self._ready()

    def tls_started(self) -> None:
        """Tells the connection the socket is now TLS; the StartupMessage comes next."""
        self.start_tls = False
        self.ssl_in_use = True  # for the client authentication rules (hostssl)

    def close(self) -> None:
        """Releases the session (connection lost or ended); safe to call more than once."""
        self.phase = CLOSED
        self.closed = True
        self._lane = False
        self._drop_portals()
        if self.key is not None:
            self.registry.pop(self.key, None)
            self.key = None
        session, self.session = self.session, None
        if session is not None:
            try:
                session.close()
            except Exception:
                log.exception("error while closing a session")

    def terminate(self, exc: SQLError) -> None:
        """Marks the connection as being shut down (any thread): a statement cancelled from now
        on ends the connection with `exc` (FATAL) instead of a 57014 error."""
        self.terminating = fatal(exc)

    def shutdown(self, exc: SQLError) -> bytes:
        """Ends the connection for a server shutdown: returns the FATAL message to send."""
        self._fatal(exc)
        out = bytes(self.out)
        self.out.clear()
        return out

    def _emit(self) -> None:
        if self.send is not None and len(self.out) >= FLUSH_AT:
            out = bytes(self.out)
            self.send(out if self._recoder is None else self._recoder.outgoing(out))
            self.out.clear()

    # -- errors ----------------------------------------------------------------

    def _error(self, exc: BaseException, notify: bool = False) -> None:
        """Sends ErrorResponse for exc; `notify` tells the session it failed outside its calls."""
        if self.terminating is not None and isinstance(exc, QueryCanceled):
            # NB: the server cancelled the statement to shut down: the client gets 57P01, FATAL
            self._fatal(self.terminating)
            return
        if isinstance(exc, SQLError) and exc.severity == "FATAL":  # e.g. pg_terminate_backend
            self._fatal(exc)
            return
        if isinstance(exc, MemoryError):
            log.warning("a statement ran out of memory (53200)", exc_info=exc)
        elif not isinstance(exc, SQLError):
            log.error("internal error", exc_info=exc)
        if notify and self.session is not None:
            try:
                self.session.statement_failed(exc)
            except Exception:
                log.exception("statement_failed raised")
        self.out += M.error_fields(b"E", to_fields(exc))
        self._must_flush = True  # NB: PostgreSQL flushes every error at once (elog.c)
        if self._in_extended:
            self._skipping = True
            self._lane = False

    def _fatal(self, exc: SQLError) -> None:
        fields = to_fields(exc)
        fields["S"] = fields["V"] = "FATAL"
        self.out += M.error_fields(b"E", fields)
        self._close_now()

    def _close_now(self) -> None:
        self.close()

    def _drop(self, reason: str) -> None:
        """Closes without a reply, as PostgreSQL does when the framing itself is broken (its
        COMMERROR): the bytes cannot be trusted to be a client of ours at all."""
        log.info("closing connection: %s", reason)
        self._close_now()

    def _notices(self) -> None:
        session = self.session
        if session is None or not session.notices:  # NB: the usual case: no call
            return
        for notice in session.take_notices():
            self.out += M.error_fields(b"N", to_fields(notice))
            self._must_flush = True

    def _parameters(self) -> None:
        """Collects changed settings: applied at once (TimeZone), reported at ReadyForQuery."""
        session = self.session
        if session is not None and session.parameters_changed:
            changed = session.take_changed_parameters()
            if changed:
                self._apply_parameters(changed)

    def _apply_parameters(self, changed: dict[str, str]) -> None:
        """`_parameters` of the settings the session says changed."""
        self._changed.update(changed)
        if "client_encoding" in changed:
            self._recoder = recoder_for(changed["client_encoding"])
            self._lane = False
        if changed.keys() & {"TimeZone", "DateStyle", "IntervalStyle"}:  # text encoders
            if "TimeZone" in changed:
                self.tz = timezone(changed["TimeZone"])
            self._shapes.clear()
            self._last_shape = (None, (b"", []))
            self._tz_changed()

    def _ready(self, status: str | None = None) -> None:
        """ReadyForQuery, after the changed settings and the notifications; `status`: the
        session's transaction status when the caller has just read it."""
        session = self.session
        if session is not None:  # NB: so not closed (`close` drops the session)
            if session.parameters_changed:  # NB: `_parameters`, no call
                changed = session.take_changed_parameters()
                if changed:
                    self._apply_parameters(changed)
            if self._changed:  # NB: PostgreSQL reports them just before ReadyForQuery
                for name, value in self._changed.items():
                    self.out += M.parameter_status(name, value)
                self._changed.clear()
            if session.inbox:
                for pid, channel, payload in session.take_notifications():
                    self.out += M.notification(pid, channel, payload)
            if status is None:
                status = session.transaction_status
        elif self.closed:
            return
        elif status is None:  # NB: no session, so no changed settings (`_apply_parameters`)
            status = "I"
        self.ready_status = status
        if status == "I" and self.portals:
            self._drop_portals()
        self.out += _READY_STR[status]

    # -- startup and authentication --------------------------------------------

    def _startup(self, payload: bytes) -> None:
        (code,) = M.I32.unpack_from(payload)
        if code == M.SSL_REQUEST:
            self.out += b"S" if self.tls else b"N"
            self.start_tls = self.tls
            return
        if code == M.GSSENC_REQUEST:
            self.out += b"N"
            return
        if code == M.CANCEL_REQUEST:
            if len(payload) != 12:
                self._drop("invalid length of cancel request")
                return
            pid, secret = M.I32.unpack_from(payload, 4)[0], M.I32.unpack_from(payload, 8)[0]
            self.cancel_key = (pid, secret)
            self.closed = True
            self.phase = CLOSED
            return
        version, params = M.read_startup(payload)
        major, minor = version >> 16, version & 0xFFFF
        if major != 3:
            text = f"unsupported frontend protocol {major}.{minor}: server supports 3.0 to 3.0"
            if major < 3:  # NB: PostgreSQL answers in the old protocol's format: E, text, NUL
                self.out += b"EFATAL:  " + text.encode() + b"\n\0"
                self._close_now()
                return
            raise fatal(SQLError(text, sqlstate="0A000"))
        unknown = [k for k in params if k.startswith("_pq_.")]
        if minor > 0 or unknown:
            self.out += M.negotiate_protocol(0, unknown)
        for k in unknown:
            del params[k]
        user = params.get("user", "")
        if not user:
            raise fatal(InvalidAuthorizationSpecification(
                "no PostgreSQL user name specified in startup packet"))
        if "client_encoding" in params:
            params["client_encoding"] = normalize_encoding(params["client_encoding"])
        params.setdefault("database", user)
        self.user = user
        self.startup_params = params
        method = connection_method(self.auth_method, self.ssl_in_use, self.peer,
                                   params["database"], user, local=self.local)
        self._auth = Authenticator(method, user, self.engine.role(user))
        self.phase = AUTH
        msg, done = self._auth.start()
        if done:
            self._authenticated(msg)
        else:
            self.out += msg

    def _bad_type(self, kind: int) -> NoReturn:
        if self.phase == READY:
            raise fatal(ProtocolViolation(f"invalid frontend message type {kind}"))
        raise fatal(ProtocolViolation(f"expected password response, got message type {kind}"))

    def _authenticate(self, kind: int, payload: bytes) -> None:
        assert self._auth is not None
        msg, done = self._auth.step(payload)
        if done:
            self._authenticated(msg)
        else:
            self.out += msg

    def _authenticated(self, msg: bytes) -> None:
        params = self.startup_params
        session = self.engine.open_session(self.user, params["database"], dict(params))
        self.out += msg
        self.session = session
        session.watch_statements(self._named_statements, self._drop_statements)
        session.connected_from(self.peer, self.peer_port)
        self._auth = None
        status = session.parameter_status()
        for name, value in status.items():
            self.out += M.parameter_status(name, value)
        self.tz = timezone(status.get("TimeZone"))
        self._recoder = recoder_for(status.get("client_encoding"))
        secret = secrets.randbits(31)
        self.key = (session.backend_pid, secret)
        self.registry[self.key] = session
        self.out += M.backend_key_data(session.backend_pid, secret)
        self.phase = READY
        self._ready()

    def _terminate(self, _payload: bytes) -> None:
        self.close()

    def _flush(self, _payload: bytes) -> None:
        """Flush: what the extended protocol held back goes out when feed returns."""
        self._must_flush = True

    # -- simple query ------------------------------------------------------------

    def _query(self, payload: bytes) -> None:
        if self._held is not None and self._release():
            return
        self._in_extended = False
        sql = self._texts.get(payload)  # NB: a text sent before (SELECT 1): no decoding
        if sql is None:
            sql = M.read_query(payload)
            if len(payload) <= 512:
                if len(self._texts) >= 64:
                    self._texts.clear()
                self._texts[payload] = sql
        assert self.session is not None
        if self.portals and sql.lstrip()[:4].lower() == "move" and self._move_portal(sql):
            return
        try:
            hit = self.session.simple_read(sql)
        except Exception as e:  # NB: as `_run_simple` reports a statement's failure
            self._notices()
            self._error(e)
            self._ready()
            return
        if hit is not None:  # a repeated one-statement read: its rows at once
            columns, rows, tag = hit
            row_desc, encoders = self._text_shape(columns)
            out = self.out
            out += row_desc
            M.append_rows(out, rows, encoders)
            self._notices()
            out += _SELECT_TAGS[len(rows)] if len(rows) < 2 else M.command_complete(tag)
            self._ready()
            return
        self._run_simple(self.session.simple_query(sql))

    def _move_portal(self, sql: str) -> bool:
        """Runs `MOVE [FORWARD] n name` on a protocol-level portal (asyncpg's Cursor.forward):
        in PostgreSQL, Bind portals and DECLAREd cursors share one namespace. Returns False
        when `name` is not a Bind portal (the SQL layer handles it)."""
        m = _MOVE.fullmatch(sql)
        if m is None:
            return False
        count, name = m.group(1), m.group(2)
        name = name[1:-1].replace('""', '"') if name[0] == '"' else name.lower()
        portal = self.portals.get(name)
        if portal is None:
            return False
        try:
            res = portal.result
            if res is None:
                assert self.session is not None  # portals exist only after startup
                res = portal.result = self.session.execute(portal.stmt.prepared, portal.params)
            start = res._count
            n = 1 if count is None else None if count.lower() == "all" else int(count)
            if res.columns is not None and n != 0:
                res.fetch(n)
            portal.ran = res.done
        except Exception as e:
            self._notices()
            self._error(e, notify=not isinstance(e, SQLError))
            self._ready()
            return True
        self._notices()
        self.out += M.command_complete(f"MOVE {res._count - start}")
        self._ready()
        return True

    def _run_simple(self, gen: Generator[Result, None, None]) -> None:
        """Runs a Query's statements until the end or a COPY FROM STDIN, which suspends it."""
        while True:
            try:
                res = next(gen)
            except StopIteration:
                break
            except Exception as e:
                self._notices()
                self._error(e)
                break
            try:
                if res.copy_in is not None:
                    self._begin_copy_in(res, gen)
                    return
                self._send_result(res, None, 0, describe=True)
                if res.columns is None:  # a SET: later statements must see a new TimeZone
                    self._parameters()
            except Exception as e:
                self._abandon(gen)
                self._notices()
                self._error(e, notify=not isinstance(e, SQLError))
                break
        self._notices()  # NB: the implicit COMMIT's (deferred constraint triggers)
        self._ready()

    @staticmethod
    def _abandon(gen: Generator[Result, None, None]) -> None:
        try:
            gen.close()
        except Exception:
            log.exception("error while abandoning a query")

    def _send_result(self, res: Result, encoders: list[Any] | None, max_rows: int,
                     describe: bool) -> None:
        """Sends one statement's outcome: rows (RowDescription first when `describe`), COPY TO
        data, or just the tag. With max_rows > 0 it may stop at PortalSuspended."""
        out = self.out
        if res.empty:
            self._notices()
            out += M.EMPTY_QUERY
            return
        if res.copy_out is not None:
            self._send_copy_out(res)
            return
        columns = res.columns
        if columns is None:
            self._notices()
            out += M.command_complete(res.tag)
            return
        if describe or encoders is None:
            row_desc, text_encoders = self._text_shape(columns)
            if describe:
                out += row_desc
            if encoders is None:
                encoders = text_encoders
        start = res._count
        if max_rows > 0:
            left = max_rows
            while left > 0 and (by_columns := res.fetch_columns(left)) is not None:
                append_columns(out, *by_columns, encoders)  # NB: a whole table's scan
                left -= by_columns[1]
            if left > 0 and not res.done:
                M.append_rows(out, res.fetch(left), encoders)
            if not res.done:
                self._notices()
                out += M.PORTAL_SUSPENDED
                return
        else:
            send = self.send
            while not res.done:
                by_columns = res.fetch_columns()  # NB: a whole table's scan: no row tuples
                if by_columns is not None:
                    append_columns(out, *by_columns, encoders)
                    if send is not None and len(out) >= FLUSH_AT:
                        self._emit()
                    continue
                batch = res.fetch(_FETCH_BATCH)
                if len(batch) < SMALL:  # NB: a point lookup's row: straight from the row
                    M.append_rows(out, batch, encoders)
                    continue
                append_batch(out, batch, encoders)  # column by column
                if send is not None and len(out) >= FLUSH_AT:
                    self._emit()
        self._notices()
        tag = res.tag
        if start and tag.startswith(_COUNTED) and tag.endswith(f" {res._count}"):
            # NB: PostgreSQL counts the rows of this Execute, not of the whole portal
            tag = f"{tag.rsplit(' ', 1)[0]} {res._count - start}"
        out += M.command_complete(tag)

    def _text_shape(self, columns: list[Any]) -> tuple[bytes, list[Any]]:
        """Returns RowDescription bytes and text encoders for a column list, cached by shape."""
        last = self._last_shape
        if last[0] is columns:  # NB: a cached plan's own list again (SELECT 1 after SELECT 1)
            return last[1]
        key = tuple(columns)
        shape = self._shapes.get(key)
        if shape is None:
            if len(self._shapes) >= 512:
                self._shapes.clear()
            shape = (M.row_description(columns),
                     column_encoders([c.type_oid for c in columns], [0] * len(columns), self.tz))
            self._shapes[key] = shape
        self._last_shape = (columns, shape)
        return shape

    # -- COPY --------------------------------------------------------------------

    def _send_copy_out(self, res: Result) -> None:
        co = res.copy_out
        assert co is not None
        self.out += M.copy_response(b"H", co.format == "binary", co.column_count)
        if self._recoder is not None and co.format == "binary":
            self._recoder.binary_copy(co.column_types)
        for frames in co.frames():
            self.out += frames
            self._emit()
        self.out += M.COPY_DONE
        self._notices()
        self.out += M.command_complete(co.tag)

    def _begin_copy_in(self, res: Result, gen: Generator[Result, None, None] | None) -> None:
        ci = res.copy_in
        assert ci is not None
        self._copy, self._copy_gen = ci, gen
        self._lane = False
        self.out += M.copy_response(b"G", ci.format == "binary", ci.column_count)

    def _copy_data(self, payload: bytes) -> None:
        if self._copy is None:
            return  # PostgreSQL ignores CopyData outside COPY
        try:
            self._copy.feed(payload)
        except Exception as e:
            self._copy_failed(e, notify=not isinstance(e, SQLError))

    def _copy_done(self, _payload: bytes) -> None:
        if self._copy is None:
            return
        ci, gen = self._copy, self._copy_gen
        try:
            tag = ci.finish()
        except Exception as e:
            self._copy_failed(e, notify=not isinstance(e, SQLError))
            return
        self._copy = self._copy_gen = None
        self._notices()
        self.out += M.command_complete(tag)
        if gen is not None:
            self._run_simple(gen)

    def _copy_fail(self, payload: bytes) -> None:
        if self._copy is None:
            return
        message = M.cstr(payload, 0)[0] if payload else ""
        err: BaseException = QueryCanceled(f"COPY from stdin failed: {message}")
        notify = True
        try:
            self._copy.fail(message)
        except Exception as e:
            err, notify = e, not isinstance(e, SQLError)
        self._copy_failed(err, notify)

    def _copy_failed(self, exc: BaseException, notify: bool) -> None:
        gen = self._copy_gen
        self._copy = self._copy_gen = None
        if gen is not None:
            self._abandon(gen)
        self._notices()
        self._error(exc, notify)
        if gen is not None:
            self._ready()

    def in_copy(self) -> bool:
        """Tells whether a COPY FROM STDIN is waiting for CopyData."""
        return self._copy is not None
