"""pg8000 against a real `cumulo serve`: the common client list, native and DB-API.

pg8000 is pure Python and uses the extended protocol for everything:
`Parse('')+Flush+Sync`, `Describe('S')`, then `Bind/Execute`, with parameter
types left for the server to infer (so ParameterDescription must carry real
types) and text results. Transactions start with `begin transaction`, and COPY
goes through the `stream=` argument.
"""

from __future__ import annotations

import io
import os
import socket
import struct
import threading

import pg8000.dbapi
import pg8000.native
import pytest

from tests.clients import types_matrix as M


@pytest.fixture(scope="module")
def kwargs(cumulo_server, client_db):
    # NB: PGPASSWORD lets the suite run against a PostgreSQL oracle (CUMULO_TEST_ORACLE_PORT).
    return {"user": "cumulo", "host": "127.0.0.1", "port": cumulo_server.port,
            "database": client_db, "password": os.environ.get("PGPASSWORD")}


@pytest.fixture
def native(kwargs):
    c = pg8000.native.Connection(**kwargs)
    yield c
    c.close()


@pytest.fixture
def dbapi(kwargs):
    c = pg8000.dbapi.connect(**kwargs)
    yield c
    c.close()


def _code(e: pg8000.native.DatabaseError) -> str:
    return e.args[0]["C"]


def _round_trip(native, table: str, cases) -> None:
    native.run(f"drop table if exists {table}")
    native.run(M.create_sql(table, cases))
    names = [f"v{i}" for i in range(len(cases))]
    native.run(f"insert into {table} (id, {M.columns(cases)}) values "
               f"(1, {', '.join(':' + n for n in names)})",
               **{n: c.value for n, c in zip(names, cases, strict=True)})
    (row,) = native.run(f"select {M.columns(cases)} from {table}")
    M.check_row(row, cases)


def test_type_matrix_round_trip(native):
    cases = M.working("pg8000")
    _round_trip(native, "p8_types", cases)
    (row,) = native.run("select c_int8::varchar, c_numeric::varchar from p8_types")
    assert row == ["-9223372036854775808", "-123456789.125"]
    assert native.columns[0]["type_oid"] == 1043


def test_parameter_types_are_inferred(native):
    native.run("drop table if exists p8_inf")
    native.run("create table p8_inf (id int primary key, bal bigint, at date, tag text)")
    native.run("insert into p8_inf values (:i, :b, :d, :t)", i="1", b="10", d="2024-05-06",
               t="x")
    native.run("update p8_inf set bal = bal + :d where id = :i", d=5, i=1)
    assert native.run("select bal, at::text from p8_inf where id = :i and tag = :t",
                      i=1, t="x") == [[15, "2024-05-06"]]
    assert native.row_count == 1
    ps = native.prepare("select tag from p8_inf where id = :i")
    assert [ps.run(i=1), ps.run(i=2)] == [[["x"]], []]
    ps.close()


def test_dbapi_dml_and_transactions(dbapi):
    cur = dbapi.cursor()
    cur.execute("drop table if exists p8_tx")
    cur.execute("create table p8_tx (id int primary key, v text)")
    dbapi.commit()
    cur.executemany("insert into p8_tx values (%s, %s)", [(i, f"v{i}") for i in range(10)])
    assert cur.rowcount == 10
    dbapi.rollback()
    cur.execute("select count(*) from p8_tx")
    assert cur.fetchone() == [0]
    cur.execute("insert into p8_tx values (%s, %s)", (1, "one"))
    dbapi.commit()
    cur.execute("update p8_tx set v = %s where id = %s", ("uno", 1))
    assert cur.rowcount == 1
    dbapi.commit()
    cur.execute("select v from p8_tx")
    assert cur.fetchall() == (["uno"],)
    assert cur.description[0][:2] == ("v", 25)


def test_serialization_failure_retry(kwargs):
    a, b = pg8000.native.Connection(**kwargs), pg8000.native.Connection(**kwargs)
    try:
        a.run("drop table if exists p8_ser")
        a.run("create table p8_ser (id int primary key, v int)")
        a.run("insert into p8_ser values (1, 0)")
        attempts = 0
        while True:
            attempts += 1
            a.run("begin transaction isolation level repeatable read")
            try:
                a.run("select v from p8_ser where id = 1")
                if attempts == 1:
                    b.run("update p8_ser set v = v + 10 where id = 1")
                a.run("update p8_ser set v = v + 1 where id = 1")
                a.run("commit")
                break
            except pg8000.native.DatabaseError as e:
                assert _code(e) == "40001"
                a.run("rollback")
        assert attempts == 2
        assert b.run("select v from p8_ser") == [[11]]
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize("stmt, code", [
    ("select * from p8_missing", "42P01"),
    ("selec 1", "42601"),
    ("select nope from p8_err", "42703"),
    ("select no_such_fn(1)", "42883"),
    ("insert into p8_err values (1, 1)", "23505"),
    ("insert into p8_err values (null, 1)", "23502"),
    ("insert into p8_err values (2, -1)", "23514"),
    ("select 'abc'::int", "22P02"),
    ("select 1 / 0", "22012"),
])
def test_errors_carry_sqlstate(native, stmt, code):
    native.run("create table if not exists p8_err (id int primary key, v int check (v >= 0))")
    native.run("insert into p8_err values (1, 1) on conflict do nothing")
    native.run("begin transaction")
    with pytest.raises(pg8000.native.DatabaseError) as e:
        native.run(stmt)
    assert _code(e.value) == code
    with pytest.raises(pg8000.native.DatabaseError) as e:
        native.run("select 1")
    assert _code(e.value) == "25P02"
    native.run("rollback")
    assert native.run("select 1") == [[1]]


def test_portal_fetch_in_batches_with_declare(native):
    native.run("drop table if exists p8_big")
    native.run("create table p8_big (id int primary key)")
    native.run("insert into p8_big select g from generate_series(1, 300) g")
    native.run("begin transaction")
    native.run("declare p8c cursor for select id from p8_big order by id")
    batches = []
    while True:
        rows = native.run("fetch forward 100 from p8c")
        if not rows:
            break
        batches.append([r[0] for r in rows])
    native.run("close p8c")
    native.run("commit")
    assert [len(b) for b in batches] == [100, 100, 100]
    assert batches[2][-1] == 300


def test_copy_in_and_out_with_streams(native):
    native.run("drop table if exists p8_copy")
    native.run("create table p8_copy (id int, s text)")
    native.run("copy p8_copy from stdin",
               stream=io.BytesIO(b"1\tone\n2\t\\N\n3\tthree\\ttab\n"))
    assert native.row_count == 3
    native.run("copy p8_copy from stdin with (format csv)", stream=["4,four\n", "5,\"f,ive\"\n"])
    out = io.BytesIO()
    native.run("copy (select * from p8_copy order by id) to stdout", stream=out)
    assert out.getvalue() == b"1\tone\n2\t\\N\n3\tthree\\ttab\n4\tfour\n5\tf,ive\n"
    assert native.row_count == 5


def _send_cancel(port: int, key_data: bytes) -> None:
    pid, secret = struct.unpack("!ii", key_data)
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(struct.pack("!iiii", 16, 80877102, pid, secret))
        s.recv(1)  # the server closes the socket without replying


def test_cancel_request_and_statement_timeout(native, kwargs):
    key = native._backend_key_data
    threading.Timer(0.5, _send_cancel, (kwargs["port"], key)).start()
    with pytest.raises(pg8000.native.DatabaseError) as e:
        native.run("select count(*) from generate_series(1, 1000000000000)")
    assert _code(e.value) == "57014"
    assert native.run("select 1") == [[1]]
    native.run("set statement_timeout = 300")
    with pytest.raises(pg8000.native.DatabaseError) as e:
        native.run("select count(*) from generate_series(1, 1000000000000)")
    assert _code(e.value) == "57014"
    assert e.value.args[0]["M"] == "canceling statement due to statement timeout"
    native.run("reset statement_timeout")
    assert native.run("select 2") == [[2]]
