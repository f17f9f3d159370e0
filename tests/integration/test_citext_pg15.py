"""citext (CREATE EXTENSION citext, issue 16), diffed with PostgreSQL 15.

PostgreSQL 15 on the test machine has the citext extension, so it is the oracle
for every outcome: case-insensitive =, <>, <, ORDER BY, GROUP BY, DISTINCT,
min/max, IN; UNIQUE and PRIMARY KEY over citext refusing 'a@x.com' beside
'A@x.com' (23505), also through ON CONFLICT, foreign keys and COPY; LIKE and ~
matching as ILIKE and ~*; citext beside text comparing as text; the string
functions citext overloads; the catalog (format_type, pg_type); the value keeping
its case. The statements run through psycopg (text), then parameters through
psycopg's binary extended protocol and asyncpg.
"""

from __future__ import annotations

import asyncio
import pickle

import asyncpg
import psycopg
import pytest

from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.wire import packb, unpackb
from cumulo.server.pgtypes.citext import CIText
from tests.integration.test_statements_pg15 import assert_same_outcomes

SCRIPT = """
create table u0 (email citext);
create extension citext;
create extension if not exists citext;
create table u (email citext primary key, name text);
insert into u values ('A@x.com', 'Ann');
insert into u values ('a@x.com', 'ann');
insert into u values ('B@x.com', 'Bob'), ('c@X.com', 'cy');
select * from u order by email;
select email = 'a@X.COM', email <> 'A@X.COM', email < 'b' from u order by email;
select email::text = 'a@x.com' from u order by 1;
select email = 'a@x.com'::text from u order by 1;
select email = name, email = name::citext from u order by email;
select pg_typeof(email || 'z'), email || 'z' from u order by 1;
select upper(email), length(email), pg_typeof(upper(email)) from u order by 1;
select count(*) from u where email = any(array['A@X.com', 'c@x.com']);
select count(*) from u where email = any(array['A@X.com', 'c@x.com']::citext[]);
select count(*) from u where email in ('A@X.COM', 'c@x.com');
create table g (v citext);
insert into g values ('X'), ('x'), ('Y'), ('y'), ('y'), (null);
select v, count(*) from g group by v order by v;
select count(distinct v) from g;
select distinct v from g order by 1;
select v from g where v like 'x%' order by 1;
select v from g where v not like 'X%' order by 1;
select v from g where v ilike 'X%' order by 1;
select v from g where v ~ 'x' order by 1;
select v from g where v !~ 'x' order by 1;
select max(email), min(email) from u;
select v from g order by v desc, v::text;
create unique index on g (v);
delete from g where v = 'x';
delete from g where v = 'Y';
create unique index on g (v);
insert into g values ('x');
insert into g values ('X'), ('Z');
select * from g order by v;
select replace('ABCb'::citext, 'b', 'z'), split_part('aXbxc'::citext, 'x', 2), translate('abcB'::citext, 'b', 'z');
select regexp_replace('ABC'::citext, 'b', 'z'), regexp_match('ABC'::citext, 'b'), regexp_split_to_array('aXbxc'::citext, 'x');
select regexp_replace('ABCB'::citext, 'b', 'z', 'g'), regexp_matches('aBab'::citext, 'b', 'g');
select pg_typeof(replace('ABCb'::citext, 'b', 'z')), pg_typeof(split_part('aXbxc'::citext, 'x', 2));
select 'abc'::citext::text, 'abc'::text::citext, 'abc'::varchar::citext, pg_typeof('a'::citext);
select 'a'::citext = 'A'::citext, 'a'::citext < 'B'::citext, 'é'::citext = 'É'::citext;
select 'ab'::citext in ('AB'), 'ab'::citext between 'AA' and 'AC';
select array['a', 'B']::citext[];
select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'u'::regclass and attnum = 1;
select typname, typcategory, typlen, typtype, typinput, typcollation from pg_type where typname = 'citext';
update u set email = 'b@X.COM' where email = 'A@X.COM';
update u set name = 'z' where email = 'C@x.COM';
select * from u order by 1;
select a.email, b.name from u a join u b on a.email = b.email order by 1;
insert into u values ('C@X.COM', 'dup') on conflict (email) do update set name = excluded.name;
insert into u values ('C@X.COM', 'dup2') on conflict do nothing;
select * from u order by 1;
create table f (e citext references u (email));
insert into f values ('C@x.com');
insert into f values ('nope');
select f.e, u.name from f join u on u.email = f.e;
create table ix (id int primary key, v citext);
create index on ix (v);
insert into ix select i, case when i % 2 = 0 then 'Key' else 'KEY' end || (i % 50) from generate_series(1, 1200) i;
analyze ix;
select count(*) from ix where v like 'KEY1%';
select count(*) from ix where v >= 'KEY4' and v < 'kEY5';
select id from ix where v = 'kEy7' order by id limit 3;
select v, count(*) from ix group by v order by v limit 3;
select (select count(*) from ix where v is distinct from 'key1'), (select count(*) from ix where v is distinct from 'key1'::text);
create table tx (k text primary key);
insert into tx values ('Key1'), ('key1'), ('KEY2'), ('key2');
select count(*) from ix join tx on ix.v = tx.k;
select count(*) from ix where v in (select k from tx);
select k from tx where k in (select v from ix) order by 1;
select k from tx where k = any(array(select v from ix)) order by 1;
select k from tx where k in ('KEY1'::citext, 'Key2'::citext) order by 1;
select coalesce(v, 'x'), pg_typeof(coalesce(v, 'x')) from ix where id < 3 order by 1;
select v from ix where id < 3 union select k from tx order by 1;
select distinct on (v) v from ix order by v, id limit 3;
create table a (id int primary key, e text);
insert into a values (1, 'X'), (2, 'x'), (3, 'Y');
alter table a alter column e type citext;
select e, pg_typeof(e) from a where e = 'x' order by id;
create unique index on a (e);
delete from a where id = 2;
create unique index on a (e);
insert into a values (4, 'y');
alter table a add column f citext default 'Dflt';
select count(*) from a where f = 'dflt';
alter table a alter column e type text;
select count(*) from a where e = 'x';
create view va as select e, f from a;
select e from va where f = 'DFLT' order by e;
prepare p (citext) as select count(*) from a where f = $1;
execute p('dFLT');
select string_agg(f, ',' order by id), array_agg(f order by id) from a;
select v from g where v similar to 'x' order by 1;
select regexp_replace('ABCB'::citext, 'b', 'z', 'g'), regexp_replace('ABCB'::citext, 'b', 'z');
select regexp_split_to_table('aXbxc'::citext, 'x');
select split_part('aXbxc'::citext, 'x', -1), replace('aaa'::citext, 'A', ''), replace('abc'::citext, '', 'x');
select split_part('aXbxc'::citext, 'x', 0), split_part('aXbxc'::citext, 'x', 9), split_part('abc'::citext, '', 2);
select translate('AbCabc'::citext, 'ac', 'X');
select '12'::citext::int, 'true'::citext::boolean, '2020-01-01'::citext::date;
select 12::citext, true::citext, now()::citext is not null;
insert into tx values (12);
select k, pg_typeof(k) from tx where k = '12';
create table w (id int primary key, v citext);
insert into w values (1, 'A'), (2, 'a'), (3, 'B'), (4, 'b'), (5, null), (6, 7);
select id, count(*) over (partition by v), row_number() over (partition by v order by id) from w order by id;
select '{A,b}'::citext[] @> '{a}'::citext[], 'a'::citext = any('{A,b}'::citext[]), array_position('{A,b}'::citext[], 'B'::citext);
select case v when 'a' then 'hit' else 'miss' end, nullif(v, 'a') from w order by id;
select v, rank() over (order by v) from w order by id;
select v from w except select 'A'::citext order by 1;
drop extension citext;
"""


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


def test_same_outcomes_as_pg15(servers):
    assert_same_outcomes(*servers, "citext_fidelity", SCRIPT)


def _psycopg(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("create extension if not exists citext")
        c.execute("drop table if exists cp")
        c.execute("create table cp (e citext primary key, n int)")
        with c.cursor().copy("copy cp from stdin") as cp:
            cp.write("Ab\t1\nCD\t2\n")
        try:
            with c.cursor().copy("copy cp from stdin") as cp:
                cp.write("aB\t3\n")
        except psycopg.Error as e:
            out.append((e.sqlstate, e.diag.message_primary, e.diag.message_detail))
        out.append(c.execute("select e, n from cp where e = %s", ["ab"], prepare=True).fetchall())
        cur = c.cursor(binary=True)
        out.append(cur.execute("select e, n from cp where e = %s::citext", ["cd"]).fetchall())
        out.append(c.execute("select e from cp where e = %s::text", ["ab"]).fetchall())
        out.append(c.execute("insert into cp values (%s, 5) on conflict (e) do update "
                             "set n = excluded.n returning e, n", ["cd"]).fetchall())
    return out


async def _asyncpg(dsn: str) -> list:
    c = await asyncpg.connect(dsn)
    out: list = []
    try:
        out.append(await c.fetch("select e, n from cp order by e"))
        out.append(await c.fetch("select e, n from cp where e = $1", "AB"))
        await c.execute("insert into cp values ($1, $2)", "Zed", 9)
        try:
            await c.execute("insert into cp values ($1, $2)", "zED", 9)
        except asyncpg.PostgresError as e:
            out.append((e.sqlstate, e.args[0]))
        s = await c.prepare("select e from cp where e > $1 order by e")
        out.append([(a.name, a.type.name, a.type.kind) for a in s.get_attributes()])
        out.append(await s.fetch("b"))
    finally:
        await c.close()
    return out


def test_parameters_copy_and_binary_as_pg15(servers):
    pg, cu = servers
    expected = _psycopg(pg.dsn())
    assert expected[0][0] == "23505" and expected[-1] == [("CD", 5)]
    assert _psycopg(cu.dsn()) == expected
    expected = asyncio.run(_asyncpg(pg.dsn()))
    assert expected[3] == [("e", "citext", "scalar")]
    assert asyncio.run(_asyncpg(cu.dsn())) == expected


def test_value_survives_storage_and_keys_fold():
    """What a restart and cold rows read back is still a citext, and it keys as folded."""
    v = CIText("Ann@X.com")
    back = unpackb(packb((v, "Ann@X.com")))
    assert type(back[0]) is CIText and type(back[1]) is str and back[0] == "ann@x.com"
    assert type(pickle.loads(pickle.dumps(v))) is CIText
    assert encode_key((v,)) == encode_key((CIText("ann@x.COM"),)) == encode_key(("ann@x.com",))
    assert str(back[0]) == "Ann@X.com"
