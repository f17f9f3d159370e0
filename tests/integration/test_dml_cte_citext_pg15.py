"""Issue 16's SQL fidelity, diffed with PostgreSQL 15: data-modifying statements in WITH, citext.

Data-modifying WITH: `WITH d AS (DELETE … RETURNING *) INSERT INTO archive
SELECT * FROM d` and its relatives: INSERT/UPDATE/DELETE queries in a top-level
WITH, read through their RETURNING rows, several in one statement, one never
read (it still runs), CREATE TABLE AS over one, and the errors PostgreSQL gives
for the forms it refuses.

citext (PostgreSQL 15 on the test machine has the extension, so it is the
oracle): case-insensitive =, <>, <, ORDER BY, GROUP BY, DISTINCT, IN; UNIQUE and
PRIMARY KEY over citext refusing 'a@x.com' beside 'A@x.com' (23505), also
through ON CONFLICT, foreign keys, COPY and ALTER COLUMN TYPE; LIKE, ~ and
SIMILAR TO matching case-insensitively; citext beside text comparing as text;
the string functions citext overloads; casts; the catalog (format_type,
pg_type); the value keeping its case.

Each script runs statement by statement on both servers through psycopg (status,
rows, SQLSTATE, message); the parameterised forms run through asyncpg and
psycopg's extended protocol (binary too). One module, so one PostgreSQL start.
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
from tests.integration.stmtdiff import assert_same_outcomes


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


DML_SCRIPT = """
create table t (a int primary key, b text);
create table arch (a int, b text);
with w as (insert into t values (1, 'x'), (2, 'y'), (3, 'z') returning *) select * from w order by a;
with d as (delete from t where a = 1 returning *) insert into arch select * from d;
select * from arch;
with u as (update t set b = b || '!' returning a, b) select count(*) from u;
with u as (update t set b = 'q' returning a) select * from t order by a;
select * from t order by a;
with x as (insert into t values (5, 'five')) select 1;
select * from t order by a;
with a as (insert into t values (7, 'a') returning a), b as (insert into t values (8, 'b') returning a) select * from a, b;
with d as (delete from t where a > 6 returning a) delete from arch where a in (select a from d);
with d as (delete from t where a = 5 returning a) update arch set b = 'u' where a in (select a from d);
with x as (insert into t values (2, 'dup') returning a) select * from x;
with x as (insert into t values (9, 'a') returning a), y as (insert into t values (9, 'b') returning a) select * from x, y;
with d as (delete from t where a = 2 returning *) select (select count(*) from d), (select count(*) from t);
select count(*) from t;
with w(x, y) as (insert into t values (10, 'ten') returning a, a * 2) select x, y from w;
with s as (select 11 as v), i as (insert into t select v, 'eleven' from s returning a) select * from i;
with i as (insert into t values (12, 'c') returning a), j as (insert into t select a + 100, 'd' from i returning a) select * from i, j;
with recursive i as (insert into t values (13, 'e') returning a), r(n) as (select 1 union all select n + 1 from r where n < 3) select * from i, r order by n;
with i as (insert into t values (14, 'f') returning a) select * from i union all select a from t where a = 14;
with d as (delete from t where a > 100 returning a, b) select * from d, arch where false;
with x as materialized (insert into t values (15, 'g') returning a) select * from x;
select a, b from t order by a;
with x as (insert into t values (30, 'a')) select * from x;
insert into arch with d as (delete from t returning *) select * from d;
with a as (with b as (insert into t values (31, 'c') returning *) select * from b) select * from a;
with recursive r as (insert into t select a + 100, b from r returning *) select * from r;
select * from t where a = (with y as (delete from t returning 1) select 1);
with i as (insert into t values (32, 'a') returning a) select * from nosuch;
with i as (insert into nosuch values (1) returning a) select * from i;
with i as (insert into t values (33, 'a') returning nosuch) select * from i;
declare c cursor for with x as (insert into t values (40, 'a') returning a) select * from x;
begin;
declare c cursor for with x as (insert into t values (40, 'a') returning a) select * from x;
rollback;
create view vw as with x as (insert into t values (41, 'a') returning a) select * from x;
create view vw as select * from (with x as (insert into t values (41, 'a') returning a) select * from x) s;
begin read only;
with i as (insert into t values (34, 'a') returning a) select * from i;
rollback;
create table p (id serial primary key, name text);
create table c (id serial primary key, pid int references p, v text);
with np as (insert into p (name) values ('x') returning id) insert into c (pid, v) select id, 'child' from np;
select p.name, c.v from p join c on c.pid = p.id;
create table ty (id int primary key, a int[], ts timestamptz, n numeric(10,2), vc varchar(5), j jsonb);
with i as (insert into ty values (1, '{{1,2},{3,4}}', '2020-01-01 10:00+02', 1.5, 'ab', '{"k": [1]}') returning *) select * from i;
with i as (insert into ty (id, a) values (2, '{5}') returning a, n, vc) select a[1], n, vc, pg_typeof(n) from i;
with u as (update ty set n = n + 1 where id = 1 returning id, n) update ty set vc = 'k' from u where ty.id = u.id + 1;
select id, a, n, vc from ty order by id;
create table ct as with x as (delete from ty where id = 2 returning id, vc) select * from x;
select * from ct;
select format_type(atttypid, atttypmod) from pg_attribute where attrelid = 'ct'::regclass and attnum > 0 order by attnum;
create temp table ct2 (p, q) as with x as (insert into ty (id, vc) values (40, 'w') returning id, vc) select * from x;
select * from ct2;
create table ct3 as with x as (update ty set n = 1 where id > 2 returning id) select id, count(*) over () from x;
select * from ct3 order by 1;
create table ct as with x as (insert into ty (id) values (41) returning id) select * from x;
select count(*) from ty where id = 41;
create table rt (a int primary key, b text, c int[]);
insert into rt values (1, 'x', '{1,2}') returning 'lit', 1, 'x'::text, a::text, b || 'y', rt.a, c[1], (a), -a, upper(b), null, true, cast(a as bigint);
with w as (update rt set b = 'z' returning 'lit', b, rt.*) select * from w;
create type mood as enum ('sad', 'ok', 'happy');
create type pair as (x int, y text);
create table ty2 (id serial primary key, m mood, c pair, r int4range, j jsonb, b bytea, u uuid, i interval, ok bool, ts timestamptz[], t2 text[]);
with w as (insert into ty2 (m, c, r, j, b, u, i, ok, ts, t2) values ('ok', row(1, 'a'), '[1,5)', '{"a": 1}', '\\x0102', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day', true, '{"2020-01-01 00:00+00"}', '{a,"b c",NULL}'), (null, null, null, null, null, null, null, null, null, null) returning *) select * from w order by id;
with w as (insert into ty2 (m) values ('happy') returning m, c) select m, pg_typeof(m), (c).x, m > 'ok' from w;
with w as (insert into ty2 (m) values ('sad') returning id, m) insert into ty2 (m, r) select m, int4range(id, id + 1) from w returning m, r;
with w as (insert into ty2 (id, m) values (100, 'ok') on conflict (id) do update set m = 'happy' returning id, m) select * from w;
with w as (insert into ty2 (id, m) values (100, 'ok') on conflict (id) do update set m = 'happy' returning id, m) select * from w;
with w as (insert into ty2 (id, m) values (100, 'ok') on conflict do nothing returning id) select count(*) from w;
"""


def test_dml_cte_same_outcomes_as_pg15(servers):
    assert_same_outcomes(*servers, "dml_cte", DML_SCRIPT)


async def _dml_asyncpg(dsn: str) -> list:
    """Parameters (extended protocol, binary) in the parts and in the statement that reads them."""
    conn = await asyncpg.connect(dsn)
    out: list = []
    try:
        await conn.execute("drop table if exists pt; drop table if exists pa")
        await conn.execute("create table pt (a int primary key, b text, n numeric)")
        await conn.execute("create table pa (a int, b text, n numeric)")
        q = "with w as (insert into pt values ($1, $2, $3) returning a, b) select a, b from w"
        stmt = await conn.prepare(q)
        out.append([(a.name, a.type.name) for a in stmt.get_attributes()])
        out.append([t.name for t in stmt.get_parameters()])
        for i in range(3):
            out.append(await stmt.fetch(i, f"v{i}", i / 2))
        out.append(await conn.fetch(
            "with w as (insert into pt values (10, 'p', 1) returning a) select a + $1 from w", 5))
        out.append(await conn.execute(
            "with d as (delete from pt where a < $1 returning *) insert into pa select * from d", 2))
        out.append(await conn.fetch("select * from pa order by a"))
        out.append(await conn.fetch(
            "with u as (update pt set n = n * $1 where a = $2 returning a, n), "
            "i as (insert into pa select a, $3, n from u returning *) "
            "select (select count(*) from pt where n = $1 * 1.0), i.* from i", 3, 2, "moved"))
        try:
            await conn.fetch("with w as (insert into pt values ($1, 'dup', 0) returning a) "
                             "select * from w", 2)
        except asyncpg.PostgresError as e:
            out.append((e.sqlstate, e.args[0]))
        out.append(await conn.fetch("select a, b, n from pt order by a"))
    finally:
        await conn.close()
    return out


def _dml_psycopg(dsn: str) -> list:
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("drop table if exists ps")
        c.execute("create table ps (id serial primary key, v text)")
        out = [c.execute("with w as (insert into ps (v) values (%s), (%s) returning id, v) "
                         "select v, id from w order by id", ["a", "b"], prepare=True).fetchall()]
        cur = c.cursor(binary=True)
        out.append(cur.execute("with d as (delete from ps where v = %s returning id) "
                               "select count(*) from d", ["a"], prepare=True).fetchall())
        out.append(cur.statusmessage)
        out.append(c.execute("select v from ps").fetchall())
        c.execute("create table pp (a int primary key)")
        c.execute("""create function mv(n int) returns int language plpgsql as $$
            declare k int;
            begin
              with d as (insert into ps (v) values (n::text) returning id) select id into k from d;
              with d as (delete from ps where id = k returning id) insert into pp select * from d;
              return k;
            end $$""")  # NB: INTO k is PL/pgSQL's, INSERT INTO ps is the statement's
        out.append(c.execute("select mv(50), mv(51)").fetchall())
        c.execute("do $$ begin with d as (insert into ps (v) values ('do') returning id) "
                  "insert into pp select id + 100 from d; end $$")
        out.append(c.execute("select a from pp order by a").fetchall())
    return out


def _fresh(servers: tuple, db: str) -> tuple[str, str]:
    """A fresh database `db` on both servers (the shared server's default one stays clean)."""
    pg, cu = servers
    assert_same_outcomes(pg, cu, db, "select 1")
    return pg.dsn(db=db), cu.dsn(dbname=db)


def test_dml_cte_parameters_through_asyncpg_and_psycopg_as_pg15(servers):
    pg, cu = _fresh(servers, "dml_cte_params")
    expected = asyncio.run(_dml_asyncpg(pg))
    assert asyncio.run(_dml_asyncpg(cu)) == expected
    assert expected[0] == [("a", "int4"), ("b", "text")]
    assert expected[-2][0] == "23505"
    assert _dml_psycopg(cu) == _dml_psycopg(pg)


CITEXT_SCRIPT = """
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
insert into ix select i, case when i % 2 = 0 then 'Key' else 'KEY' end || (i % 50) from generate_series(1, 400) i;
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


def test_citext_same_outcomes_as_pg15(servers):
    assert_same_outcomes(*servers, "citext_fidelity", CITEXT_SCRIPT)


def _citext_psycopg(dsn: str) -> list:
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


async def _citext_asyncpg(dsn: str) -> list:
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


def test_citext_parameters_copy_and_binary_as_pg15(servers):
    pg, cu = _fresh(servers, "citext_params")
    expected = _citext_psycopg(pg)
    assert expected[0][0] == "23505" and expected[-1] == [("CD", 5)]
    assert _citext_psycopg(cu) == expected
    expected = asyncio.run(_citext_asyncpg(pg))
    assert expected[3] == [("e", "citext", "scalar")]
    assert asyncio.run(_citext_asyncpg(cu)) == expected


def test_value_survives_storage_and_keys_fold():
    """What a restart and cold rows read back is still a citext, and it keys as folded."""
    v = CIText("Ann@X.com")
    back = unpackb(packb((v, "Ann@X.com")))
    assert type(back[0]) is CIText and type(back[1]) is str and back[0] == "ann@x.com"
    assert type(pickle.loads(pickle.dumps(v))) is CIText
    assert encode_key((v,)) == encode_key((CIText("ann@x.COM"),)) == encode_key(("ann@x.com",))
    assert str(back[0]) == "Ann@X.com"
