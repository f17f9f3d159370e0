"""The SQL surface of issue 3 through psycopg 3 against a real `cumulo serve`."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import psycopg
import pytest
from psycopg import errors


@pytest.fixture
def conn(cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        yield c


def one(conn, sql, params=None):
    return conn.execute(sql, params).fetchone()


def test_ddl_constraints_and_errors(conn):
    conn.execute("drop table if exists child, parent")
    conn.execute(
        "create table parent (id serial primary key, name varchar(10) not null unique, "
        "score numeric(6,2) default 0 check (score >= 0))"
    )
    conn.execute(
        "create table child (a int, b int, pid int references parent(id), primary key (a, b))"
    )
    assert one(conn, "insert into parent (name) values ('x') returning id, score") == (
        1,
        Decimal("0.00"),
    )
    with pytest.raises(errors.UniqueViolation) as e:
        conn.execute("insert into parent (name) values ('x')")
    assert e.value.diag.message_detail == "Key (name)=(x) already exists."
    with pytest.raises(errors.NotNullViolation):
        conn.execute("insert into parent (name) values (null)")
    with pytest.raises(errors.CheckViolation):
        conn.execute("insert into parent (name, score) values ('y', -1)")
    with pytest.raises(errors.StringDataRightTruncation):
        conn.execute("insert into parent (name) values ('abcdefghijk')")
    with pytest.raises(errors.ForeignKeyViolation):
        conn.execute("insert into child values (1, 1, 99)")
    conn.execute("insert into child values (1, 1, 1), (1, 2, null)")
    with pytest.raises(errors.UniqueViolation):
        conn.execute("insert into child values (1, 1, null)")
    with pytest.raises(errors.ForeignKeyViolation):
        conn.execute("delete from parent where id = 1")
    with pytest.raises(errors.UndefinedColumn):
        conn.execute("select nope from parent")
    with pytest.raises(errors.DuplicateTable):
        conn.execute("create table parent (id int)")


def test_dml_returning_upsert_and_tags(conn):
    conn.execute("drop table if exists kv")
    conn.execute("create table kv (k text primary key, v int)")
    cur = conn.execute("insert into kv values ('a', 1), ('b', 2), ('c', 3)")
    assert cur.statusmessage == "INSERT 0 3"
    cur = conn.execute("update kv set v = v * 10 where k <> 'c' returning k, v")
    assert sorted(cur.fetchall()) == [("a", 10), ("b", 20)]
    assert cur.statusmessage == "UPDATE 2"
    cur = conn.execute(
        "insert into kv values ('a', 5), ('d', 4) on conflict (k) do update "
        "set v = kv.v + excluded.v returning k, v"
    )
    assert sorted(cur.fetchall()) == [("a", 15), ("d", 4)]
    cur = conn.execute("insert into kv values ('a', 0) on conflict do nothing")
    assert cur.statusmessage == "INSERT 0 0"
    cur = conn.execute("delete from kv where v > %s", (15,))
    assert cur.statusmessage == "DELETE 1"
    assert conn.execute("select k, v from kv order by k").fetchall() == [
        ("a", 15),
        ("c", 3),
        ("d", 4),
    ]


def test_queries(conn):
    conn.execute("drop table if exists emp, dept")
    conn.execute("create table dept (id int primary key, name text)")
    conn.execute("create table emp (id int primary key, dept int, name text, sal int)")
    conn.execute("insert into dept values (1, 'eng'), (2, 'ops'), (3, 'empty')")
    conn.execute(
        "insert into emp values (1, 1, 'ann', 100), (2, 1, 'bob', 80), (3, 2, 'cy', 90), "
        "(4, null, 'dee', null)"
    )
    rows = conn.execute(
        "select d.name, count(e.id), sum(e.sal), string_agg(e.name, ',' order by e.name) "
        "from dept d left join emp e on e.dept = d.id group by d.name order by d.name"
    ).fetchall()
    assert rows == [("empty", 0, None, None), ("eng", 2, 180, "ann,bob"), ("ops", 1, 90, "cy")]
    rows = conn.execute(
        "select name, rank() over (order by sal desc nulls last), "
        "lag(name) over (order by id) from emp order by id"
    ).fetchall()
    assert rows == [("ann", 1, None), ("bob", 3, "ann"), ("cy", 2, "bob"), ("dee", 4, "cy")]
    assert conn.execute(
        "select name from emp e where sal > (select avg(sal) from emp e2 "
        "where e2.dept = e.dept) order by 1"
    ).fetchall() == [("ann",)]
    assert conn.execute(
        "with recursive r(n) as (select 1 union all select n + 1 from r where n < 5) "
        "select sum(n) from r"
    ).fetchone() == (15,)
    assert conn.execute(
        "select id from emp where exists (select 1 from dept where dept.id = emp.dept "
        "and name like 'e%') order by id"
    ).fetchall() == [(1,), (2,)]
    assert conn.execute(
        "select distinct on (dept) dept, name from emp order by dept nulls first, sal desc"
    ).fetchall() == [(None, "dee"), (1, "ann"), (2, "cy")]
    assert conn.execute(
        "select name from emp where name ~ '^[ab]' union select name from dept "
        "except select 'ops' order by 1 limit 3 offset 1"
    ).fetchall() == [("bob",), ("empty",), ("eng",)]
    assert conn.execute(
        "select case when sal is null then 'none' else 'some' end, coalesce(sal, -1), "
        "nullif(sal, 100) from emp where id in (1, 4) order by id"
    ).fetchall() == [("some", 100, None), ("none", -1, None)]


def test_types_round_trip(conn):
    conn.execute("drop table if exists types")
    conn.execute(
        "create table types (b bool, i2 smallint, i4 int, i8 bigint, n numeric(10,2), "
        "f4 real, f8 float8, t text, vc varchar(5), c char(3), by bytea, d date, tm time, "
        "ts timestamp, tz timestamptz, iv interval, u uuid, j json, jb jsonb, arr int[])"
    )
    values = (
        True,
        -2,
        2**31 - 1,
        2**62,
        Decimal("12345678.91"),
        1.5,
        2.25,
        "héllo",
        "abc",
        "ab ",
        b"\x00\xff",
        dt.date(2024, 2, 29),
        dt.time(12, 34, 56, 789000),
        dt.datetime(2024, 1, 2, 3, 4, 5, 6),
        dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
        dt.timedelta(days=1, seconds=3723),
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
        {"a": [1, 2]},
        {"b": None},
        [1, None, 3],
    )
    conn.execute(
        "insert into types values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
        "%s, %s, %s::json, %s::jsonb, %s)",
        values[:17]
        + (psycopg.types.json.Json(values[17]), psycopg.types.json.Jsonb(values[18]), values[19]),
    )
    for binary in (False, True):
        row = conn.cursor(binary=binary).execute("select * from types").fetchone()
        assert row == values, (binary, row)


def test_transactions_and_savepoints(cumulo_server):
    with psycopg.connect(cumulo_server.dsn()) as conn:
        conn.execute("drop table if exists acct")
        conn.execute("create table acct (id int primary key, bal int)")
        conn.execute("insert into acct values (1, 100), (2, 100)")
        conn.commit()
        conn.execute("update acct set bal = bal - 10 where id = 1")
        conn.execute("savepoint s1")
        conn.execute("update acct set bal = 0")
        conn.execute("rollback to savepoint s1")
        conn.execute("update acct set bal = bal + 10 where id = 2")
        conn.commit()
        assert conn.execute("select bal from acct order by id").fetchall() == [(90,), (110,)]
        conn.commit()
        with pytest.raises(errors.DivisionByZero):
            conn.execute("select 1 / 0")
        with pytest.raises(errors.InFailedSqlTransaction):
            conn.execute("select 1")
        conn.rollback()
        assert conn.execute("show transaction isolation level").fetchone() == ("read committed",)


def test_repeatable_read_lost_update_is_40001(cumulo_server):
    a = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    b = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    a.execute("drop table if exists lost")
    a.execute("create table lost (id int primary key, v int)")
    a.execute("insert into lost values (1, 0)")
    a.execute("begin isolation level repeatable read")
    b.execute("begin isolation level repeatable read")
    assert a.execute("select v from lost").fetchone() == (0,)
    assert b.execute("select v from lost").fetchone() == (0,)
    a.execute("update lost set v = v + 1 where id = 1")
    a.execute("commit")
    with pytest.raises(errors.SerializationFailure):
        b.execute("update lost set v = v + 1 where id = 1")
    b.execute("rollback")
    assert b.execute("select v from lost").fetchone() == (1,)
    a.close()
    b.close()


def test_snapshot_is_taken_at_first_statement_not_begin(cumulo_server):
    a = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    b = psycopg.connect(cumulo_server.dsn(), autocommit=True)
    a.execute("drop table if exists snap")
    a.execute("create table snap (id int primary key)")
    a.execute("begin isolation level repeatable read")
    b.execute("insert into snap values (1)")
    assert a.execute("select count(*) from snap").fetchone() == (1,)
    b.execute("insert into snap values (2)")
    assert a.execute("select count(*) from snap").fetchone() == (1,)
    a.execute("commit")
    a.close()
    b.close()


def test_cancel(fresh_server):
    """Runs on its own server: until this passes, the query can exhaust the server's memory."""
    import threading

    with psycopg.connect(fresh_server.dsn(), autocommit=True) as conn:
        timer = threading.Timer(0.5, conn.cancel)
        timer.start()
        with pytest.raises(errors.QueryCanceled):
            conn.execute("select count(*) from generate_series(1, 1000000000000) a")
        assert conn.execute("select 1").fetchone() == (1,)
