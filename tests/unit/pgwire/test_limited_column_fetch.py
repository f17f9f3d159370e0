"""Execute with a row limit over a result read by columns (a bare scan of cold rows).

Why: drivers stream big results with a fetch size (cumulo.driver, JDBC's setFetchSize,
asyncpg's cursors): each Execute asks for n rows and gets PortalSuspended until the
last. Such a result used to leave the column path for rows (column -> tuple -> column);
now each Execute takes n rows of the column batches, the rest of a batch waiting for
the next. The wire must not change: the same DataRows, n per Execute, PortalSuspended
exactly while rows may remain, and the last Execute's CommandComplete counting its own
rows, as with the row path."""

from __future__ import annotations

import pytest

from cumulo.server.kivi import mvcc
from cumulo.server.pgwire.protocol import Connection
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded
from tests.unit.pgwire import wire as W


@pytest.fixture
def conn(monkeypatch):
    monkeypatch.setattr(mvcc, "FREEZE_ROWS", True)  # cold rows, as `cumulo serve` runs
    engine = SQLEngine(open_embedded(None, gc_interval=None))
    c = Connection(engine)
    c.feed(W.startup("cumulo", "cumulo"))
    c.feed(W.query("CREATE TABLE t (id int PRIMARY KEY, n numeric(10,2), s text)"))
    c.feed(W.query("INSERT INTO t SELECT i, i / 4.0, 'x' || i FROM generate_series(1, 3000) i"))
    c.feed(W.query("VACUUM"))
    return c


def _pages(c: Connection, sql: str, n: int) -> list[list[str]]:
    """Each Execute's messages, until the portal completes."""
    c.feed(W.query("BEGIN"))
    c.feed(W.parse(sql) + W.bind() + W.SYNC)
    pages = []
    while True:
        page = W.summarize(c.feed(W.execute(max_rows=n) + W.FLUSH))
        pages.append(page)
        if page[-1] != "s":
            break
    c.feed(W.SYNC + W.query("COMMIT"))
    return pages


@pytest.mark.parametrize("n", [1, 700, 2999, 3000, 5000])
def test_limited_executes_by_columns_send_what_rows_send(conn, n):
    by_columns = _pages(conn, "SELECT * FROM t", n)
    by_rows = _pages(conn, "SELECT * FROM t ORDER BY id", n)  # NB: a sort: never by columns
    assert by_columns == by_rows
    sizes = [sum(line.startswith("D ") for line in page) for page in by_columns]
    assert sum(sizes) == 3000 and all(s == n for s in sizes[:-1])
    assert by_columns[-1][-1] == f"C SELECT {sizes[-1]}"
