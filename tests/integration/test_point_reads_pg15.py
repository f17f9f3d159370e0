"""Primary-key reads on their fast paths, against PostgreSQL 15 (issue 12).

A `SELECT cols FROM t WHERE pk = $1` runs as one KiVi get (plan/pointread.py),
and a simple-protocol text that differs from an earlier one only in its
trailing integer reuses that text's normalised plan (sql/inttail.py). Both
are shortcuts around machinery that enforces semantics, so each test here
runs one script on both servers and compares everything a client sees: rows
and SQLSTATEs through search_path changes, DROP/CREATE, ALTER TABLE (a
prepared statement's 0A000 "cached plan must not change result type"), role
changes and privileges, a transaction's own writes, REPEATABLE READ
snapshots, NULL and out-of-range keys, composite keys, and a statement_timeout
or cancel on the statement before. Clients: psycopg (server-side prepared
statements, and ClientCursor for the simple protocol), asyncpg (named
statements, binary), pg8000 and cumulo.driver.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import asyncpg
import pg8000.native
import psycopg

import cumulo.driver as drv
from tests.pg15 import PASSWORD

SETUP = [
    "DROP SCHEMA IF EXISTS pr_a CASCADE",
    "DROP SCHEMA IF EXISTS pr_b CASCADE",
    "CREATE SCHEMA pr_a",
    "CREATE SCHEMA pr_b",
    "CREATE TABLE pr_a.acc (id int PRIMARY KEY, v text, n int)",
    "CREATE TABLE pr_b.acc (id int PRIMARY KEY, v text, n int)",
    "INSERT INTO pr_a.acc SELECT g, 'a' || g, g * 10 FROM generate_series(1, 20) g",
    "INSERT INTO pr_b.acc SELECT g, 'b' || g, g * 100 FROM generate_series(1, 20) g",
    "INSERT INTO pr_a.acc VALUES (2147483647, 'int4 max', 0), (-2147483648, 'int4 min', 0)",
    "CREATE TABLE pr_a.big (id bigint PRIMARY KEY, v text)",
    "INSERT INTO pr_a.big VALUES (2147483648, 'past int4'), (9223372036854775807, 'int8 max'),"
    " (-2147483648, 'int4 min'), (7, 'seven')",
    "CREATE TABLE pr_a.kv (a int, b text, v int, PRIMARY KEY (a, b))",
    "INSERT INTO pr_a.kv VALUES (1, 'x', 10), (1, 'y', 11), (2, 'x', 20)",
]


def _outcome(fn: Callable[[], Any]) -> Any:
    """The rows a statement returned, or its SQLSTATE."""
    try:
        return fn()
    except (psycopg.Error, asyncpg.PostgresError, pg8000.native.DatabaseError,
            drv.DatabaseError) as e:
        for attr in ("sqlstate",):
            code = getattr(e, attr, None)
            if code:
                return ("error", code)
        return ("error", e.args[0]["C"])  # pg8000


# -- psycopg: the whole script, both protocols ----------------------------------------


def _psycopg_script(dsn: str, other_dsn: str) -> list[Any]:
    seen: list[Any] = []
    with psycopg.connect(dsn, autocommit=True) as c, \
            psycopg.connect(other_dsn, autocommit=True) as other:
        for sql in SETUP:
            c.execute(sql)
        simple = psycopg.ClientCursor(c)  # literals inlined: the simple query protocol

        def prep(sql: str, *args: Any) -> Any:
            return _outcome(lambda: c.execute(sql, args, prepare=True).fetchall())

        def text(sql: str) -> Any:
            return _outcome(lambda: simple.execute(sql).fetchall())

        point = "SELECT v, n FROM acc WHERE id = %s"
        c.execute("SET search_path = pr_a")
        seen += [prep(point, 1), prep(point, 2), prep(point, 99), prep(point, None)]
        for k in range(3, 9):  # the plan counts go on as PostgreSQL's (5 custom, then generic)
            prep(point, k)
        seen.append(text("SELECT generic_plans, custom_plans FROM pg_prepared_statements"
                         " WHERE statement = 'SELECT v, n FROM acc WHERE id = $1'"))
        seen += [text(f"SELECT v FROM acc WHERE id = {k}") for k in (1, 2, 3, 99, 7)]
        c.execute("SET search_path = pr_b")  # the same texts now name another table
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 3"),
                 text("SELECT v FROM acc WHERE id = 4")]
        c.execute("SET search_path = pr_a")
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 5")]
        # integers at the edges of int4 and int8, leading zeros, a minus sign
        for k in ("2147483647", "2147483648", "-2147483648", "007", "9223372036854775807",
                  "9223372036854775808", "0"):
            seen.append(text(f"SELECT v FROM acc WHERE id = {k}"))
            seen.append(text(f"SELECT v FROM big WHERE id = {k}"))
        seen += [text("SELECT v FROM acc WHERE id = 6;"), text("SELECT v FROM acc WHERE id = 8 ;")]
        seen.append(sorted(prep("SELECT v FROM acc WHERE id IN (%s, %s, %s)", 1, 3, 99)))
        seen += [prep("SELECT v FROM kv WHERE a = %s AND b = %s", 1, "y"),
                 prep("SELECT v FROM kv WHERE a = %s AND b = %s", 2, "y"),
                 text("SELECT v FROM kv WHERE a = 1 AND b = 'x'")]
        # a transaction's own writes, then its rollback
        c.execute("BEGIN")
        c.execute("UPDATE acc SET v = 'mine' WHERE id = 1")
        c.execute("DELETE FROM acc WHERE id = 2")
        c.execute("INSERT INTO acc VALUES (50, 'new', 0)")
        seen += [prep(point, 1), prep(point, 2), prep(point, 50), text("SELECT v FROM acc WHERE id = 50")]
        c.execute("ROLLBACK")
        seen += [prep(point, 1), prep(point, 2), prep(point, 50)]
        # REPEATABLE READ keeps its snapshot; READ COMMITTED sees the new commit
        c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        seen.append(prep(point, 3))
        other.execute("UPDATE pr_a.acc SET v = 'theirs' WHERE id = 3")
        seen += [prep(point, 3), text("SELECT v FROM acc WHERE id = 3")]
        c.execute("COMMIT")
        seen += [prep(point, 3), text("SELECT v FROM acc WHERE id = 3")]
        # DROP and CREATE under the same name: the cached plans must not read the old table
        c.execute("DROP TABLE acc")
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1")]
        c.execute("CREATE TABLE acc (id int PRIMARY KEY, v text, n int)")
        c.execute("INSERT INTO acc VALUES (1, 'recreated', 1)")
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1"),
                 text("SELECT v FROM acc WHERE id = 2")]
        # a new column: SELECT * of a prepared statement changes its result type (0A000)
        star = "SELECT * FROM acc WHERE id = %s"
        seen.append(prep(star, 1))
        c.execute("ALTER TABLE acc ADD COLUMN extra int DEFAULT 5")
        seen += [prep(star, 1), text("SELECT * FROM acc WHERE id = 1"), prep(point, 1)]
        # roles and privileges: every run checks them, even a cached point read
        c.execute("DROP ROLE IF EXISTS pr_reader")
        c.execute("CREATE ROLE pr_reader")
        c.execute("GRANT USAGE ON SCHEMA pr_a TO pr_reader")
        c.execute("SET ROLE pr_reader")
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1")]
        c.execute("RESET ROLE")
        c.execute("GRANT SELECT ON acc TO pr_reader")
        c.execute("SET ROLE pr_reader")
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1")]
        c.execute("RESET ROLE")
        c.execute("REVOKE SELECT ON acc FROM pr_reader")
        c.execute("SET ROLE pr_reader")
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1")]
        c.execute("RESET ROLE")
        # a statement_timeout that fired, and a cancel, leave nothing behind
        c.execute("SET statement_timeout = '100ms'")
        seen.append(text("SELECT pg_sleep(2)"))
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1")]
        time.sleep(0.3)  # NB: a timer left armed would cancel the next statement
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1")]
        c.execute("RESET statement_timeout")
        timer = threading.Timer(0.3, c.cancel)
        timer.start()
        seen.append(text("SELECT pg_sleep(5)"))
        timer.join()
        seen += [prep(point, 1), text("SELECT v FROM acc WHERE id = 1")]
        c.execute("REVOKE USAGE ON SCHEMA pr_a FROM pr_reader")
        c.execute("DROP ROLE pr_reader")
        c.execute("DROP SCHEMA pr_a CASCADE")
        c.execute("DROP SCHEMA pr_b CASCADE")
    return seen


def test_psycopg_point_reads_match_pg15(pg15, cumulo_server):
    want = _psycopg_script(pg15.dsn(), pg15.dsn())
    got = _psycopg_script(cumulo_server.dsn(), cumulo_server.dsn())
    assert got == want
    # the script exercises what it claims to
    # NB: psycopg deallocates its prepared statements after DDL, so no 0A000 here (asyncpg's
    # test below gets it)
    assert ("error", "42501") in want and ("error", "57014") in want
    assert ("error", "42P01") in want and [(1, "recreated", 1, 5)] in want
    assert [("mine", 10)] in want and [("theirs",)] in want


# -- the other clients: search_path, DROP/CREATE, ALTER, privileges ---------------------


def _short_setup(run: Callable[[str], Any]) -> None:
    for sql in SETUP[:8]:
        run(sql)


async def _asyncpg_script(dsn: str) -> list[Any]:
    conn = await asyncpg.connect(dsn)
    seen: list[Any] = []

    async def fetch(sql: str, *args: Any) -> Any:
        try:
            return [tuple(r) for r in await conn.fetch(sql, *args)]
        except asyncpg.PostgresError as e:
            return ("error", e.sqlstate)

    try:
        for sql in SETUP[:8]:
            await conn.execute(sql)
        await conn.execute("SET search_path = pr_a")
        point = "SELECT v, n FROM acc WHERE id = $1"
        seen += [await fetch(point, k) for k in (1, 2, 99)]
        await conn.execute("SET search_path = pr_b")
        seen.append(await fetch(point, 1))
        await conn.execute("SET search_path = pr_a")
        stmt = await conn.prepare("SELECT * FROM acc WHERE id = $1")
        seen.append(tuple(await stmt.fetchrow(1)))
        await conn.execute("ALTER TABLE acc ADD COLUMN extra int")
        try:
            await stmt.fetchrow(1)
            seen.append("no error")
        except asyncpg.PostgresError as e:
            seen.append(("error", e.sqlstate))
        await conn.execute("DROP TABLE acc")
        await conn.execute("CREATE TABLE acc (id int PRIMARY KEY, v text, n int)")
        await conn.execute("INSERT INTO acc VALUES (1, 'again', 2)")
        seen.append(await fetch(point, 1))
        await conn.execute("DROP SCHEMA pr_a CASCADE")
        await conn.execute("DROP SCHEMA pr_b CASCADE")
        return seen
    finally:
        await conn.close()


def _pg8000_script(port: int, password: str | None) -> list[Any]:
    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                 password=password)
    try:
        _short_setup(c.run)
        c.run("SET search_path = pr_b")
        point = "SELECT v, n FROM acc WHERE id = :k"
        seen = [_outcome(lambda k=k: c.run(point, k=k)) for k in (1, 5, 99)]
        c.run("SET search_path = pr_a")
        seen.append(_outcome(lambda: c.run(point, k=5)))
        c.run("DROP TABLE acc")
        seen.append(_outcome(lambda: c.run(point, k=5)))
        c.run("DROP SCHEMA pr_a CASCADE")
        c.run("DROP SCHEMA pr_b CASCADE")
        return [[tuple(r) for r in s] if isinstance(s, list) else s for s in seen]
    finally:
        c.close()


def _driver_script(dsn: str) -> list[Any]:
    with drv.connect(dsn) as c:
        c.autocommit = True
        cur = c.cursor()
        _short_setup(cur.execute)

        def rows(sql: str, *args: Any) -> Any:
            return _outcome(lambda: (cur.execute(sql, args), [tuple(r) for r in cur.fetchall()])[1])

        cur.execute("SET search_path = pr_a")
        point = "SELECT v, n FROM acc WHERE id = %s"
        seen = [rows(point, k) for k in (1, 2, 99)]
        seen.append(rows("SELECT v FROM acc WHERE id = 3"))
        cur.execute("SET search_path = pr_b")
        seen += [rows(point, 1), rows("SELECT v FROM acc WHERE id = 3")]
        cur.execute("DROP SCHEMA pr_a CASCADE")
        cur.execute("DROP SCHEMA pr_b CASCADE")
        return seen


def test_other_clients_point_reads_match_pg15(pg15, cumulo_server):
    want = asyncio.run(_asyncpg_script(pg15.dsn()))
    assert ("error", "0A000") in want
    assert asyncio.run(_asyncpg_script(cumulo_server.dsn())) == want
    want = _pg8000_script(pg15.port, PASSWORD)
    assert ("error", "42P01") in want
    assert _pg8000_script(cumulo_server.port, None) == want
    assert _driver_script(cumulo_server.dsn()) == _driver_script(pg15.dsn())


# -- UPDATE and DELETE by full primary key (sql/dml/keyed.py) ----------------------------
# The statement reads its row with one get and the plan's own projection instead of the
# executor. psycopg's server-side prepared statements (pgbench -M prepared's shape): rows,
# counts, RETURNING, composite, NULL and missing keys, a key change, the block's own
# earlier writes, and a statement failing half-way inside a block (its effects undone,
# then 25P02 until ROLLBACK; ROLLBACK TO SAVEPOINT recovers).
KEYED_SETUP = [
    "DROP TABLE IF EXISTS kd_acc, kd_kv",
    "CREATE TABLE kd_acc (id int PRIMARY KEY, bal int NOT NULL, note text, "
    "amt numeric(6,2) CHECK (amt < 5000))",
    "INSERT INTO kd_acc SELECT g, g * 10, 'n' || g, g FROM generate_series(1, 10) g",
    "CREATE TABLE kd_kv (a int, b text, v int, PRIMARY KEY (a, b))",
    "INSERT INTO kd_kv VALUES (1, 'x', 10), (1, 'y', 11), (2, 'x', 20)",
]


def _keyed_script(dsn: str) -> list[Any]:
    seen: list[Any] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in KEYED_SETUP:
            c.execute(sql)

        def run(sql: str, *args: Any) -> Any:
            try:
                cur = c.execute(sql, args, prepare=True)
                return (cur.statusmessage, cur.fetchall() if cur.description else None)
            except psycopg.Error as e:
                return ("error", e.sqlstate)

        upd = "UPDATE kd_acc SET bal = bal + %s WHERE id = %s"
        for _ in range(3):  # prepared after a few runs: the same statement, cached
            seen += [run(upd, 5, 1), run(upd, 5, 99), run(upd, 5, None)]
        seen.append(run("UPDATE kd_acc SET note = note || %s, amt = amt * 2 WHERE id = %s "
                        "RETURNING id, bal, note, amt", "!", 2))
        seen.append(run("DELETE FROM kd_acc WHERE id = %s RETURNING *", 3))
        seen.append(run("DELETE FROM kd_acc WHERE id = %s", 3))
        seen.append(run("UPDATE kd_kv SET v = v + %s WHERE a = %s AND b = %s RETURNING *",
                        1, 1, "y"))
        seen.append(run("UPDATE kd_kv SET v = v + %s WHERE a = %s AND b = %s", 1, 1, None))
        seen.append(run("UPDATE kd_acc SET id = id + 100 WHERE id = %s RETURNING id", 4))
        seen.append(run("UPDATE kd_acc SET id = %s WHERE id = %s", 5, 6))  # 23505
        # inside a block: the block's own writes, then a statement failing half-way
        c.execute("BEGIN")
        seen.append(run(upd, 1, 7))
        seen.append(run("SELECT bal FROM kd_acc WHERE id = %s", 7))
        seen.append(run("UPDATE kd_acc SET amt = amt * 1000 WHERE id = %s", 7))  # 23514
        seen.append(run(upd, 1, 8))  # 25P02
        c.execute("ROLLBACK")
        c.execute("BEGIN")
        seen.append(run(upd, 1, 8))
        c.execute("SAVEPOINT s")
        seen.append(run("UPDATE kd_acc SET bal = NULL WHERE id = %s", 8))  # 23502
        c.execute("ROLLBACK TO SAVEPOINT s")
        seen.append(run(upd, 1, 8))
        c.execute("COMMIT")
        seen.append(run("SELECT * FROM kd_acc ORDER BY id"))
        seen.append(run("SELECT * FROM kd_kv ORDER BY a, b"))
    return seen


def test_keyed_update_delete_match_pg15(pg15, cumulo_server):
    want = _keyed_script(pg15.dsn())
    assert ("error", "25P02") in want and ("error", "23514") in want  # the script tests them
    assert ("error", "23505") in want and ("error", "23502") in want
    assert _keyed_script(cumulo_server.dsn()) == want
