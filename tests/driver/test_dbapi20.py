"""PEP 249 compliance, in the spirit of the classic dbapi20.py suite, against each target."""

from __future__ import annotations

import datetime
import time

import pytest

import cumulo.driver as drv


def test_module_globals():
    assert drv.apilevel == "2.0"
    assert drv.threadsafety in (0, 1, 2, 3)
    assert drv.paramstyle in ("pyformat", "format")


def test_exception_hierarchy():
    assert issubclass(drv.Warning, Exception)
    assert issubclass(drv.Error, Exception)
    assert not issubclass(drv.Warning, drv.Error)
    for name in ("InterfaceError", "DatabaseError"):
        assert issubclass(getattr(drv, name), drv.Error)
    for name in ("DataError", "OperationalError", "IntegrityError", "InternalError",
                 "ProgrammingError", "NotSupportedError"):
        assert issubclass(getattr(drv, name), drv.DatabaseError)


def test_exceptions_on_connection(conn):
    for name in ("Warning", "Error", "InterfaceError", "DatabaseError", "DataError",
                 "OperationalError", "IntegrityError", "InternalError", "ProgrammingError",
                 "NotSupportedError"):
        assert getattr(conn, name) is getattr(drv, name)


def test_type_objects_and_constructors():
    assert drv.Date(2020, 1, 2) == datetime.date(2020, 1, 2)
    assert drv.Time(1, 2, 3) == datetime.time(1, 2, 3)
    assert drv.Timestamp(2020, 1, 2, 3, 4, 5) == datetime.datetime(2020, 1, 2, 3, 4, 5)
    ticks = time.mktime((2021, 3, 4, 5, 6, 7, 0, 0, -1))
    assert drv.DateFromTicks(ticks) == datetime.date(2021, 3, 4)
    assert drv.TimeFromTicks(ticks) == datetime.time(5, 6, 7)
    assert drv.TimestampFromTicks(ticks) == datetime.datetime(2021, 3, 4, 5, 6, 7)
    assert drv.Binary(b"\x00x") == b"\x00x"
    assert drv.NUMBER == 23 and drv.NUMBER == 1700 and drv.NUMBER != 25
    assert drv.STRING == 25 and drv.STRING == 1043 and drv.STRING != 23
    assert drv.DATETIME == 1184 and drv.BINARY == 17 and drv.ROWID == 26


def test_connection_methods(conn):
    conn.commit()
    conn.rollback()
    assert conn.autocommit is False
    cur = conn.cursor()
    assert cur.connection is conn
    conn.close()
    conn.close()  # closing twice is harmless
    assert conn.closed
    with pytest.raises(drv.InterfaceError):
        conn.cursor()
    with pytest.raises(drv.InterfaceError):
        cur.execute("select 1")


def test_cursor_close(conn):
    cur = conn.cursor()
    cur.close()
    with pytest.raises(drv.InterfaceError):
        cur.execute("select 1")


def test_description_and_rowcount(conn, table):
    cur = conn.cursor()
    assert cur.description is None and cur.rowcount == -1
    cur.execute(f"create table {table} (name varchar(20), price numeric(10, 2), n int)")
    assert cur.description is None
    cur.execute(f"insert into {table} values ('a', 1.50, 1), ('b', 2, 2)")
    assert cur.rowcount == 2
    cur.execute(f"select name, price, n from {table} order by name")
    d = cur.description
    assert [c[0] for c in d] == ["name", "price", "n"]
    assert all(len(c) == 7 for c in d)
    assert d[0][1] == drv.STRING and d[1][1] == drv.NUMBER and d[2][1] == drv.NUMBER
    assert d[0][3] == 20 and (d[1][4], d[1][5]) == (10, 2) and d[2][3] == 4
    assert cur.fetchall() == [("a", pytest.approx(1.5), 1), ("b", 2, 2)]
    assert cur.rowcount == 2
    cur.execute(f"update {table} set n = n + 1")
    assert cur.rowcount == 2 and cur.description is None
    cur.execute(f"delete from {table} where name = 'a'")
    assert cur.rowcount == 1


def test_fetch_methods(conn, table):
    cur = conn.cursor()
    cur.execute(f"create table {table} (i int)")
    with pytest.raises(drv.ProgrammingError):
        cur.fetchone()  # no result set
    cur.executemany(f"insert into {table} values (%s)", [(i,) for i in range(6)])
    assert cur.rowcount == 6
    cur.execute(f"select i from {table} order by i")
    assert cur.arraysize == 1
    assert cur.fetchone() == (0,)
    assert cur.fetchmany() == [(1,)]
    cur.arraysize = 2
    assert cur.fetchmany() == [(2,), (3,)]
    assert cur.fetchmany(10) == [(4,), (5,)]
    assert cur.fetchmany() == [] and cur.fetchone() is None and cur.fetchall() == []
    cur.execute(f"select i from {table} where i > %s order by i", (3,))
    assert list(cur) == [(4,), (5,)]
    cur.execute(f"select i from {table} where i < 0")
    assert cur.fetchall() == [] and cur.rowcount == 0


def test_none_and_binary(conn, table):
    cur = conn.cursor()
    cur.execute(f"create table {table} (a text, b bytea)")
    cur.execute(f"insert into {table} values (%s, %s)", (None, drv.Binary(b"\x00\xff")))
    cur.execute(f"select a, b from {table}")
    assert cur.fetchone() == (None, b"\x00\xff")
    cur.execute(f"select a from {table} where a is null")
    assert cur.fetchall() == [(None,)]


def test_named_and_positional_params(conn):
    cur = conn.cursor()
    cur.execute("select %(a)s::int + %(b)s::int, %(a)s::int", {"a": 2, "b": 3})
    assert cur.fetchone() == (5, 2)
    cur.execute("select %s::text || '%%'", ("x",))
    assert cur.fetchone() == ("x%",)
    cur.execute("select '%s' as lit, %s::int", (7,))  # %s in a string literal stays as is
    assert cur.fetchone() == ("%s", 7)
    with pytest.raises(drv.ProgrammingError):
        cur.execute("select %s, %s", (1,))
    with pytest.raises(drv.ProgrammingError):
        cur.execute("select %(a)s", {"b": 1})


def test_dates(conn):
    cur = conn.cursor()
    d, t = datetime.date(1999, 12, 31), datetime.time(23, 59, 58, 123456)
    ts = datetime.datetime(2001, 2, 3, 4, 5, 6, 7)
    cur.execute("select %s, %s, %s, %s::date + 1", (d, t, ts, d))
    assert cur.fetchone() == (d, t, ts, datetime.date(2000, 1, 1))


def test_nextset_and_multiple_statements(conn):
    cur = conn.cursor()
    cur.execute("select 1 as a; select 'x' as b, 2 as c")
    assert cur.fetchall() == [(1,)]
    assert cur.nextset() is True
    assert [c[0] for c in cur.description] == ["b", "c"]
    assert cur.fetchall() == [("x", 2)]
    assert cur.nextset() is None
    cur.execute("select 1")
    assert cur.nextset() is None


def test_callproc(conn):
    cur = conn.cursor()
    assert cur.callproc("lower", ("ABC",)) == ("ABC",)
    assert cur.fetchall() == [("abc",)]


def test_setinputsizes_setoutputsize_are_accepted(conn):
    cur = conn.cursor()
    cur.setinputsizes((25,))
    cur.setoutputsize(100)
    cur.setoutputsize(100, 0)
    cur.execute("select 1")
    assert cur.fetchone() == (1,)


def test_executemany_rowcount_and_errors(conn, table):
    cur = conn.cursor()
    cur.execute(f"create table {table} (id int primary key, v text)")
    cur.executemany(f"insert into {table} values (%(id)s, %(v)s)",
                    [{"id": i, "v": None if i % 2 else str(i)} for i in range(50)])
    assert cur.rowcount == 50
    conn.commit()
    with pytest.raises(drv.IntegrityError):
        cur.executemany(f"insert into {table} values (%s, %s)", [(100, "a"), (1, "dup")])
    conn.rollback()
    cur.execute(f"select count(*), count(v) from {table}")
    assert cur.fetchone() == (50, 25)
    conn.rollback()  # release the table before the fixture drops it


def test_commit_and_rollback(target, table):
    a = drv.connect(target.dsn())
    b = drv.connect(target.dsn(), autocommit=True)
    try:
        ca, cb = a.cursor(), b.cursor()
        ca.execute(f"create table {table} (i int)")
        a.commit()
        ca.execute(f"insert into {table} values (1)")
        assert a.transaction_status == "T"
        cb.execute(f"select count(*) from {table}")
        assert cb.fetchone() == (0,)  # not committed yet
        a.rollback()
        ca.execute(f"insert into {table} values (2)")
        a.commit()
        cb.execute(f"select i from {table}")
        assert cb.fetchall() == [(2,)]
        assert b.transaction_status == "I"
    finally:
        a.close()
        b.close()


def test_context_managers(target, table):
    with drv.connect(target.dsn()) as c:
        with c.cursor() as cur:
            cur.execute(f"create table {table} (i int)")
            cur.execute(f"insert into {table} values (1)")
        assert cur.closed
    # __exit__ committed
    c2 = drv.connect(target.dsn())
    cur = c2.cursor()
    cur.execute(f"select i from {table}")
    assert cur.fetchall() == [(1,)]
    c.close()
    c2.close()
