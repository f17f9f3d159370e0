"""The sans-I/O core shared by the sync and asyncio connections.

Every conversation with the server is a generator. It yields either `bytes`
(send these) or `RECV` (give me the next backend message as (type,
payload)), and returns its result through StopIteration. The sync
connection drives it with a blocking socket, the asyncio one with streams;
neither knows the protocol, and this module never touches a socket. Life of
a parameterised statement:

1. `sqlparams.bind_params` turns `%s` into `$n`; `types.encode` turns values
   into (oid, format, bytes).
2. The statement cache (`Session.cache`, LRU) is keyed by (sql, oids); on a
   miss, `prepare()` sends Parse + Describe(S) + Sync and keeps the parameter
   types and RowDescription. Evicted statements are closed in the next
   pipeline (not while portals are open: that would close them too). A DDL
   command tag empties the cache, as psycopg does, since plans may have
   changed shape; a 0A000/26000 from the server (`is_stale`) means the same.
3. `execute_message()` builds Bind (asking for binary results exactly where
   `types.wants_binary`) + Execute(max_rows); the caller adds Sync.
   `execute_many()` is its batch form for executemany.
4. `run()` sends the pipeline and reads until ReadyForQuery, filling one
   `Result` per Execute or per statement of a simple query; a PortalSuspended
   leaves the portal open for `Execute(portal, n)` later. An ErrorResponse is
   raised only after ReadyForQuery, so the connection is always usable after.
   DataRows are decoded in bulk, straight from the receive buffer, by the
   compiled readers of `rows.py`.
"""

from __future__ import annotations

import hashlib
import zoneinfo
from collections import Counter, OrderedDict
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from datetime import tzinfo
from typing import Any

from cumulo.driver import protocol as p
from cumulo.driver import rows, types
from cumulo.driver.errors import (
    DatabaseError,
    InterfaceError,
    OperationalError,
    error_from_fields,
)
from cumulo.driver.rows import RowsReader  # `rows` is also a field name of Result

RECV = object()
# Yields bytes or RECV. The driver sends back a (kind, payload) tuple after RECV and None
# after bytes, and each conversation returns its own kind of result: hence the Anys.
Conversation = Generator[object, Any, Any]


@dataclass
class Result:
    """What one statement returned: columns, decoded rows, command tag."""

    columns: list[p.Column] | None = None
    decoders: list[types.Decoder] | None = None
    rows: list[tuple] = field(default_factory=list)
    tag: str | None = None
    rowcount: int = -1
    suspended: bool = False
    reader: RowsReader | None = None  # compiled DataRow decoder, built on first use

    def rows_reader(self) -> RowsReader:
        """Returns the compiled reader that decodes this result's DataRows in bulk."""
        if self.reader is None:
            self.reader = rows.rows_reader(self.columns or (), self.decoders or ())
        return self.reader

    def set_columns(self, columns: list[p.Column], s: Session | None = None) -> None:
        """Installs the columns and the decoders their formats call for."""
        self.columns = columns
        self.decoders = [types.decoder_for(c[3], c[6]) for c in columns]
        self.reader = None
        if s is not None and s.adapted():
            self.adapt(s)

    def adapt(self, s: Session) -> None:
        """Applies the session's decoding settings: binary timestamptz in its time zone,
        json through its `json_loads`."""
        for i, c in enumerate(self.columns or ()):
            dec = types.session_decoder(c[3], c[6], s.tz, s.json_loads)
            if dec is not None:
                self.decoders[i] = dec  # type: ignore[index]
                self.reader = None


@dataclass
class Prepared:
    """A named server-side statement: its parameter types and result columns."""

    name: str
    sql: str
    param_oids: tuple[int, ...]
    columns: list[p.Column] | None
    result_formats: list[int] = field(default_factory=list)


@dataclass
class CopyIO:
    """Where COPY data comes from (`read`) or goes to (`write`)."""

    read: Callable[[int], bytes | str] | None = None
    write: Callable[[bytes], object] | None = None


class Session:
    """Connection state the conversations read and update: no I/O here."""

    def __init__(self, cache_size: int = 100, binary_results: bool = True):
        self.binary_results = binary_results
        self.parameters: dict[str, str] = {}
        self.pid = 0
        self.secret = 0
        self.status = "I"  # ReadyForQuery: I idle, T in transaction, E failed transaction
        self.notices: list[dict[str, str]] = []
        self.notifies: list[tuple[int, str, str]] = []
        self.cache: OrderedDict[tuple[str, tuple[int, ...]], Prepared] = OrderedDict()
        self.cache_size = cache_size
        self.to_close: list[str] = []  # evicted statements, closed in the next pipeline
        self.hold_closes = False  # set by the connection while cursors have portals open
        # Named portals read to the end or abandoned: PostgreSQL keeps them (and their
        # tables in use: DROP fails with 55006) until closed or the transaction ends.
        self.portals_to_close: list[str] = []
        # Parse and Execute messages sent, ReadyForQuery received (one per round trip's end):
        # for tests and tuning.
        self.stats: Counter[str] = Counter()
        self.reader = p.MessageReader()  # the receive buffer, fed by the connection's I/O
        self.tz: tzinfo | None = None  # the server's TimeZone, when it is not UTC
        self.json_loads: Callable[[str], object] | None = None  # custom json decoding
        self._names = 0

    def adapted(self) -> bool:
        """Tells whether results need `Result.adapt` (a time zone or a json hook)."""
        return self.tz is not None or self.json_loads is not None

    def invalidate(self) -> None:
        """Forgets (and closes) every cached statement: DDL may have changed their types."""
        self.to_close.extend(stmt.name for stmt in self.cache.values())
        self.cache.clear()

    def next_name(self, prefix: str) -> str:
        """Returns a fresh statement or portal name."""
        self._names += 1
        return f"_cumulo_{prefix}{self._names}"

    def cached(self, sql: str, oids: tuple[int, ...]) -> Prepared | None:
        """Returns the prepared statement for (sql, oids) and marks it recently used."""
        stmt = self.cache.get((sql, oids))
        if stmt is not None:
            self.cache.move_to_end((sql, oids))
        return stmt

    def remember(self, stmt: Prepared, oids: tuple[int, ...]) -> None:
        """Caches a named statement, evicting the least recently used one."""
        if not stmt.name:
            return
        self.cache[(stmt.sql, oids)] = stmt
        while len(self.cache) > self.cache_size:
            _, old = self.cache.popitem(last=False)
            self.to_close.append(old.name)

    def forget(self, sql: str, oids: tuple[int, ...]) -> None:
        """Drops a statement the server no longer accepts (26000, changed result type)."""
        stmt = self.cache.pop((sql, oids), None)
        if stmt is not None:
            self.to_close.append(stmt.name)

    def pending_closes(self) -> bytes:
        """Returns Close messages for finished portals and evicted statements, to put
        ahead of a pipeline.

        No statement Closes while `hold_closes` is set (the connection has
        portals open): closing a statement would close the portals made from it.
        """
        out = b"".join(p.close(b"P", name) for name in self.portals_to_close)
        self.portals_to_close.clear()
        if self.hold_closes:
            return out
        out += b"".join(p.close(b"S", name) for name in self.to_close)
        self.to_close.clear()
        return out


_DDL = ("CREATE", "DROP", "ALTER", "DISCARD", "DEALLOCATE")


def is_stale(exc: DatabaseError) -> bool:
    """Tells whether an error means a cached statement must be prepared again."""
    return exc.sqlstate == "26000" or (exc.sqlstate == "0A000" and (
        exc.routine == "RevalidateCachedQuery"
        or "cached plan must not change result type" in str(exc)))


def _md5_password(user: str, password: str, salt: bytes) -> bytes:
    inner = hashlib.md5((password + user).encode()).hexdigest()
    return b"md5" + hashlib.md5(inner.encode() + salt).hexdigest().encode() + b"\0"


def startup(s: Session, user: str, password: str | None, params: dict[str, str]) -> Conversation:
    """Sends the StartupMessage, authenticates, and reads up to the first ReadyForQuery."""
    yield p.startup({"user": user, **params})
    scram = None
    while True:
        kind, payload = yield RECV
        if kind == p.AUTH:
            code, data = p.parse_auth(payload)
            if code == 0:
                continue
            if code in (3, 5, 10) and password is None:
                raise OperationalError("the server asks for a password and none was given")
            if code == 3 and password is not None:
                yield p.password(password.encode() + b"\0")
            elif code == 5 and password is not None:
                yield p.password(_md5_password(user, password, data[:4]))
            elif code == 10:
                import scramp

                mechs = [m.decode() for m in data.split(b"\0") if m]
                if "SCRAM-SHA-256" not in mechs:
                    raise InterfaceError(f"no supported SASL mechanism in {mechs}")
                scram = scramp.ScramClient(["SCRAM-SHA-256"], user, password)
                yield p.sasl_initial("SCRAM-SHA-256", scram.get_client_first().encode())
            elif code in (11, 12) and scram is None:
                raise InterfaceError("SASL continuation without a SASL exchange")
            elif code == 11 and scram is not None:
                scram.set_server_first(data.decode())
                yield p.password(scram.get_client_final().encode())
            elif code == 12 and scram is not None:
                scram.set_server_final(data.decode())
            else:
                raise InterfaceError(f"unsupported authentication request {code}")
        elif kind == p.ERROR_RESPONSE:
            raise error_from_fields(p.parse_fields(payload))
        elif kind == p.READY_FOR_QUERY:
            s.status = chr(payload[0])
            return None
        else:
            handle_async_message(s, kind, payload)


def handle_async_message(s: Session, kind: bytes, payload: bytes) -> None:
    """Records ParameterStatus, BackendKeyData, NoticeResponse and NotificationResponse."""
    if kind == p.PARAMETER_STATUS:
        name, value = p.parse_parameter_status(payload)
        s.parameters[name] = value
        if name == "TimeZone":
            s.tz = _zone(value)
    elif kind == p.BACKEND_KEY_DATA:
        s.pid, s.secret = p.parse_backend_key(payload)
    elif kind == p.NOTICE_RESPONSE:
        s.notices.append(p.parse_fields(payload))
        del s.notices[:-50]
    elif kind == p.NOTIFICATION:
        pid = int.from_bytes(payload[:4], "big")
        channel, extra, _ = payload[4:].split(b"\0")
        s.notifies.append((pid, channel.decode(), extra.decode()))


def _zone(name: str) -> tzinfo | None:
    """Returns the tzinfo for a TimeZone setting; None for UTC (or a zone Python lacks)."""
    if name.upper() in ("UTC", "ETC/UTC", "GMT", "Z", "UCT", "ETC/UCT"):
        return None
    try:
        return zoneinfo.ZoneInfo(name)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return None


def prepare(s: Session, name: str, sql: str, oids: Sequence[int], begin: bytes = b"") -> Conversation:
    """Parses `sql` as statement `name` and describes it; returns a Prepared.

    `begin` is a BEGIN query to pipeline first, so that a statement failing to
    parse fails inside the transaction it was meant for, as one failing later would.
    """
    s.stats["parse"] += 1
    yield (s.pending_closes() + begin + p.parse(name, sql, oids) + p.describe(b"S", name)
           + p.SYNC)
    ready = 1 + bool(begin)
    param_oids: tuple[int, ...] = tuple(oids)
    columns = None
    error = None
    while True:
        kind, payload = yield RECV
        if kind == p.PARAMETER_DESCRIPTION:
            param_oids = p.parse_parameter_description(payload)
        elif kind == p.ROW_DESCRIPTION:
            columns = p.parse_row_description(payload)
        elif kind == p.ERROR_RESPONSE:
            error = error or error_from_fields(p.parse_fields(payload))
        elif kind == p.READY_FOR_QUERY:
            s.status = chr(payload[0])
            s.stats["ready"] += 1
            ready -= 1
            if ready:
                continue
            if error is not None:
                raise error
            stmt = Prepared(name, sql, param_oids, columns)
            if columns is not None:
                binary = s.binary_results
                stmt.result_formats = [int(binary and types.wants_binary(c[3])) for c in columns]
            return stmt
        elif kind in (p.PARSE_COMPLETE, p.NO_DATA, p.CLOSE_COMPLETE, p.COMMAND_COMPLETE):
            pass
        else:
            handle_async_message(s, kind, payload)


def new_result(stmt: Prepared) -> Result:
    """Returns an empty Result shaped like the statement's rows (binary where asked)."""
    res = Result()
    if stmt.columns is not None:
        res.set_columns([c[:6] + (f,) for c, f in zip(stmt.columns, stmt.result_formats, strict=False)])
    return res


def bind_message(stmt: Prepared, encoded: Sequence[types.Encoded], portal: str = "") -> bytes:
    """Builds the Bind of one set of encoded parameters to `portal`."""
    formats = [e[1] for e in encoded]
    if formats and formats.count(formats[0]) == len(formats):
        formats = formats[:1]
    return p.bind(portal, stmt.name, formats, [e[2] for e in encoded], stmt.result_formats)


def execute_message(s: Session, stmt: Prepared, encoded: Sequence[types.Encoded],
                    portal: str = "", max_rows: int = 0) -> bytes:
    """Builds Bind + Execute for one set of encoded parameters (no Sync)."""
    s.stats["execute"] += 1
    return bind_message(stmt, encoded, portal) + p.execute(portal, max_rows)


def execute_many(s: Session, stmt: Prepared, rows: Sequence[Sequence[types.Encoded]]) -> bytes:
    """Builds Bind + Execute for every row of encoded parameters (no Sync): executemany."""
    s.stats["execute"] += len(rows)
    return p.bind_many(stmt.name, rows, stmt.result_formats)


def fetch_message(s: Session, portal: str, max_rows: int, end: bytes = p.SYNC) -> bytes:
    """Builds Execute + Sync (or `end`: Flush) resuming a suspended portal."""
    s.stats["execute"] += 1
    return p.execute(portal, max_rows) + end


def run(s: Session, out: bytes, results: list[Result], ready: int = 1,
        copy: CopyIO | None = None) -> Conversation:
    """Sends a pipeline and reads until `ready` ReadyForQuery messages; fills `results`.

    Results are matched in order: one per Execute (pre-created by the caller,
    so its columns are known) or one per statement of a simple query.
    Returns the list; raises the first ErrorResponse after the last ReadyForQuery.

    `ready=0` is for a pipeline that ends with Flush instead of Sync (a portal
    streamed in autocommit, whose implicit transaction must outlive the
    round trip): it returns at the last result's PortalSuspended; when the
    portal completes or fails instead, it sends the Sync itself and reads on
    to ReadyForQuery.
    """
    if s.adapted():
        for res in results:
            if res.columns is not None:
                res.adapt(s)
    if out:
        yield out
    idx = 0
    error = None
    pending = None
    while True:
        kind, payload = pending or (yield RECV)
        pending = None
        if kind == p.DATA_ROW:
            res = results[idx]
            decs = res.decoders
            values = p.parse_data_row(payload)
            if decs is None or len(values) != len(decs):
                raise InterfaceError("a DataRow does not match the RowDescription")
            res.rows.append(tuple([None if v is None else d(v)
                                   for d, v in zip(decs, values, strict=True)]))
            # The rows behind this one are likely in the buffer already: decode them in bulk.
            s.reader.take_rows(res.rows_reader(), res.rows)
        elif kind in (p.COMMAND_COMPLETE, p.PORTAL_SUSPENDED, p.EMPTY_QUERY):
            if idx == len(results):
                results.append(Result())
            res = results[idx]
            if kind == p.COMMAND_COMPLETE:
                res.tag, res.rowcount = p.parse_command_tag(payload)
                res.suspended = False
                if res.tag.startswith(_DDL):
                    s.invalidate()  # as psycopg does: cached plans may have changed shape
            elif kind == p.PORTAL_SUSPENDED:
                res.suspended = True
            idx += 1
            if ready == 0 and idx == len(results):
                if kind == p.PORTAL_SUSPENDED:
                    return results
                ready = 1
                yield p.SYNC  # the portal is done: end its implicit transaction
        elif kind == p.ROW_DESCRIPTION:
            if idx == len(results):
                results.append(Result())
            results[idx].set_columns(p.parse_row_description(payload), s)
        elif kind == p.READY_FOR_QUERY:
            s.status = chr(payload[0])
            s.stats["ready"] += 1
            ready -= 1
            if ready == 0:
                if error is not None:
                    raise error
                return results
        elif kind == p.ERROR_RESPONSE:
            error = error or error_from_fields(p.parse_fields(payload))
            if idx < len(results):
                idx += 1  # the failed statement's result slot
            if ready == 0:
                ready = 1
                yield p.SYNC  # the server skips everything up to a Sync after an error
        elif kind == p.COPY_IN:
            yield from _copy_in(s, copy)
        elif kind == p.COPY_OUT:
            pending = yield from _copy_out(s, copy)
        elif kind in (p.PARSE_COMPLETE, p.BIND_COMPLETE, p.CLOSE_COMPLETE, p.NO_DATA,
                      p.PARAMETER_DESCRIPTION):
            pass
        else:
            handle_async_message(s, kind, payload)


def _copy_in(s: Session, copy: CopyIO | None) -> Conversation:
    if copy is None or copy.read is None:
        yield p.copy_fail("COPY FROM STDIN needs a file to read from")
        return
    try:
        while chunk := copy.read(65536):
            yield p.copy_data(chunk.encode() if isinstance(chunk, str) else bytes(chunk))
    except Exception as e:  # noqa: BLE001 - any failure of the user's file aborts the COPY
        yield p.copy_fail(f"error reading COPY data: {e}")
        return
    yield p.COPY_DONE_MSG


def _copy_out(s: Session, copy: CopyIO | None) -> Conversation:
    """Writes CopyData to `copy`; returns the first message that is not COPY data."""
    while True:
        kind, payload = yield RECV
        if kind == p.COPY_DATA:
            if copy is not None and copy.write is not None:
                copy.write(payload)
        elif kind != p.COPY_DONE:
            return kind, payload


_NULL: types.Encoded = (0, 0, None)


def encode_params(values: Sequence[object]) -> tuple[tuple[int, ...], list[types.Encoded]]:
    """Encodes parameter values; returns (declared oids, encoded values).

    The encoder of each value's exact type is looked up inline (`types.encode` only for
    the rest: subclasses, lists): a multi-row INSERT from SQLAlchemy carries thousands.
    """
    get, other = types.ENCODERS.get, types.encode
    encoded = [_NULL if v is None else (get(type(v)) or other)(v) for v in values]
    return tuple([e[0] for e in encoded]), encoded


def batch_runs(rows: list[list[types.Encoded]]) -> list[tuple[tuple[int, ...], list]]:
    """Splits encoded parameter rows into runs that can share one statement.

    An untyped parameter (NULL, str) fits any declared type, so a run only
    ends where two rows declare different types for the same parameter.
    """
    runs: list[tuple[tuple[int, ...], list]] = []
    sig: list[int] | None = None
    last: list[int] | None = None
    for row in rows:
        oids = [e[0] for e in row]
        if oids == last:  # the common case: the same types as the row before
            runs[-1][1].append(row)
            continue
        last = oids
        if sig is not None and len(oids) == len(sig) and all(
            a == 0 or b == 0 or a == b for a, b in zip(oids, sig, strict=False)
        ):
            sig = [a or b for a, b in zip(oids, sig, strict=False)]
            runs[-1][1].append(row)
            runs[-1] = (tuple(sig), runs[-1][1])
        else:
            sig = oids
            runs.append((tuple(sig), [row]))
    return runs


def description(columns: list[p.Column] | None) -> list[tuple] | None:
    """Builds PEP 249 description 7-tuples: name, type oid, display and internal size,
    precision, scale, null_ok."""
    if columns is None:
        return None
    out = []
    for name, _table, _attnum, oid, typlen, typmod, _fmt in columns:
        size = typlen if typlen > 0 else None
        precision = scale = None
        if oid == types.NUMERIC and typmod >= 4:
            precision, scale = (typmod - 4) >> 16, (typmod - 4) & 0xFFFF
        elif oid in (types.VARCHAR, types.BPCHAR) and typmod >= 4:
            size = typmod - 4
        out.append((name, oid, None, size, precision, scale, None))
    return out
