"""When unique and primary keys are checked, and what xmin names, diffed with PostgreSQL 15
(issue 16). One module, so one PostgreSQL serves both.

A plain key is checked row by row (an UPDATE that moves a key onto one a later row still
holds fails), a DEFERRABLE one at the end of the statement, a deferred one at COMMIT or
SET CONSTRAINTS ... IMMEDIATE (23505 with PostgreSQL's DETAIL; the failed COMMIT rolls
back). ON CONFLICT refuses a deferrable arbiter (55000), and so does a foreign key a
deferrable key. Each script runs statement by statement on both servers through psycopg
(`stmtdiff`); pg8000 and asyncpg see the COMMIT that fails a deferred check.

xmin names the transaction that wrote a row version. The ids differ between two servers,
so each xmin scenario reports what an application can see: whether xmin changed, whether
it equals `txid_current() % 2^32` in the writer, whether an optimistic `UPDATE ... WHERE
xmin = $seen` still matches. Through psycopg (two sessions) and asyncpg.
"""

from __future__ import annotations

import asyncio
import threading

import asyncpg
import pg8000.dbapi
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from tests.integration.stmtdiff import assert_same_outcomes, fresh_databases

SCRIPTS = {
    # Plain keys: row by row, in the order the rows are read (here the order of insertion).
    "immediate_row_by_row": """
create table s1 (id int primary key, a int unique);
insert into s1 values (1, 1), (2, 2), (3, 3);
update s1 set a = a + 1;
update s1 set id = id + 1;
update s1 set a = case a when 1 then 2 when 2 then 1 else a end;
update s1 set a = a - 1;
update s1 set id = 4 - id;
update s1 set id = id - 1;
update s1 set id = id + 10, a = a + 10;
select * from s1 order by id;
create table s5 (id int, a int unique);
insert into s5 values (1, 1), (2, 2), (3, 3);
update s5 set a = a + 1;
update s5 set a = a + 1 where id = 3;
update s5 set a = a + 1 where id >= 2;
select * from s5 order by id;
begin;
set constraints s1_pkey immediate;
set constraints s1_pkey, s1_a_key immediate;
set constraints s1_pkey deferred;
rollback;
""",
    # DEFERRABLE INITIALLY IMMEDIATE: at the end of the statement; SET CONSTRAINTS by name.
    "deferrable_statement_end": """
create table u2 (id int primary key deferrable, a int unique deferrable);
insert into u2 values (1, 1), (2, 2), (3, 3);
update u2 set a = a + 1;
update u2 set id = id + 1;
select * from u2 order by id;
create table bg (id int primary key deferrable, pos int unique deferrable);
insert into bg select g, g from generate_series(1, 3000) g;
update bg set pos = pos + 1;
update bg set id = id + 1;
select min(pos), max(pos), min(id), max(id) from bg;
update u2 set a = 5;
insert into u2 values (10, 2), (11, 2);
create table s2 (id int primary key, a int, b int,
                 constraint s2_ab unique (a, b) deferrable initially immediate);
insert into s2 values (1, 1, 1), (2, 2, 1), (3, null, 1), (4, null, 1);
update s2 set a = case a when 1 then 2 when 2 then 1 end where a is not null;
begin;
set constraints s2_ab deferred;
insert into s2 values (5, 1, 1);
select count(*) from s2 where a = 1;
update s2 set b = 2 where id = 5;
set constraints s2_ab immediate;
insert into s2 values (6, 1, 2);
commit;
select * from s2 order by id;
begin;
set constraints all deferred;
insert into s2 values (7, 1, 1);
savepoint x;
insert into s2 values (8, 1, 1);
rollback to savepoint x;
delete from s2 where id = 7;
commit;
begin;
set constraints all deferred;
insert into s2 values (7, 1, 1);
create table s1 (id int primary key);
commit;
select * from s2 order by id;
select count(*) from pg_class where relname = 's1';
""",
    # INITIALLY DEFERRED: duplicates live until COMMIT, which fails and rolls back.
    "deferred_to_commit": """
create table u3 (id int, a int unique deferrable initially deferred);
begin;
insert into u3 values (1, 1), (2, 1);
select * from u3 order by id;
commit;
select * from u3 order by id;
begin;
insert into u3 values (1, 1), (2, 1);
set constraints all immediate;
rollback;
begin;
insert into u3 values (1, 1), (2, 1);
update u3 set a = 2 where id = 2;
commit;
insert into u3 values (4, 4);
insert into u3 values (5, 4);
select * from u3 order by id;
create table s4 (id int, a int);
alter table s4 add constraint s4_a unique (a) deferrable initially deferred;
begin;
insert into s4 values (1, 1), (2, 1), (3, 1);
update s4 set a = id;
commit;
select * from s4 order by id;
create table p2 (id int primary key, a int,
                 unique nulls not distinct (a) deferrable initially deferred);
begin;
insert into p2 values (1, null), (2, null);
commit;
begin;
insert into p2 values (1, null), (2, 3);
update p2 set a = 3 where id = 1;
update p2 set a = null where id = 2;
commit;
select * from p2 order by id;
create table s3 (id int primary key deferrable initially deferred, v text);
insert into s3 values (1, 'a'), (2, 'b'), (3, 'c');
update s3 set id = id + 1;
select * from s3 order by id;
create table p5 (id int primary key, u int unique);
create table f2 (id int primary key, p int references p5 deferrable initially deferred,
                 u int unique deferrable initially deferred);
insert into p5 values (1, 1);
begin;
insert into f2 values (1, 99, 1), (2, 1, 1);
commit;
begin;
insert into f2 values (1, 1, 1), (2, 1, 1);
set constraints f2_u_key immediate;
commit;
""",
    # ON CONFLICT cannot arbitrate on a deferrable key; a foreign key cannot reference one.
    "deferrable_arbiters_and_references": """
create table u3 (id int, a int unique deferrable initially deferred);
insert into u3 values (3, 2) on conflict (a) do nothing;
insert into u3 values (3, 2) on conflict do nothing;
insert into u3 values (3, 2) on conflict on constraint u3_a_key do nothing;
insert into u3 select 9, 9 where false on conflict do nothing;
create table p3 (id int primary key, a int unique deferrable);
insert into p3 values (1, 1) on conflict (id) do nothing;
insert into p3 values (1, 1) on conflict (id) do update set a = 5;
insert into p3 values (1, 1) on conflict (a) do update set a = 5;
select * from p3;
create table p4 (id int primary key deferrable, a int unique deferrable, b int, c int);
create unique index p4_b on p4 (b) where b > 0;
create unique index p4_c on p4 (c);
insert into p4 values (1, 1) on conflict (id) do nothing;
create table f1 (id int primary key, p int references p4);
create table f1 (id int primary key, p int references p4 (id));
create table f1 (id int primary key, p int references p4 (a));
create table f1 (id int primary key, p int references p4 (b));
create table f1 (id int primary key, p int references p4 (c));
""",
    # The catalog says what is deferrable; ALTER CONSTRAINT changes a foreign key's deferral.
    "catalog_and_alter_constraint": """
create table dc (id int primary key deferrable initially deferred, a int unique deferrable,
                 b int unique);
create table dfk (id int references dc (b) deferrable initially deferred,
                  x int references dc (b));
select conname, condeferrable, condeferred from pg_constraint
 where conrelid in ('dc'::regclass, 'dfk'::regclass) order by 1;
select c.relname, i.indimmediate from pg_index i join pg_class c on c.oid = i.indexrelid
 where i.indrelid = 'dc'::regclass order by 1;
select table_name, constraint_name, is_deferrable, initially_deferred
  from information_schema.table_constraints
 where table_name in ('dc', 'dfk') and constraint_type <> 'CHECK' order by 1, 2;
alter table dfk alter constraint dfk_x_fkey deferrable initially deferred;
alter table dfk alter constraint dfk_id_fkey not deferrable;
alter table dfk alter constraint nosuch deferrable;
alter table dc alter constraint dc_b_key deferrable;
alter table dfk alter constraint dfk_x_fkey not deferrable initially deferred;
begin;
insert into dfk values (null, 5);
insert into dfk values (5, null);
rollback;
alter table dfk alter constraint dfk_x_fkey initially immediate;
select conname, condeferrable, condeferred from pg_constraint
 where conrelid = 'dfk'::regclass order by 1;
""",
}


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    assert_same_outcomes(*servers, f"dk_{name}", SCRIPTS[name], detail=True)


_COMMIT_FAILS = ["create table d (id int, a int unique deferrable initially deferred)",
                 "insert into d values (0, 7)"]


def _pg8000_commit(dsn: str) -> tuple:
    """What pg8000 sees when COMMIT fails a deferred unique check, and what is left."""
    kw = conninfo_to_dict(dsn)
    conn = pg8000.dbapi.connect(user=kw["user"], host=kw["host"], port=int(kw["port"]),
                                database=kw["dbname"], password=kw.get("password"))
    try:
        conn.autocommit = True
        cur = conn.cursor()
        for sql in _COMMIT_FAILS:
            cur.execute(sql)
        conn.autocommit = False
        cur.execute("insert into d values (1, 1), (2, 1)")
        cur.execute("insert into d values (3, 7)")
        try:
            conn.commit()
            err: tuple = ()
        except pg8000.dbapi.DatabaseError as e:
            f = e.args[0]
            err = (f["C"], f["M"], f.get("D"))
        cur.execute("select id, a from d order by id")
        return err, cur.fetchall()
    finally:
        conn.close()


async def _asyncpg_commit(dsn: str) -> tuple:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("create table e (id int primary key, a int unique deferrable)")
        await conn.execute("insert into e values (1, 1), (2, 2)")
        tr = conn.transaction()
        await tr.start()
        await conn.execute("set constraints e_a_key deferred")
        await conn.execute("update e set a = 2 where id = 1")
        try:
            await conn.execute("set constraints all immediate")
            err: tuple = ()
        except asyncpg.PostgresError as e:
            err = (e.sqlstate, e.message, e.detail)
        await tr.rollback()
        return err, [tuple(r) for r in await conn.fetch("select * from e order by id")]
    finally:
        await conn.close()


def test_failed_commit_through_pg8000_and_asyncpg(servers):
    pg, cu = servers
    got = []
    for dsn in fresh_databases(pg, cu, "dk_clients"):
        got.append((_pg8000_commit(dsn), asyncio.run(_asyncpg_commit(dsn))))
    assert got[1] == got[0]
    assert got[0][0][0][0] == "23505" and got[0][1][0][0] == "23505"


def _race(dsn: str, ddl: str, end: str) -> list:
    """Two transactions insert one value of a unique column; what each sees."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute("drop table if exists race")
        a.execute(ddl)
        a.execute("begin")
        b.execute("begin")
        a.execute("insert into race values (1, 1)")
        got: list = []

        def second() -> None:
            try:
                b.execute("insert into race values (2, 1)")
                b.execute("commit")
                got.append("ok")
            except psycopg.Error as e:
                got.append(e.sqlstate)
                b.execute("rollback")

        t = threading.Thread(target=second)
        t.start()  # NB: it waits for a's end, or (had a ended first) sees a's row: same outcome
        a.execute(end)
        t.join()
        out += got
        out.append(a.execute("select count(*) from race").fetchone())
    return out


@pytest.mark.parametrize("ddl", [
    "create table race (id int primary key, a int unique)",
    "create table race (id int primary key, a int unique deferrable initially deferred)"])
def test_concurrent_inserts_of_one_value(servers, ddl):
    """The second inserter waits for the first: 23505 once it commits, its row once it
    rolls back (both used to commit, leaving a duplicate in a unique index)."""
    pg, cu = servers
    for end in ("commit", "rollback"):
        assert _race(cu.dsn(), ddl, end) == _race(pg.dsn(), ddl, end)


def _reinsert(dsn: str, first: str, end: str) -> list:
    """One transaction changes row 1 (`first`); another inserts id 1 meanwhile."""
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute("drop table if exists reins")
        a.execute("create table reins (id int primary key, v int)")
        a.execute("insert into reins values (1, 0)")
        a.execute("begin")
        a.execute(first)
        got: list = []

        def second() -> None:
            try:
                b.execute("insert into reins values (1, 2)")
                got.append("ok")
            except psycopg.Error as e:
                got.append(e.sqlstate)

        t = threading.Thread(target=second)
        t.start()  # NB: it waits for a's end, or (had a ended first) sees a's end: same outcome
        a.execute(end)
        t.join()
        return got + a.execute("select * from reins order by id").fetchall()


@pytest.mark.parametrize("first", ["delete from reins where id = 1",
                                   "update reins set id = 5 where id = 1",
                                   "update reins set v = 1 where id = 1"])
def test_insert_of_a_key_another_transaction_frees(servers, first):
    """READ COMMITTED: the inserter waits for the transaction deleting (or moving) the row
    that holds its key; once that commits the INSERT succeeds (it raised 23505 at once)."""
    pg, cu = servers
    for end in ("commit", "rollback"):
        assert _reinsert(cu.dsn(), first, end) == _reinsert(pg.dsn(), first, end)


_OWN = "xmin::text::bigint = txid_current() % 4294967296"


def _psycopg_story(dsn: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        a.execute("create table occ (id int primary key, v text)")
        a.execute("insert into occ values (1, 'a'), (2, 'a')")
        x0 = a.execute("select xmin from occ where id = 1").fetchone()[0]
        out.append(a.execute("select count(distinct xmin::text) from occ").fetchone())
        # an UPDATE to the same values is a new version: the stamp changes
        b.execute("update occ set v = v where id = 1")
        x1 = a.execute("select xmin from occ where id = 1").fetchone()[0]
        out.append(x1 != x0)
        out.append(a.execute("update occ set v = 'z' where id = 1 and xmin = %s", [x0]).rowcount)
        # a -> b -> a (ABA) is still a change
        b.execute("update occ set v = 'b' where id = 1")
        b.execute("update occ set v = 'a' where id = 1")
        x2 = a.execute("select xmin from occ where id = 1").fetchone()[0]
        out.append((x2 != x1, x2 != x0))
        # inside the writer: txid_current() % 2^32; the same value after COMMIT, elsewhere
        with a.transaction():
            ret = a.execute(f"update occ set v = 'c' where id = 1 returning xmin, {_OWN}"
                            ).fetchone()
            out.append(ret[1])
            out.append(a.execute(f"select id, {_OWN} from occ order by id").fetchall())
            out.append(b.execute("select xmin from occ where id = 1").fetchone()[0] == x2)
        out.append(b.execute("select xmin from occ where id = 1").fetchone()[0] == ret[0])
        out.append(b.execute("update occ set v = 'd' where id = 1 and xmin = %s returning "
                             "xmin <> %s", [ret[0], ret[0]]).fetchall())
        # DELETE ... RETURNING xmin gives the deleted version's
        x3 = a.execute("select xmin from occ where id = 2").fetchone()[0]
        out.append(a.execute("delete from occ where id = 2 returning xmin = %s", [x3]).fetchall())
        # a REPEATABLE READ snapshot keeps the xmin it saw; its write then fails
        a.execute("begin isolation level repeatable read")
        seen = a.execute("select xmin from occ where id = 1").fetchone()[0]
        b.execute("update occ set v = v where id = 1")
        out.append(a.execute("select xmin = %s from occ where id = 1", [seen]).fetchone())
        try:
            a.execute("update occ set v = 'e' where id = 1")
            out.append("updated")
        except psycopg.Error as e:
            out.append(e.sqlstate)
        a.execute("rollback")
        # one transaction's rows share its xmin
        with a.transaction():
            a.execute("insert into occ values (3, 'x'), (4, 'y')")
            a.execute("insert into occ values (5, 'x')")
        out.append(a.execute("select count(distinct xmin::text) from occ where id >= 3"
                             ).fetchone())
    return out


async def _asyncpg_story(dsn: str) -> list:
    conn = await asyncpg.connect(dsn)
    try:
        await conn.execute("create table ver (id int primary key, n int)")
        await conn.execute("insert into ver values (1, 0)")
        seen = await conn.fetchval("select xmin from ver where id = 1")
        stmt = await conn.prepare("update ver set n = n where id = $1 and xmin = $2 "
                                  "returning xmin")
        first = await stmt.fetch(1, seen)
        again = await stmt.fetch(1, seen)
        new = first[0][0]
        return [len(first), new != seen, len(again),
                await conn.fetchval("select xmin = $1 from ver", new)]
    finally:
        await conn.close()


@pytest.fixture(scope="module")
def dsns(servers):
    return fresh_databases(*servers, "xmin_writer")


def test_xmin_through_psycopg_matches_pg15(dsns):
    pg, cu = dsns
    expected = _psycopg_story(pg)
    assert expected[1] is True  # the oracle changes xmin on a same-value UPDATE
    assert _psycopg_story(cu) == expected


def test_xmin_through_asyncpg_matches_pg15(dsns):
    pg, cu = dsns
    assert asyncio.run(_asyncpg_story(cu)) == asyncio.run(_asyncpg_story(pg)) == [1, True, 0, True]
