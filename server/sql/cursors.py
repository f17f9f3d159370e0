"""SQL-level cursors: DECLARE, FETCH, MOVE, CLOSE.

A cursor is a running query plan whose rows are pulled on demand; rows
already pulled are kept, so FETCH BACKWARD / PRIOR / ABSOLUTE work without
re-running the query. One declared NO SCROLL, or declared without SCROLL over a query
whose PostgreSQL plan could not run backward (`cursorscroll`), moves forward only (55000
otherwise). A WITH HOLD cursor is materialised when its
transaction commits, then outlives it; other cursors close at transaction end.
psycopg's server-side cursors DECLARE, then Describe the portal by name
(`Session.cursor_columns`), then FETCH.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import (
    DuplicateCursor,
    InvalidCursorName,
    NoActiveSQLTransaction,
    ObjectNotInPrerequisiteState,
    SyntaxError_,
)
from ..pgwire.backend import Column, Result
from .cursorscroll import backward_capable
from .dml.ctedml import refuse_in
from .parse import parse_sql, unquote_ident
from .privileges.statements import check_needs, needs
from .querystmt import analyse_query
from .stmt import ANY_VERSION, Stmt, syntax_error_at

if TYPE_CHECKING:
    from .session import SQLSession


@dataclass
class Cursor:
    name: str
    columns: list[Column]
    rows: Iterator[tuple[Any, ...]] | None
    hold: bool
    buffer: list[tuple[Any, ...]] = field(default_factory=list)
    pos: int = 0  # rows before the current position: 0 = before the first row
    statement: str = ""  # the DECLARE text, for pg_cursors
    binary: bool = False
    scroll: bool = True  # False: only forward moves (NO SCROLL, or a plan PG cannot reverse)
    created: dt.datetime | None = None

    def _fill(self, upto: int | None) -> None:
        """Pulls rows until the buffer holds `upto` rows (None: all)."""
        if self.rows is None:
            return
        if upto is None:
            self.buffer.extend(self.rows)
            self.rows = None
            return
        while len(self.buffer) < upto:
            row = next(self.rows, None)
            if row is None:
                self.rows = None
                return
            self.buffer.append(row)

    def forward(self, n: int | None) -> list[tuple[Any, ...]]:
        """Returns the next n rows (None: all) and moves past them."""
        self._fill(None if n is None else self.pos + n)
        end = len(self.buffer) if n is None else min(self.pos + n, len(self.buffer))
        start = min(self.pos, len(self.buffer))
        out = self.buffer[start:end]
        self.pos = len(self.buffer) + 1 if n is None or len(out) < n else end
        return out

    def backward(self, n: int | None) -> list[tuple[Any, ...]]:
        """Returns up to n rows before the current one, in reverse order."""
        self._fill(self.pos)
        start = 0 if n is None else max(self.pos - 1 - n, 0)
        hi = min(self.pos - 1, len(self.buffer))
        out = list(reversed(self.buffer[start:hi]))
        self.pos = start + 1 if out and n is not None and len(out) == n else 0
        return out

    def absolute(self, k: int) -> list[tuple[Any, ...]]:
        """Moves to row k (1-based; negative counts from the end) and returns it."""
        if k < 0:
            self._fill(None)
            k = len(self.buffer) + 1 + k
        self._fill(k)
        if 1 <= k <= len(self.buffer):
            self.pos = k
            return [self.buffer[k - 1]]
        self.pos = 0 if k <= 0 else len(self.buffer) + 1
        return []


_DIR = re.compile(r"(FORWARD|BACKWARD|ABSOLUTE|RELATIVE)?\s*(ALL|[+-]?\d+)?$", re.I)


def _move(cur: Cursor, direction: str | None) -> list[tuple[Any, ...]]:
    d = " ".join((direction or "NEXT").upper().split())
    if not cur.scroll and not _forward_only(d, cur):
        raise ObjectNotInPrerequisiteState(
            "cursor can only scan forward",
            hint="Declare it with SCROLL option to enable backward scan.")
    if d in ("NEXT", "FORWARD"):
        return cur.forward(1)
    if d in ("PRIOR", "BACKWARD"):
        return cur.backward(1)
    if d == "FIRST":
        return cur.absolute(1)
    if d == "LAST":
        return cur.absolute(-1)
    m = _DIR.match(d)
    word, count = (m.group(1) or "FORWARD", m.group(2)) if m else ("FORWARD", None)
    n = None if count == "ALL" else int(count or 1)
    if word == "ABSOLUTE":
        return cur.absolute(n or 0)
    if word == "RELATIVE":
        return cur.absolute(cur.pos + (n or 0)) if n else cur.buffer[cur.pos - 1:cur.pos]
    if n == 0:  # FETCH 0, FORWARD 0, BACKWARD 0: the current row again
        return cur.buffer[cur.pos - 1:cur.pos] if cur.pos > 0 else []
    if word == "BACKWARD":
        return cur.backward(n) if n is None or n >= 0 else cur.forward(-n)
    if n is not None and n < 0:
        return cur.backward(-n)
    return cur.forward(n)


def _forward_only(d: str, cur: Cursor) -> bool:
    """Tells whether a FETCH / MOVE direction is allowed on a NO SCROLL cursor."""
    if d in ("NEXT", "FORWARD", "ALL", "FORWARD ALL"):
        return True
    if d in ("FIRST", "LAST", "PRIOR", "BACKWARD", "BACKWARD ALL"):
        return False
    m = _DIR.match(d)
    if m is None or m.group(2) in (None, "ALL"):
        return True
    n = int(m.group(2))
    word = m.group(1) or "FORWARD"
    if word == "ABSOLUTE":
        return n > cur.pos
    return n >= 0 if word in ("FORWARD", "RELATIVE") else n <= 0


def _get(s: SQLSession, name: str) -> Cursor:
    cur = s.cursors.get(name)
    if cur is None:
        raise InvalidCursorName(f'cursor "{name}" does not exist')
    return cur


def analyse_cursor(session: SQLSession, sql: str, kind: str, m: re.Match[str],
                   param_oids: list[int]) -> Stmt:
    """Builds the Stmt of DECLARE, FETCH/MOVE or CLOSE."""
    if kind == "close":
        name = m.group("name")
        key = None if name.upper() == "ALL" else unquote_ident(name)

        def close(s: SQLSession, p: list[Any]) -> Result:
            if key is None:
                s.cursors.clear()
                return Result("CLOSE CURSOR ALL")
            if s.cursors.pop(key, None) is None:
                raise InvalidCursorName(f'cursor "{key}" does not exist')
            return Result("CLOSE CURSOR")

        tag = "CLOSE CURSOR" if key is not None else "CLOSE CURSOR ALL"
        return Stmt(sql, "cursor", close, version=ANY_VERSION, in_txn=False, tag=tag)
    if kind == "fetch":
        name = unquote_ident(m.group("name"))
        verb = m.group("verb").upper()
        direction = m.group("dir")
        cur = session.cursors.get(name)
        cols = cur.columns if cur is not None and verb == "FETCH" else None

        def fetch(s: SQLSession, p: list[Any]) -> Result:
            c = _get(s, name)
            rows = _move(c, direction)
            if verb == "MOVE":
                return Result(f"MOVE {len(rows)}")
            return Result("FETCH", c.columns, iter(rows), done=False)

        def describe(s: SQLSession) -> list[Column] | None:
            c = s.cursors.get(name)
            return None if c is None else c.columns

        return Stmt(sql, "cursor", fetch, cols, version=-1, tag=verb,
                    describe=describe if verb == "FETCH" else None)
    name = unquote_ident(m.group("name"))
    hold = (m.group("hold") or "").strip().upper().startswith("WITH")
    opts = " ".join((m.group("opts") or "").upper().split())
    inner = m.group("query").strip()
    if not inner:  # NB: psycopg's named cursor of an empty query: DECLARE "c" CURSOR FOR
        raise SyntaxError_("syntax error at end of input", position=len(sql) + 1)
    tree = parse_sql(inner)
    if not isinstance(tree, exp.Query | exp.Values):  # DECLARE takes a SELECT or VALUES only
        raise syntax_error_at(inner, offset=max(sql.find(inner), 0))
    refuse_in(tree, "DECLARE CURSOR")
    q = analyse_query(session, inner, tree, param_oids, session.catalog_version())
    wanted = needs(tree)
    # NB: neither SCROLL nor NO SCROLL: scrollable when PostgreSQL's plan could run backward
    scroll = "NO SCROLL" not in opts and ("SCROLL" in opts.split() or backward_capable(tree))

    def declare(s: SQLSession, p: list[Any]) -> Result:
        check_needs(s, wanted)
        if not hold and not s.in_block:
            raise NoActiveSQLTransaction("DECLARE CURSOR can only be used in transaction blocks")
        if name in s.cursors:
            raise DuplicateCursor(f'cursor "{name}" already exists')
        res = s.run_plan(q.plan, p)
        s.cursors[name] = Cursor(name, q.columns or [], res.rows, hold, statement=sql,
                                 binary="BINARY" in opts, scroll=scroll,
                                 created=dt.datetime.now(dt.UTC))
        return Result("DECLARE CURSOR")

    return Stmt(sql, "cursor", declare, None, q.param_oids, q.version, tag="DECLARE CURSOR")


def materialize_held(s: SQLSession) -> None:
    """Reads WITH HOLD cursors to the end before their transaction commits."""
    for cur in s.cursors.values():
        if cur.hold:
            cur._fill(None)


def close_at_txn_end(s: SQLSession) -> None:
    """Closes the cursors that do not outlive their transaction."""
    for name in [n for n, c in s.cursors.items() if not c.hold or c.rows is not None]:
        del s.cursors[name]
