"""DO blocks in the PL/pgSQL subset (issue 16 item 18), diffed with PostgreSQL 15.

Each statement runs on PostgreSQL 15 and on Cumulo through psycopg; the status, rows,
SQLSTATE, message and the notices the block raised must be the same.
"""

from __future__ import annotations

import pytest

from tests.integration.stmtdiff import assert_same, fresh_databases, outcomes

STATEMENTS = [
    'drop table if exists dt',
    'create table dt (id int primary key, v text)',
    "do $$ begin raise notice 'hi % and %', 1, 'x'; end $$",
    "do $$\ndeclare\n  n int := 0;\n  r record;\n  total bigint;\nbegin\n  for i in 1..5 loop\n    insert into dt values (i, 'v' || i);\n    n := n + i;\n  end loop;\n  raise notice 'sum %', n;\n  for r in select id, v from dt where id > 3 order by id loop\n    raise notice 'row % %', r.id, r.v;\n  end loop;\n  select count(*) into total from dt;\n  raise notice 'total % found %', total, found;\n  if total > 4 then\n    raise notice 'big';\n  elsif total > 2 then\n    raise notice 'medium';\n  else\n    raise notice 'small';\n  end if;\n  perform pg_sleep(0);\n  execute 'update dt set v = $1 where id = $2' using 'changed', 2;\n  get diagnostics n = row_count;\n  raise notice 'updated %', n;\n  begin\n    insert into dt values (1, 'dup');\n  exception when unique_violation then\n    raise notice 'caught % %', sqlstate, sqlerrm;\n  end;\n  while n < 3 loop\n    n := n + 1;\n    continue when n = 2;\n    raise notice 'while %', n;\n  end loop;\n  loop\n    n := n + 1;\n    exit when n > 5;\n  end loop;\n  raise notice 'n %', n;\nend\n$$",
    'select * from dt order by id',
    "do $$ begin raise exception 'boom %', 42; end $$",
    "do $$ begin raise exception using errcode = 'unique_violation', message = 'custom'; end $$",
    "do $$ begin perform 1/0; exception when others then raise notice 'div: %', sqlstate; end $$",
    "do $$ begin insert into dt values (100, 'x'); raise exception 'undo'; exception when raise_exception then raise notice 'rolled back'; end $$",
    'select count(*) from dt where id = 100',
    "do $$ declare x int; begin x := 'abc'; end $$",
    "do language plpgsql 'begin raise warning ''careful''; end'",
    "do $$ begin if not exists (select 1 from pg_class where relname = 'dt2') then create table dt2 (a int); end if; end $$",
    "do $$ begin if not exists (select 1 from pg_class where relname = 'dt2') then create table dt2 (a int); end if; end $$",
    'drop table dt2',
    'drop table dt\n',
]


def run(dsn: str) -> list[tuple]:
    """Status, rows and NOTICEs per statement."""
    return outcomes(dsn, STATEMENTS, notices=True)


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return fresh_databases(pg15, cumulo_server, "plpgsql_do")


def test_do_blocks_same_as_pg15(servers):
    expected = run(servers[0])
    assert any(len(r) == 4 and len(r[3]) > 5 for r in expected)  # the blocks did talk
    got = run(servers[1])
    assert_same(expected, got)
