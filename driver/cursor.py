"""The PEP 249 Cursor: execute, executemany, fetch*, streaming through portals.

A statement with one command goes through the extended protocol, as a
cached named statement, and its rows stream in batches of
n = max(arraysize, fetch_size) rows (fetch_size <= 0: all at once);
PortalSuspended means there is more. Inside a transaction: Bind to the
cursor's own portal, then Execute(portal, n) + Sync per batch. In
autocommit a portal would not survive a Sync, so the batches end with Flush
instead and the implicit transaction stays open until the portal is done,
the cursor closes or re-executes (Sync), or another statement needs the
connection (it first reads the rest of the rows, which stay fetchable). Text holding several commands (and
no parameters) goes as one simple Query, each command's result reachable
with nextset().
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from cumulo.driver import copyrows, core
from cumulo.driver import protocol as p
from cumulo.driver.errors import DatabaseError, InterfaceError, ProgrammingError
from cumulo.driver.sqlparams import bind_params

if TYPE_CHECKING:
    from cumulo.driver.connection import Connection


class Cursor:
    """Runs statements and fetches their rows (PEP 249)."""

    def __init__(self, connection: Connection):
        self.connection = connection
        self.arraysize = 1
        self.fetch_size = connection.fetch_size
        self.description: list[tuple] | None = None
        self.rowcount = -1
        self.statusmessage: str | None = None
        self.query: str | None = None
        self.lastrowid = None
        self._results: list[core.Result] = []
        self._rows: list[tuple] = []
        self._pos = 0
        self._fetched = 0
        self._portal = ""
        self._suspended = False
        self._flushing = False  # streaming in autocommit: the implicit transaction is open
        self._closed = False

    # ------------------------------------------------------------ execute

    def execute(self, operation: str, parameters: Sequence | Mapping | None = None) -> Cursor:
        """Runs one statement (or several, without parameters)."""
        self._check()
        self._reset()
        self.connection._finish_flushing()
        self.query = operation
        sql, values, multi = bind_params(operation, parameters)
        if multi and not values:
            self._simple(sql)
            return self
        oids, encoded = core.encode_params(values)
        try:
            self._extended(sql, oids, encoded)
        except DatabaseError as e:
            if not (core.is_stale(e) and self._retryable()):
                if core.is_stale(e):
                    self.connection.session.forget(sql, oids)
                raise
            self.connection.session.forget(sql, oids)
            if self.connection.session.status == "E":
                self.connection._run(p.query("ROLLBACK"), [])
            self._extended(sql, oids, encoded)
        return self

    def _retryable(self) -> bool:
        # Retry only when the failed statement was the transaction's first (or autocommit).
        return self._began or self.connection.autocommit

    def _extended(self, sql: str, oids: tuple[int, ...], encoded: list) -> None:
        conn = self.connection
        begin = conn._begin()
        self._began = bool(begin)
        stmt = conn._prepare(sql, oids, begin)
        begin = conn._begin()  # b"" now, unless the statement was cached
        in_txn = bool(begin) or conn.session.status != "I"
        batch = self._batch() if stmt.columns else 0
        flush = bool(batch) and not in_txn  # autocommit: stream inside an implicit transaction
        if batch and in_txn:
            self._portal = self._portal or conn.session.next_name("p")
            out = begin + p.close(b"P", self._portal)
        else:
            self._portal, out = "", begin
        out += core.execute_message(conn.session, stmt, encoded, self._portal, batch)
        results = [core.Result()] * bool(begin) + [core.new_result(stmt)]
        if flush:
            self._take(conn._run(out + p.FLUSH, results, 0))
            self._flushing = self._suspended
        else:
            self._take(conn._run(out + p.SYNC, results, 1 + bool(begin))[bool(begin):])

    def _batch(self) -> int:
        """Rows per Execute when streaming; 0 (every row at once) when fetch_size <= 0."""
        return max(self.arraysize, self.fetch_size) if self.fetch_size > 0 else 0

    def _simple(self, sql: str, copy: core.CopyIO | None = None) -> None:
        conn = self.connection
        begin = conn._begin()
        self._began = bool(begin)
        results = [core.Result()] * bool(begin)
        self._take(conn._run(begin + p.query(sql), results, 1 + bool(begin), copy)[bool(begin):])

    def executemany(self, operation: str, seq_of_parameters: Sequence) -> Cursor:
        """Runs a statement once per parameter set, as one pipeline with a single Sync."""
        self._check()
        self._reset()
        self.connection._finish_flushing()
        self.query = operation
        rows = []
        sql = operation
        for params in seq_of_parameters:
            sql, values, _ = bind_params(operation, params)
            rows.append(core.encode_params(values)[1])
        conn = self.connection
        total, results = 0, []
        for oids, run in core.batch_runs(rows):
            stmt = conn._prepare(sql, oids, conn._begin())
            begin = conn._begin()
            out = begin + core.execute_many(conn.session, stmt, run)
            res = [core.Result()] * bool(begin) + [core.new_result(stmt) for _ in run]
            results = conn._run(out + p.SYNC, res, 1 + bool(begin))[bool(begin):]
            total += sum(max(r.rowcount, 0) for r in results)
        self.rowcount = total if rows else 0
        if results and results[-1].columns is not None:
            self._take(results[-1:])
            self.rowcount = total
        return self

    def _take(self, results: list[core.Result]) -> None:
        self._results = results
        self._show(results[0] if results else core.Result())

    def _show(self, res: core.Result) -> None:
        self.description = core.description(res.columns)
        self._rows, self._pos, self._fetched = res.rows, 0, len(res.rows)
        self._suspended = res.suspended
        self.statusmessage = res.tag
        self.rowcount = res.rowcount
        if res.suspended:
            self.connection._streaming.add(self)
            self._result = res
        elif self._portal:
            self._close_portal()

    def _more(self) -> bool:
        """Fetches the next batch from the suspended portal; False when none is left."""
        if not self._suspended:
            return False
        self._load(max(self.arraysize, self.fetch_size, 1))
        return True

    def _load(self, max_rows: int) -> None:
        conn = self.connection
        res = core.Result(self._result.columns, self._result.decoders)
        try:
            if self._flushing and max_rows:
                msg = core.fetch_message(conn.session, self._portal, max_rows, p.FLUSH)
                conn._run(msg, [res], 0)
            else:
                conn._run(core.fetch_message(conn.session, self._portal, max_rows), [res])
        except BaseException:
            # The portal failed (and, in autocommit, its implicit transaction ended).
            self._suspended = self._flushing = False
            self._rows, self._pos = [], 0
            conn._streaming.discard(self)
            raise
        self._flushing = self._flushing and res.suspended
        if not res.suspended and self._portal:
            self._close_portal()
        self._rows, self._pos = res.rows, 0
        self._fetched += len(res.rows)
        self._suspended = res.suspended
        if not res.suspended:
            # The last Execute's tag counts only its own rows: report the portal's total.
            tag = res.tag or ""
            self.statusmessage = f"SELECT {self._fetched}" if tag.startswith("SELECT") else tag
            self.rowcount = self._fetched
            conn._streaming.discard(self)

    def _drain(self) -> None:
        """Reads every row left in the portal, before the transaction ends."""
        if self._suspended and not self.connection.closed:
            rest = self._rows[self._pos :]
            self._load(0)
            self._rows = rest + self._rows

    def _close_portal(self) -> None:
        """Has the named portal closed ahead of the next pipeline (no round trip)."""
        self.connection.session.portals_to_close.append(self._portal)
        self._portal = ""

    def _end_stream(self) -> None:
        """Drops what is left of this cursor's portal."""
        if self._suspended:
            self.connection._streaming.discard(self)
            if self._flushing and not self.connection.closed:
                self._flushing = False
                self.connection._run(p.SYNC, [])  # ends the implicit transaction and portal
            elif self._portal:
                self._close_portal()

    def _reset(self) -> None:
        self._end_stream()
        self._results, self._rows, self._pos, self._suspended = [], [], 0, False
        self.description, self.rowcount, self.statusmessage = None, -1, None
        self._began = False

    # ------------------------------------------------------------ fetch

    def fetchone(self) -> tuple | None:
        """Returns the next row, or None when there are no more."""
        self._check_result()
        if self._pos >= len(self._rows) and not self._more():
            return None
        if self._pos >= len(self._rows):
            return None
        row = self._rows[self._pos]
        self._pos += 1
        return row

    def fetchmany(self, size: int | None = None) -> list[tuple]:
        """Returns up to `size` (default arraysize) more rows."""
        self._check_result()
        size = self.arraysize if size is None else size
        out: list[tuple] = []
        while len(out) < size:
            if self._pos >= len(self._rows) and not self._more():
                break
            take = self._rows[self._pos : self._pos + size - len(out)]
            self._pos += len(take)
            out.extend(take)
        return out

    def fetchall(self) -> list[tuple]:
        """Returns every remaining row: what a suspended portal still holds comes in one
        Execute, not in fetch_size batches (a round trip and a portal resume each)."""
        self._check_result()
        out = self._rows[self._pos :]
        if self._suspended:
            self._load(0)
            out.extend(self._rows)
        self._pos = len(self._rows)
        return out

    def __iter__(self) -> Iterator[tuple]:
        return self

    def __next__(self) -> tuple:
        row = self.fetchone()
        if row is None:
            raise StopIteration
        return row

    def nextset(self) -> bool | None:
        """Moves to the next result of a multi-statement execute; None when there is none."""
        self._check()
        if len(self._results) <= 1:
            self._results = []
            return None
        self._results.pop(0)
        self._show(self._results[0])
        return True

    def callproc(self, procname: str, parameters: Sequence = ()) -> Sequence:
        """Calls a function and makes its result the cursor's rows; returns the parameters."""
        marks = ", ".join(["%s"] * len(parameters))
        self.execute(f"SELECT * FROM {procname}({marks})", list(parameters))
        return parameters

    # ------------------------------------------------------------ COPY

    def copy_expert(self, sql: str, file: object) -> int:
        """Runs COPY ... FROM STDIN reading `file`, or COPY ... TO STDOUT writing to it."""
        self._check()
        self._reset()
        self.connection._finish_flushing()
        text = isinstance(file, io.TextIOBase)
        write = getattr(file, "write", None)
        if write is not None and text:
            raw_write = write
            write = lambda b: raw_write(b.decode())  # noqa: E731
        copy = core.CopyIO(read=getattr(file, "read", None), write=write)
        self._simple(sql, copy)
        return self.rowcount

    def copy_records(self, table: str, records: Iterable[Sequence],
                     columns: Sequence[str] | None = None, schema: str | None = None) -> int:
        """Loads rows into a table with one COPY (see copyrows.py); returns the row count."""
        reader = copyrows.ChunkReader(records)
        return self.copy_expert(copyrows.copy_statement(table, columns, schema), reader)

    # ------------------------------------------------------------ PEP 249 odds and ends

    def setinputsizes(self, sizes: object) -> None:
        """Does nothing: parameter types come from the values (PEP 249 allows this)."""

    def setoutputsize(self, size: int, column: int | None = None) -> None:
        """Does nothing: results are never truncated (PEP 249 allows this)."""

    @property
    def rownumber(self) -> int | None:
        if self.description is None:
            return None
        return self._fetched - len(self._rows) + self._pos

    def close(self) -> None:
        """Closes the cursor; its portal is closed by the server at transaction end."""
        self._end_stream()
        self._closed = True
        self._rows, self._results, self._suspended = [], [], False

    @property
    def closed(self) -> bool:
        return self._closed or self.connection.closed

    def _check(self) -> None:
        if self._closed:
            raise InterfaceError("the cursor is closed")
        self.connection._check()

    def _check_result(self) -> None:
        self._check()
        if self.description is None:
            raise ProgrammingError("the last statement returned no rows")

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
