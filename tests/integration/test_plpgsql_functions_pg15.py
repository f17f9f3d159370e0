"""CREATE FUNCTION ... LANGUAGE sql | plpgsql and DROP FUNCTION (issue 16 item 18), vs PG 15.

Each statement runs on PostgreSQL 15 and on Cumulo through psycopg: status, rows,
SQLSTATE, message and notices must be the same. Functions are catalog rows, so
they also survive a restart (`test_functions_survive_a_restart`).
"""

from __future__ import annotations

import psycopg
import pytest

STATEMENTS = [
    'drop table if exists ft',
    'create table ft (id int primary key, v int)',
    'insert into ft values (1, 10), (2, 20)',
    'create function add_one(a int) returns int language sql as $$ select a + 1 $$',
    'select add_one(2), add_one(null)',
    "create function add2(int, int) returns int as 'select $1 + $2' language sql immutable",
    'select add2(3, 4)',
    'create or replace function twice(x int) returns int as $$\nbegin\n  return x * 2;\nend;\n$$ language plpgsql',
    'select twice(21), twice(v) from ft order by id',
    'create function total() returns bigint language plpgsql as $$\ndeclare t bigint;\nbegin\n  select sum(v) into t from ft;\n  return t;\nend $$',
    'select total()',
    "create function bump(k int) returns void language plpgsql as $$\nbegin\n  update ft set v = v + 1 where id = k;\n  if not found then\n    raise exception 'no row %', k;\n  end if;\nend $$",
    'select bump(1)',
    'select bump(9)',
    'select * from ft order by id',
    'create function twice(x int) returns int as $$ begin return x; end $$ language plpgsql',
    'create function pos(int) returns int language plpgsql as $$ begin return $1 + 100; end $$',
    'select pos(1)',
    'create function bad() returns int language plpgsql as $$ begin return 1 end $$',
    'create function nores() returns int language plpgsql as $$ begin perform 1; end $$',
    'select nores()',
    "do $$ begin raise notice 'twice %', twice(5); end $$",
    'drop function add_one',
    'drop function add2(int, int)',
    'drop function nosuch',
    'drop function twice(int)',
    'drop function total, bump, pos, nores',
    'drop table ft\n',
]


def run(dsn: str, statements: list[str] = STATEMENTS) -> list[tuple]:
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        notes: list[str] = []
        c.add_notice_handler(lambda d: notes.append(f"{d.severity}: {d.message_primary}"))
        for sql in statements:
            notes.clear()
            try:
                cur = c.execute(sql)
                rows = cur.fetchall() if cur.description else None
                out.append((sql, cur.statusmessage, rows, list(notes)))
            except psycopg.Error as e:
                out.append((sql, "ERROR", e.sqlstate, e.diag.message_primary, list(notes)))
    return out


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    for dsn in (pg15.dsn(), cumulo_server.dsn()):
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("DROP DATABASE IF EXISTS plpgsql_fn")
            c.execute("CREATE DATABASE plpgsql_fn")
    return pg15.dsn(db="plpgsql_fn"), cumulo_server.dsn(dbname="plpgsql_fn")


def test_functions_same_as_pg15(servers):
    expected = run(servers[0])
    assert sum(1 for r in expected if r[1] == "CREATE FUNCTION") >= 6
    got = run(servers[1])
    diffs = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not diffs, "\n".join(f"{e}\n  cumulo: {g}" for e, g in diffs)


CATALOG = [
    "create function pf1(a int, b text) returns int language sql immutable strict as "
    "$$ select a $$",
    "select proname, pronargs, proargtypes::text, prorettype::regtype::text, provolatile, "
    "proisstrict, proargnames, prosrc, l.lanname from pg_proc p "
    "join pg_language l on l.oid = p.prolang where proname = 'pf1'",
    "drop function pf1",
    "select count(*) from pg_proc where proname = 'pf1'",
]


def test_pg_proc_lists_them_as_pg15(servers):
    expected = run(servers[0], CATALOG)
    assert expected[1][2] and expected[1][2][0][0] == "pf1"
    assert run(servers[1], CATALOG) == expected


def test_functions_survive_a_restart(fresh_server):
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        c.execute("create function plus(a int, b int) returns int language plpgsql as "
                  "$$ begin return a + b; end $$")
    fresh_server.restart()
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        assert c.execute("select plus(2, 3)").fetchone() == (5,)
        c.execute("drop function plus(int, int)")
        with pytest.raises(psycopg.errors.UndefinedFunction):
            c.execute("select plus(2, 3)")
