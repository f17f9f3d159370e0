"""DML: INSERT (VALUES, DEFAULT, SELECT, ON CONFLICT, RETURNING), UPDATE, DELETE, constraints."""

from __future__ import annotations

from decimal import Decimal

from .helpers import fails, rows, run


def test_insert_values_defaults_and_tags(session):
    run(session, "create table t (id serial primary key, a text default 'd', b int)")
    assert run(session, "insert into t (a, b) values ('x', 1), (default, 2)") == [
        ("INSERT 0 2", None)]
    assert run(session, "insert into t default values") == [("INSERT 0 1", None)]
    assert run(session, "insert into t (b) select b + 10 from t where b is not null") == [
        ("INSERT 0 2", None)]
    assert rows(session, "select id, a, b from t order by id") == [
        (1, "x", 1), (2, "d", 2), (3, "d", None), (4, "d", 11), (5, "d", 12)]
    fails(session, "insert into t (a, b) values ('x')", "42601")
    fails(session, "insert into t (nope) values (1)", "42703")
    fails(session, "insert into nope values (1)", "42P01")


def test_insert_assignment_casts(session):
    run(session, "create table t (a numeric(6,2), b double precision, c date, d bigint, "
         "e boolean, f char(3))")
    run(session, "insert into t values (1.005, 2, '2024-02-29', 5, 't', 'ab')")
    assert rows(session, "select * from t") == [
        (Decimal("1.01"), 2.0, __import__("datetime").date(2024, 2, 29), 5, True, "ab ")]
    fails(session, "insert into t (a) values (12345.6)", "22003")
    fails(session, "insert into t (c) values ('nope')", "22007")
    fails(session, "insert into t (f) values ('abcd')", "22001")


def test_constraint_messages(session):
    run(session, "create table t (id int primary key, v varchar(3) not null, "
         "n int check (n > 0))")
    run(session, "insert into t values (1, 'a', 1)")
    err = fails(session, "insert into t values (1, 'b', 1)", "23505")
    assert err.message == 'duplicate key value violates unique constraint "t_pkey"'
    assert err.detail == "Key (id)=(1) already exists."
    err = fails(session, "insert into t values (2, null, 1)", "23502")
    assert err.message == ('null value in column "v" of relation "t" violates not-null '
                           'constraint')
    err = fails(session, "insert into t values (2, 'abcd', 1)", "22001")
    assert err.message == "value too long for type character varying(3)"
    err = fails(session, "insert into t values (2, 'a', 0)", "23514")
    assert err.message == 'new row for relation "t" violates check constraint "t_n_check"'
    fails(session, "insert into t values (2, 'a', 1), (2, 'b', 1)", "23505")
    assert rows(session, "select count(*) from t") == [(1,)]


def test_returning(session):
    run(session, "create table t (id serial primary key, a int)")
    assert run(session, "insert into t (a) values (5), (6) returning id, a * 2 as dbl") == [
        ("INSERT 0 2", [(1, 10), (2, 12)])]
    assert run(session, "update t set a = a + 1 where id = 2 returning *") == [
        ("UPDATE 1", [(2, 7)])]
    assert run(session, "delete from t where id = 1 returning a") == [("DELETE 1", [(5,)])]


def test_on_conflict(session):
    run(session, "create table t (k int primary key, v int, u int unique)")
    run(session, "insert into t values (1, 1, 10)")
    assert run(session, "insert into t values (1, 2, 20) on conflict do nothing") == [
        ("INSERT 0 0", None)]
    assert run(session, "insert into t values (1, 3, 30), (2, 4, 40) on conflict (k) do "
               "update set v = excluded.v + t.v") == [("INSERT 0 2", None)]
    assert rows(session, "select * from t order by k") == [(1, 4, 10), (2, 4, 40)]
    run(session, "insert into t values (3, 9, 10) on conflict (u) do update set v = 100 "
        "where t.v > 50")
    assert rows(session, "select v from t where k = 1") == [(4,)]
    run(session, "insert into t as x values (3, 9, 10) on conflict (u) do update set v = 100 "
        "where x.v < 50")
    assert rows(session, "select v from t where k = 1") == [(100,)]
    fails(session, "insert into t values (5, 1, 1) on conflict (v) do nothing", "42P10")
    out = run(session, "insert into t values (2, 0, 0) on conflict (k) do update set v = 7 "
              "returning k, v")
    assert out == [("INSERT 0 1", [(2, 7)])]


def test_update_delete(session):
    run(session, "create table t (id int primary key, a int, b text)")
    run(session, "insert into t select g, g * 10, 'x' from generate_series(1, 10) g")
    assert run(session, "update t set a = a + 1, b = 'y' where id <= 3") == [("UPDATE 3", None)]
    assert rows(session, "select a, b from t where id = 2") == [(21, "y")]
    assert run(session, "update t set (a, b) = (0, 'z') where id = 10") == [("UPDATE 1", None)]
    assert run(session, "update t set id = id + 100 where id = 1") == [("UPDATE 1", None)]
    assert rows(session, "select id from t where a = 11") == [(101,)]
    fails(session, "update t set id = 2 where id = 3", "23505")
    assert run(session, "delete from t where a > 50") == [("DELETE 4", None)]
    assert run(session, "delete from t") == [("DELETE 6", None)]
    fails(session, "update t set nope = 1", "42703")


def test_update_from_delete_using(session):
    run(session, "create table t (id int primary key, v int)")
    run(session, "create table u (id int, w int)")
    run(session, "insert into t values (1, 0), (2, 0), (3, 0)")
    run(session, "insert into u values (1, 5), (2, 6)")
    assert run(session, "update t set v = u.w from u where t.id = u.id") == [("UPDATE 2", None)]
    assert rows(session, "select v from t order by id") == [(5,), (6,), (0,)]
    assert run(session, "delete from t using u where t.id = u.id and u.w = 6") == [
        ("DELETE 1", None)]
    assert rows(session, "select id from t order by id") == [(1,), (3,)]


def test_secondary_index_maintained(session):
    run(session, "create table t (id int primary key, k int)")
    run(session, "create unique index tk on t (k)")
    run(session, "insert into t values (1, 1), (2, 2)")
    run(session, "update t set k = 3 where id = 1")
    run(session, "insert into t values (3, 1)")  # k=1 is free again
    fails(session, "update t set k = 2 where id = 3", "23505")
    run(session, "delete from t where id = 2")
    run(session, "insert into t values (4, 2)")
    assert rows(session, "select id from t where k = 2") == [(4,)]


def test_tables_without_primary_key(session):
    run(session, "create table t (a int, b text)")
    run(session, "insert into t values (1, 'x'), (1, 'x')")
    assert rows(session, "select count(*) from t") == [(2,)]
    assert run(session, "update t set b = 'y'") == [("UPDATE 2", None)]
    assert run(session, "delete from t where b = 'y'") == [("DELETE 2", None)]


def test_foreign_keys(session):
    run(session, "create table p (id int primary key, name text)")
    run(session, "create table c (id int primary key, pid int references p on delete cascade)")
    run(session, "create table r (id int primary key, pid int references p (id))")
    run(session, "insert into p values (1, 'a'), (2, 'b'), (3, 'c')")
    run(session, "insert into c values (10, 1), (11, 1), (12, 2)")
    err = fails(session, "insert into c values (13, 9)", "23503")
    assert err.message == ('insert or update on table "c" violates foreign key constraint '
                           '"c_pid_fkey"')
    assert err.detail == 'Key (pid)=(9) is not present in table "p".'
    run(session, "insert into c values (13, null)")  # NULL references nothing
    run(session, "insert into r values (20, 3)")
    err = fails(session, "delete from p where id = 3", "23503")
    assert err.message == ('update or delete on table "p" violates foreign key constraint '
                           '"r_pid_fkey" on table "r"')
    fails(session, "update p set id = 33 where id = 3", "23503")
    assert run(session, "delete from p where id = 1") == [("DELETE 1", None)]
    assert rows(session, "select id from c order by id") == [(12,), (13,)]
    fails(session, "update c set pid = 7 where id = 12", "23503")


def test_parameters(session):
    run(session, "create table t (id int primary key, v text, n numeric)")
    p = session.prepare("insert into t values ($1, $2, $3)", [0, 0, 0])
    assert p.param_oids == [23, 25, 1700]
    session.execute(p, [1, "a", Decimal("1.5")])
    u = session.prepare("update t set v = $1 where id = $2", [0, 0])
    assert u.param_oids == [25, 23]
    assert session.execute(u, ["b", 1]).tag == "UPDATE 1"
    d = session.prepare("delete from t where id = $1 returning v", [20])
    assert d.param_oids == [20] and [c.name for c in d.columns] == ["v"]
    res = session.execute(d, [1])
    assert res.fetch() == [("b",)] and res.tag == "DELETE 1"
    session.sync()


def test_insert_select_statement_atomicity(session):
    run(session, "create table t (id int primary key)")
    run(session, "begin; insert into t values (1)")
    fails(session, "insert into t values (2), (1)", "23505")
    run(session, "rollback")
    assert rows(session, "select count(*) from t") == [(0,)]


def test_identity_always_rejects_explicit_values(session):
    run(session, "create table t (id int generated always as identity, v text)")
    err = fails(session, "insert into t (id, v) values (5, 'x')", "428C9")
    assert err.message == 'cannot insert a non-DEFAULT value into column "id"'
    run(session, "insert into t (id, v) values (default, 'y')")
    assert rows(session, "select id, v from t") == [(1, "y")]


def test_insert_select_from_itself(session):
    run(session, "create table t (a int)")
    run(session, "insert into t select g from generate_series(1, 3000) g")
    assert run(session, "insert into t select a + 3000 from t") == [("INSERT 0 3000", None)]
    assert rows(session, "select count(*), max(a) from t") == [(6000, 6000)]


def test_on_conflict_on_constraint(session):
    run(session, "create table t (k int primary key, v int)")
    run(session, "insert into t values (1, 1)")
    run(session, "insert into t values (1, 5) on conflict on constraint t_pkey do update "
        "set v = excluded.v")
    assert rows(session, "select v from t") == [(5,)]
    fails(session, "insert into t values (1, 5) on conflict on constraint nope do nothing",
          "42704")
