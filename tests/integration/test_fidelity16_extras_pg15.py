"""More issue-16 behaviour against PostgreSQL 15: extensions' operator classes (pg_trgm's
gin_trgm_ops / gist_trgm_ops, btree_gist's gist_int4_ops ...), as Django's GinIndex and
GistIndex with `opclasses` create them; ctid of tables without a primary key and TID
scans; materialized views; SERIALIZABLE's insert race; errors' source-location fields.

Each script runs statement by statement in a fresh database of each server through psycopg
(`stmtdiff`: rows, column names and type OIDs, SQLSTATE, message, DETAIL, HINT, notices).
"""

from __future__ import annotations

import threading

import psycopg
import pytest

from tests.integration.stmtdiff import assert_same_outcomes, fresh_databases, wait_until_active

SCRIPTS = {
    # NB: opckeytype is left out: btree_gist's gbtreekey* and pg_trgm's gtrgm types are not
    # Cumulo's; DROP EXTENSION pg_trgm CASCADE with an expression index is XX000 in PG 15
    "extension_opclasses": """
create table d (id int, name text, v varchar(20), n int, tz timestamptz, r int4range);
create index e1 on d using gin (name gin_trgm_ops);
create extension pg_trgm;
create extension btree_gist;
create index e2 on d using gin (n gin_trgm_ops);
create index e3 on d using gin (v gin_trgm_ops);
create index e4 on d using gist (name gist_trgm_ops);
create index e5 on d using gist (n, tz);
create index e6 on d using gist (tz gist_timestamptz_ops, upper(name) gist_trgm_ops);
create index e7 on d using btree (name gin_trgm_ops);
create index e8 on d using gist (r);
select pg_get_indexdef(indexrelid) from pg_index where indrelid = 'd'::regclass order by indexrelid;
select c.relname, array(select o.opcname from unnest(i.indclass) with ordinality u(x, n) join pg_opclass o on o.oid = u.x order by n) from pg_index i join pg_class c on c.oid = i.indexrelid where indrelid = 'd'::regclass order by 1;
select opcname, amname, opcdefault, opfname, opcnamespace::regnamespace from pg_opclass c join pg_am a on a.oid = opcmethod join pg_opfamily f on f.oid = opcfamily where opcname like '%trgm%' or opcname in ('gist_int4_ops', 'gist_text_ops') order by 1;
insert into d values (1, 'abc', 'xyz', 3, '2020-01-01', '[1,2)'), (2, 'xbc', 'abd', 4, '2021-01-01', '[3,4)');
select id from d where name % 'abd' order by id;
drop extension pg_trgm;
drop index e6;
drop extension btree_gist;
drop index e5;
drop extension btree_gist;
drop extension pg_trgm cascade;
select relname from pg_class where relname like 'e_' order by 1;
select count(*) from pg_opclass where opcname like '%trgm%' or opcname = 'gist_int4_ops';
""",
    # A table without a primary key: ctids in insertion order from (0,1), the dedup recipes,
    # TID scans (EXPLAIN as PG's) and prepared ctid lookups. NB: unlike PostgreSQL's, a row's
    # ctid stays the same after an UPDATE, and blocks hold 291 rows whatever their width.
    "heap_ctid": """
create table t (id int, k int);
insert into t values (1, 1), (2, 1), (3, 2), (4, 3), (5, 3), (6, 4);
select ctid, * from t order by id;
select * from t where ctid = '(0,1)';
select * from t where ctid = '(0,0)' or ctid = '(9,1)';
select * from t where ctid = null;
explain (costs off) select * from t where ctid = '(0,1)';
explain (costs off) delete from t where ctid = '(0,6)';
prepare q(tid) as select id from t where ctid = $1;
execute q('(0,2)');
delete from t where ctid = '(0,6)' returning *;
delete from t a using t b where a.ctid < b.ctid and a.k = b.k;
select ctid, * from t order by id;
insert into t values (7, 2), (8, 2);
delete from t where ctid not in (select max(ctid) from t group by k);
select ctid, * from t order by ctid;
select k, min(ctid), max(ctid) from t group by k order by k;
""",
    # Materialized views: the rows of their last refresh, relkind m, pg_matviews, REFRESH
    # [CONCURRENTLY] in a transaction, writes and the wrong DROP refused, views' dependencies.
    "matviews": """
create table items (id int, v text);
insert into items values (1, 'a');
create materialized view mv as select count(*) from items;
create materialized view if not exists mv as select 1;
create materialized view mv3 (n, w) as select * from items;
insert into items values (2, 'b');
select * from mv;
select relkind, relam::regam from pg_class where relname = 'mv';
refresh materialized view mv;
select * from mv;
select matviewname, hasindexes, ispopulated, definition from pg_matviews order by 1;
select pg_get_viewdef('mv3'::regclass);
refresh materialized view concurrently mv;
create unique index on mv (count);
refresh materialized view concurrently mv;
refresh materialized view items;
refresh materialized view nope;
insert into mv values (5);
update mv set count = 1;
delete from mv;
alter table items add column z int;
refresh materialized view mv3;
select * from mv3 order by n;
begin;
insert into items values (3, 'c');
refresh materialized view mv3;
select * from mv3 order by n;
rollback;
select * from mv3 order by n;
drop view mv;
drop table mv;
drop materialized view items;
drop materialized view nope;
drop materialized view if exists nope;
drop materialized view mv, mv3;
select count(*) from pg_class where relname like 'mv%';
create view vv as select * from items;
create materialized view mv4 as select id from vv where id > 1;
select * from mv4;
drop view vv;
drop view vv cascade;
select count(*) from pg_class where relname = 'mv4';
create materialized view mv as select * from items with no data;
select * from mv;
select relispopulated from pg_class where relname = 'mv';
select ispopulated from pg_matviews;
refresh materialized view concurrently mv;
refresh materialized view concurrently mv with no data;
refresh materialized view mv;
select * from mv order by id;
create unique index on mv (id);
refresh materialized view concurrently mv with no data;
refresh materialized view mv with no data;
select count(*) from mv;
create materialized view if not exists mv as select 1 with no data;
""",
    "client_address": """
select inet_client_addr() is null, inet_client_port() is null, pg_typeof(inet_client_addr()), pg_typeof(inet_client_port());
select inet_client_addr() = client_addr, inet_client_port() = client_port from pg_stat_activity where pid = pg_backend_pid();
select p.proname, p.provolatile, p.proparallel, p.prorettype::regtype from pg_proc p where proname like 'inet_client%' order by 1;
""",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_same_outcomes_as_pg15(cumulo_server, pg15, name):
    assert_same_outcomes(pg15, cumulo_server, f"fidelx_{name}", SCRIPTS[name], types=True,
                         detail=True, notices=True)


def _source_fields(dsn: str) -> list:
    """What a client sees of an error's F, L and R fields (psql's \\errverbose LOCATION)."""
    out = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in ("select 1/0", "select * from no_such_table", "selec 1"):
            try:
                c.execute(sql)
            except psycopg.Error as e:
                d = e.diag
                out.append((e.sqlstate, bool(d.source_file), (d.source_line or "").isdigit(),
                            bool(d.source_function)))
    return out


def test_errors_name_their_source_location_as_pg15(cumulo_server, pg15):
    """Every error carries where the server raised it (PostgreSQL: its C file, line and
    function; Cumulo: the Python frame that raised it)."""
    expected = _source_fields(pg15.dsn())
    assert all(x[1:] == (True, True, True) for x in expected)
    assert _source_fields(cumulo_server.dsn()) == expected


# Two sessions and a unique index, as PostgreSQL 15: an insert of a key another transaction
# holds uncommitted waits for it (`b&`: started, then seen waiting), then fails (commit) or
# goes on (rollback; a delete or a key change freed the key); ON CONFLICT waits the same way.
UNIQUE_WAITS = """
a: create table u (id int primary key, v int)
a: begin
a: insert into u values (1, 1)
b&: insert into u values (1, 2)
a: commit
b<
a: begin
a: insert into u values (2, 1)
b&: insert into u values (2, 2)
a: rollback
b<
a: begin
a: delete from u where id = 1
b&: insert into u values (1, 9)
a: commit
b<
a: begin
a: update u set id = 5 where id = 1
b&: insert into u values (1, 10)
a: commit
b<
a: begin
a: insert into u values (7, 1)
b&: insert into u values (7, 2) on conflict (id) do update set v = excluded.v
a: commit
b<
a: select * from u order by id
"""


def _waits(dsn: str, script: str) -> list:
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as a, psycopg.connect(dsn, autocommit=True) as b:
        conns = {"a": a, "b": b}
        pending: list = []

        def one(who: str, sql: str) -> tuple:
            try:
                cur = conns[who].execute(sql)
                return (cur.statusmessage, cur.fetchall() if cur.description else None)
            except psycopg.Error as e:
                return (e.sqlstate, e.diag.message_primary, e.diag.message_detail)

        for line in script.strip().splitlines():
            who, _, sql = line.partition(":")
            if who == "b&":
                got: list = []
                th = threading.Thread(target=lambda s=sql.strip(), g=got: g.append(one("b", s)))
                th.start()
                wait_until_active(dsn, sql.strip())
                out.append(("waiting", not got))
                pending = [th, got]
            elif who == "b<":
                pending[0].join(30)
                out.append(tuple(pending[1]))
            else:
                out.append(one(who, sql.strip()))
    return out


def test_unique_index_waits_as_pg15(cumulo_server, pg15):
    pg, cu = fresh_databases(pg15, cumulo_server, "fidelx_waits")
    expected = _waits(pg, UNIQUE_WAITS)
    assert expected[3] == ("waiting", True) and expected[5][0][0] == "23505"
    assert _waits(cu, UNIQUE_WAITS) == expected


# SERIALIZABLE, two sessions that both looked for key 1 and found nothing: the second
# inserter waits for the first, then fails with PostgreSQL's read/write-dependency 40001
# ("during write"), not 23505.
SERIAL_RACE = """
a: create table k (id int primary key, v text)
a: begin isolation level serializable
b: begin isolation level serializable
a: select * from k where id = 1
b: select * from k where id = 1
a: insert into k values (1, 'a')
b&: insert into k values (1, 'b')
a: commit
b<
b: rollback
a: select * from k
"""


def test_serializable_insert_race_as_pg15(cumulo_server, pg15):
    pg, cu = fresh_databases(pg15, cumulo_server, "fidelx_race")
    expected = _waits(pg, SERIAL_RACE)
    assert expected[6] == ("waiting", True) and expected[8][0][0] == "40001"
    assert _waits(cu, SERIAL_RACE) == expected
