"""PL/pgSQL `INTO STRICT` and the row counts of INTO, vs PostgreSQL 15.

SELECT / EXECUTE / ... RETURNING INTO STRICT raise P0002 on no row and P0003 on
more than one; a RETURNING INTO of several rows is P0003 even without STRICT;
ROW_COUNT after a SELECT INTO counts the one row fetched; EXECUTE leaves FOUND.
Compared with SQLSTATE, message, DETAIL, HINT and CONTEXT.
"""

from __future__ import annotations

import psycopg
import pytest

STATEMENTS = [
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


def run(dsn: str) -> list[tuple]:
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in STATEMENTS:
            try:
                cur = c.execute(sql)
                out.append((sql, cur.statusmessage, cur.fetchall() if cur.description else None))
            except psycopg.Error as e:
                d = e.diag
                out.append((sql, e.sqlstate, d.message_primary, d.message_detail,
                            d.message_hint, d.context))
    return out


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    for dsn in (pg15.dsn(), cumulo_server.dsn()):
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("DROP DATABASE IF EXISTS plpgsql_strict")
            c.execute("CREATE DATABASE plpgsql_strict")
    return pg15.dsn(db="plpgsql_strict"), cumulo_server.dsn(dbname="plpgsql_strict")


def test_into_strict_same_as_pg15(servers):
    expected = run(servers[0])
    assert sum(1 for r in expected if r[1] in ("P0002", "P0003")) >= 6
    got = run(servers[1])
    diffs = [(e, g) for e, g in zip(expected, got, strict=True) if e != g]
    assert not diffs, "\n".join(f"{e}\n  cumulo: {g}" for e, g in diffs)
