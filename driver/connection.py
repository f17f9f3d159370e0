"""The PEP 249 Connection: a blocking socket that drives the sans-I/O core.

`Connection._drive` is the only I/O loop: it feeds the core's conversation
generators with backend messages and writes what they yield. Large
pipelines (executemany) are written with select() so that replies are read
while the request is still going out; otherwise client and server could
both block on full socket buffers.

Transactions follow PEP 249: with autocommit off (the default), the first
statement after commit/rollback is preceded by a pipelined BEGIN carrying
`isolation_level` and `readonly`. Cursors stream their rows through portals
(see cursor.py); commit and rollback first read what such cursors have
left, so their rows stay fetchable.
"""

from __future__ import annotations

import select
import socket
import ssl
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from cumulo.driver import core, errors, failover, net
from cumulo.driver import protocol as p
from cumulo.driver.cursor import Cursor
from cumulo.driver.errors import InterfaceError, OperationalError, ProgrammingError
from cumulo.driver.metadata import Metadata
from cumulo.driver.url import ConnectParams, make_params

if TYPE_CHECKING:
    from cumulo.driver.table import Table

ISOLATION_LEVELS = ("READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE")


def connect(dsn: str | None = None, **kwargs: object) -> Connection:
    """Opens a connection from a URL and/or keywords (host, port, user, password, database...)."""
    params = make_params(dsn, **kwargs)
    hosts = list(params.hosts)
    if params.load_balance and len(hosts) > 1:
        return _connect_least_loaded(hosts, params)
    attempts: list[tuple[tuple[str, int], BaseException]] = []
    for host in hosts:
        try:
            return Connection(host, params)
        except (OSError, errors.Error) as e:
            attempts.append((host, e))
            if not failover.try_next_host(e):
                raise
    raise failover.all_failed(attempts)


def _connect_least_loaded(hosts: list[tuple[str, int]], params: ConnectParams) -> Connection:
    """Connects to every host, asks each its load, keeps the least-loaded connection."""
    opened: list[tuple[Connection, int | None]] = []
    attempts: list[tuple[tuple[str, int], BaseException]] = []
    for host in hosts:
        try:
            conn = Connection(host, params)
        except (OSError, errors.Error) as e:
            attempts.append((host, e))
            if not failover.try_next_host(e):
                for c, _ in opened:
                    c.close()
                raise
            continue
        opened.append((conn, _load(conn)))
    if not opened:
        raise failover.all_failed(attempts)
    best = failover.least_loaded([load for _, load in opened])
    for i, (c, _) in enumerate(opened):
        if i != best:
            c.close()
    return opened[best][0]


def _load(conn: Connection) -> int | None:
    """Asks a fresh connection for its server's load (None if it cannot say)."""
    try:
        res = conn._run(p.query(failover.LOAD_QUERY), [])
        return int(res[0].rows[0][0])
    except (errors.Error, IndexError, TypeError, ValueError):
        return None


class Connection:
    """A session with one server (PEP 249)."""

    Warning = errors.Warning
    Error = errors.Error
    InterfaceError = errors.InterfaceError
    DatabaseError = errors.DatabaseError
    DataError = errors.DataError
    OperationalError = errors.OperationalError
    IntegrityError = errors.IntegrityError
    InternalError = errors.InternalError
    ProgrammingError = errors.ProgrammingError
    NotSupportedError = errors.NotSupportedError

    def __init__(self, host: tuple[str, int], params: ConnectParams):
        self.host, self.port = host
        self.params = params
        self.session = core.Session(params.statement_cache_size, params.binary_results)
        self.fetch_size = params.fetch_size
        self._autocommit = bool(params.autocommit)
        self._isolation_level: str | None = None
        self._readonly: bool | None = None
        self._lock = threading.RLock()
        self._streaming: weakref.WeakSet = weakref.WeakSet()  # cursors with open portals
        self._sock: socket.socket | None = net.open_socket(
            self.host, self.port, params.sslmode, params.sslrootcert, params.connect_timeout)
        try:
            # connect_timeout also bounds the startup: a server that accepts but never
            # answers counts as down, and the next host is tried.
            self._sock.settimeout(params.connect_timeout)
            self._drive(core.startup(self.session, params.user, params.password,
                                     params.startup_params()))
            self._sock.settimeout(None)
        except BaseException:
            self._abort()
            raise

    # ------------------------------------------------------------ I/O loop

    def _drive(self, conv: core.Conversation) -> Any:  # the conversation's result
        with self._lock:
            if self._sock is None:
                raise InterfaceError("the connection is closed")
            self.session.hold_closes = bool(self._streaming)
            try:
                req: object = next(conv)
                while True:
                    if req is core.RECV:
                        req = conv.send(self._recv())
                    else:
                        self._send(req)  # type: ignore[arg-type]
                        req = conv.send(None)
            except StopIteration as stop:
                return stop.value
            except OSError as e:
                self._abort()
                raise OperationalError(f"connection to the server lost: {e}") from e
            except errors.DatabaseError:
                raise  # the server's error, raised at ReadyForQuery: the session goes on
            except BaseException:
                self._abort()  # the conversation stopped midway: its state is unknown
                raise

    def _recv(self) -> tuple[bytes, bytes]:
        while (msg := self.session.reader.next()) is None:
            data = self._sock.recv(262144)  # type: ignore[union-attr]
            if not data:
                self._abort()
                raise OperationalError("the server closed the connection")
            self.session.reader.feed(data)
        return msg

    def _send(self, data: bytes) -> None:
        sock = self._sock
        if sock is None:
            raise OSError("the connection is closed")
        if len(data) < 262144:
            sock.sendall(data)
            return
        # A long pipeline: read replies while writing, or both sides could block on full
        # buffers. Non-blocking, because a TLS socket may have to wait for either direction.
        view = memoryview(data)
        sock.setblocking(False)
        try:
            while view:
                readable, writable, _ = select.select([sock], [sock], [])
                if readable:
                    try:
                        chunk = sock.recv(262144)
                    except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                        chunk = None
                    if chunk == b"":
                        raise OSError("the server closed the connection")
                    if chunk:
                        self.session.reader.feed(chunk)
                if writable:
                    try:
                        view = view[sock.send(view[:262144]):]
                    except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                        pass
        finally:
            if self._sock is not None:
                sock.setblocking(True)

    def _abort(self) -> None:
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    # ------------------------------------------------------------ used by cursors

    def _begin(self) -> bytes:
        """Returns the BEGIN to pipeline ahead of a statement, or b'' if none is due."""
        if self._autocommit or self.session.status != "I":
            return b""
        sql = "BEGIN"
        if self._isolation_level:
            sql += f" ISOLATION LEVEL {self._isolation_level}"
        if self._readonly is not None:
            sql += " READ ONLY" if self._readonly else " READ WRITE"
        return p.query(sql)

    def _prepare(self, sql: str, oids: tuple[int, ...], begin: bytes = b"") -> core.Prepared:
        """Returns the cached statement or prepares it (after `begin`, if given)."""
        stmt = self.session.cached(sql, oids)
        if stmt is None:
            name = self.session.next_name("s") if self.session.cache_size > 0 else ""
            conv = core.prepare(self.session, name, sql, oids, begin)
            stmt = self._drive(conv)
            self.session.remember(stmt, oids)
        return stmt

    def _run(self, out: bytes, results: list[core.Result], ready: int = 1,
             copy: core.CopyIO | None = None) -> list[core.Result]:
        out = self.session.pending_closes() + out
        return self._drive(core.run(self.session, out, results, ready, copy))

    def _check(self) -> None:
        if self._sock is None:
            raise InterfaceError("the connection is closed")

    def _finish_flushing(self) -> None:
        """Reads the rest of autocommit streams: the next Sync would end their portals."""
        for cur in list(self._streaming):
            if cur._flushing:
                cur._drain()
                self._streaming.discard(cur)

    def _finish_streams(self) -> None:
        for cur in list(self._streaming):
            cur._drain()
        self._streaming = weakref.WeakSet()

    # ------------------------------------------------------------ PEP 249

    def cursor(self) -> Cursor:
        """Returns a new cursor on this connection."""
        self._check()
        return Cursor(self)

    def commit(self) -> None:
        """Commits the current transaction, if any."""
        self._check()
        self._finish_streams()
        if self.session.status != "I":
            self._run(p.query("COMMIT"), [])

    def rollback(self) -> None:
        """Rolls back the current transaction, if any."""
        self._check()
        self._finish_streams()
        if self.session.status != "I":
            self._run(p.query("ROLLBACK"), [])

    def close(self) -> None:
        """Closes the connection; an open transaction is rolled back by the server."""
        if self._sock is None:
            return
        try:
            with self._lock:
                self._sock.sendall(p.TERMINATE)
        except OSError:
            pass
        self._abort()

    @property
    def closed(self) -> bool:
        return self._sock is None

    @property
    def autocommit(self) -> bool:
        return self._autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        self._check()
        self._finish_flushing()
        if self.session.status != "I":
            raise ProgrammingError("cannot change autocommit inside a transaction")
        self._autocommit = bool(value)

    @property
    def isolation_level(self) -> str | None:
        return self._isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        level = value.upper().replace("_", " ") if value else None
        if level is not None and level not in ISOLATION_LEVELS:
            raise ProgrammingError(f"unknown isolation level {value!r}")
        self._isolation_level = level

    @property
    def readonly(self) -> bool | None:
        return self._readonly

    @readonly.setter
    def readonly(self, value: bool | None) -> None:
        self._readonly = None if value is None else bool(value)

    @property
    def json_loads(self) -> Callable[[str], object] | None:
        """The function decoding json/jsonb values (None: json.loads), like psycopg's
        set_json_loads; SQLAlchemy's json_deserializer goes here."""
        return self.session.json_loads

    @json_loads.setter
    def json_loads(self, fn: Callable[[str], object] | None) -> None:
        self.session.json_loads = fn

    @property
    def transaction_status(self) -> str:
        """Returns the last ReadyForQuery status: 'I' idle, 'T' in a transaction, 'E' failed."""
        return self.session.status

    @property
    def parameters(self) -> dict[str, str]:
        """Returns the server's reported settings (server_version, TimeZone...)."""
        return dict(self.session.parameters)

    @property
    def server_version(self) -> str:
        return self.session.parameters.get("server_version", "")

    @property
    def backend_pid(self) -> int:
        return self.session.pid

    @property
    def notices(self) -> list[dict[str, str]]:
        """Returns NoticeResponse fields received so far (the last 50)."""
        return self.session.notices

    @property
    def notifies(self) -> list[tuple[int, str, str]]:
        """Returns NOTIFY messages received so far as (pid, channel, payload); the caller
        may clear the list. They arrive with the replies to statements, as in psycopg2."""
        return self.session.notifies

    def table(self, name: str) -> Table:
        """Returns the direct (no SQL per row) API of a table: upsert, scan... (driver/table.py)."""
        from cumulo.driver.table import Table  # NB: here, so that pyarrow loads only when used

        return Table(self, name)

    @property
    def metadata(self) -> Metadata:
        """Returns the catalog browser (tables, columns, primary keys, indexes)."""
        return Metadata(self)

    def cancel(self) -> None:
        """Asks the server to cancel the statement running on this connection (thread-safe)."""
        net.send_cancel(self.host, self.port, self.session.pid, self.session.secret)

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """Runs a block in a transaction: commit on success, rollback on an exception."""
        saved = self._autocommit
        if self.session.status == "I":
            self._autocommit = False
        try:
            yield self
        except BaseException:
            if not self.closed:
                self.rollback()
            raise
        else:
            self.commit()
        finally:
            self._autocommit = saved

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        if self.closed:
            return
        if exc_type is None:
            self.commit()
        else:
            self.rollback()

