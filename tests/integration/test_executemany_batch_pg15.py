"""executemany of a prepared INSERT, against a throwaway PostgreSQL 15.

pgwire holds pipelined Executes of a one-row INSERT and runs them as one bulk
write (`server/pgwire/insertbatch.py`, `server/sql/batchexec.py`,
`server/sql/dml/batchinsert.py`); a failed bulk write is rolled back and replayed
row by row. Each case here loads the same rows into both servers through the
four clients' own executemany, which send different messages:

- psycopg: Parse once, then Bind/Describe/Execute per row and one Sync (pipeline);
- asyncpg: Bind/Execute per row and one Sync;
- cumulo.driver: Bind/Execute per row and one Sync;
- pg8000: Parse/Bind/Execute/Sync per row (nothing to batch: the row path).

Each is run in autocommit (the pipeline is one implicit transaction up to its
Sync) and inside an explicit transaction (then rolled back to a savepoint, or
committed). Compared: the error (SQLSTATE, message, DETAIL: the DETAIL names the
row that failed), and the table's rows and the sequence's next value afterwards.
The cases put the failure on a row inside the batch, and give rows whose bulk
write fails on one check while the row path fails earlier on another.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from decimal import Decimal
from typing import Any

import pg8000.dbapi
import psycopg
import pytest

import cumulo.driver as drv

asyncpg = pytest.importorskip("asyncpg")

N = 300
BASE = dt.datetime(2024, 1, 1)
WIDE = ("CREATE TABLE em (id bigint PRIMARY KEY, g int NOT NULL, amount numeric(12,2), "
        "note varchar(20), ts timestamp, flag boolean)")
WIDE_SQL = "INSERT INTO em VALUES ($1, $2, $3, $4, $5, $6)"


def _wide(n: int = N) -> list[tuple]:
    return [(i, i % 1000, Decimal(f"{i % 1000}.25"), f"note {i}", BASE + dt.timedelta(seconds=i),
             i % 2 == 0) for i in range(1, n + 1)]


IW = "CREATE TABLE iw (id bigint PRIMARY KEY, s smallint, n numeric(12,0), i int)"
IW_SQL = "INSERT INTO iw VALUES ($1, $2, $3::bigint, $4)"


def _iw(i: int) -> tuple[int, int, int, int]:
    return (i, i * 7 if i % 3 else -i, i if i % 2 else i * 100_000 + i * 10 ** 9 * (i % 5 == 0),
            i * 1000 if i % 4 else -i)


def _with(rows: list[tuple], at: int, row: tuple) -> list[tuple]:
    out = list(rows)
    out[at] = row
    return out


# name -> (setup statements, INSERT with $n, rows, query that shows the outcome)
CASES: dict[str, tuple[list[str], str, list[tuple], str]] = {
    "all rows": ([WIDE], WIDE_SQL, _wide(), "SELECT * FROM em ORDER BY id"),
    "duplicate key inside the run": (
        [WIDE], WIDE_SQL, _with(_wide(), 211, (17, 1, Decimal(1), "dup", BASE, True)),
        "SELECT count(*) FROM em"),
    "duplicate of a stored row": (
        [WIDE, "INSERT INTO em VALUES (250, 0, 0, 'old', NULL, NULL)"], WIDE_SQL, _wide(),
        "SELECT * FROM em ORDER BY id"),
    "not null late, check earlier": (
        # the bulk write checks NOT NULL for every row before CHECK; row by row, the CHECK of
        # row 101 fails first
        [WIDE, "ALTER TABLE em ADD CONSTRAINT pos CHECK (amount >= 0)"], WIDE_SQL,
        _with(_with(_wide(), 250, (251, None, Decimal(1), "n", BASE, True)), 100,
              (101, 1, Decimal(-1), "neg", BASE, False)),
        "SELECT count(*) FROM em"),
    "check late, duplicate earlier": (
        # the bulk write runs every row's CHECK before any key check; row by row, the
        # duplicate key of row 101 fails first
        [WIDE, "ALTER TABLE em ADD CONSTRAINT pos CHECK (amount >= 0)"], WIDE_SQL,
        _with(_with(_wide(), 250, (251, 1, Decimal(-1), "neg", BASE, True)), 100,
              (5, 1, Decimal(1), "dup", BASE, False)),
        "SELECT count(*) FROM em"),
    "numeric overflow": (
        [WIDE], WIDE_SQL, _with(_wide(), 150, (151, 1, Decimal("12345678901.5"), "x", BASE, True)),
        "SELECT count(*) FROM em"),
    "varchar too long": (
        [WIDE], WIDE_SQL, _with(_wide(), 90, (91, 1, Decimal(1), "x" * 21, BASE, True)),
        "SELECT count(*) FROM em"),
    "unique secondary index": (
        ["CREATE TABLE us (id int PRIMARY KEY, email text UNIQUE, n int)"],
        "INSERT INTO us VALUES ($1, $2, $3)",
        [(i, f"u{i % 200}@x", i) for i in range(1, N + 1)], "SELECT count(*) FROM us"),
    "foreign key": (
        ["CREATE TABLE par (id int PRIMARY KEY)",
         "INSERT INTO par SELECT g FROM generate_series(1, 50) g",
         "CREATE TABLE kid (id int PRIMARY KEY, par int REFERENCES par, s text)"],
        "INSERT INTO kid VALUES ($1, $2, $3)",
        [(i, i % 50 + 1 if i != 177 else 99, f"s{i}") for i in range(1, N + 1)],
        "SELECT count(*) FROM kid"),
    "foreign key all present": (
        ["CREATE TABLE par (id int PRIMARY KEY)",
         "INSERT INTO par SELECT g FROM generate_series(1, 50) g",
         "CREATE TABLE kid (id int PRIMARY KEY, par int REFERENCES par, s text)"],
        "INSERT INTO kid VALUES ($1, $2, $3)",
        [(i, i % 50 + 1, f"s{i}") for i in range(1, N + 1)], "SELECT * FROM kid ORDER BY id"),
    "self reference to a later row": (
        ["CREATE TABLE tree (id int PRIMARY KEY, up int REFERENCES tree)"],
        "INSERT INTO tree VALUES ($1, $2)",
        [(i, None if i == 1 else (i - 1 if i != 120 else 121)) for i in range(1, N + 1)],
        "SELECT count(*) FROM tree"),
    "defaults and a column list": (
        ["CREATE TABLE df (id int PRIMARY KEY, a text DEFAULT 'dflt', b int DEFAULT 7, "
         "c numeric(6,2) DEFAULT 1.255, t timestamptz DEFAULT now(), g int GENERATED ALWAYS "
         "AS (id * 2) STORED, d int)"],
        "INSERT INTO df (id, d) VALUES ($1, $2)", [(i, i * 3) for i in range(1, N + 1)],
        "SELECT id, a, b, c, g, d, t IS NOT NULL FROM df ORDER BY id"),
    "explicit DEFAULT and literals": (
        ["CREATE TABLE dl (id int PRIMARY KEY, a text DEFAULT 'z', k int, s text)"],
        "INSERT INTO dl VALUES ($1, DEFAULT, 5, $2::text)",
        [(i, f"v{i}") for i in range(1, N + 1)], "SELECT * FROM dl ORDER BY id"),
    "serial, failing": (
        ["CREATE TABLE se (id serial PRIMARY KEY, u int UNIQUE)"],
        "INSERT INTO se (u) VALUES ($1)", [(i if i != 200 else 3,) for i in range(1, N + 1)],
        "SELECT nextval('se_id_seq'), count(*) FROM se"),
    "identity": (
        ["CREATE TABLE idn (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, u int)"],
        "INSERT INTO idn (u) VALUES ($1)", [(i,) for i in range(1, N + 1)],
        "SELECT * FROM idn ORDER BY id"),
    "returning and serial, failing": (
        ["CREATE TABLE rt (id serial PRIMARY KEY, u int UNIQUE, s text)"],
        "INSERT INTO rt (u, s) VALUES ($1, $2) RETURNING rt.id, u",
        [(i if i != 200 else 3, f"s{i}") for i in range(1, N + 1)],
        "SELECT nextval('rt_id_seq'), count(*), sum(id) FROM rt"),
    "identity by default, DEFAULT, failing": (
        ["CREATE TABLE ib (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, "
         "n int CHECK (n <> 150))"],
        "INSERT INTO ib VALUES (DEFAULT, $1)", [(i,) for i in range(1, N + 1)],
        "SELECT nextval(pg_get_serial_sequence('ib', 'id')), count(*), sum(id) FROM ib"),
    "no primary key": (
        ["CREATE TABLE heap (a int, b text)"], "INSERT INTO heap VALUES ($1, $2)",
        [(i % 7, f"b{i}") for i in range(1, N + 1)], "SELECT a, b, count(*) FROM heap "
                                                      "GROUP BY a, b ORDER BY a, b"),
    "on conflict do nothing": (
        ["CREATE TABLE oc (id int PRIMARY KEY, n int)"],
        "INSERT INTO oc VALUES ($1, $2) ON CONFLICT DO NOTHING",
        [(i % 120, i) for i in range(1, N + 1)], "SELECT * FROM oc ORDER BY id"),
    # psycopg types each integer by its value: these rows alternate between int2, int4 and
    # int8 statements of one text, which pgwire runs together as the widest one
    "integer widths alternate": (
        [IW], IW_SQL, [_iw(i) for i in range(1, N + 1)], "SELECT * FROM iw ORDER BY id"),
    "integer widths, smallint out of range inside": (
        [IW], IW_SQL, [_iw(i) if i != 170 else (170, 40000, 1, 1) for i in range(1, N + 1)],
        "SELECT * FROM iw ORDER BY id"),
    "integer widths, integer out of range inside": (
        [IW], IW_SQL, [_iw(i) if i != 230 else (230, 7, 1, 2 ** 40) for i in range(1, N + 1)],
        "SELECT * FROM iw ORDER BY id"),
}

CLIENTS = ["psycopg", "asyncpg", "cumulo.driver", "pg8000"]
MODES = ["autocommit", "transaction"]


def _outcome(e: BaseException) -> tuple[str, ...]:
    """(SQLSTATE, message, DETAIL) of a client's exception, whichever client raised it."""
    if isinstance(e, psycopg.Error):
        d = e.diag
        return ("error", d.sqlstate or "", d.message_primary or "", d.message_detail or "")
    if isinstance(e, asyncpg.PostgresError):
        return ("error", e.sqlstate, e.message, e.detail or "")
    if isinstance(e, pg8000.dbapi.DatabaseError) and e.args and isinstance(e.args[0], dict):
        f = e.args[0]
        return ("error", f.get("C", ""), f.get("M", ""), f.get("D", ""))
    if isinstance(e, drv.Error):
        return ("error", e.sqlstate or "", e.fields.get("M", ""), e.detail or "")
    raise e


def _percent(sql: str) -> str:
    return re.sub(r"\$\d+", "%s", sql)


def _load(client: str, dsn: str, mode: str, sql: str, rows: list[tuple]) -> tuple[str, ...]:
    """Runs the executemany; in 'transaction' mode inside BEGIN … SAVEPOINT, rolled back to
    the savepoint after a failure (then one more row goes in) and committed."""
    tx = mode == "transaction"
    if client == "asyncpg":
        async def go() -> tuple[str, ...]:
            conn = await asyncpg.connect(dsn, ssl=False)
            try:
                if tx:
                    await conn.execute("BEGIN")
                    await conn.execute("SAVEPOINT s")
                try:
                    await conn.executemany(sql, rows)
                    out: tuple[str, ...] = ("ok",)
                except asyncpg.PostgresError as e:
                    out = _outcome(e)
                    if tx:
                        await conn.execute("ROLLBACK TO SAVEPOINT s")
                if tx:
                    await conn.execute("COMMIT")
                return out
            finally:
                await conn.close()

        return asyncio.run(go())
    if client == "psycopg":
        conn: Any = psycopg.connect(dsn, autocommit=not tx)
    elif client == "pg8000":
        m = re.match(r"postgresql://(\w+)(?::([^@]+))?@([\d.]+):(\d+)/(\w+)", dsn)
        assert m is not None
        conn = pg8000.dbapi.connect(user=m[1], password=m[2], host=m[3], port=int(m[4]),
                                    database=m[5])
        conn.autocommit = not tx
    else:
        conn = drv.connect(dsn)
        conn.autocommit = not tx
    try:
        cur = conn.cursor()
        if tx:
            cur.execute("SAVEPOINT s")
        try:
            cur.executemany(_percent(sql), rows)
            out = ("ok",)
        except Exception as e:
            out = _outcome(e)
            if tx:
                cur.execute("ROLLBACK TO SAVEPOINT s")
        if tx:
            conn.commit()
        return out
    finally:
        conn.close()


def _run(dsn: str, client: str, mode: str, case: str) -> tuple[Any, ...]:
    setup, sql, rows, check = CASES[case]
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS em, us, kid, par, tree, df, dl, se, idn, heap, oc, "
                     "rt, ib, iw")
        for stmt in setup:
            conn.execute(stmt)
    outcome = _load(client, dsn, mode, sql, rows)
    with psycopg.connect(dsn, autocommit=True) as conn:
        return outcome, conn.execute(check).fetchall()


@pytest.fixture(scope="module")
def dsns(cumulo_server, pg15):
    return cumulo_server.dsn(), pg15.dsn()


# NB: only psycopg types integers by value; the other clients add nothing to those cases
PAIRS = [(case, client) for case in CASES for client in CLIENTS
         if client == "psycopg" or not case.startswith("integer widths")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("case", "client"), PAIRS)
def test_executemany_matches_postgresql(case, client, mode, dsns):
    ours, theirs = (_run(dsn, client, mode, case) for dsn in dsns)
    assert ours[0] == theirs[0]  # the same error, naming the same row, or none
    assert ours[1] == theirs[1]  # the same rows stored (and sequence position)
    if case in ("all rows", "foreign key all present", "defaults and a column list",
                "integer widths alternate"):
        assert ours[0] == ("ok",) and len(ours[1]) == N
    elif case not in ("identity", "no primary key", "on conflict do nothing",
                      "explicit DEFAULT and literals"):
        assert ours[0][0] == "error"  # NB: each of these cases has a failing row


def _returned(dsn: str, client: str, mode: str) -> tuple[Any, ...]:
    """Each row's RETURNING row as the client reads it, then the table and the sequence."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS rt")
        conn.execute("CREATE TABLE rt (id serial PRIMARY KEY, u int UNIQUE, s text)")
    sql = "INSERT INTO rt (u, s) VALUES (%s, %s) RETURNING rt.id, u, s"
    rows = [(i, f"s{i}") for i in range(1, 120)]
    conn: Any = (psycopg.connect(dsn, autocommit=mode == "autocommit") if client == "psycopg"
                 else drv.connect(dsn))
    if client != "psycopg":
        conn.autocommit = mode == "autocommit"
    try:
        cur = conn.cursor()
        got: list[Any] = []
        if client == "psycopg":
            cur.executemany(sql, rows, returning=True)
            while True:
                got.append(cur.fetchall())
                if not cur.nextset():
                    break
        else:
            cur.executemany(sql, rows)
            got.append(cur.fetchall())  # NB: cumulo.driver keeps the last execution's rows
        got.append(cur.rowcount)
        try:  # a failing row after a good run: the same error, the same sequence afterwards
            cur.executemany(sql, [(200, "a"), (201, "b"), (5, "dup"), (202, "c")])
            got.append("ok")
        except (psycopg.Error, drv.Error) as e:
            got.append(_outcome(e))
        if mode != "autocommit":
            conn.rollback()
    finally:
        conn.close()
    with psycopg.connect(dsn, autocommit=True) as check:
        got.append(check.execute("SELECT nextval('rt_id_seq'), count(*) FROM rt").fetchall())
    return tuple(got)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("client", ["psycopg", "cumulo.driver"])
def test_executemany_returning_rows_match_postgresql(client, mode, dsns):
    ours, theirs = (_returned(dsn, client, mode) for dsn in dsns)
    assert ours == theirs
    assert ours[0] == [(1 if client == "psycopg" else 119, 1 if client == "psycopg" else 119,
                        "s1" if client == "psycopg" else "s119")]
    assert ours[-2][0] == "error" and ours[-2][1] == "23505"
