"""Collations against a throwaway PostgreSQL 15 (issue 16, Django item 6).

A column's `COLLATE "C"` / `"POSIX"` (Django's `db_collation`) is kept and
introspected as PostgreSQL does: pg_attribute.attcollation and
information_schema.columns.collation_*; an unknown collation is 42704 and one on
a non-text type 42804. DROP COLLATION answers as PostgreSQL (42704, the IF EXISTS
notice, 2BP01 for a built-in one). CREATE COLLATION makes code-point collations
(a copy of "C") and ICU ones.

ICU collations (PostgreSQL 15 on this machine and PyICU use the same ICU, so orders
match exactly): the predefined "sv-x-icu"-style collations (names, OIDs, locales,
versions, descriptions), CREATE / ALTER / COMMENT ON COLLATION with provider icu
(deterministic or not) and their errors, columns under an ICU collation (ORDER BY,
min/max, range predicates, a primary key and a secondary index), `COLLATE` in
expressions (explicit collation wins over a column's, also for LIKE), the collation a
function, `||`, CASE or COALESCE result inherits, nondeterministic equality (=, IN,
GROUP BY, DISTINCT, a case-insensitive UNIQUE), the 0A000 for LIKE and regular
expressions under one, and what Django and SQLAlchemy introspect
(pg_attribute.attcollation, information_schema.columns.collation_name). Statement by
statement through psycopg, and through pg8000. Those tests are skipped without PyICU
(`pip install 'cumulo[icu]'`).
Checked through psycopg and asyncpg.
"""

from __future__ import annotations

import asyncio
import importlib.util
from urllib.parse import urlsplit

import asyncpg
import pg8000.dbapi
import psycopg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes, fresh_databases

needs_icu = pytest.mark.skipif(importlib.util.find_spec("icu") is None,
                               reason="PyICU (pip install 'cumulo[icu]') is not installed")

SETUP = [
    "drop table if exists coll_t",
    'create table coll_t (a text collate "C", b varchar(5) collate "POSIX", c text,'
    ' d text collate "default", e text[] collate "C", f char(2) collate "C")',
    'alter table coll_t add column g varchar(3) collate "C"',
    "insert into coll_t (a, b, c) values ('b', 'B', 'x'), ('a', 'A', 'y')",
    # Django's db_collation change; without COLLATE the new type's default, as PostgreSQL
    'alter table coll_t alter column c type varchar(9) collate "C"',
    "alter table coll_t alter column e type varchar(4)[]",
]
STATEMENTS = [
    'create table coll_bad1 (a text collate "xx_YY")',
    'create table coll_bad2 (a int collate "C")',
    "drop collation coll_nope",
    "drop collation if exists coll_nope",
    'drop collation "C"',
    "create collation coll_mc from coll_nope",
    'alter table coll_t alter column c type text collate "xx_YY"',
]
QUERIES = [
    "select attname, attcollation, (select collname::text from pg_collation"
    " where oid = attcollation) from pg_attribute"
    " where attrelid = 'coll_t'::regclass and attnum > 0 order by attnum",
    "select column_name, collation_catalog, collation_schema, collation_name"
    " from information_schema.columns where table_name = 'coll_t' order by ordinal_position",
    "select a, b from coll_t order by a",
]


def _observe(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        notices: list[str] = []
        c.add_notice_handler(lambda d: notices.append(d.message_primary or ""))
        for q in SETUP:
            c.execute(q)
        for q in STATEMENTS:
            try:
                out.append(("ok", c.execute(q).statusmessage))
            except psycopg.Error as e:
                out.append((e.sqlstate, e.diag.message_primary))
        out.append(notices)
        for q in QUERIES:
            out.append(c.execute(q).fetchall())
    return out


def test_column_collations_and_drop_match_pg15(pg15, cumulo_server):
    want = _observe(pg15.dsn())
    got = _observe(cumulo_server.dsn())
    for w, g in zip(want, got, strict=True):
        assert g == w
    assert ("a", "cumulo", "pg_catalog", "C") in want[-2]


async def _asyncpg_view(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("select column_name, collation_name from information_schema.columns"
                                " where table_name = 'coll_t' order by ordinal_position")
        return [tuple(r) for r in rows]
    finally:
        await conn.close()


def test_asyncpg_sees_db_collation_as_pg15(pg15, cumulo_server):
    _observe(pg15.dsn())
    _observe(cumulo_server.dsn())
    want = asyncio.run(_asyncpg_view(pg15.dsn()))
    assert asyncio.run(_asyncpg_view(cumulo_server.dsn())) == want


@needs_icu
def test_create_collation_code_point_and_icu(pg15, cumulo_server):
    """Both servers create a copy of "C" and an ICU collation, and list them alike."""
    stmts = ['create collation coll_mc from "C"',
             "create collation coll_ci (provider = icu, locale = 'und-u-ks-level2',"
             " deterministic = false)"]
    query = ("select collname, collprovider, collisdeterministic, collencoding, collcollate,"
             " colliculocale from pg_collation where collname like 'coll%' order by 1")
    seen = []
    for dsn in (pg15.dsn(), cumulo_server.dsn()):
        with psycopg.connect(dsn, autocommit=True) as c:
            for q in stmts:
                c.execute(q)
            seen.append(c.execute(query).fetchall())
            c.execute("drop collation coll_mc")
            c.execute("drop collation coll_ci")
    assert seen[1] == seen[0]
    assert len(seen[0]) == 2


CATALOG = """
select count(*), min(oid), max(oid) from pg_collation where collprovider = 'i';
select oid, collname, collnamespace, collprovider, collisdeterministic, collencoding,
 collcollate, collctype, colliculocale, collversion from pg_collation
 where collname in ('und-x-icu', 'en-US-x-icu', 'sv-x-icu', 'de-x-icu', 'ucs_basic', 'C.utf8',
 'zh-Hans-CN-x-icu') order by oid;
select 'sv-x-icu'::regcollation::oid, 13048::regcollation;
create collation phone (provider = icu, locale = 'de-u-co-phonebk');
create collation ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
create collation sv2 from "sv-x-icu";
create collation bad1 (provider = icu, lc_collate = 'de');
create collation bad2 (provider = icu, locale = 'en', lc_ctype = 'fr');
create collation bad3 (provider = libc, locale = 'C', deterministic = false);
create collation ci (provider = icu, locale = 'und');
create collation if not exists ci (provider = icu, locale = 'und');
select collname, collprovider, collisdeterministic, collencoding, collcollate, collctype,
 colliculocale, collversion from pg_collation where oid >= 16384 order by collname;
select 'a' collate "nope-x-icu";
select 1 collate "sv-x-icu";
select 'a' collate "sv-x-icu" = 'b' collate "C";
create table used (a text collate phone);
alter collation phone rename to phone2;
alter collation phone2 rename to sv2;
alter collation phone2 refresh version;
alter collation phone2 owner to current_user;
alter collation nope rename to x;
select attname, (select collname from pg_collation where oid = attcollation) from pg_attribute
 where attrelid = 'used'::regclass and attnum > 0;
select pg_collation_actual_version(oid) from pg_collation
 where collname in ('sv-x-icu', 'phone2', 'C') order by collname;
select count(*) from pg_description where classoid = 'pg_collation'::regclass;
select d.description from pg_description d join pg_collation c on c.oid = d.objoid
 where c.collname in ('und-x-icu', 'sv-SE-x-icu', 'zh-Hans-x-icu', 'C') order by 1;
comment on collation phone2 is 'phone book';
comment on collation "de-x-icu" is 'mine';
comment on collation nope is 'x';
select obj_description(c.oid, 'pg_collation'), obj_description(c.oid) from pg_collation c
 where collname in ('phone2', 'de-x-icu', 'sv-x-icu') order by 1;
drop collation phone2;
drop table used;
drop collation phone2;
drop collation sv2;
"""

ORDERS = """
create collation ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
create table k (code text collate "sv-x-icu" primary key, v int, plain text);
insert into k values ('z', 1, 'z'), ('ä', 2, 'ä'), ('a', 3, 'a'), ('å', 4, 'å'), ('ö', 5, 'ö'),
 ('Z', 6, 'Z'), ('b', 7, 'b'), ('B', 8, 'B');
select code from k order by code;
select code from k order by code desc;
select plain from k order by plain;
select plain from k order by plain collate "sv-x-icu";
select plain from k order by plain collate "de-x-icu" desc;
select code collate "C" from k order by 1;
select min(code), max(code), min(plain collate "sv-x-icu"), max(plain) from k;
select code from k where code = 'ä';
select code from k where code > 'z' order by 1;
select code from k where code between 'b' and 'z' order by 1;
select code from k where code in ('a', 'ö') order by 1;
insert into k values ('ä', 9, 'x');
create index k_plain on k (plain collate "sv-x-icu");
create index k_v on k (v, code);
select code from k where v = 2 and code = 'ä';
update k set code = 'y' where code = 'z';
select string_agg(code, ',' order by code) from k;
select array_agg(code order by code desc) from k;
select code from k order by code limit 3;
select 'a' collate "sv-x-icu" < 'ä', 'ä' collate "de-x-icu" < 'b', 'a' < 'B' collate "en-x-icu";
select x from (values ('b'), ('A'), ('a'), ('B')) v(x) order by x collate "en-x-icu";
select lower(code), upper(code) from k order by 1;
select substr(code, 1, 1) c1, count(*) from k group by 1 order by 1;
select max(upper(code)), min(lower(plain collate "sv-x-icu")) from k;
select code || 'x', coalesce(code, 'q') from k order by 1;
select greatest(code, 'b'), least(code, 'b') from k order by 1, 2;
select case when v > 2 then code else 'b' end from k order by 1;
select * from (values ('b'), ('A')) v(x) where x collate "und-x-icu" < 'B';
"""

NONDETERMINISTIC = """
create collation ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
create table u (id serial primary key, name varchar(10) collate ci unique, title text collate ci);
insert into u (name, title) values ('Anna', 'b'), ('bob', 'B'), ('Émile', 'é'), (null, null);
insert into u (name) values ('ANNA');
insert into u (name, title) values ('ÉMILE', 'x');
insert into u (name, title) values ('emile', 'E');
select name from u where name = 'ANNA';
select name from u where name in ('BOB', 'x') order by id;
select name from u where name = any(array['anna']);
select title, count(*) from u group by title order by 1;
select lower(title), count(*) from u group by 1 order by 1;
select upper(name) from u where upper(name) = 'anna' order by 1;
select distinct title from u order by 1;
select count(distinct title) from u;
select name from u where name > 'b' order by 1;
select 'a' = 'A' collate ci, 'a' = 'A' collate "und-x-icu";
select name from u where name like 'a%';
select name from u where name ilike 'a%';
select name from u where name ~ 'a';
select name from u where name similar to 'a%';
select name from u where name like 'A%' collate "C";
select name from u where name like 'a%' collate "und-x-icu";
drop collation ci;
drop table u;
drop collation ci;
"""

INTROSPECTION = """
create collation ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
create table t (id int, a text collate ci, b varchar(20) collate "sv-x-icu", c text);
select attname, (select collname from pg_collation where oid = attcollation) from pg_attribute
 where attrelid = 't'::regclass and attnum > 0 order by attnum;
select column_name, collation_catalog is not null, collation_schema, collation_name
 from information_schema.columns where table_name = 't' order by ordinal_position;
select a.attname, co.collname from pg_attribute a join pg_collation co on co.oid = a.attcollation
 join pg_type ty on ty.oid = a.atttypid where a.attrelid = 't'::regclass and a.attnum > 0
 and a.attcollation <> ty.typcollation order by a.attnum;
select pg_get_indexdef(0) is null;
alter table t alter column c type text collate "en-x-icu";
select column_name, collation_name from information_schema.columns where table_name = 't'
 order by ordinal_position;
"""


@needs_icu
def test_icu_catalog_and_create_collation_match_pg15(pg15, cumulo_server):
    assert_same_outcomes(pg15, cumulo_server, "icu_cat", CATALOG, detail=True, notices=True)


@needs_icu
def test_icu_orders_match_pg15(pg15, cumulo_server):
    assert_same_outcomes(pg15, cumulo_server, "icu_ord", ORDERS, detail=True)


@needs_icu
def test_nondeterministic_collation_matches_pg15(pg15, cumulo_server):
    assert_same_outcomes(pg15, cumulo_server, "icu_nd", NONDETERMINISTIC, detail=True)


@needs_icu
def test_icu_introspection_matches_pg15(pg15, cumulo_server):
    assert_same_outcomes(pg15, cumulo_server, "icu_intro", INTROSPECTION)


def _pg8000_view(dsn: str) -> list:
    """Rows through pg8000 (its own protocol code: extended queries, text results)."""
    url = urlsplit(dsn)
    conn = pg8000.dbapi.connect(user=url.username, host=url.hostname, port=url.port,
                                database=url.path.lstrip("/"), password=url.password)
    conn.autocommit = True
    cur = conn.cursor()
    out = []
    cur.execute("create collation ci (provider = icu, locale = 'und-u-ks-level2',"
                " deterministic = false)")
    cur.execute('create table w (s text collate "sv-x-icu", n text collate ci)')
    cur.execute("insert into w values (%s, %s), (%s, %s), (%s, %s)",
                ("ö", "Abc", "z", "aBC", "ä", "x"))
    for q, args in (("select s from w order by s", ()),
                    ("select n, count(*) from w group by n order by n", ()),
                    ("select s from w where n = %s order by s", ("ABC",)),
                    ("select s from w where s < %s order by s", ("ä",))):
        cur.execute(q, args)
        out.append([list(r) for r in cur.fetchall()])
    conn.close()
    return out


@needs_icu
def test_pg8000_sees_icu_orders_as_pg15(pg15, cumulo_server):
    pg_dsn, cu_dsn = fresh_databases(pg15, cumulo_server, "icu_p8")
    want = _pg8000_view(pg_dsn)
    assert _pg8000_view(cu_dsn) == want
    assert want[0] == [["z"], ["ä"], ["ö"]]
