"""CREATE FUNCTION ... LANGUAGE sql | plpgsql and DROP FUNCTION (issue 16 item 18), and
PL/pgSQL SELECT / EXECUTE / RETURNING ... INTO [STRICT], vs PG 15.

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

# INTO STRICT: P0002 / P0003 with PG's HINT and CONTEXT; RETURNING INTO of many rows is
# P0003 without STRICT; ROW_COUNT after SELECT INTO counts the one row; EXECUTE keeps FOUND
STRICT = [
    "drop table if exists st",
    "create table st (id int primary key, v int)",
    "insert into st values (1, 10), (2, 20), (3, 20)",
    "create function sget(k int) returns int language plpgsql as $$\ndeclare r int;\nbegin\n"
    "  r := -1;\n  select v into strict r from st where v = k;\n  return r;\nend $$",
    "select sget(10)",
    "select sget(99)",
    "select sget(20)",
    "create function sexe(k int) returns int language plpgsql as $$\ndeclare r int;\nbegin\n"
    "  execute 'select v from st where v = $1' into strict r using k;\n  return r;\nend $$",
    "select sexe(10)",
    "select sexe(99)",
    "select sexe(20)",
    "create function sdiag(k int) returns text language plpgsql as $$\n"
    "declare r int; n bigint; f boolean;\nbegin\n"
    "  select v into r from st where v >= k order by id;\n  get diagnostics n = row_count;\n"
    "  f := found;\n  execute 'select v from st where v >= $1 order by id' into r using k;\n"
    "  return r || ' ' || n || ' ' || f || ' ' || found;\nend $$",
    "select sdiag(10), sdiag(99)",
    "create function supd(k int, s boolean) returns int language plpgsql as $$\n"
    "declare r int;\nbegin\n  if s then\n"
    "    update st set v = v + 1 where v = k returning id into strict r;\n  else\n"
    "    update st set v = v + 1 where v = k returning id into r;\n  end if;\n"
    "  return r;\nend $$",
    "select supd(10, false), supd(99, false)",
    "select supd(20, false)",
    "select supd(99, true)",
    "select supd(11, true)",
    "do $$ declare r int; begin insert into st values (7, 1), (8, 1) returning id into r; "
    "end $$",
    "do $$ declare r record; begin delete from st where v = 99 returning * into strict r; "
    "end $$",
    "create function scatch(k int) returns text language plpgsql as $$\ndeclare r int;\n"
    "begin\n  select v into strict r from st where v = k;\n  return r;\nexception\n"
    "  when no_data_found then return 'none';\n  when too_many_rows then return 'many';\n"
    "end $$",
    "select scatch(99), scatch(20), scatch(12)",
    "select * from st order by id",
    "drop function sget, sexe, sdiag, supd, scatch",
    "drop table st",
]


def run_diag(dsn: str, statements: list[str]) -> list[tuple]:
    """As `run`, with each error's DETAIL, HINT and CONTEXT too."""
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in statements:
            try:
                cur = c.execute(sql)
                out.append((sql, cur.statusmessage, cur.fetchall() if cur.description else None))
            except psycopg.Error as e:
                d = e.diag
                out.append((sql, e.sqlstate, d.message_primary, d.message_detail,
                            d.message_hint, d.context))
    return out


def test_into_strict_same_as_pg15(servers):
    expected = run_diag(servers[0], STRICT)
    assert sum(1 for r in expected if r[1] in ("P0002", "P0003")) >= 6
    got = run_diag(servers[1], STRICT)
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
