"""The extended query protocol: Parse, Bind, Describe, Execute, Close, Sync.

Statements and portals follow PostgreSQL's lifetimes:

- the unnamed statement ("") persists until the next Parse of "" replaces it
  (pg8000 describes it after a Sync); named statements live until Close and
  outlive transactions (pgbench -M prepared, JDBC's S_n);
- portals, named or not, live until Close or until the transaction ends: after
  a Sync or Query that leaves the session idle ("I"), every portal is dropped;
- a portal starts executing at its first Execute; Execute(max_rows=n) sends up
  to n DataRows and then PortalSuspended alone (no CommandComplete), and the
  next Execute resumes it.

Everything a statement needs per execution is prepared once and cached on it:
parameter decoders per format combination, and per result-format combination
the column encoders and the RowDescription bytes. A prepared `SELECT 1` thus
costs a few dict lookups besides the session call.

An unnamed Parse of a text the connection parsed before takes that statement again, with
its caches, while the session says its plan still stands (`_parse_again`): clients that
send Parse with every execution (libpq's PQexecParams, pgbench -M extended) pay for the
parse once.

Bind has a fast path (`_bind_fast`): the bytes before its values (portal, statement,
parameter formats, count) and the bytes after them (result formats) are looked up as
they are, in caches of the named statement that the full path fills once it has accepted
the same bytes; anything
unusual (an unknown layout, a bad value) goes down the full path, which makes every
check in PostgreSQL's order and says what is wrong. In front of those caches, the
connection keeps the last head taken per portal and statement name (`_last_heads`: the
names' bytes, then one `startswith`), forgotten whenever a name comes to mean another
statement.

An error sends ErrorResponse and then discards messages until Sync. Errors the
session did not raise itself (bad parameters, unknown names) are reported to it
with `statement_failed`, so its transaction state matches PostgreSQL's.

Executes of one batchable statement (a one-row INSERT, the session's `can_batch`)
on the unnamed portal are held, not run (`insertbatch.HeldRun`): a pipelined
executemany then runs as one bulk write (`execute_many`). Anything that could
observe or change the session first runs what is held (`_release`): another
Execute, Parse, Close, Sync, a simple Query, an error, a Bind of another
statement (but not of the same INSERT text with other integer widths, as psycopg
sends: `_run_as`), and every time replies would go out (Flush). The replies are spliced
back where each held Execute was, so the client reads exactly the row path's
messages; after a failing row the replies to the messages PostgreSQL would have
skipped are dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import (
    DuplicateCursor,
    DuplicatePreparedStatement,
    InFailedSQLTransaction,
    InvalidBinaryRepresentation,
    InvalidCursorName,
    InvalidParameterValue,
    InvalidSQLStatementName,
    ObjectNotInPrerequisiteState,
    ProtocolViolation,
    SQLError,
)
from ..pgtypes.binary import binary_decoder
from ..pgtypes.codecs import WireDecoder, WireEncoder, column_encoders, wire_decoder
from ..pgtypes.text import text_decoder
from . import messages as M
from .backend import Prepared, Result
from .bindvalues import MAX_UNROLLED, PLAIN_DIGITS, Reader, values_reader
from .insertbatch import MAX_HELD, HeldRun, widest

_UNNAMED_ALL = b"\0\0\0\0\0"  # Execute's payload for the unnamed portal, all rows
_EXECUTE_ALL = b"E\0\0\0\x09" + _UNNAMED_ALL  # Execute of the unnamed portal, all rows
_EXECUTE_SYNC = b"E\0\0\0\x09" + _UNNAMED_ALL + b"S\0\0\0\x04"  # what follows `_bind_run`'s Bind
_DESCRIBE_EXECUTE_SYNC = b"D\0\0\0\x06P\0" + _EXECUTE_SYNC  # libpq's, with Describe portal
_SELECT_TAGS = (M.command_complete("SELECT 0"), M.command_complete("SELECT 1"))  # a point read's
_BIND_NO_DATA = M.BIND_COMPLETE + M.NO_DATA  # Bind and Describe of a statement without rows


class Statement:
    """A prepared statement plus its cached codecs and RowDescription bytes."""

    __slots__ = ("prepared", "name", "decoders", "shapes", "param_desc", "heads", "tails", "batch")

    def __init__(self, name: str, prepared: Prepared) -> None:
        self.name = name
        self.prepared = prepared
        self.decoders: dict[tuple[int, ...], list[WireDecoder]] = {}
        self.shapes: dict[tuple[int, ...], tuple[list[WireEncoder], bytes]] = {}
        self.param_desc = M.parameter_description(prepared.param_oids)
        # Bind's raw bytes before the values -> (portal, decoders, their unrolled reader), and
        # its raw result-format bytes -> (encoders, RowDescription), for `_bind_fast`: kept
        # with the statement, so that statements whose Binds look alike up to the values
        # (psycopg's unnamed ones, taken again by `_parse_again`) do not displace each other
        self.heads: dict[bytes, tuple[str, list[WireDecoder], Reader | None]] = {}
        # Bind's raw result-format bytes -> (encoders, RowDescription), for `_bind_fast`
        self.tails: dict[bytes, tuple[list[WireEncoder] | None, bytes]] = {}
        self.batch: bool | None = None  # may its Executes be held (None: not asked yet)


class Portal:
    """A bound statement: parameters, result formats, and the Result once executing."""

    __slots__ = ("stmt", "params", "encoders", "row_desc", "result", "ran")

    def __init__(self, stmt: Statement, params: list[Any], encoders: list[WireEncoder] | None,
                 row_desc: bytes, ran: Result | None = None) -> None:
        self.stmt = stmt
        self.params = params
        self.encoders = encoders
        self.row_desc = row_desc
        self.result = ran  # `ran`: the result of a portal made run to completion (`_bind_run`)
        self.ran = ran is not None  # run to completion once: re-executing fetches nothing

    def close(self) -> None:
        """Stops a suspended result's row iterator."""
        res = self.result
        if res is not None and not res.done and res.rows is not None:
            close = getattr(res.rows, "close", None)
            if close is not None:
                close()


def _aborted() -> SQLError:
    """Describe of something with a row shape in a failed block: 25P02, as PostgreSQL's
    exec_describe_*_message (it would need the catalog to describe it)."""
    return InFailedSQLTransaction(
        "current transaction is aborted, commands ignored until end of transaction block")


def _formats(codes: list[int], n: int, what: str) -> tuple[int, ...]:
    """Expands Bind's format codes (none, one for all, or one each) to n codes."""
    if not codes:
        return (0,) * n
    if len(codes) == 1:
        if codes[0] not in (0, 1):
            raise InvalidParameterValue(f"unsupported format code: {codes[0]}")
        return (codes[0],) * n
    if len(codes) != n:
        raise ProtocolViolation(f"bind message has {len(codes)} result formats but query has "
                                f"{n} columns")
    for c in codes:
        if c not in (0, 1):
            raise InvalidParameterValue(f"unsupported format code: {c}")
    return tuple(codes)


def _unchecked(oid: int, fmt: int, tz: Any) -> WireDecoder:
    """`_bind_fast`'s decoder: the receive function without `wire_decoder`'s classification of
    errors (any exception sends the Bind down the full path, which reports it as PG does)."""
    if fmt == 1:
        return binary_decoder(oid)
    tdec = text_decoder(oid, tz)

    def from_text(b: bytes) -> Any:
        s = b.decode()
        if "\0" in s:
            raise ValueError("NUL")  # NB: 22021 from the full path
        return tdec(s)

    digits = PLAIN_DIGITS.get(oid)
    if digits is None:
        return from_text

    def int_from_text(b: bytes) -> Any:
        # NB: a key as clients send it (pgbench's aid): ASCII digits only, too few to leave
        # the type's range, are the number; anything else (a sign, blanks, a big value) takes
        # the type's input function
        if len(b) <= digits and b.isdigit():
            return int(b)
        return from_text(b)

    return int_from_text


def _per_type(make: Callable[[int, int, Any], WireDecoder], oids: list[int],
              fmts: tuple[int, ...], tz: Any) -> list[WireDecoder]:
    """One decoder per parameter, made once per (type, format): a 60,000-parameter IN list
    of one type makes one."""
    made: dict[tuple[int, int], WireDecoder] = {}
    out = []
    for o, f in zip(oids, fmts, strict=True):
        dec = made.get((o, f))
        if dec is None:
            dec = made[(o, f)] = make(o, f, tz)
        out.append(dec)
    return out


def _decode(values: list[bytes | None], decoders: list[WireDecoder], portal: str = "",
            formats: tuple[int, ...] = (), shown: Callable[[], int] = lambda: 0) -> list[Any]:
    """Decodes Bind's values; a bad value names its parameter in CONTEXT, as PostgreSQL does,
    a text one with its value cut to `shown()` bytes (log_parameter_max_length_on_error)."""
    try:
        return [None if v is None else dec(v) for v, dec in zip(values, decoders, strict=True)]
    except SQLError:
        pass
    for i, (v, dec) in enumerate(zip(values, decoders, strict=True)):
        where = (f'portal "{portal}" parameter ${i + 1}' if portal
                 else f"unnamed portal parameter ${i + 1}")
        value = ""
        if v is not None and not (formats and formats[i]):
            value = " = " + quoted_value(v, shown())
        try:
            if v is not None:
                dec(v)
        except InvalidBinaryRepresentation:
            raise InvalidBinaryRepresentation(
                f"incorrect binary data format in bind parameter {i + 1}",
                where=where + value) from None
        except SQLError as e:
            if e.where is None:
                # NB: bytes the encoding refuses (22021, a NUL) fail before PostgreSQL keeps
                # the value for CONTEXT
                e.where = where if e.sqlstate == "22021" else where + value
            raise
    return [None if v is None else dec(v) for v, dec in zip(values, decoders, strict=True)]


def quoted_value(v: bytes, limit: int) -> str:
    """A Bind value as PostgreSQL's error CONTEXT quotes it (appendStringInfoStringQuoted):
    at most `limit` bytes (-1: all), not splitting a character, then `...`; quotes doubled.

    >>> quoted_value(b"abcdefghij", 0), quoted_value(b"it's", -1), quoted_value(b"abcdef", 3)
    ("'...'", "'it''s'", "'abc...'")
    >>> quoted_value("héllo".encode(), 2), quoted_value(b"", 0)
    ("'h...'", "''")
    """
    cut = 0 <= limit < len(v)
    if cut:
        v = v[:limit].decode("utf-8", "ignore").encode()  # NB: a whole character or none
    text = v.decode("utf-8", "replace").replace("'", "''")
    return f"'{text}...'" if cut else f"'{text}'"


_BYTE_UNITS = {"": 1, "B": 1, "kB": 1024, "MB": 1024 ** 2, "GB": 1024 ** 3, "TB": 1024 ** 4}


class ExtendedQuery:
    """The extended-protocol half of `protocol.Connection` (mixed into it)."""

    session: Any
    out: bytearray
    tz: Any
    ready_status: str
    _changed: dict[str, str]  # settings to report before the next ReadyForQuery

    def __init__(self) -> None:
        self._held: HeldRun | None = None  # Executes held for one execute_many
        self.statements: dict[str, Statement] = {}
        self.portals: dict[str, Portal] = {}
        self._skipping = False
        self._in_extended = False
        # unnamed Parses already accepted, by (text, declared types): see `_parse_again`
        self._unnamed: dict[tuple[str, tuple[int, ...]], Statement] = {}
        # Bind's portal and statement names as bytes (up to the statement name's NUL) -> the
        # last head `_fast_bound` took for them: (statement, head bytes, where the values
        # begin, portal name, decoders, reader), so that a repeated Bind needs no head parse,
        # name decode or statement lookup; emptied whenever `statements` changes
        # (`_statements_changed`)
        self._last_heads: dict[bytes, tuple[Statement, bytes, int, str, list[WireDecoder],
                                            Reader | None]] = {}

    # hooks provided by Connection
    def _error(self, exc: BaseException, notify: bool = False) -> None: ...
    def _ready(self, status: str | None = None) -> None: ...
    def _notices(self) -> None: ...
    def _message_failed(self, kind: int, exc: BaseException) -> None: ...
    def _parameters(self) -> None: ...
    def _begin_copy_in(self, res: Result, gen: Any) -> None: ...
    def _send_result(self, res: Result, encoders: Any, max_rows: int, describe: bool) -> None: ...
    def in_copy(self) -> bool:
        return False

    def _fail(self, exc: BaseException, session_raised: bool) -> None:
        self._in_extended = True
        if self._held is not None:
            self._release()
            if self._skipping:
                return  # NB: a held row failed first; PostgreSQL skipped this message
        self._notices()
        self._error(exc, notify=not session_raised or not isinstance(exc, SQLError))

    def _statements_changed(self) -> None:
        """A statement name now means another statement, or none: `_last_heads` forgets."""
        if self._last_heads:
            self._last_heads.clear()

    def _tz_changed(self) -> None:
        self._unnamed.clear()
        self._last_heads.clear()  # NB: their decoders read TimeZone
        for stmt in self.statements.values():
            stmt.heads.clear()
            stmt.decoders.clear()
            stmt.shapes.clear()
            stmt.tails.clear()

    def _named_statements(self) -> list[tuple[str, Prepared]]:
        """The named (Parse) statements, for the session's pg_prepared_statements."""
        return [(name, stmt.prepared) for name, stmt in self.statements.items() if name]

    def _drop_statements(self, name: str | None) -> bool:
        """DEALLOCATE / DISCARD ALL of named Parse statements (None: all); False if none was."""
        if name is None:
            dropped = any(self.statements)
            self.statements = {n: s for n, s in self.statements.items() if not n}
            self._unnamed.clear()
        else:
            dropped = bool(name) and self.statements.pop(name, None) is not None
        self._statements_changed()
        return dropped

    def _drop_portals(self) -> None:
        portals = self.portals
        if len(portals) == 1:  # NB: the usual case: the unnamed portal of the round trip
            portal = portals.pop("", None)
            if portal is not None:
                res = portal.result
                if res is None or res.done:
                    return  # NB: nothing left to close (None: never executed, or the lane's)
                portals[""] = portal
        self.portals = {}
        for portal in portals.values():
            try:
                portal.close()
            except Exception:  # noqa: S110 - a failing iterator close must not break Sync
                pass

    # -- messages --------------------------------------------------------------

    def _parse(self, payload: bytes) -> None:
        self._in_extended = True
        if self._held is not None and self._release():
            return
        try:
            name, sql, oids = M.read_parse(payload)
            if name and (name in self.statements or self.session.sql_prepared(name) is not None):
                raise DuplicatePreparedStatement(f'prepared statement "{name}" already exists')
        except SQLError as e:
            self._fail(e, False)
            return
        if not name and self._parse_again(sql, oids):
            return
        try:
            prepared = self.session.prepare(sql, oids)
        except Exception as e:
            self._fail(e, True)
            return
        stmt = self.statements[name] = Statement(name, prepared)
        self._statements_changed()
        if not name and prepared.handle is not None:
            if len(self._unnamed) >= 64:
                self._unnamed.clear()
            self._unnamed[(sql, tuple(oids))] = stmt
        self.out += M.PARSE_COMPLETE

    def _parse_again(self, sql: str, oids: list[int]) -> bool:
        """Takes an unnamed Parse of a text this connection parsed before (libpq's
        PQexecParams, pgbench -M extended, JDBC before its prepareThreshold: the same few
        texts again and again) from `_unnamed`, with the codecs and Bind layouts it has
        cached. Only while the session says its plan stands as a new Parse would make it
        (`still_valid`: no DDL or search_path change since) and the transaction has not
        failed; otherwise the full path parses it again and reports what Parse reports."""
        key = (sql, tuple(oids))
        stmt = self._unnamed.get(key)
        if stmt is None:
            return False
        if self.session.transaction_status == "E" or not self.session.still_valid(stmt.prepared):
            del self._unnamed[key]
            return False
        if self.statements.get("") is not stmt:
            self.statements[""] = stmt
            self._statements_changed()
        self.out += M.PARSE_COMPLETE
        return True

    def _shown_length(self) -> int:
        """log_parameter_max_length_on_error in bytes (its SHOW form: `0`, `64B`, `2kB`)."""
        shown = self.session.setting("log_parameter_max_length_on_error") or "0"
        digits = shown.rstrip("BkMGT")
        return int(digits) * _BYTE_UNITS[shown[len(digits):]]

    def _bind_fast(self, payload: bytes) -> bool:
        """Binds from the cached layouts of earlier Binds; False leaves it to `_bind`."""
        got = self._fast_bound(payload)
        if got is True or got is False:
            return got
        self._install(*got)
        return True

    def _install(self, portal_name: str, stmt: Statement, params: list[Any],
                 shape: tuple[list[WireEncoder] | None, bytes]) -> None:
        """Makes a bound portal (replacing one of the same name) and answers BindComplete."""
        old = self.portals.get(portal_name)
        if old is not None:
            old.close()
        self.portals[portal_name] = Portal(stmt, params, shape[0], shape[1])
        self.out += M.BIND_COMPLETE

    def _fast_bound(self, payload: bytes, e1: int = -1) -> tuple[str, Statement, list[Any],
                                                                 tuple[list[WireEncoder] | None,
                                                                       bytes]] | bool:
        """`_bind_fast` up to the portal: (portal name, statement, parameters, result
        encoders and RowDescription) to install; True when it answered the Bind itself (an
        error); False when it leaves it to `_bind`. `e1`: where the portal name ends, when
        the caller knows (`_bind_run`'s unnamed portal: 0)."""
        if e1 < 0:
            e1 = payload.find(0)
        e2 = payload.find(0, e1 + 1)  # NB: -1 too when e1 is (no NUL at all)
        if e2 < 0:
            return False
        last = self._last_heads.get(payload[:e2])
        if last is not None and payload.startswith(last[1]):
            stmt, _, vpos, portal_name, decoders, read = last
        else:
            if e2 + 3 > len(payload):
                return False
            vpos = e2 + 5 + 2 * ((payload[e2 + 1] << 8) | payload[e2 + 2])
            try:
                named = self.statements.get(payload[e1 + 1 : e2].decode())
            except UnicodeDecodeError:
                return False
            if named is None:
                return False
            stmt = named
            hit = stmt.heads.get(payload[:vpos])
            if hit is None:
                return False
            portal_name, decoders, read = hit
            if len(self._last_heads) >= 64:
                self._last_heads.clear()
            self._last_heads[payload[:e2]] = (stmt, payload[:vpos], vpos, portal_name, decoders,
                                              read)
        if portal_name and portal_name in self.portals:
            return False
        held = self._held
        if held is not None:
            if self._run_as(stmt) is None and self._release():
                return True
            held = self._held
        if held is None or held.stmt is not stmt:
            try:
                self.session.check_prepared(stmt.prepared)
            except Exception as e:
                self._fail(e, True)
                return True
        if read is not None:  # NB: the usual layout: one straight-line function
            try:
                got = read(payload, vpos, decoders)
            except Exception:  # NB: the full path reports it, naming the parameter
                return False
            if got is None:
                return False
            params, pos = got
        else:
            params, pos = [], vpos
            if decoders:
                size, unpack = len(payload), M.I32.unpack_from
                try:
                    for dec in decoders:
                        (n,) = unpack(payload, pos)
                        pos += 4
                        if n == -1:
                            params.append(None)
                            continue
                        if n < 0 or pos + n > size:
                            return False
                        params.append(dec(payload[pos : pos + n]))
                        pos += n
                except Exception:  # NB: as above
                    return False
        shape = stmt.tails.get(payload[pos:])
        if shape is None:
            return False
        return portal_name, stmt, params, shape

    def _bind_run(self, buf: bytes | bytearray | memoryview, pos: int, end: int) -> int:
        """Runs a Bind at buf[pos:end] together with the [Describe,] Execute and Sync after it,
        when they are the one round trip of a prepared statement (pgbench -M prepared, libpq's
        PQexecPrepared, psycopg, asyncpg): Bind of the unnamed portal from `_bind_fast`'s
        caches, then Describe of that portal (or none), Execute of all its rows, Sync. Each
        step does what its own handler does, in order, with the same replies; the messages
        just are not dispatched one by one. Returns where the caller goes on: `end` after the
        Bind alone, or after the Sync; `pos` when it ran nothing (the caller dispatches). A
        failure that escapes the steps (a malformed message, a bug) is reported as a Bind
        handler's would be (`_message_failed`), and the caller goes on after the Bind: the
        try is here, not in a wrapper, to save the call per round trip."""
        try:
            if buf[end : end + 22] == _DESCRIBE_EXECUTE_SYNC:  # NB: libpq's first (pgbench)
                describe, stop = True, end + 22
            elif buf[end : end + 15] == _EXECUTE_SYNC:
                describe, stop = False, end + 15
            elif self._held is not None and buf[end : end + 10] == _EXECUTE_ALL:
                return self._held_binds(buf, pos)  # NB: an executemany's next rows
            else:
                return pos
            if buf[pos + 5] != 0 or self._held is not None:  # NB: a named portal: the full path
                return pos
            self._in_extended = True
            payload = buf[pos + 5 : end]
            if type(payload) is not bytes:  # NB: a held tail or a memoryview: a copy
                payload = bytes(payload)
            bound = self._fast_bound(payload, 0)
            if bound is False:
                return pos  # NB: nothing was bound: the caller's dispatch takes the full path
            if bound is True:
                return end  # NB: the Bind failed (its plan check): the caller skips to Sync
            _, stmt, params, shape = bound
            encoders, row_desc = shape
            if stmt.batch is not False and self._batchable(stmt):
                self._install("", stmt, params, shape)
                return end  # the rest goes message by message (its Executes may be held)
            if encoders is None and row_desc is M.NO_DATA:
                # NB: a statement without rows (BEGIN, UPDATE, COMMIT): the same replies
                # (BindComplete, NoData, CommandComplete, ReadyForQuery) and the same portal
                # as the messages one by one would leave, with less on the way (no call):
                # the unnamed portal is made only if it outlives the Sync (a block is
                # open), as PostgreSQL's idle Sync drops it
                portals = self.portals
                old = portals.pop("", None)
                if old is not None and not old.ran and old.result is not None and \
                        not old.result.done:
                    old.close()  # NB: the usual one, spent in the block (ran: its result is
                    # done), has nothing to close: one attribute read tells
                out = self.out
                out += _BIND_NO_DATA if describe else M.BIND_COMPLETE
                session = self.session
                try:
                    res = session.execute(stmt.prepared, params)
                except Exception as e:
                    portals[""] = Portal(stmt, params, None, M.NO_DATA)
                    self._fail(e, True)
                    return stop - 5  # NB: the Sync is still to be handled
                if res.columns is not None or res.empty or res.copy_in is not None or \
                        res.copy_out is not None:  # NB: rows after all (EXECUTE of a PREPAREd)
                    portal = portals[""] = Portal(stmt, params, None, M.NO_DATA)
                    portal.result = res
                    return self._finish_run(portal, res, stop)
                if session.notices:
                    self._notices()
                out += M.TAGS.get(res.tag) or M.command_complete(res.tag)
                # NB: `_end_sync`, whose ReadyForQuery collects the changed settings (a SET's)
                self._skipping = False
                self._in_extended = False
                try:
                    status = session.sync()
                except Exception as e:
                    self._notices()
                    self._error(e)
                    status = session.transaction_status
                if status != "I":  # NB: the portal lives on in the block, run to completion
                    if old is None:
                        portals[""] = Portal(stmt, params, None, M.NO_DATA, res)
                    else:  # NB: the previous statement's, spent and closed, taken again:
                        # nothing else holds an unnamed portal here (no Executes are held),
                        # and this saves the constructor's call for each statement of a block
                        old.stmt, old.params, old.encoders, old.row_desc = \
                            stmt, params, None, M.NO_DATA
                        old.result, old.ran = res, True
                        portals[""] = old
                self._ready(status)
                return stop
            if encoders is not None:
                try:
                    rows = self.session.read_point(stmt.prepared, params)
                except Exception as e:
                    self._install("", stmt, params, shape)
                    self._fail(e, True)
                    return stop - 5  # NB: the Sync is still to be handled
                if rows is not None:  # the lane: rows at once, no Result (a block: a spent portal)
                    old = self.portals.pop("", None)  # NB: the Sync would drop ours (idle)
                    if old is not None and not old.ran and old.result is not None and \
                            not old.result.done:  # NB: ran: its result is done (no rows)
                        old.close()
                    out = self.out
                    out += M.BIND_COMPLETE
                    if describe:
                        out += row_desc
                    M.append_rows(out, rows, encoders)
                    session = self.session
                    if session.notices:
                        self._notices()
                    out += _SELECT_TAGS[len(rows)] if len(rows) < 2 else \
                        M.command_complete(f"SELECT {len(rows)}")
                    if session.transaction_status != "I":  # NB: in a block the portal lives,
                        # run to completion: Execute again says SELECT 0
                        ran = Result(f"SELECT {len(rows)}", columns=stmt.prepared.columns)
                        if old is None:
                            self.portals[""] = Portal(stmt, params, encoders, row_desc, ran)
                        else:  # NB: the spent one again, as the no-rows branch takes it
                            old.stmt, old.params, old.encoders, old.row_desc = \
                                stmt, params, encoders, row_desc
                            old.result, old.ran = ran, True
                            self.portals[""] = old
                    self._end_sync()
                    return stop
            self._install("", stmt, params, shape)
            portal = self.portals[""]
            if describe:
                self.out += portal.row_desc
            try:
                res = portal.result = self.session.execute(stmt.prepared, portal.params)
            except Exception as e:
                self._fail(e, True)
                return stop - 5  # NB: the Sync is still to be handled
            return self._finish_run(portal, res, stop)
        except SQLError as e:
            if e.severity == "FATAL":
                raise
            self._message_failed(66, e)
        except Exception as e:  # a bug: report it and keep serving
            self._message_failed(66, e)
        return end

    def _finish_run(self, portal: Portal, res: Result, stop: int) -> int:
        """`_bind_run` after its Execute ran: the result's messages, then the Sync's."""
        if res.copy_in is not None:
            self._begin_copy_in(res, None)
            return stop - 5  # NB: ignored during COPY, as PostgreSQL does
        try:
            encoders = portal.encoders
            if encoders is None and res.columns:  # as `_execute`: rows nobody described
                encoders = column_encoders([c.type_oid for c in res.columns],
                                           [0] * len(res.columns), self.tz)
            self._send_result(res, encoders, 0, describe=False)
            portal.ran = res.done
            if res.columns is None:
                self._parameters()
        except Exception as e:
            portal.close()
            self._fail(e, isinstance(e, SQLError))
        self._end_sync()  # NB: `_sync` without its checks for COPY and held Executes
        return stop

    def _held_binds(self, buf: bytes | bytearray | memoryview, pos: int) -> int:
        """Binds and holds the Bind + Execute pairs at buf[pos:] that continue the held run
        (an executemany's rows: the unnamed portal, the run's statement, a layout
        `_bind_fast` knows), as `_bind_fast` and `_execute` would one message at a time,
        with the same replies. Stops at anything else, or when the run is full; returns
        where the caller goes on (`pos` when nothing was taken)."""
        held = self._held
        assert held is not None
        stmt, portals, out = held.stmt, self.portals, self.out
        size, unpack = len(buf), M.I32.unpack_from
        head = b""
        read: Reader | None = None
        decoders: list[WireDecoder] = []
        tail, shape = None, None
        while len(held.portals) < MAX_HELD and pos + 5 <= size and buf[pos] == 66:  # B
            end = pos + 1 + unpack(buf, pos + 1)[0]
            if end + 10 > size or buf[end : end + 10] != _EXECUTE_ALL:
                break
            payload = bytes(buf[pos + 5 : end])
            if read is None:
                e2 = payload.find(0, 1) if payload[:1] == b"\0" else -1
                if e2 < 0 or e2 + 3 > len(payload):
                    break
                head = payload[:e2 + 5 + 2 * ((payload[e2 + 1] << 8) | payload[e2 + 2])]
                hit = stmt.heads.get(head)
                if hit is None or hit[2] is None or \
                        self.statements.get(stmt.name) is not stmt:
                    break
                decoders, read = hit[1], hit[2]
            elif not payload.startswith(head):
                break
            try:
                got = read(payload, len(head), decoders)
            except Exception:  # NB: the full path reports it, naming the parameter
                got = None
            if got is None:
                break
            if payload[got[1]:] != tail:
                tail = payload[got[1]:]
                shape = stmt.tails.get(tail)
            if shape is None:
                break
            portal = portals[""] = Portal(stmt, got[0], shape[0], shape[1])
            out += M.BIND_COMPLETE
            held.add(portal, len(out))
            pos = end + 10
        return pos

    def _remember_bind(self, payload: bytes, vpos: int, portal_name: str, stmt: Statement,
                       fmts: tuple[int, ...], encoders: list[WireEncoder] | None,
                       row_desc: bytes) -> None:
        """Caches an accepted Bind's layout for `_bind_fast`, with its parameters' formats
        (not for a statement each Bind describes anew: `Prepared.portal_columns`)."""
        if stmt.prepared.portal_columns is not None:
            return
        pos = vpos
        for _ in fmts:
            n = M.I32.unpack_from(payload, pos)[0]
            pos += 4 + max(n, 0)
        if len(stmt.heads) >= 16:
            stmt.heads.clear()
        oids = stmt.prepared.param_oids
        fast = _per_type(_unchecked, oids, fmts, self.tz)
        read = values_reader(oids, fmts) if 0 < len(oids) <= MAX_UNROLLED else None
        stmt.heads[payload[:vpos]] = (portal_name, fast, read)
        if len(stmt.tails) < 16:
            stmt.tails[payload[pos:]] = (encoders, row_desc)

    def _bind(self, payload: bytes) -> None:
        self._in_extended = True
        if self._bind_fast(payload):
            return
        try:
            # NB: the checks come in PostgreSQL's order, so a message with several faults
            # gets the same error
            portal_name, stmt_name, pfmts, nvalues, pos = M.read_bind_head(payload)
            stmt = self._statement(stmt_name)
            if stmt is None:
                label = f'prepared statement "{stmt_name}"' if stmt_name else \
                    "unnamed prepared statement"
                raise InvalidSQLStatementName(f"{label} does not exist")
            if len(pfmts) > 1 and len(pfmts) != nvalues:
                raise ProtocolViolation(
                    f"bind message has {len(pfmts)} parameter formats but {nvalues} parameters")
            oids = stmt.prepared.param_oids
            if nvalues != len(oids):
                raise ProtocolViolation(
                    f"bind message supplies {nvalues} parameters, but prepared statement "
                    f'"{stmt_name}" requires {len(oids)}')
            if self._held is not None and self._run_as(stmt) is None and self._release():
                return
            if self._held is None:
                # NB: a held run's statement is checked when execute_many runs it
                try:
                    self.session.check_prepared(stmt.prepared)
                except Exception as e:
                    self._fail(e, True)
                    return
            if portal_name and portal_name in self.portals:
                raise DuplicateCursor(f'cursor "{portal_name}" already exists')
            values, rfmts = M.read_bind_values(payload, pos, nvalues)
            params: list[Any] = []
            pkey: tuple[int, ...] = ()
            if values:
                pkey = _formats(pfmts, nvalues, "parameter")
                hit = stmt.decoders.get(pkey)
                if hit is None:
                    hit = _per_type(wire_decoder, oids, pkey, self.tz)
                    stmt.decoders[pkey] = hit
                decoders = hit
                params = _decode(values, decoders, portal_name, pkey, self._shown_length)
            columns = stmt.prepared.columns
            if stmt.prepared.portal_columns is not None:
                columns = stmt.prepared.portal_columns()  # NB: a FETCH: its cursor's, now
                stmt.shapes.clear()
            if columns is not None:  # NB: a zero-column SELECT still has a RowDescription
                rkey = _formats(rfmts, len(columns), "result")
                shape = stmt.shapes.get(rkey)
                if shape is None:
                    shape = (column_encoders([c.type_oid for c in columns], rkey, self.tz),
                             M.row_description(columns, rkey))
                    stmt.shapes[rkey] = shape
                encoders, row_desc = shape
            else:
                encoders, row_desc = None, M.NO_DATA
        except Exception as e:
            self._fail(e, False)
            return
        self._remember_bind(payload, pos, portal_name, stmt, pkey, encoders, row_desc)
        old = self.portals.get(portal_name)
        if old is not None:
            old.close()
        self.portals[portal_name] = Portal(stmt, params, encoders, row_desc)
        self.out += M.BIND_COMPLETE

    def _statement(self, name: str) -> Statement | None:
        """The statement a Describe or Bind names: Parse's, else SQL PREPARE's (one namespace
        in PostgreSQL; not kept here, so DEALLOCATE alone drops it)."""
        stmt = self.statements.get(name)
        if stmt is None and name:
            prepared = self.session.sql_prepared(name)
            if prepared is not None:
                stmt = Statement(name, prepared)
        return stmt

    def _describe(self, payload: bytes) -> None:
        self._in_extended = True
        if payload == b"P\0":  # the unnamed portal, as libpq describes it before each Execute
            portal = self.portals.get("")
            if portal is not None and (portal.encoders is None or
                                       self.session.transaction_status != "E"):
                self.out += portal.row_desc
                return
        try:
            kind, name = M.read_target(payload)
            if kind == "S":
                stmt = self._statement(name)
                if stmt is None:
                    label = f'prepared statement "{name}"' if name else "unnamed prepared statement"
                    raise InvalidSQLStatementName(f"{label} does not exist")
                cols = stmt.prepared.columns
                if cols is not None and self.session.transaction_status == "E":
                    self._fail(_aborted(), False)
                    return
                self.out += stmt.param_desc
                self.out += M.row_description(cols) if cols is not None else M.NO_DATA
                return
            portal = self.portals.get(name)
            if portal is not None:
                if portal.encoders is not None and self.session.transaction_status == "E":
                    self._fail(_aborted(), False)
                    return
                self.out += portal.row_desc
                return
        except SQLError as e:
            self._fail(e, False)
            return
        try:
            cols = self.session.cursor_columns(name)
        except Exception as e:
            self._fail(e, True)
            return
        if cols is None:
            self._fail(InvalidCursorName(f'portal "{name}" does not exist'), False)
            return
        self.out += M.row_description(cols) if cols is not None else M.NO_DATA

    def _execute(self, payload: bytes) -> None:
        self._in_extended = True
        try:
            name, max_rows = ("", 0) if payload == _UNNAMED_ALL else M.read_execute(payload)
            portal = self.portals.get(name)
            if portal is None:
                raise InvalidCursorName(f'portal "{name}" does not exist')
        except SQLError as e:
            self._fail(e, False)
            return
        stmt = portal.stmt
        run_as = None
        if self._held is not None:
            if portal.result is None and payload == _UNNAMED_ALL:
                run_as = self._run_as(stmt)
            if not self._held.takes(portal, run_as) and self._release():
                return
        if portal.result is None and payload == _UNNAMED_ALL and stmt.batch is not False \
                and self._batchable(stmt):
            if self._held is None:
                self._held = HeldRun(stmt)
            elif run_as is not None:
                self._held.stmt = run_as
            self._held.add(portal, len(self.out))
            return
        res = portal.result
        if portal.ran and res is not None and res.columns is not None:
            # NB: PostgreSQL answers a finished portal with zero rows: "SELECT 0"
            self.out += M.command_complete(res.tag.split(" ")[0] + " 0")
            return
        if portal.ran and res is not None and not res.empty and res.copy_in is None:
            # NB: a finished portal of a statement without rows (PortalRun: PORTAL_DONE)
            self._fail(ObjectNotInPrerequisiteState(f'portal "{name}" cannot be run'), False)
            return
        if res is None:
            try:
                res = portal.result = self.session.execute(stmt.prepared, portal.params)
            except Exception as e:
                self._fail(e, True)
                return
            if res.copy_in is not None:
                self._begin_copy_in(res, None)
                return
        try:
            encoders = portal.encoders
            if encoders is None and res.columns:
                fmts = [0] * len(res.columns)
                encoders = column_encoders([c.type_oid for c in res.columns], fmts, self.tz)
            self._send_result(res, encoders, max_rows, describe=False)
            portal.ran = res.done
            if res.columns is None:  # a SET: the pipeline's later rows see a new TimeZone
                self._parameters()
        except Exception as e:
            portal.close()
            self._fail(e, isinstance(e, SQLError))

    def _close(self, payload: bytes) -> None:
        self._in_extended = True
        if self._held is not None and self._release():
            return
        try:
            kind, name = M.read_target(payload, "CLOSE")
        except SQLError as e:
            self._fail(e, False)
            return
        if kind == "S":
            if self.statements.pop(name, None) is None:
                if name and self.session is not None:
                    self.session.close_sql_prepared(name)  # NB: one namespace with PREPARE's
            else:
                self._statements_changed()
        else:
            portal = self.portals.pop(name, None)
            if portal is not None:
                portal.close()
            elif self.session is not None:
                self.session.close_cursor(name)  # NB: a DECLAREd cursor is a portal too
        self.out += M.CLOSE_COMPLETE

    def _sync(self, _payload: bytes) -> None:
        if self.in_copy():
            return  # NB: PostgreSQL ignores Sync during COPY FROM STDIN
        if self._held is not None:
            self._release()
        self._end_sync()

    def _end_sync(self) -> None:
        """Sync's own work: leave the extended-protocol state, end an implicit block, ready."""
        self._skipping = False
        self._in_extended = False
        session = self.session
        try:
            status = session.sync()
        except Exception as e:
            self._notices()
            self._error(e)
            status = session.transaction_status
        self._ready(status)

    # -- held Executes (insertbatch) ------------------------------------------

    def _batchable(self, stmt: Statement) -> bool:
        """Asks the session once per statement whether its Executes may be held."""
        ok = stmt.batch
        if ok is None:
            ok = stmt.batch = bool(self.session.can_batch(stmt.prepared))
        return ok

    def _run_as(self, stmt: Statement) -> Statement | None:
        """The statement the held run goes on as if `stmt`'s Executes join it, or None if
        they cannot: the run's own statement, or for another Parse of the same INSERT text
        whose parameter types differ only in integer widths (psycopg types each integer by
        its value, so an executemany's rows alternate between int2 and int4 statements) the
        wider of the two. That keeps each row's meaning: a batchable INSERT's VALUES
        elements are parameters, literals or casts of those (`dml.batchinsert`), so a value
        sent as int2 and run as int4 is stored, cast or refused (with the same SQLSTATE and
        message) as through its own statement."""
        held = self._held
        assert held is not None
        run = held.stmt
        if stmt is run:
            return run
        if stmt.prepared.sql != run.prepared.sql or not self._batchable(stmt):
            return None
        w = widest(run.prepared.param_oids, stmt.prepared.param_oids)
        return run if w == 1 else stmt if w == 2 else None

    def _release(self) -> bool:
        """Runs the held Executes and splices their replies in; True if one of them failed
        (the connection now skips to Sync, so the caller drops its own message)."""
        held, self._held = self._held, None
        if held is None:
            return False
        results, err = self.session.execute_many(held.stmt.prepared, held.params())
        self._notices()
        out = self.out
        tags: dict[str, bytes] = {}
        for portal, res, reply in held.splice(out, results):
            portal.result = res
            if res.columns is None and not res.empty and res.copy_out is None:
                done = tags.get(res.tag)  # NB: "INSERT 0 1" each: one CommandComplete's bytes
                if done is None:
                    done = tags[res.tag] = M.command_complete(res.tag)
                out += done
            else:
                self._send_result(res, portal.encoders, 0, describe=False)
            portal.ran = res.done
            out += reply
        self._parameters()
        if err is not None:
            self._fail(err, True)
        return err is not None
