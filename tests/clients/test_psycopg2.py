"""psycopg2 against a real `cumulo serve`: the common client list.

psycopg2 is text-only and client-side interpolating: every statement arrives
as a simple Query with the values inlined as literals (`'...'::date`,
`ARRAY[...]`, `E'\\\\x..'::bytea`). Named cursors are SQL DECLARE/FETCH, and
COPY goes through `copy_expert`.
"""

from __future__ import annotations

import io
import threading

import psycopg2
import psycopg2.extensions
import psycopg2.extras
import pytest
from psycopg2 import errors

from tests.clients import types_matrix as M


@pytest.fixture(scope="module")
def params(cumulo_server, client_db):
    return {"host": "127.0.0.1", "port": cumulo_server.port, "user": "cumulo",
            "dbname": client_db}


@pytest.fixture
def conn(params):
    c = psycopg2.connect(**params)
    yield c
    c.close()


def _adapt(case: M.TypeCase):
    if case.sql_type in ("json", "jsonb"):
        return psycopg2.extras.Json(case.value)
    return case.value


psycopg2.extras.register_uuid()


def test_connect_reports_server_settings(conn):
    assert conn.server_version // 10000 == 15
    assert conn.get_parameter_status("client_encoding") == "UTF8"
    assert conn.get_parameter_status("integer_datetimes") == "on"
    assert conn.get_parameter_status("standard_conforming_strings") == "on"


def _round_trip(conn, table: str, cases) -> None:
    cur = conn.cursor()
    cur.execute(f"drop table if exists {table}")
    cur.execute(M.create_sql(table, cases))
    marks = ", ".join(["%s"] * len(cases))
    cur.execute(f"insert into {table} (id, {M.columns(cases)}) values (1, {marks})",
                [_adapt(c) for c in cases])
    conn.commit()
    cur.execute(f"select {M.columns(cases)} from {table}")
    M.check_row(cur.fetchone(), cases)
    assert [d.name for d in cur.description] == [c.column for c in cases]
    conn.commit()


def test_type_matrix_round_trip(conn):
    cases = M.working("psycopg2")
    _round_trip(conn, "p2_types", cases)
    by = {c.column: c for c in cases}
    cur = conn.cursor()
    keys = ("c_uuid", "c_date", "c_bytea", "c_int8", "c_textarr", "c_numeric")
    cur.execute("select c_int4 from p2_types where "
                + " and ".join(f"{k} = %s" for k in keys), [by[k].value for k in keys])
    assert cur.fetchall() == [(by["c_int4"].value,)]
    cur.execute("select c_bool, c_int2, c_int4, c_int8 from p2_types")
    assert [d.type_code for d in cur.description] == [16, 21, 23, 20]
    conn.commit()


def test_ddl_and_parameterised_dml(conn):
    cur = conn.cursor()
    cur.execute("drop table if exists p2_dml")
    cur.execute("create table p2_dml (id serial primary key, name text not null, qty int)")
    cur.executemany("insert into p2_dml (name, qty) values (%s, %s)",
                    [(f"n{i}", i) for i in range(20)])
    assert cur.rowcount == 20
    cur.execute("update p2_dml set qty = qty * %(k)s where name like %(p)s", {"k": 10, "p": "n1%"})
    assert cur.rowcount == 11
    cur.execute("delete from p2_dml where qty < %s returning id", (5,))
    assert sorted(r[0] for r in cur.fetchall()) == [1, 3, 4, 5]
    assert cur.statusmessage == "DELETE 4" and cur.rowcount == 4
    psycopg2.extras.execute_values(cur, "insert into p2_dml (name, qty) values %s",
                                   [("ev1", 1), ("ev2", 2)])
    cur.execute("select count(*), sum(qty) from p2_dml")
    assert cur.fetchone() == (18, 1498)
    conn.commit()


def test_transactions_rollback_and_isolation(conn, params):
    cur = conn.cursor()
    cur.execute("drop table if exists p2_tx")
    cur.execute("create table p2_tx (id int primary key)")
    conn.commit()
    cur.execute("insert into p2_tx values (1)")
    conn.rollback()
    cur.execute("insert into p2_tx values (2)")
    cur.execute("savepoint s1")
    with pytest.raises(errors.UniqueViolation):
        cur.execute("insert into p2_tx values (2)")
    cur.execute("rollback to savepoint s1")
    conn.commit()
    cur.execute("select array_agg(id) from p2_tx")
    assert cur.fetchone() == ([2],)
    conn.commit()
    conn.set_session(isolation_level="REPEATABLE READ")
    cur.execute("show transaction isolation level")
    assert cur.fetchone() == ("repeatable read",)
    conn.rollback()


def test_serialization_failure_retry(params):
    a, b = psycopg2.connect(**params), psycopg2.connect(**params)
    try:
        ca, cb = a.cursor(), b.cursor()
        ca.execute("drop table if exists p2_ser")
        ca.execute("create table p2_ser (id int primary key, v int)")
        ca.execute("insert into p2_ser values (1, 0)")
        a.commit()
        for c in (a, b):
            c.set_session(isolation_level="REPEATABLE READ")
        attempts = 0
        while True:
            attempts += 1
            try:
                ca.execute("select v from p2_ser where id = 1")
                if attempts == 1:
                    cb.execute("update p2_ser set v = v + 10 where id = 1")
                    b.commit()
                ca.execute("update p2_ser set v = v + 1 where id = 1")
                a.commit()
                break
            except errors.SerializationFailure as e:
                assert e.pgcode == "40001"
                a.rollback()
        assert attempts == 2
        cb.execute("select v from p2_ser")
        assert cb.fetchone() == (11,)
        b.commit()
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("stmt, code", [
    ("select * from p2_missing", "42P01"),
    ("selec 1", "42601"),
    ("select nope from p2_err", "42703"),
    ("select no_such_fn(1)", "42883"),
    ("insert into p2_err values (1, 1)", "23505"),
    ("insert into p2_err values (null, 1)", "23502"),
    ("insert into p2_err values (2, -1)", "23514"),
    ("select 'abc'::int", "22P02"),
    ("select 1 / 0", "22012"),
])
def test_errors_carry_sqlstate(conn, stmt, code):
    cur = conn.cursor()
    cur.execute("create table if not exists p2_err (id int primary key, v int check (v >= 0))")
    cur.execute("insert into p2_err values (1, 1) on conflict do nothing")
    conn.commit()
    with pytest.raises(psycopg2.Error) as e:
        cur.execute(stmt)
    assert e.value.pgcode == code
    assert conn.get_transaction_status() == psycopg2.extensions.TRANSACTION_STATUS_INERROR
    with pytest.raises(errors.InFailedSqlTransaction):
        cur.execute("select 1")
    conn.rollback()


def test_named_cursor_fetches_in_batches(conn):
    cur = conn.cursor()
    cur.execute("drop table if exists p2_big")
    cur.execute("create table p2_big (id int primary key, s text)")
    cur.executemany("insert into p2_big values (%s, %s)", [(i, str(i)) for i in range(500)])
    conn.commit()
    named = conn.cursor(name="p2_cur")
    named.itersize = 64
    named.execute("select id, s from p2_big where id %% %s = 0 order by id", (2,))
    assert named.fetchmany(3) == [(0, "0"), (2, "2"), (4, "4")]
    rows = list(named)
    assert len(rows) == 247 and rows[-1] == (498, "498")
    named.close()
    conn.commit()


def test_copy_expert_in_and_out(conn):
    cur = conn.cursor()
    cur.execute("drop table if exists p2_copy")
    cur.execute("create table p2_copy (id int, name text, at date)")
    data = io.StringIO("".join(f"{i}\tname {i}\t2024-01-{i + 1:02d}\n" for i in range(20))
                       + "20\t\\N\t\\N\n")
    cur.copy_expert("copy p2_copy from stdin", data)
    assert cur.rowcount == 21
    cur.copy_from(io.StringIO("21|x|2020-02-02\n"), "p2_copy", sep="|")
    out = io.StringIO()
    cur.copy_expert("copy (select * from p2_copy where id in (3, 20, 21) order by id) "
                    "to stdout with (format csv, header)", out)
    assert out.getvalue() == "id,name,at\n3,name 3,2024-01-04\n20,,\n21,x,2020-02-02\n"
    conn.commit()


def test_cancel(conn):
    cur = conn.cursor()
    threading.Timer(0.5, conn.cancel).start()
    with pytest.raises(errors.QueryCanceled):
        cur.execute("select count(*) from generate_series(1, 1000000000000)")
    conn.rollback()
    cur.execute("select 1")
    assert cur.fetchone() == (1,)


def test_notice_for_drop_if_exists(conn):
    cur = conn.cursor()
    cur.execute("drop table if exists p2_never_there")
    assert conn.notices[-1] == 'NOTICE:  table "p2_never_there" does not exist, skipping\n'
    conn.commit()
