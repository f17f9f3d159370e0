"""DDL: tables, constraints, sequences, indexes, ALTER TABLE, views, schemas, databases, roles."""

from __future__ import annotations

from cumulo.server.pgtypes import oids as T

from .helpers import fails, rows, run


def table(session, name):
    return next(t for t in session.catalog().tables if t.name == name)


def test_create_table_types_and_typmods(session):
    run(session, "create table t (a int, b bigint, c smallint, d real, e double precision, "
         "f float(10), g float(30), h numeric(10,2), i decimal, j text, k varchar(50), "
         "l character varying, m char(3), n character, o boolean, p bytea, q date, r time, "
         "s timestamp, u timestamp with time zone, v timestamptz, w interval, x uuid, y json, "
         "z jsonb, aa int[], bb text[], cc numeric(5))")
    cols = {c.name: (c.type_oid, c.typmod) for c in table(session, "t").columns}
    assert cols["a"] == (T.INT4, -1) and cols["b"] == (T.INT8, -1) and cols["c"] == (T.INT2, -1)
    assert cols["d"] == (T.FLOAT4, -1) and cols["e"] == (T.FLOAT8, -1)
    assert cols["f"] == (T.FLOAT4, -1) and cols["g"] == (T.FLOAT8, -1)
    assert cols["h"] == (T.NUMERIC, 655366) and cols["i"] == (T.NUMERIC, -1)
    assert cols["k"] == (T.VARCHAR, 54) and cols["l"] == (T.VARCHAR, -1)
    assert cols["m"] == (T.BPCHAR, 7) and cols["n"] == (T.BPCHAR, 5)
    assert cols["u"] == (T.TIMESTAMPTZ, -1) and cols["s"] == (T.TIMESTAMP, -1)
    assert cols["aa"] == (1007, -1) and cols["bb"] == (1009, -1)
    assert cols["cc"] == (T.NUMERIC, 327684)


def test_create_drop_if_exists_notices(session):
    assert run(session, "create table t (a int)") == [("CREATE TABLE", None)]
    fails(session, "create table t (a int)", "42P07")
    run(session, "create table if not exists t (a int)")
    assert session.take_notices()[0].message == 'relation "t" already exists, skipping'
    assert run(session, "drop table t") == [("DROP TABLE", None)]
    err = fails(session, "drop table t", "42P01")
    assert err.message == 'table "t" does not exist'
    run(session, "drop table if exists t")
    assert session.take_notices()[0].message == 'table "t" does not exist, skipping'


def test_primary_keys_and_constraint_names(session):
    run(session, "create table t (a int, b text, c int unique, d int check (d > 0), "
         "primary key (a, b))")
    t = table(session, "t")
    assert t.primary_key == (1, 2)
    assert [c.not_null for c in t.columns] == [True, True, False, False]
    cons = {c.name: c.kind for c in session.catalog().constraints_of(t.oid)}
    assert cons == {"t_pkey": "p", "t_c_key": "u", "t_d_check": "c"}
    fails(session, "create table u (a int primary key, b int primary key)", "42P16")


def test_serial_and_identity(session):
    run(session, "create table t (id serial primary key, b bigserial, "
         "c int generated always as identity, v text)")
    t = table(session, "t")
    assert t.columns[0].default == "nextval('t_id_seq'::regclass)" and t.columns[0].not_null
    assert t.columns[1].type_oid == T.INT8
    assert t.columns[2].identity == "a"
    seqs = sorted(q.name for q in session.catalog().sequences)
    assert seqs == ["t_b_seq", "t_c_seq", "t_id_seq"]
    run(session, "insert into t (v) values ('x'), ('y')")
    assert rows(session, "select id, b, c, v from t order by id") == [(1, 1, 1, "x"),
                                                                      (2, 2, 2, "y")]
    run(session, "drop table t")
    assert session.catalog().sequences == ()


def test_sequences(session):
    run(session, "create sequence s start 10 increment by 5")
    assert rows(session, "select nextval('s')") == [(10,)]
    assert rows(session, "select nextval('s'), currval('s')") == [(15, 15)]
    run(session, "begin; select nextval('s'); rollback")
    assert rows(session, "select nextval('s')") == [(25,)]  # not rolled back
    run(session, "select setval('s', 100)")
    assert rows(session, "select nextval('s')") == [(105,)]
    run(session, "alter sequence s restart with 1")
    assert rows(session, "select nextval('s')") == [(1,)]
    fails(session, "create sequence s", "42P07")
    run(session, "create sequence if not exists s")
    run(session, "create sequence small as smallint maxvalue 2")
    run(session, "select nextval('small'), nextval('small')")
    fails(session, "select nextval('small')", "2200H")  # PG 15: sequence_generator_limit_exceeded
    run(session, "drop sequence s, small")
    run(session, "drop sequence if exists s")
    fails(session, "drop sequence s", "42P01")


def test_currval_before_nextval(session):
    run(session, "create sequence s")
    err = fails(session, "select currval('s')", "55000")
    assert err.message == 'currval of sequence "s" is not yet defined in this session'


def test_ddl_is_transactional(session, engine):
    run(session, "begin; create table t (a int); insert into t values (1)")
    assert rows(session, "select * from t") == [(1,)]
    other = engine.open_session("cumulo", "cumulo", {})
    fails(other, "select * from t", "42P01")
    run(session, "rollback")
    fails(session, "select * from t", "42P01")
    run(session, "begin; create table t (a int); commit")
    assert rows(other, "select count(*) from t") == [(0,)]
    other.close()


def test_indexes(session, engine):
    run(session, "create table t (a int primary key, b int, c text)")
    run(session, "insert into t values (1, 10, 'x'), (2, 20, 'y'), (3, 20, 'z')")
    assert run(session, "create index t_b on t (b)") == [("CREATE INDEX", None)]
    idx = next(i for i in session.catalog().indexes if i.name == "t_b")
    txn = engine.tm.begin(read_only=True)
    entries = [r for b in txn.scan(_spec(idx.space)) for r in b]
    txn.abort()
    assert idx.columns == (2,) and not idx.unique
    assert sorted(entries) == [(1,), (2,), (3,)]  # index entries point at primary keys
    err = fails(session, "create unique index t_bu on t (b)", "23505")
    assert err.message == 'could not create unique index "t_bu"'
    assert err.detail == "Key (b)=(20) is duplicated."
    run(session, "create unique index if not exists t_c on t (c)")
    run(session, "create unique index if not exists t_c on t (c)")
    assert "already exists" in session.take_notices()[0].message
    fails(session, "insert into t values (4, 1, 'x')", "23505")
    run(session, "insert into t values (4, 1, null), (5, 1, null)")  # NULLs are distinct
    assert rows(session, "select a from t where b = 20 order by a") == [(2,), (3,)]
    run(session, "drop index t_b")
    fails(session, "drop index t_b", "42704")
    run(session, "drop index if exists t_b")
    fails(session, "drop index t_pkey", "2BP01")


def _spec(space):
    from cumulo.server.txn.api import ScanSpec

    return ScanSpec(space)


def test_alter_table_columns(session):
    run(session, "create table t (a int primary key, b text)")
    run(session, "insert into t values (1, 'x')")
    run(session, "alter table t add column c int default 7, add column d text")
    assert rows(session, "select * from t") == [(1, "x", 7, None)]
    run(session, "alter table t drop column b")
    assert rows(session, "select * from t") == [(1, 7, None)]
    run(session, "insert into t values (2, 8, 'q')")
    assert rows(session, "select a, c, d from t order by a") == [(1, 7, None), (2, 8, "q")]
    run(session, "alter table t rename column c to cc")
    assert rows(session, "select cc from t where a = 2") == [(8,)]
    run(session, "alter table t alter column cc set default 42")
    run(session, "insert into t (a) values (3)")
    assert rows(session, "select cc from t where a = 3") == [(42,)]
    run(session, "alter table t alter column cc drop default")
    run(session, "insert into t (a) values (4)")
    assert rows(session, "select cc from t where a = 4") == [(None,)]
    fails(session, "alter table t alter column cc set not null", "23502")
    run(session, "delete from t where cc is null")
    run(session, "alter table t alter column cc set not null")
    fails(session, "insert into t (a) values (5)", "23502")
    run(session, "alter table t alter column cc drop not null")
    run(session, "alter table t rename to t2")
    assert rows(session, "select count(*) from t2") == [(3,)]
    fails(session, "alter table t add column z int", "42P01")
    run(session, "alter table if exists t add column z int")
    fails(session, "alter table t2 add column a int", "42701")


def test_add_primary_key_after_load(session):
    run(session, "create table pgbench_branches (bid int not null, bbalance int, "
         "filler char(88)) with (fillfactor=100)")
    run(session, "insert into pgbench_branches values (2, 0, null), (1, 0, null)")
    assert table(session, "pgbench_branches").options == ("fillfactor=100",)
    assert run(session, "alter table pgbench_branches add primary key (bid)") == [
        ("ALTER TABLE", None)]
    t = table(session, "pgbench_branches")
    assert t.primary_key == (1,)
    assert rows(session, "select bid from pgbench_branches") == [(1,), (2,)]  # key order
    err = fails(session, "insert into pgbench_branches values (1, 0, null)", "23505")
    assert err.message == ('duplicate key value violates unique constraint '
                           '"pgbench_branches_pkey"')
    assert err.detail == "Key (bid)=(1) already exists."


def test_add_constraints(session):
    run(session, "create table p (id int primary key)")
    run(session, "create table c (id int, pid int)")
    run(session, "insert into p values (1); insert into c values (1, 1), (2, 2)")
    fails(session, "alter table c add constraint fk foreign key (pid) references p (id)",
          "23503")
    run(session, "delete from c where pid = 2")
    run(session, "alter table c add constraint fk foreign key (pid) references p (id)")
    fails(session, "insert into c values (3, 3)", "23503")
    fails(session, "alter table c add constraint ck check (id > 1)", "23514")
    run(session, "alter table c add constraint ck check (id > 0)")
    fails(session, "insert into c values (0, 1)", "23514")
    run(session, "alter table c add constraint u unique (id)")
    fails(session, "insert into c values (1, 1)", "23505")
    run(session, "alter table c drop constraint u")
    run(session, "insert into c values (1, 1)")
    fails(session, "create table d (x int references c (pid))", "42830")


def test_truncate(session, engine):
    run(session, "create table t (a int primary key, b int)")
    run(session, "create index tb on t (b)")
    run(session, "insert into t values (1, 1), (2, 2)")
    old_space = table(session, "t").space
    assert run(session, "truncate t") == [("TRUNCATE TABLE", None)]
    assert table(session, "t").space != old_space
    assert rows(session, "select count(*) from t") == [(0,)]
    run(session, "insert into t values (1, 1)")
    assert rows(session, "select a from t where b = 1") == [(1,)]
    run(session, "begin; truncate t; rollback")
    assert rows(session, "select count(*) from t") == [(1,)]


def test_views(session):
    run(session, "create table t (a int, b int)")
    run(session, "insert into t values (1, 2), (3, 4)")
    assert run(session, "create view v as select a, a + b as s from t") == [
        ("CREATE VIEW", None)]
    v = table(session, "v")
    assert v.kind == "v" and [c.name for c in v.columns] == ["a", "s"]
    assert rows(session, "select s from v order by a") == [(3,), (7,)]
    fails(session, "drop table v", "42809")
    assert run(session, "drop view v") == [("DROP VIEW", None)]


def test_schemas(session):
    assert run(session, "create schema s") == [("CREATE SCHEMA", None)]
    fails(session, "create schema s", "42P06")
    run(session, "create table s.t (a int)")
    run(session, "insert into s.t values (1)")
    assert rows(session, "select * from s.t") == [(1,)]
    fails(session, "select * from t", "42P01")
    run(session, "set search_path = s, public")
    assert rows(session, "select * from t") == [(1,)]
    fails(session, "drop schema s", "2BP01")
    run(session, "drop schema s cascade")
    fails(session, "create table nope.t (a int)", "3F000")


def test_databases(session, engine):
    run(session, "create database d2")
    fails(session, "create database d2", "42P04")
    run(session, "begin")
    err = fails(session, "create database d3", "25001")
    assert err.message == "CREATE DATABASE cannot run inside a transaction block"
    run(session, "rollback")
    other = engine.open_session("cumulo", "d2", {})
    run(other, "create table t (a int)")
    fails(session, "select * from t", "42P01")  # each database is its own namespace
    fails(session, "drop database d2", "55006")
    other.close()
    run(session, "drop database d2")
    run(session, "drop database if exists d2")
    fails(session, "drop database cumulo", "55006")


def test_roles(session, engine):
    run(session, "create user alice password 'secret'")
    info = engine.role("alice")
    assert info.can_login and not info.superuser
    assert info.password.startswith("SCRAM-SHA-256$4096:")
    run(session, "set password_encryption = 'md5'; create role bob login password 'pw'")
    import hashlib

    assert engine.role("bob").password == "md5" + hashlib.md5(b"pwbob").hexdigest()
    run(session, "create role carol")
    assert not engine.role("carol").can_login
    run(session, "alter role carol with login superuser")
    assert engine.role("carol").superuser
    fails(session, "create role carol", "42710")
    run(session, "drop role carol, bob")
    assert engine.role("carol") is None
    fails(session, "drop role carol", "42704")
    run(session, "drop role if exists carol")


def test_comment_on(session):
    run(session, "create table t (a int)")
    run(session, "comment on table t is 'the table'; comment on column t.a is 'col'")
    t = table(session, "t")
    assert session.catalog().comments == {(t.oid, 0): "the table", (t.oid, 1): "col"}
    run(session, "comment on table t is null")
    assert session.catalog().comments == {(t.oid, 1): "col"}


def test_foreign_key_drop_dependency(session):
    run(session, "create table p (id int primary key)")
    run(session, "create table c (pid int references p)")
    fails(session, "drop table p", "2BP01")
    run(session, "drop table p cascade")
    assert [c.kind for c in session.catalog().constraints] == []


def test_create_table_as(session):
    run(session, "create table t (a int, b text)")
    run(session, "insert into t values (1, 'x'), (2, 'y')")
    assert run(session, "create table t2 as select a * 10 as c, b from t") == [("SELECT 2", None)]
    assert rows(session, "select c, b from t2 order by c") == [(10, "x"), (20, "y")]
    assert [c.name for c in table(session, "t2").columns] == ["c", "b"]


def test_alter_column_type(session):
    run(session, "create table t (id int primary key, v int, s text)")
    run(session, "create index tv on t (v)")
    run(session, "insert into t values (1, 10, '5'), (2, 20, '6')")
    run(session, "alter table t alter column v type text")
    assert table(session, "t").columns[1].type_oid == T.TEXT
    assert rows(session, "select v from t where v = '20'") == [("20",)]
    fails(session, "alter table t alter column s type int", "42804")
    run(session, "alter table t alter column s type int using s::int")
    assert rows(session, "select s + 1 from t order by id") == [(6,), (7,)]
    run(session, "alter table t alter column id type bigint")
    assert table(session, "t").columns[0].type_oid == T.INT8


def test_temp_tables(engine):
    a = engine.open_session("cumulo", "cumulo", {})
    b = engine.open_session("cumulo", "cumulo", {})
    run(a, "create table t (x int)")
    run(a, "create temp table t (y int)")  # shadows public.t for this session only
    run(a, "insert into t values (1)")
    assert rows(a, "select y from t") == [(1,)]
    assert rows(b, "select count(*) from t") == [(0,)]
    run(a, "create table u (z int)")  # a plain CREATE still goes to public
    assert rows(b, "select count(*) from u") == [(0,)]
    a.close()
    assert not any(s.name.startswith("pg_temp") for s in b.catalog().schemas)
    b.close()


def test_truncate_with_foreign_keys_and_identity(session):
    run(session, "create table p (id serial primary key)")
    run(session, "create table c (pid int references p)")
    run(session, "insert into p default values; insert into c values (1)")
    err = fails(session, "truncate p", "0A000")
    assert err.message == "cannot truncate a table referenced in a foreign key constraint"
    run(session, "truncate p, c")
    run(session, "insert into p default values; insert into c values (2)")
    run(session, "truncate p restart identity cascade")
    assert session.take_notices()[0].message == 'truncate cascades to table "c"'
    assert rows(session, "select count(*) from c") == [(0,)]
    run(session, "insert into p default values")
    assert rows(session, "select id from p") == [(1,)]


def test_partitions_route_rows_and_inheritance_is_refused(session):
    """A partition is a table of the parent's columns taking the rows of its bound; the
    parent holds none itself. INHERITS stays 0A000 (a child apart from its parent's rows
    would be a silent wrong answer)."""
    run(session, "create table pp (a int, b text) partition by range (a)")
    run(session, "create table pp1 partition of pp for values from (1) to (10)")
    fails(session, "create table ch (x int) inherits (pp)", "0A000")
    run(session, "insert into pp values (5, 'x')")
    assert rows(session, "select * from pp") == [(5, "x")]
    assert rows(session, "select * from pp1") == [(5, "x")]
    err = fails(session, "insert into pp values (10, 'y')", "23514")
    assert err.message == 'no partition of relation "pp" found for row'
    assert rows(session, "select relkind from pg_class where relname = 'pp'") == [("p",)]
