"""A domain's DEFAULT stays on the domain, as PostgreSQL 15 (issue 16): a column of the domain
with no DEFAULT of its own has no pg_attrdef row, atthasdef false and a NULL
information_schema.columns.column_default, yet INSERT and UPDATE ... DEFAULT use the domain's
current default; ALTER COLUMN SET DEFAULT overrides it and DROP DEFAULT gives it back;
CREATE TABLE LIKE keeps it without INCLUDING DEFAULTS. A domain over a domain inherits the
default. pg_typeof of a domain column names the domain. Compared in the bytes each server sends,
text and binary (`typediff`), then through pg8000 and cumulo.driver.
"""

from __future__ import annotations

import pg8000.native
import pytest

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15
from tests.pg15 import PASSWORD

STATEMENTS = """
create domain ddf as text default 'dflt'
create domain ddf2 as ddf
create domain ddn as int
create table ddt (id int, a ddf, b ddf default 'own', c ddf2, n ddn)
select attname, atthasdef from pg_attribute where attrelid = 'ddt'::regclass and attnum > 0 order by attnum
select a.attname, pg_get_expr(d.adbin, d.adrelid) from pg_attrdef d join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum where d.adrelid = 'ddt'::regclass order by 1
select column_name, column_default, domain_name from information_schema.columns where table_name = 'ddt' order by ordinal_position
select typname, typdefault from pg_type where typname in ('ddf', 'ddf2', 'ddn') order by 1
insert into ddt (id) values (1)
alter domain ddf set default 'later'
alter domain ddn set default 42
insert into ddt (id) values (2)
update ddt set a = default, n = default where id = 1
alter table ddt alter column a set default 'mine'
insert into ddt (id) values (3)
select column_name, column_default from information_schema.columns where table_name = 'ddt' order by ordinal_position
alter table ddt alter column a drop default
alter table ddt alter column b drop default
insert into ddt (id) values (4)
select column_name, column_default from information_schema.columns where table_name = 'ddt' order by ordinal_position
alter domain ddf drop default
insert into ddt (id) values (5)
select * from ddt order by id
select pg_typeof(a)::text, pg_typeof(c)::text, pg_typeof(n)::text, pg_typeof(id)::text from ddt where id = 1
create table ddl (like ddt)
create table ddl2 (like ddt including defaults)
alter domain ddf set default 'again'
insert into ddl (id) values (1)
insert into ddl2 (id) values (1)
select * from ddl
select * from ddl2
alter table ddl add column e ddf
select * from ddl
select count(*) from pg_attrdef where adrelid = 'ddl'::regclass
select count(*) from pg_attrdef where adrelid in ('ddl'::regclass, 'ddl2'::regclass)
drop table ddt, ddl, ddl2
drop domain ddf cascade
drop domain ddn
""".strip().splitlines()


def _clean(c) -> None:
    c.execute("drop table if exists ddt, ddl, ddl2")
    c.execute("drop domain if exists ddf, ddn cascade")


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_domain_defaults_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS, binary, clean=_clean)


def _p8(port: int, password: str | None) -> list:
    c = pg8000.native.Connection("cumulo", host="127.0.0.1", port=port, database="cumulo",
                                 password=password)
    try:
        c.run("drop table if exists ddq")
        c.run("drop domain if exists ddg cascade")
        c.run("create domain ddg as int default 7")
        c.run("create table ddq (k int, v ddg)")
        c.run("insert into ddq (k) values (1)")
        c.run("alter domain ddg set default 8")
        c.run("insert into ddq (k) values (2)")
        out = [c.run("select * from ddq order by k"),
               c.run("select count(*) from pg_attrdef where adrelid = 'ddq'::regclass"),
               c.run("select pg_typeof(v)::text from ddq limit 1")]
        c.run("drop table ddq")
        c.run("drop domain ddg")
        return out
    finally:
        c.close()


def test_clients_see_domain_defaults(pg15, cumulo_server):
    want = _p8(pg15.port, PASSWORD)
    assert want == [[[1, 7], [2, 8]], [[0]], [["ddg"]]]
    assert _p8(cumulo_server.port, None) == want
    with drv.connect(cumulo_server.dsn()) as c:
        c.autocommit = True
        cur = c.cursor()
        cur.execute("drop table if exists ddr")
        cur.execute("drop domain if exists ddh cascade")
        cur.execute("create domain ddh as text default 'h'")
        cur.execute("create table ddr (k int, v ddh)")
        cur.execute("insert into ddr (k) values (1)")
        cur.execute("select v, (select count(*) from pg_attrdef where adrelid = 'ddr'::regclass)"
                    " from ddr")
        assert cur.fetchall() == [("h", 0)]
        cur.execute("drop table ddr")
        cur.execute("drop domain ddh")
