"""psycopg 3 against a real `cumulo serve`: the common client list plus psycopg's own habits.

psycopg 3 sends ints, floats and bools as typed binary parameters, runs
`executemany` in pipeline mode, declares server cursors with SQL DECLARE and
then describes the portal by name, copies in text and binary, and looks types
up with `to_regtype` (CLIENTS.md §1-§2).
"""

from __future__ import annotations

import threading
import time

import psycopg
import pytest
from psycopg import errors, sql
from psycopg.types import TypeInfo
from psycopg.types.json import Json, Jsonb

from tests.clients import types_matrix as M


@pytest.fixture(scope="module")
def dsn(cumulo_server, client_db):
    return cumulo_server.dsn(dbname=client_db)


@pytest.fixture
def conn(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        yield c


def _adapt(case: M.TypeCase):
    if case.sql_type == "json":
        return Json(case.value)
    if case.sql_type == "jsonb":
        return Jsonb(case.value)
    return case.value


def _insert_matrix(conn, table: str, fmt: str, cases=M.CASES) -> None:
    conn.execute(f"drop table if exists {table}")
    conn.execute(M.create_sql(table, cases))
    marks = ", ".join([fmt] * len(cases))
    conn.execute(f"insert into {table} (id, {M.columns(cases)}) values (1, {marks})",
                 [_adapt(c) for c in cases])


@pytest.mark.parametrize("fmt", ["%t", "%b"], ids=["text-params", "binary-params"])
@pytest.mark.parametrize("binary", [False, True], ids=["text-results", "binary-results"])
def test_type_matrix_round_trip(conn, fmt, binary):
    table = f"p3_types_{'b' if fmt == '%b' else 't'}{int(binary)}"
    _insert_matrix(conn, table, fmt)
    row = conn.cursor(binary=binary).execute(f"select {M.columns()} from {table}").fetchone()
    M.check_row(row)


@pytest.fixture(scope="module")
def text_table(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        _insert_matrix(c, "p3_text", "%t")


@pytest.mark.parametrize("case", M.text_params())
def test_type_text_output(conn, text_table, case):
    """The server's output function for each type prints what PostgreSQL 15 prints."""
    got = conn.execute(f"select {case.column}::text from p3_text").fetchone()[0]
    assert got == case.text


def test_oid_column_round_trip(conn):
    conn.execute("drop table if exists p3_oid")
    conn.execute("create table p3_oid (o oid)")
    conn.execute("insert into p3_oid values (%b), (%t)", (4294967295, 7))
    rows = conn.cursor(binary=True).execute("select o from p3_oid order by o").fetchall()
    assert rows == [(7,), (4294967295,)]


def test_binary_parameters_are_typed_and_compared(conn):
    conn.execute("drop table if exists p3_bin")
    conn.execute("create table p3_bin (id bigint primary key, f float8, ok bool, s text)")
    cur = conn.cursor()
    cur.execute("insert into p3_bin values (%b, %b, %b, %b)", (2**40, 2.5, True, "x"))
    assert cur.rowcount == 1
    cur.execute("select id, f, ok, s from p3_bin where id = %b and f > %b", (2**40, 1.0))
    assert cur.fetchall() == [(2**40, 2.5, True, "x")]
    cur.execute("select %s + 1, %s::text, %s", (41, 7, None))
    assert cur.fetchone() == (42, "7", None)


def test_pipeline_executemany_and_explicit_pipeline(conn):
    conn.execute("drop table if exists p3_pipe")
    conn.execute("create table p3_pipe (id int primary key, v text)")
    cur = conn.cursor()
    cur.executemany("insert into p3_pipe values (%s, %s)", [(i, f"v{i}") for i in range(50)])
    assert cur.rowcount == 50
    with conn.pipeline():
        conn.execute("update p3_pipe set v = %s where id = %s", ("changed", 3))
        c2 = conn.execute("select count(*) from p3_pipe where v like %s", ("v%",))
        c3 = conn.execute("select v from p3_pipe where id = %s", (3,))
    assert c2.fetchone() == (49,)
    assert c3.fetchone() == ("changed",)
    cur.executemany("insert into p3_pipe values (%s, %s) returning id * 2",
                    [(100, "a"), (101, "b")], returning=True)
    got = []
    while True:
        got.append(cur.fetchone()[0])
        if not cur.nextset():
            break
    assert got == [200, 202]


def test_server_side_cursor_fetches_in_batches(dsn):
    with psycopg.connect(dsn) as conn:
        conn.execute("drop table if exists p3_big")
        conn.execute("create table p3_big (id int primary key, sq bigint)")
        conn.cursor().executemany("insert into p3_big values (%s, %s)",
                                  [(i, i * i) for i in range(1000)])
        conn.commit()
        with conn.cursor(name="p3_named") as cur:
            cur.itersize = 128
            cur.execute("select id, sq from p3_big where id >= %s order by id", (10,))
            assert [d.name for d in cur.description] == ["id", "sq"]
            first = cur.fetchmany(5)
            assert first == [(i, i * i) for i in range(10, 15)]
            cur.scroll(100)
            assert cur.fetchone() == (115, 115 * 115)
            rest = cur.fetchall()
            assert len(rest) == 1000 - 116 and rest[-1] == (999, 999 * 999)
        conn.commit()


def test_sql_declare_fetch_close(conn):
    conn.execute("drop table if exists p3_decl")
    conn.execute("create table p3_decl (id int primary key)")
    conn.cursor().executemany("insert into p3_decl values (%s)", [(i,) for i in range(10)])
    with conn.transaction():
        cur = conn.cursor()
        cur.execute("declare c1 cursor for select id from p3_decl order by id")
        assert cur.statusmessage == "DECLARE CURSOR"
        cur.execute("fetch forward 3 from c1")
        assert cur.fetchall() == [(0,), (1,), (2,)] and cur.statusmessage == "FETCH 3"
        cur.execute("fetch all from c1")
        assert [r[0] for r in cur.fetchall()] == list(range(3, 10))
        cur.execute("close c1")
        assert cur.statusmessage == "CLOSE CURSOR"
        with pytest.raises(errors.InvalidCursorName):
            cur.execute("fetch 1 from c1")


def test_copy_text_and_binary(conn):
    conn.execute("drop table if exists p3_copy")
    conn.execute("create table p3_copy (id int primary key, name text, amount numeric(8,2))")
    cur = conn.cursor()
    with cur.copy("copy p3_copy (id, name, amount) from stdin") as cp:
        for i in range(100):
            cp.write_row((i, f"n\t{i}" if i % 10 else None, i / 4))
    assert cur.rowcount == 100
    with cur.copy("copy p3_copy from stdin (format binary)") as cp:
        cp.set_types(["int4", "text", "numeric"])
        for i in range(100, 150):
            cp.write_row((i, f"b{i}", i))
    assert conn.execute("select count(*), sum(amount) from p3_copy").fetchone()[0] == 150
    with cur.copy("copy (select id, name from p3_copy where id in (1, 10, 120) order by id) "
                  "to stdout") as cp:
        text = b"".join(bytes(b) for b in cp).decode()
    assert text == "1\tn\\t1\n10\t\\N\n120\tb120\n"
    with cur.copy("copy (select id, name, amount from p3_copy where id < 3 order by id) "
                  "to stdout (format binary)") as cp:
        cp.set_types(["int4", "text", "numeric"])
        rows = list(cp.rows())
    assert [r[:2] for r in rows] == [(0, None), (1, "n\t1"), (2, "n\t2")]
    assert str(rows[2][2]) == "0.50"


def test_typeinfo_fetch_uses_to_regtype(conn, dsn):
    info = TypeInfo.fetch(conn, "int4")
    assert (info.oid, info.array_oid, info.name) == (23, 1007, "int4")
    info = TypeInfo.fetch(conn, "character varying")
    assert (info.oid, info.array_oid) == (1043, 1015)
    assert TypeInfo.fetch(conn, "no_such_type") is None
    # A transaction is open on a non-autocommit connection: the query runs in a savepoint.
    with psycopg.connect(dsn) as c2:
        assert TypeInfo.fetch(c2, "uuid").oid == 2950


def test_transactions_rollback_and_savepoint(conn):
    conn.execute("drop table if exists p3_tx")
    conn.execute("create table p3_tx (id int primary key)")
    with conn.transaction():
        conn.execute("insert into p3_tx values (1)")
        with pytest.raises(errors.UniqueViolation), conn.transaction():
            conn.execute("insert into p3_tx values (1)")
        conn.execute("insert into p3_tx values (2)")
    try:
        with conn.transaction():
            conn.execute("insert into p3_tx values (3)")
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    assert conn.execute("select array_agg(id order by id) from p3_tx").fetchone()[0] == [1, 2]


def _retry_increment(dsn: str, hold: threading.Event, go: threading.Event, attempts: list):
    with psycopg.connect(dsn) as c:
        c.execute("set transaction isolation level repeatable read")
        while True:
            attempts.append(1)
            try:
                c.execute("select v from p3_ser where id = 1").fetchone()
                if len(attempts) == 1:
                    hold.set()
                    go.wait(10)
                c.execute("update p3_ser set v = v + 1 where id = 1")
                c.commit()
                return
            except errors.SerializationFailure:
                c.rollback()
                c.execute("set transaction isolation level repeatable read")


def test_serialization_failure_is_40001_and_retry_succeeds(conn, dsn):
    conn.execute("drop table if exists p3_ser")
    conn.execute("create table p3_ser (id int primary key, v int)")
    conn.execute("insert into p3_ser values (1, 0)")
    hold, go, attempts = threading.Event(), threading.Event(), []
    t = threading.Thread(target=_retry_increment, args=(dsn, hold, go, attempts))
    t.start()
    assert hold.wait(10)
    with psycopg.connect(dsn) as other:
        other.execute("set transaction isolation level repeatable read")
        other.execute("update p3_ser set v = v + 10 where id = 1")
        other.commit()
    go.set()
    t.join(30)
    assert not t.is_alive()
    assert len(attempts) == 2, "the first attempt must fail with 40001 and be retried"
    assert conn.execute("select v from p3_ser where id = 1").fetchone() == (11,)


@pytest.mark.parametrize("stmt, exc", [
    ("select * from p3_missing", errors.UndefinedTable),
    ("selec 1", errors.SyntaxError),
    ("select nope from p3_err", errors.UndefinedColumn),
    ("select no_such_fn(1)", errors.UndefinedFunction),
    ("insert into p3_err values (1, 1)", errors.UniqueViolation),
    ("insert into p3_err values (null, 1)", errors.NotNullViolation),
    ("insert into p3_err values (2, -1)", errors.CheckViolation),
    ("select 'abc'::int", errors.InvalidTextRepresentation),
    ("select 1 / 0", errors.DivisionByZero),
    ("select 'x'::no_such_type", errors.UndefinedObject),
])
def test_errors_carry_sqlstate(conn, stmt, exc):
    conn.execute("create table if not exists p3_err (id int primary key, v int check (v >= 0))")
    conn.execute("insert into p3_err values (1, 1) on conflict do nothing")
    with pytest.raises(exc):
        conn.execute(stmt)
    assert conn.execute("select 1").fetchone() == (1,)


def test_failed_transaction_is_25p02_until_rollback(dsn):
    with psycopg.connect(dsn) as c:
        with pytest.raises(errors.DivisionByZero):
            c.execute("select 1 / 0")
        assert c.info.transaction_status == psycopg.pq.TransactionStatus.INERROR
        with pytest.raises(errors.InFailedSqlTransaction):
            c.execute("select 1")
        c.rollback()
        assert c.execute("select 2").fetchone() == (2,)


def test_cancel_ends_statement_with_57014_and_session_survives(conn):
    def cancel_soon():
        time.sleep(0.5)
        conn.cancel_safe()

    t = threading.Thread(target=cancel_soon)
    t.start()
    with pytest.raises(errors.QueryCanceled):
        conn.execute("select pg_sleep(30)")
    t.join()
    assert conn.execute("select 1").fetchone() == (1,)


def test_identifiers_and_composed_sql(conn):
    conn.execute(sql.SQL("drop table if exists {}").format(sql.Identifier("P3 Mixed")))
    conn.execute(sql.SQL("create table {} ({} int)").format(
        sql.Identifier("P3 Mixed"), sql.Identifier("Col")))
    conn.execute(sql.SQL("insert into {} values ({})").format(
        sql.Identifier("P3 Mixed"), sql.Literal(5)))
    assert conn.execute('select "Col" from "P3 Mixed"').fetchone() == (5,)


def test_listen_and_pg_notify(dsn):
    with psycopg.connect(dsn, autocommit=True) as listener, \
            psycopg.connect(dsn, autocommit=True) as sender:
        listener.execute("listen p3_chan")
        assert listener.execute("select pg_listening_channels()").fetchall() == [("p3_chan",)]
        sender.execute("select pg_notify('p3_chan', 'outside')")
        with sender.transaction():
            sender.execute("select pg_notify(%s, %s)", ("p3_chan", "in txn"))
            sender.execute("notify p3_chan, 'in txn'")  # the same (channel, payload): sent once
        with pytest.raises(errors.InvalidParameterValue):
            sender.execute("select pg_notify('', 'x')")
        listener.execute("select 1")  # NB: Cumulo sends notifications before ReadyForQuery
        got = [(n.channel, n.payload, n.pid) for n in
               listener.notifies(timeout=10, stop_after=2)]
        pid = sender.info.backend_pid
        assert got == [("p3_chan", "outside", pid), ("p3_chan", "in txn", pid)]


def test_idle_listener_gets_notification_at_once(dsn):
    with psycopg.connect(dsn, autocommit=True) as listener, \
            psycopg.connect(dsn, autocommit=True) as sender:
        listener.execute("listen p3_idle")
        sender.execute("select pg_notify('p3_idle', 'now')")
        got = [n.payload for n in listener.notifies(timeout=3, stop_after=1)]
        assert got == ["now"]
