"""SELECT ... FOR UPDATE | NO KEY UPDATE | SHARE | KEY SHARE, two sessions at a time, against PG 15.

1. isolationtester specs (`row_lock_specs/`, written for Cumulo): PostgreSQL's own
   two-session driver runs each spec against PostgreSQL 15 and against Cumulo and the
   outputs must be the same text: rows, `<waiting ...>` where a step blocks, errors
   (55P03 NOWAIT, 40001 under REPEATABLE READ), READ COMMITTED's rechecks, SKIP LOCKED.
2. Client-driven checks, each run on both servers with the same expectations:
   a job queue drained by concurrent workers (psycopg threads, asyncpg tasks) never
   hands a job out twice; increments through FOR UPDATE lose nothing; a lock-order
   deadlock fails exactly one of the two transactions with 40P01; NOWAIT's error
   through pg8000.
3. READ COMMITTED rechecks after a wait (EvalPlanQual), client-driven: UPDATE, DELETE,
   RETURNING and FOR UPDATE on a row changed, deleted or moved meanwhile; 40001 above it.
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import asyncpg
import pg8000.dbapi
import psycopg
import pytest

from tests.integration.stmtdiff import wait_until_active

TESTER = Path("/usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester")
SPECS = sorted(p.stem for p in (Path(__file__).parent / "row_lock_specs").glob("*.spec"))


@pytest.fixture(scope="module")
def servers(pg15, cumulo_server):
    """(name, dsn) of PostgreSQL 15 and of Cumulo: every check runs on both."""
    return [("pg15", pg15.dsn()), ("cumulo", cumulo_server.dsn())]


def _libpq(dsn: str) -> str:
    info = psycopg.conninfo.conninfo_to_dict(dsn)
    return " ".join(f"{k}={v}" for k, v in info.items())


def run_spec(dsn: str, name: str) -> str:
    if not TESTER.exists():
        pytest.fail("isolationtester is missing (postgresql-client-15 installs it)")
    spec = (Path(__file__).parent / "row_lock_specs" / f"{name}.spec").read_text()
    out = subprocess.run([str(TESTER), _libpq(dsn)], input=spec, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("name", SPECS)
def test_spec_output_is_postgres(servers, name):
    (_, pg), (_, cu) = servers
    expected = run_spec(pg, name)
    assert "setup failed" not in expected and "starting permutation" in expected
    assert run_spec(cu, name) == expected


def test_specs_have_teeth(servers):
    # The specs do block, fail and skip: an engine without row locks differs from PG on them.
    out = "".join(run_spec(servers[0][1], n) for n in SPECS)
    assert "<waiting ...>" in out
    assert 'could not obtain lock on row in relation "t"' in out
    assert "could not serialize access due to concurrent update" in out


def _run_threads(target: Callable[..., None], args: list[tuple]) -> list[threading.Thread]:
    """Runs `target` once per argument tuple, in threads at once, and waits for them (at most
    120 s each); the threads, for the caller's liveness check."""
    threads = [threading.Thread(target=target, args=a) for a in args]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return threads


def _reset(dsn: str, *sql: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as c:
        for s in sql:
            c.execute(s)


JOBS = 40


@pytest.mark.parametrize("server", ["pg15", "cumulo"])
def test_queue_workers_never_share_a_job_psycopg(servers, server):
    dsn = dict(servers)[server]
    _reset(dsn, "DROP TABLE IF EXISTS jobs", "DROP TABLE IF EXISTS done",
           "CREATE TABLE jobs (id int PRIMARY KEY, status text NOT NULL)",
           "CREATE TABLE done (job int PRIMARY KEY, worker int NOT NULL)",
           f"INSERT INTO jobs SELECT g, 'new' FROM generate_series(1, {JOBS}) g")
    errors: list[BaseException] = []

    def worker(w: int) -> None:
        try:
            with psycopg.connect(dsn) as c:
                for _ in range(JOBS + 1):  # bounded: a worker can take at most every job
                    row = c.execute("SELECT id FROM jobs WHERE status = 'new' ORDER BY id "
                                    "LIMIT 1 FOR UPDATE SKIP LOCKED").fetchone()
                    if row is None:
                        c.rollback()
                        return
                    c.execute("UPDATE jobs SET status = 'done' WHERE id = %s", row)
                    c.execute("INSERT INTO done VALUES (%s, %s)", (row[0], w))
                    c.commit()
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = _run_threads(worker, [(w,) for w in range(4)])
    assert not any(t.is_alive() for t in threads)
    assert errors == []  # a job taken twice would fail the INSERT with 23505
    with psycopg.connect(dsn) as c:
        assert c.execute("SELECT count(*), count(DISTINCT job) FROM done").fetchone() == (
            JOBS, JOBS)
        assert c.execute("SELECT count(*) FROM jobs WHERE status = 'new'").fetchone() == (0,)


@pytest.mark.parametrize("server", ["pg15", "cumulo"])
def test_queue_workers_never_share_a_job_asyncpg(servers, server):
    dsn = dict(servers)[server]
    _reset(dsn, "DROP TABLE IF EXISTS jobs2",
           "CREATE TABLE jobs2 (id int PRIMARY KEY, taken_by int)",
           f"INSERT INTO jobs2 SELECT g, NULL FROM generate_series(1, {JOBS}) g")

    async def worker(w: int) -> list[int]:
        conn = await asyncpg.connect(dsn)
        mine = []
        try:
            for _ in range(JOBS + 1):
                async with conn.transaction():
                    jid = await conn.fetchval(
                        "SELECT id FROM jobs2 WHERE taken_by IS NULL ORDER BY id LIMIT 1 "
                        "FOR NO KEY UPDATE SKIP LOCKED")
                    if jid is None:
                        return mine
                    await conn.execute("UPDATE jobs2 SET taken_by = $1 WHERE id = $2", w, jid)
                    mine.append(jid)
                await asyncio.sleep(0)
        finally:
            await conn.close()
        return mine

    async def main() -> list[list[int]]:
        return await asyncio.gather(*(worker(w) for w in range(3)))

    taken = asyncio.run(main())
    flat = [j for m in taken for j in m]
    assert sorted(flat) == list(range(1, JOBS + 1))  # every job once, none twice


@pytest.mark.parametrize("server", ["pg15", "cumulo"])
def test_increments_through_for_update_lose_nothing(servers, server):
    dsn = dict(servers)[server]
    _reset(dsn, "DROP TABLE IF EXISTS counter", "CREATE TABLE counter (id int PRIMARY KEY, n int)",
           "INSERT INTO counter VALUES (1, 0)")
    done = [0]
    lock = threading.Lock()

    def client() -> None:
        with psycopg.connect(dsn) as c:
            for _ in range(15):
                (n,) = c.execute("SELECT n FROM counter WHERE id = 1 FOR UPDATE").fetchone()
                c.execute("UPDATE counter SET n = %s WHERE id = 1", (n + 1,))
                c.commit()
                with lock:
                    done[0] += 1

    _run_threads(client, [()] * 4)
    with psycopg.connect(dsn) as c:
        assert c.execute("SELECT n FROM counter").fetchone() == (done[0],)
    assert done[0] == 60


@pytest.mark.parametrize("server", ["pg15", "cumulo"])
def test_lock_order_deadlock_fails_one_transaction(servers, server):
    dsn = dict(servers)[server]
    _reset(dsn, "DROP TABLE IF EXISTS dl", "CREATE TABLE dl (id int PRIMARY KEY, v int)",
           "INSERT INTO dl VALUES (1, 0), (2, 0)")
    a, b = psycopg.connect(dsn), psycopg.connect(dsn)
    outcome: dict[str, str] = {}
    try:
        a.execute("SELECT * FROM dl WHERE id = 1 FOR UPDATE")
        b.execute("SELECT * FROM dl WHERE id = 2 FOR UPDATE")

        def second(conn: psycopg.Connection, name: str, rid: int) -> None:
            try:
                conn.execute("SELECT * FROM dl WHERE id = %s FOR SHARE", (rid,))
                conn.commit()
                outcome[name] = "ok"
            except psycopg.Error as e:
                conn.rollback()
                outcome[name] = e.sqlstate or ""

        ta = threading.Thread(target=second, args=(a, "a", 2))
        ta.start()
        with psycopg.connect(dsn, autocommit=True) as probe:  # wait until a is blocked
            pid_a, pid_b = a.info.backend_pid, b.info.backend_pid
            for _ in range(2000):
                if probe.execute("SELECT pg_isolation_test_session_is_blocked(%s, %s)",
                                 (pid_a, [pid_b])).fetchone()[0]:
                    break
                threading.Event().wait(0.01)
        second(b, "b", 1)
        ta.join(60)
    finally:
        a.close()
        b.close()
    assert sorted(outcome.values()) == ["40P01", "ok"], outcome


@pytest.mark.parametrize("server", ["pg15", "cumulo"])
def test_nowait_error_through_pg8000(servers, server):
    dsn = dict(servers)[server]
    _reset(dsn, "DROP TABLE IF EXISTS nw", "CREATE TABLE nw (id int PRIMARY KEY)",
           "INSERT INTO nw VALUES (1)")
    info = psycopg.conninfo.conninfo_to_dict(dsn)
    args = dict(user=info["user"], host=info["host"], port=int(info["port"]),
                database=info["dbname"], password=info.get("password"))
    a, b = pg8000.dbapi.connect(**args), pg8000.dbapi.connect(**args)
    try:
        ca = a.cursor()
        ca.execute("SELECT * FROM nw FOR UPDATE")
        cb = b.cursor()
        with pytest.raises(pg8000.dbapi.DatabaseError) as ei:
            cb.execute("SELECT * FROM nw FOR KEY SHARE NOWAIT")
        err = ei.value.args[0]
        assert (err["C"], err["M"]) == ("55P03", 'could not obtain lock on row in relation "nw"')
        b.rollback()
        cb.execute("SELECT * FROM nw FOR KEY SHARE SKIP LOCKED")
        assert cb.fetchall() == ()
        a.rollback()  # released at ROLLBACK: now it can be locked
        cb.execute("SELECT * FROM nw FOR KEY SHARE NOWAIT")
        assert [list(r) for r in cb.fetchall()] == [[1]]
    finally:
        a.close()
        b.close()


def _queue_statements(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS jq")
        c.execute("CREATE TABLE jq (id int PRIMARY KEY, s text, w int)")
        c.execute("INSERT INTO jq SELECT g, 'new', NULL FROM generate_series(1, 5) g")
        out.append(c.execute(
            "UPDATE jq SET s = %s, w = %s WHERE id = (SELECT id FROM jq WHERE s = %s "
            "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id, s, w",
            ("taken", 7, "new")).fetchall())
        out.append(c.execute("UPDATE jq SET w = 1 WHERE id IN (SELECT j.id FROM jq j "
                             "WHERE j.id = jq.id FOR UPDATE) RETURNING id").rowcount)
        try:
            c.execute("DELETE FROM jq WHERE id = (SELECT id FROM jq FOR UPDATE)")
        except psycopg.Error as e:
            out.append(e.sqlstate)
        out.append(c.execute("DELETE FROM jq WHERE id = (SELECT id FROM jq WHERE id > 100 "
                             "FOR UPDATE) RETURNING id").fetchall())
    return out


def test_locking_subqueries_in_dml_with_parameters(servers):
    # parameters inside and outside the subquery, a correlated one, 21000, no row
    (_, pg), (_, cu) = servers
    expected = _queue_statements(pg)
    assert expected[0] == [(1, "taken", 7)] and "21000" in expected
    assert _queue_statements(cu) == expected


# -- READ COMMITTED's recheck of a row changed while a statement waited for it (PostgreSQL's
# EvalPlanQual). Session A changes a row in an open transaction; session B's UPDATE, DELETE
# or SELECT FOR UPDATE blocks on that row; A commits (or rolls back) and B goes on with the
# row's newest version: written from it when it still qualifies, skipped when it no longer
# does or was deleted. B's outcome (status and rows, or SQLSTATE) and the table afterwards
# must be PostgreSQL's; each race makes its own table.

SETUP = ("create table {t} (id int primary key, v int, w text);"
         " insert into {t} values (1, 0, 'a'), (2, 0, 'b'), (3, 5, 'c')")

# name: (A's statements in its open transaction, B's statement, how A ends, B's isolation)
RACES = {
    # a by-key UPDATE computes the new value from the committed one (pgbench's statement)
    "keyed_update": (["update {t} set v = v + 10 where id = 1"],
                     "update {t} set v = v + 1 where id = 1 returning v, w", "commit", ""),
    # A's change makes the row stop qualifying: B skips it and writes the rest
    "stops_qualifying": (["update {t} set v = 7 where id = 1"],
                         "update {t} set v = v + 1 where v = 0 returning id, v", "commit", ""),
    "still_qualifies": (["update {t} set w = 'z' where id = 2"],
                        "update {t} set v = v + 100 where v = 0 returning *", "commit", ""),
    "deleted": (["delete from {t} where id = 1"],
                "update {t} set v = v + 1 where id = 1 returning *", "commit", ""),
    "deleted_scan": (["delete from {t} where id = 2"],
                     "delete from {t} where v >= 0 returning id", "commit", ""),
    "key_changed": (["update {t} set id = 10 where id = 1"],
                    "update {t} set v = v + 1 where id = 1 returning *", "commit", ""),
    "delete_after_update": (["update {t} set v = 9 where id = 1"],
                            "delete from {t} where id in (1, 2) returning id, v", "commit", ""),
    "holder_rolls_back": (["update {t} set v = 50 where id = 1"],
                          "update {t} set v = v + 1 where id = 1 returning v", "rollback", ""),
    "for_update_requalifies": (["update {t} set v = 3 where id = 1"],
                               "select id, v from {t} where v = 0 order by id for update",
                               "commit", ""),
    "for_update_newest": (["update {t} set v = v + 4 where id = 1"],
                          "select id, v from {t} where id = 1 for update", "commit", ""),
    "repeatable_read": (["update {t} set v = 1 where id = 1"],
                        "update {t} set v = v + 1 where id = 1", "commit",
                        "begin isolation level repeatable read"),
    "serializable_delete": (["update {t} set v = 1 where id = 3"],
                            "delete from {t} where id = 3", "commit",
                            "begin isolation level serializable"),
}


def _race(dsn: str, name: str) -> tuple:
    holder, waiter, end, begin = RACES[name]
    t = f"epq_{name}"
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute(f"drop table if exists {t}")
        a.execute(SETUP.format(t=t))
        a.execute("begin")
        for sql in holder:
            a.execute(sql.format(t=t))
        if begin:
            b.execute(begin)
        sql = waiter.format(t=t)

        def wait() -> None:
            try:
                cur = b.execute(sql)
                out.append((cur.statusmessage,
                            cur.fetchall() if cur.description is not None else None))
            except psycopg.Error as e:
                out.append(("ERROR", e.sqlstate))

        th = threading.Thread(target=wait)
        th.start()
        wait_until_active(dsn, sql)
        a.execute(end)
        th.join(30)
        if begin:
            b.execute("rollback")
        return out[0], a.execute(f"select * from {t} order by id").fetchall()


@pytest.mark.parametrize("name", sorted(RACES))
def test_recheck_after_wait_as_pg15(servers, name):
    (_, pg), (_, cu) = servers
    assert _race(cu, name) == _race(pg, name)


def _deleted_row_unlocked(dsn: str, sql: str) -> tuple:
    """A row B's UPDATE (or SELECT FOR UPDATE) skipped because it was deleted meanwhile is
    not left locked by B: a third session inserts that key again while B's transaction is
    still open."""
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b, \
            psycopg.connect(dsn, autocommit=True) as c:
        a.execute("drop table if exists epq_unlock")
        a.execute("create table epq_unlock (id int primary key, v int)")
        a.execute("insert into epq_unlock values (1, 0)")
        a.execute("begin")
        a.execute("delete from epq_unlock where id = 1")
        b.execute("begin")
        out: list = []
        th = threading.Thread(target=lambda: out.append(b.execute(sql).statusmessage))
        th.start()
        wait_until_active(dsn, sql)
        a.execute("commit")
        th.join(30)
        c.execute("set lock_timeout = '2s'")
        try:
            got = c.execute("insert into epq_unlock values (1, 5)").statusmessage
        except psycopg.Error as e:
            got = e.sqlstate
        b.execute("commit")
        return out[0], got


@pytest.mark.parametrize("sql", ["update epq_unlock set v = v + 1 where id = 1",
                                 "select * from epq_unlock where id = 1 for update"])
def test_deleted_row_is_not_left_locked_as_pg15(servers, sql):
    (_, pg), (_, cu) = servers
    expected = _deleted_row_unlocked(pg, sql)
    assert expected[1] == "INSERT 0 1"
    assert _deleted_row_unlocked(cu, sql) == expected


@pytest.mark.parametrize("server", ["pg15", "cumulo"])
def test_concurrent_bookers_never_overlap(servers, server):
    # EXCLUDE writers wait only for a conflicting row's writer (dml/exclpending): threads
    # booking overlapping ranges at once, each in its own transaction, leave no two
    # booked ranges overlapping; every failure is 23P01 (or 40P01 when two wait on each
    # other), and some bookings of each thread go through.
    dsn = dict(servers)[server]
    _reset(dsn, "DROP TABLE IF EXISTS booking",
           "CREATE TABLE booking (id serial PRIMARY KEY, who int, during int4range, "
           "EXCLUDE USING gist (during WITH &&))")
    states: list[str] = []
    errors: list[BaseException] = []

    def booker(w: int) -> None:
        try:
            with psycopg.connect(dsn) as c:
                for i in range(25):
                    lo = (w * 7 + i * 13) % 200
                    try:
                        c.execute("INSERT INTO booking (who, during) VALUES (%s, int4range(%s, %s))",
                                  (w, lo, lo + 5))
                        c.execute("SELECT pg_sleep(0.001)")
                        c.commit()
                        states.append("ok")
                    except psycopg.Error as e:
                        c.rollback()
                        states.append(e.sqlstate or "")
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = _run_threads(booker, [(w,) for w in range(4)])
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert set(states) <= {"ok", "23P01", "40P01"} and "ok" in states
    with psycopg.connect(dsn) as c:
        assert c.execute("SELECT count(*) FROM booking a JOIN booking b ON a.id < b.id "
                         "AND a.during && b.during").fetchone() == (0,)
        assert c.execute("SELECT count(*) FROM booking").fetchone()[0] == states.count("ok")
