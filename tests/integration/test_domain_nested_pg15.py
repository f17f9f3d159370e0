"""A domain over a domain, as PostgreSQL 15 (issue 16): `CREATE DOMAIN d2 AS d1` enforces d1's
NOT NULL and CHECKs too, in casts, INSERT, UPDATE and COPY, with errors naming d2 and d1's
constraint (`value for domain dnp2 violates check constraint "dnp_check"`); ALTER DOMAIN on d1
checks the stored values of d2's columns; DROP DOMAIN d1 needs CASCADE, which drops d2.
Compared in the bytes each server sends, text and binary (`typediff`), then through psycopg,
pg8000 and cumulo.driver.
"""

from __future__ import annotations

import psycopg
import pytest

import cumulo.driver as drv
from tests.integration.typediff import assert_same_as_pg15, pg8000_outcomes
from tests.pg15 import PASSWORD

STATEMENTS = """
create domain dnp as int check (value > 0)
create domain dnp2 as dnp check (value < 100)
create domain dnp3 as dnp2 not null
create domain dnn as text not null
create domain dnn2 as dnn
select 5::dnp2, 7::dnp3
select 0::dnp2
select 0::dnp3
select 100::dnp3
select cast(null as dnp2)
select cast(null as dnp3)
select cast(null as dnn2)
select pg_typeof(5::dnp3)::text
create table dnt (id int, a dnp2, b dnp3, c dnn2)
insert into dnt values (1, 5, 6, 'x')
insert into dnt values (2, 0, 6, 'x')
insert into dnt values (3, 5, -1, 'x')
insert into dnt values (4, 5, 6, null)
insert into dnt values (5, null, 6, 'y')
update dnt set a = -5 where id = 1
update dnt set b = 500 where id = 1
update dnt set a = 50 where id = 1
select * from dnt order by id
alter domain dnp add constraint dnp_small check (value < 10)
alter domain dnp add constraint dnp_small check (value < 60)
insert into dnt values (6, 59, 61, 'z')
alter domain dnp drop constraint dnp_small
insert into dnt values (6, 59, 61, 'z')
select * from dnt order by id
drop domain dnp
drop domain dnp cascade
select attname from pg_attribute where attrelid = 'dnt'::regclass and attnum > 0 and not attisdropped order by attnum
select typname from pg_type where typname like 'dnp%' order by 1
drop table dnt
drop domain dnn
drop domain dnn cascade
""".strip().splitlines()


def _clean(c) -> None:
    c.execute("drop table if exists dnt, dnc")
    c.execute("drop domain if exists dnp, dnn, dnq cascade")


@pytest.mark.parametrize("binary", [False, True], ids=["text", "binary"])
def test_nested_domains_match_pg15(binary, pg15, cumulo_server):
    assert_same_as_pg15(pg15.dsn(), cumulo_server.dsn(), STATEMENTS, binary, clean=_clean)


def _copy_psycopg(dsn: str) -> list:
    """COPY FROM STDIN into a column of a nested domain: the parent's CHECK rejects the row."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        _clean(c)
        c.execute("create domain dnq as int check (value <> 13)")
        c.execute("create domain dnq2 as dnq")
        c.execute("create table dnc (v dnq2)")
        for rows in (["1", "2"], ["3", "13"]):
            try:
                with c.cursor().copy("copy dnc from stdin") as cp:
                    for r in rows:
                        cp.write(r + "\n")
                out.append("ok")
            except psycopg.Error as e:
                out.append((e.sqlstate, str(e).splitlines()[0]))
        out.append(c.execute("select v from dnc order by v").fetchall())
        _clean(c)
    return out


def test_copy_into_nested_domain(pg15, cumulo_server):
    want = _copy_psycopg(pg15.dsn())
    assert want[1] == ("23514", 'value for domain dnq2 violates check constraint "dnq_check"')
    assert _copy_psycopg(cumulo_server.dsn()) == want


def _p8(port: int, password: str | None) -> list:
    return pg8000_outcomes(port, password, (
        "drop table if exists dnt, dnc", "drop domain if exists dnp cascade",
        "create domain dnp as int check (value > 0)",
        "create domain dnp2 as dnp", "select 0::dnp2", "select 3::dnp2",
        "create table dnt (a dnp2)", "insert into dnt values (-1)",
        "insert into dnt values (1)",
        "alter domain dnp add constraint dnp_two check (value > 1)",
        "drop domain dnp", "drop domain dnp cascade", "drop table dnt"))


def test_clients_see_nested_domain_errors(pg15, cumulo_server):
    """pg8000 gets PostgreSQL's codes and messages; cumulo.driver's error carries the code."""
    want = _p8(pg15.port, PASSWORD)
    assert want[4] == ("23514", 'value for domain dnp2 violates check constraint "dnp_check"')
    assert want[9][0] == "23514" and want[10][0] == "2BP01"
    assert _p8(cumulo_server.port, None) == want
    with drv.connect(cumulo_server.dsn()) as c:
        c.autocommit = True
        cur = c.cursor()
        cur.execute("create domain dnq as int not null")
        cur.execute("create domain dnq2 as dnq")
        with pytest.raises(drv.DatabaseError) as e:
            cur.execute("select cast(null as dnq2)")
        assert e.value.sqlstate == "23502"
        assert "domain dnq2 does not allow null values" in str(e.value)
        cur.execute("drop domain dnq cascade")
