"""What DROP says about dependent objects, against a throwaway PostgreSQL 15.

A DROP without CASCADE that other objects need is 2BP01 with one DETAIL line per
dependent (foreign keys, views, views over those views, a schema's tables, views
and sequences), names schema-qualified when the schema is off the search_path.
With CASCADE, one NOTICE says what went too: the object's name when it is one,
`drop cascades to N other objects` with a DETAIL line each when more. IF EXISTS
on a missing object is a `does not exist, skipping` NOTICE. Clients show these
fields (psql prints DETAIL; psycopg and asyncpg expose them), so the whole
error and every notice, with their details, must be PostgreSQL's.
"""

from __future__ import annotations

import asyncio

import asyncpg
import psycopg

SCRIPT = """
create table p (id int primary key)
create table c1 (pid int references p)
create view pv as select id from p
create view pv2 as select id from pv
drop table p
drop view pv
drop table p cascade
create table t3 (a int, b int)
create view t3v as select a from t3
create view t3w as select a, b from t3
create view t3x as select a from t3w
alter table t3 drop column a
alter table t3 drop column a cascade
create schema s
create table s.t (a int)
create sequence s.q
create view s.v as select a from s.t
create table s.u (id serial primary key)
create table s.w (i int references s.u)
create view outside as select a from s.t
drop schema s
drop schema s cascade
create schema s3
create sequence s3.q
drop schema s3
drop schema s3 cascade
set search_path = s4, public
create schema s4
create table s4.t (a int)
drop schema s4
drop schema s4 cascade
reset search_path
create domain d as int
create table dt (x d)
drop domain d
drop domain d cascade
create table pk (id int primary key)
create table fk1 (i int references pk)
create table fk2 (i int references pk)
alter table pk drop constraint pk_pkey
alter table pk drop constraint pk_pkey cascade
drop schema nope
drop schema if exists nope
drop sequence if exists nope, s.nope2, nos.x
drop table if exists nope
drop view if exists nope
drop index if exists nope
drop type if exists nope
drop domain if exists nope
drop extension if exists nope
drop collation if exists nope
drop role if exists nope
drop database if exists nope
alter table if exists nope add column x int
alter index if exists nope rename to x
alter sequence if exists nope restart
alter table pk drop column if exists zz
drop table if exists nos.t
drop table nos.t
drop view if exists nos.t
drop index if exists nos.t
drop type if exists nos.t
drop type nos.t
alter table if exists nos.t add column x int
drop schema if exists s, nope, s3 cascade
create schema ma
create schema mb
create table ma.t1 (a int)
create table ma.t2 (a int)
create table mb.t3 (a int)
create view mb.v as select a from ma.t1
create schema mx
create view mx.w as select a from mb.t3
drop schema ma, mb
drop schema if exists ma, nope, mb cascade
drop schema mx, nope
drop schema mx cascade
"""

CLEANUP = ["drop schema if exists s, s3, s4, ma, mb, mx cascade",
           "drop table if exists p, c1, t3, dt, pk, fk1, fk2, outside cascade",
           "drop view if exists pv, pv2 cascade", "drop domain if exists d cascade"]


def _outcomes(dsn: str) -> list[tuple]:
    """Each statement's status or error (SQLSTATE, message, detail, hint) and its notices."""
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in CLEANUP:
            c.execute(sql)
        notices: list[tuple] = []
        c.add_notice_handler(lambda d: notices.append(
            (d.severity_nonlocalized, d.sqlstate, d.message_primary, d.message_detail)))
        for sql in SCRIPT.strip().splitlines():
            try:
                got: tuple = ("ok", c.execute(sql).statusmessage)
            except psycopg.Error as e:
                d = e.diag
                got = ("error", d.sqlstate, d.message_primary, d.message_detail, d.message_hint)
            out.append((sql, got, tuple(notices)))
            notices.clear()
        for sql in CLEANUP:
            c.execute(sql)
    return out


def test_drop_refusals_cascades_and_skips_are_postgres_s(pg15, cumulo_server):
    want, got = _outcomes(pg15.dsn()), _outcomes(cumulo_server.dsn())
    diffs = [f"{w[0]}\n   pg15: {w[1:]}\n cumulo: {g[1:]}" for w, g in zip(want, got, strict=True) if w != g]
    assert not diffs, "\n".join(diffs)
    # the script exercises what it claims: refusals with several DETAIL lines, counted cascades
    assert any(o[1][0] == "error" and o[1][3] and o[1][3].count("\n") >= 2 for o in want)
    assert any(n[2] == "drop cascades to 6 other objects" for o in want for n in o[2])


def test_asyncpg_sees_every_dependent_in_the_detail(pg15, cumulo_server):
    async def refusal(dsn: str) -> tuple:
        conn = await asyncpg.connect(dsn)
        try:
            await conn.execute("drop table if exists ap, apf cascade")
            await conn.execute("create table ap (id int primary key)")
            await conn.execute("create table apf (i int references ap)")
            await conn.execute("create view apv as select id from ap")
            try:
                await conn.execute("drop table ap")
            except asyncpg.PostgresError as e:
                return e.sqlstate, e.message, e.detail, e.hint
            return ("no error",)
        finally:
            await conn.execute("drop table if exists ap, apf cascade")
            await conn.close()

    want = asyncio.run(refusal(pg15.dsn()))
    assert want[0] == "2BP01" and want[2].count("\n") == 1
    assert asyncio.run(refusal(cumulo_server.dsn())) == want
