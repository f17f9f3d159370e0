"""Collations against a throwaway PostgreSQL 15 (issue 16, Django item 6).

A column's `COLLATE "C"` / `"POSIX"` (Django's `db_collation`) is kept and
introspected as PostgreSQL does: pg_attribute.attcollation and
information_schema.columns.collation_*; an unknown collation is 42704 and one on
a non-text type 42804. DROP COLLATION answers as PostgreSQL (42704, the IF EXISTS
notice, 2BP01 for a built-in one). CREATE COLLATION makes code-point collations
(a copy of "C") and ICU ones (their behaviour: test_icu_collations_pg15.py).
Checked through psycopg and asyncpg.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg
import pytest

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


def test_create_collation_code_point_and_icu(pg15, cumulo_server):
    """Both servers create a copy of "C" and an ICU collation, and list them alike."""
    pytest.importorskip("icu", reason="PyICU (pip install 'cumulo[icu]') is not installed")
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
