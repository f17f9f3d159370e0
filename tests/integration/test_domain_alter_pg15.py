"""Domains in use, as PostgreSQL 15 (issue 16): ALTER DOMAIN ADD CONSTRAINT / SET NOT NULL
check the rows already stored (23514 / 23502 with PG's messages) and DROP DOMAIN ... CASCADE
drops the columns of that type, and pg_typeof of a cast names the domain. Compared in the bytes each server sends, text and binary
(`typediff`), then through pg8000 and cumulo.driver.
"""

from __future__ import annotations

import pytest

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

STATEMENTS = """
create domain dap as int check (value > 0)
create domain dad as text default 'dflt'
create table dat (id int, p dap, d dad)
create table dau (k int, q dap)
insert into dat values (1, 5, 'x'), (2, null, null)
insert into dat (id) values (3)
insert into dau values (1, 7), (2, 1)
select * from dat order by id
select pg_typeof(5::dap)::text, pg_typeof('a'::dad)::text, pg_typeof(cast(null as dap))::text, pg_typeof(5::dap + 1)::text
alter domain dap add constraint dap_small check (value < 3)
alter domain dap set not null
select conname, pg_get_constraintdef(oid) from pg_constraint where contypid = 'dap'::regtype order by 1
delete from dat where p is null
alter domain dap set not null
insert into dat (id, d) values (4, 'y')
alter domain dap add constraint dap_big check (value < 10)
alter domain dap add constraint dap_odd check (value % 2 = 1)
select conname, pg_get_constraintdef(oid) from pg_constraint where contypid = 'dap'::regtype order by 1
insert into dat (id, p) values (5, 20)
insert into dau values (3, 4)
delete from dau where q = 1
alter domain dap drop not null
alter domain dap drop constraint dap_big
insert into dat (id, p) values (7, 21)
drop domain dap
drop domain dap cascade
select attname from pg_attribute where attrelid = 'dat'::regclass and attnum > 0 and not attisdropped order by attnum
select * from dat order by id
select * from dau order by k
drop table dat, dau
drop domain dad
""".strip().splitlines()


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_domains_in_use_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS,
                        binary, drops=[
                            "drop table if exists dat, dau",
                            "drop domain if exists dap, dad cascade"])


def _p8(port: int, password: str | None) -> list:
    """Each statement's outcome, the last the columns dcl keeps once its domain is dropped."""
    return pg8000_outcomes(port, password, (
        "drop table if exists dcl", "drop domain if exists dcd cascade",
        "create domain dcd as int", "create table dcl (a dcd)",
        "insert into dcl values (null), (-4)",
        "alter domain dcd set not null", "alter domain dcd add check (value > 0)",
        "drop domain dcd cascade",
        "select count(*) from pg_attribute where attrelid = 'dcl'::regclass "
        "and attnum > 0 and not attisdropped", "drop table dcl"))[:-1]


def test_clients_see_alter_domain_errors(pg15, cumulo_server):
    """pg8000 gets PostgreSQL's codes and messages; cumulo.driver's error carries the code."""
    want = _p8(pg15.port, PASSWORD)
    assert want[5] == ("23502", 'column "a" of table "dcl" contains null values')
    assert want[6][0] == "23514" and want[-1] == [[0]]
    assert _p8(cumulo_server.port, None) == want
    with drv.connect(cumulo_server.dsn()) as c:
        c.autocommit = True
        cur = c.cursor()
        cur.execute("create domain dce as text")
        cur.execute("create table dcm (t dce)")
        cur.execute("insert into dcm values ('')")
        with pytest.raises(drv.DatabaseError) as e:
            cur.execute("alter domain dce add constraint dce_len check (length(value) > 0)")
        assert e.value.sqlstate == "23514"
        assert "contains values that violate the new constraint" in str(e.value)
        cur.execute("drop domain dce cascade")
        cur.execute("select count(*) from dcm")
        assert cur.fetchall()[0][0] == 1
        cur.execute("drop table dcm")
