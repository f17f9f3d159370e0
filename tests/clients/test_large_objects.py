"""Large objects through every client that uses them, against PostgreSQL 15.

- SQL: the lo_* functions with their errors, descriptors across savepoints and
  transactions, the 2 KB page layout of pg_largeobject, GRANT/ALTER/COMMENT ON
  LARGE OBJECT, privilege checks under SET ROLE, and DROP ROLE/REASSIGN/DROP OWNED
  (statement by statement, `test_statements_pg15`'s runner);
- psycopg2's `lobject` and psql's `\\lo_import`, `\\lo_export`, `\\lo_list` and
  `\\lo_unlink`: libpq's large-object API, which calls the functions through the
  FunctionCall message;
- pgJDBC's LargeObjectManager (its Fastpath) and a Blob on an oid column;
- server-side lo_import/lo_export of files, and vacuumlo.

Every check compares what the client saw on both servers; OIDs the servers choose
themselves (lo_creat, lo_import) are the only thing normalised.
"""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import tempfile

import psycopg
import psycopg2
import pytest

from cumulo.server.pgwire import fastpath
from cumulo.server.sql.largeobj import pages
from tests import pg15 as pg15_mod
from tests.clients import pgjdbc
from tests.clients.conftest import make_database
from tests.clients.oracle_diff import fresh_pg15_db
from tests.clients.test_psql import psql
from tests.integration.stmtdiff import assert_same_outcomes

DB = "cl_large_objects"
VACUUMLO = "/usr/lib/postgresql/15/bin/vacuumlo"

SCRIPT = r"""
create role lo_t_alice;
create role lo_t_bob;
select lo_create(50000);
select lo_create(50000);
select lo_open(99999, 262144);
begin;
select lo_open(50000, 0);
rollback;
select loread(7, 10);
begin;
select lo_open(50000, 262144), lo_open(50000, 393216), lo_open(50000, 131072);
select lowrite(0, 'x');
select lo_close(1);
select lo_open(50000, 262144);
select lo_lseek(0, 5, 7);
rollback;
begin;
select lo_open(50000, 393216);
select lo_lseek(0, -5, 0);
rollback;
begin;
select lo_open(50000, 393216);
select lo_lseek64(0, 5000000000, 0);
select lo_tell(0);
select lo_lseek(0, 0, 1);
select lo_truncate(0, -5);
select lo_truncate64(0, 5000000000000000);
rollback;
begin;
select lo_open(50000, 262144);
select lo_truncate(0, 5);
rollback;
select lo_get(50000, 0, -1);
select lo_get(50000, -1, 5);
select lo_get(99999);
select lo_put(99999, 0, 'x');
select lo_unlink(99999);
select lo_import('/nonexistent/file');
select lo_export(50000, '/nonexistent/x');
select lo_export(99999, '/tmp/x');
begin;
select lo_open(50000, 393216);
select lowrite(0, 'hello');
savepoint s1;
select lowrite(0, ' world');
select lo_tell(0), lo_tell64(0);
rollback to s1;
select lo_get(50000);
select lo_lseek(0, 10, 2), lo_tell64(0), loread(0, -3), lo_lseek64(0, 1, 0), loread(0, 3);
commit;
select loread(0, 10);
begin;
savepoint a;
select lo_open(50000, 262144);
rollback to a;
select loread(0, 1);
rollback;
begin;
savepoint a;
select lo_open(50000, 262144);
release a;
savepoint c;
select lo_open(50000, 262144);
rollback to c;
select loread(0, 2), lo_open(50000, 262144);
rollback;
begin;
select lo_unlink(50000);
select lo_get(50000);
rollback;
select lo_get(50000);
select lo_from_bytea(50001, '\x0102');
select lo_from_bytea(50001, 'a');
select lo_get(50001, 1, 100), lo_get(50001, 5, 1);
select lo_put(50001, 5000, 'end');
select length(lo_get(50001)), substring(lo_get(50001) from 4990 for 20);
select loid, pageno, length(data) from pg_largeobject order by 1, 2;
begin;
select lo_open(50001, 393216);
select lo_truncate64(0, 4096);
select loid, pageno, length(data) from pg_largeobject order by 1, 2;
select lo_truncate(0, 0);
select loid, pageno, length(data) from pg_largeobject order by 1, 2;
select lo_lseek64(0, 0, 2), lo_lseek(0, 7, 0), lo_lseek(0, -2, 1), lo_tell64(0);
select lowrite(0, 'ab');
select lo_get(50001);
commit;
select lo_creat(-1) > 0, lo_create(0) > 0;
select lo_from_bytea(50002, ''), lo_put(50002, 5000, 'z');
select lo_get(50002, 0, 3), lo_get(50002, 4998, 5), length(lo_get(50002)), lo_get(50002, 6000, 1);
select lo_unlink(50002);
alter large object 50000 owner to lo_t_alice;
alter large object 99999 owner to lo_t_alice;
alter large object 50000 owner to nosuchrole;
grant select on large object 50000 to lo_t_bob;
grant select, update on large object 50001 to public;
grant all on large object 50001 to lo_t_bob with grant option;
grant insert on large object 50001 to lo_t_bob;
grant select on large object 99999 to lo_t_bob;
revoke update on large object 50001 from public;
select oid, lomowner::regrole, lomacl from pg_largeobject_metadata where oid >= 50000 order by 1;
comment on large object 50000 is 'first one';
comment on large object 99999 is 'x';
select obj_description(50000, 'pg_largeobject');
select classoid::regclass, objsubid, description from pg_description where objoid = 50000;
select pg_describe_object(2613, 50000, 0), pg_describe_object(2613, 99999, 0);
set role lo_t_bob;
select lo_get(50000);
select lo_put(50000, 0, 'x');
select lo_get(50001);
begin;
select lo_open(50001, 131072);
rollback;
select lo_unlink(50001);
alter large object 50001 owner to lo_t_bob;
comment on large object 50001 is 'no';
select lo_import('/nonexistent/file');
select count(*) from pg_largeobject;
select count(*) from pg_largeobject_metadata;
reset role;
drop role lo_t_alice;
reassign owned by lo_t_alice to lo_t_bob;
select oid, lomowner::regrole, lomacl from pg_largeobject_metadata where oid >= 50000 order by 1;
drop role lo_t_alice;
drop owned by lo_t_bob;
select oid, lomowner::regrole, lomacl from pg_largeobject_metadata where oid >= 50000 order by 1;
select count(*) from pg_description where objoid = 50000;
drop role lo_t_bob;
select lo_unlink(50001);
select count(*) from pg_largeobject where loid = 50001
"""


@pytest.mark.parametrize("module", [pages, fastpath])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


def test_sql_as_pg15(pg15, cumulo_server):
    assert_same_outcomes(pg15, cumulo_server, "lo_sql", SCRIPT)


@pytest.fixture(scope="module")
def dsns(pg15, cumulo_server):
    """(PostgreSQL's DSN, Cumulo's DSN) of a fresh database of this module on each."""
    return fresh_pg15_db(pg15, DB), cumulo_server.dsn(dbname=make_database(cumulo_server, DB))


def _lobject_session(dsn: str) -> list:
    """psycopg2's lobject: write, seek, read, truncate, export/import by libpq, unlink."""
    out: list = []
    conn = psycopg2.connect(dsn)
    try:
        lo = conn.lobject(0, "wb")
        oid = lo.oid
        out.append(lo.write(b"0123456789" * 1000))
        out += [lo.seek(5000), lo.tell(), lo.seek(-3, 2)]
        lo.close()
        conn.commit()
        lo = conn.lobject(oid, "rb")
        out += [len(lo.read()), lo.seek(4995), lo.read(10), lo.tell()]
        lo.close()
        conn.rollback()
        lo = conn.lobject(oid, "wb")
        lo.truncate(12)
        lo.close()
        conn.commit()
        lo = conn.lobject(oid, "rt")
        out.append(lo.read())
        lo.close()
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "f")
            conn.lobject(oid, "rb").export(path)
            with open(path, "rb") as f:
                out.append(f.read())
        lo = conn.lobject(oid, "wb")
        lo.unlink()
        conn.commit()
        try:
            conn.lobject(oid, "rb")
        except psycopg2.Error as e:
            out.append((e.pgcode, str(e).strip().replace(str(oid), "N")))
        conn.rollback()
    finally:
        conn.close()
    return out


def test_psycopg2_lobject_as_pg15(dsns):
    expected = _lobject_session(dsns[0])
    assert expected[-1][1].startswith("ERROR:  large object N does not exist")
    assert _lobject_session(dsns[1]) == expected


def _psql_session(port: int, password: str | None, tmp: str) -> str:
    """psql's \\lo_* commands; the OIDs the server picked print as N."""
    src = os.path.join(tmp, "in.bin")
    script = "\n".join([
        "select lo_create(60000), lo_create(60001);",
        "comment on large object 60001 is 'second';",
        "grant select on large object 60000 to public;",
        r"\lo_list",
        r"\lo_list+",
        r"\dl",
        rf"\lo_import {src} 'imported'",
        "select length(lo_get(:LASTOID)), obj_description(:LASTOID, 'pg_largeobject');",
        rf"\lo_export :LASTOID {tmp}/out.bin",
        r"\lo_unlink :LASTOID",
        r"\lo_export 99999 /dev/null",
        r"\lo_unlink 99999",
        r"\lo_unlink 60000",
        r"\lo_unlink 60001",
        r"\lo_list",
    ])
    res = psql(port, "-e", db=DB, stdin=script, password=password)
    with open(os.path.join(tmp, "out.bin"), "rb") as f, open(src, "rb") as g:
        assert f.read() == g.read()
    return re.sub(r"\b1[6-9]\d{3}\b", "N", res.stdout + res.stderr)


def test_psql_lo_commands_as_pg15(dsns, pg15, cumulo_server):
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "in.bin"), "wb") as f:
            f.write(bytes(range(256)) * 40)
        expected = _psql_session(pg15.port, pg15_mod.PASSWORD, tmp)
        got = _psql_session(cumulo_server.port, None, tmp)
    assert "lo_import N" in expected and "imported" in expected
    assert got == expected


def _server_files(dsn: str, tmp: str) -> list:
    """Server-side lo_export and lo_import of a file (both servers run on this machine)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        path = os.path.join(tmp, f"export{abs(hash(dsn))}.bin")
        conn.execute("select lo_from_bytea(61000, decode(repeat('ab', 3000), 'hex'))")
        out = [conn.execute("select lo_export(61000, %s)", (path,)).fetchone()]
        with open(path, "rb") as f:
            out.append(f.read() == bytes.fromhex("ab" * 3000))
        out.append(conn.execute("select lo_import(%s, 61001)", (path,)).fetchone())
        out.append(conn.execute("select lo_get(61001) = lo_get(61000)").fetchone())
        conn.execute("select lo_unlink(61000), lo_unlink(61001)")
    return out


def test_server_side_import_and_export_as_pg15(dsns):
    tmp = tempfile.mkdtemp()
    try:
        os.chmod(tmp, 0o777)  # NB: PostgreSQL's server runs as user postgres
        expected = _server_files(dsns[0], tmp)
        assert expected == [(1,), True, (61001,), (True,)]
        assert _server_files(dsns[1], tmp) == expected
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _vacuumlo(dsn: str) -> tuple[str, list]:
    """vacuumlo (a libpq client: a temp table, a WITH HOLD cursor, lo_unlink by FunctionCall)
    removes the object no oid column references."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("create table vac (id int primary key, doc oid)")
        conn.execute("insert into vac values (1, lo_from_bytea(62000, 'kept'))")
        conn.execute("select lo_from_bytea(62001, 'orphan')")
    res = subprocess.run([VACUUMLO, "-v", dsn], capture_output=True, text=True, timeout=60)
    with psycopg.connect(dsn, autocommit=True) as conn:
        left = conn.execute("select oid from pg_largeobject_metadata where oid >= 62000").fetchall()
        conn.execute("select lo_unlink(62000)")
        conn.execute("drop table vac")
    return (res.stdout + res.stderr).replace(dsn, "DSN"), left


def test_vacuumlo_as_pg15(dsns):
    expected = _vacuumlo(dsns[0])
    assert expected[1] == [(62000,)] and "Removing lo  62001" in expected[0]
    assert _vacuumlo(dsns[1]) == expected


def _jdbc_session(jpype, url: str) -> list:
    """pgJDBC's LargeObjectManager (Fastpath) and a Blob on an oid column."""
    out: list = []
    conn = jpype.JClass("java.sql.DriverManager").getConnection(url)
    try:
        conn.setAutoCommit(False)
        lom = conn.unwrap(jpype.JClass("org.postgresql.PGConnection")).getLargeObjectAPI()
        oid = lom.createLO()
        obj = lom.open(oid, lom.READWRITE)
        obj.write(jpype.JArray(jpype.JByte)(b"abcdefghij" * 500))
        obj.seek(10)
        out += [obj.tell(), bytes(obj.read(5)), obj.size()]
        obj.truncate(100)
        obj.seek64(0, 0)
        out += [obj.size(), bytes(obj.read(12)), obj.tell64(), obj.size64()]
        obj.close()
        conn.commit()
        obj = lom.open(oid, lom.READ)
        out.append(bytes(obj.getInputStream().readAllBytes()))
        obj.close()
        st = conn.createStatement()
        st.execute("create table if not exists blobs (id int primary key, b oid)")
        ps = conn.prepareStatement("insert into blobs values (1, ?)")
        ps.setBlob(1, jpype.JClass("java.io.ByteArrayInputStream")(
            jpype.JArray(jpype.JByte)(b"blob data")))
        ps.executeUpdate()
        conn.commit()
        rs = st.executeQuery("select b from blobs where id = 1")
        rs.next()
        blob = rs.getBlob(1)
        out += [blob.length(), bytes(blob.getBytes(2, 4))]
        conn.commit()
        lom.delete(oid)
        conn.commit()
        try:
            lom.open(oid, lom.READ)
        except jpype.JClass("java.sql.SQLException") as e:
            out.append((str(e.getSQLState()), str(e.getMessage()).replace(str(oid), "N")))
        conn.rollback()
    finally:
        conn.close()
    return out


def test_jdbc_large_object_manager_as_pg15(dsns, pg15, cumulo_server):
    jpype = pgjdbc.start()
    expected = _jdbc_session(jpype, f"jdbc:postgresql://{pg15.host}:{pg15.port}/{DB}"
                                    f"?user=cumulo&password={pg15_mod.PASSWORD}")
    assert expected[-1][0] == "42704"
    got = _jdbc_session(jpype, f"jdbc:postgresql://{cumulo_server.host}:{cumulo_server.port}/{DB}"
                               "?user=cumulo")
    assert got == expected
