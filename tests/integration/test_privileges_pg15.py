"""Privileges differentially against PostgreSQL 15: the same script on both, outcome by outcome.

Each script runs as the bootstrap superuser in a database of its own and acts
as ordinary roles through SET ROLE, so both servers see the same sessions
whatever their client authentication. Roles are cluster-wide, so each script
names its own (`pv_<script>_...`). Every statement must give the same command
tag and rows, or the same SQLSTATE and primary message (42501 `permission
denied for table t`, `must be owner of table t`, ...). The scripts run through
psycopg and again through pg8000 (a second, pure-Python wire implementation).
"""

from __future__ import annotations

import pg8000.dbapi
import psycopg
import pytest

from tests.integration.stmtdiff import assert_same, fresh_database, outcomes, statements

SCRIPTS: dict[str, str] = {}

SCRIPTS["table_grants"] = """
create role pv_a_alice login;
create role pv_a_bob login;
create table t (id int primary key, v text, n int);
insert into t values (1, 'a', 10), (2, 'b', 20);
set role pv_a_alice;
select current_user, session_user;
select * from t;
insert into t values (3, 'c', 30);
update t set v = 'x';
delete from t;
truncate t;
reset role;
grant select on t to pv_a_alice;
set role pv_a_alice;
select * from t order by id;
insert into t values (3, 'c', 30);
select * from t for update;
reset role;
grant insert, update on table t to pv_a_alice;
set role pv_a_alice;
insert into t values (3, 'c', 30);
insert into t values (4, 'd', 40) returning id;
update t set v = 'y' where id = 3;
update t set n = n + 1;
delete from t where id = 3;
truncate t;
reset role;
revoke select on t from pv_a_alice;
set role pv_a_alice;
insert into t values (5, 'e', 50);
insert into t values (6, 'e', 50) returning id;
update t set v = 'z';
update t set v = 'z' where id = 5;
select count(*) from t;
reset role;
select relacl from pg_class where relname = 't';
select has_table_privilege('pv_a_alice', 't', 'select'), has_table_privilege('pv_a_alice', 't', 'insert');
select has_table_privilege('pv_a_bob', 't', 'select, insert');
select grantee, privilege_type from information_schema.table_privileges where table_name = 't' order by grantee, privilege_type;
select grantor, grantee, privilege_type, is_grantable from information_schema.role_table_grants where table_name = 't' order by 2, 3;
set role pv_a_alice;
select grantee, privilege_type, is_grantable from information_schema.table_privileges where table_name = 't' order by 1, 2;
select grantee, privilege_type from information_schema.role_table_grants where table_name = 't' order by 1, 2;
reset role;
revoke all on t from pv_a_alice;
select relacl from pg_class where relname = 't';
"""

SCRIPTS["public_and_membership"] = """
create role pv_b_reader nologin;
create role pv_b_app login;
create role pv_b_noinh login noinherit;
create table t (id int);
insert into t values (1);
grant select on t to pv_b_reader;
set role pv_b_app;
select * from t;
reset role;
grant pv_b_reader to pv_b_app;
grant pv_b_reader to pv_b_app;
grant pv_b_reader to pv_b_noinh;
set role pv_b_app;
select * from t;
select pg_has_role('pv_b_reader', 'member'), pg_has_role('pv_b_reader', 'usage');
reset role;
set role pv_b_noinh;
select * from t;
select pg_has_role('pv_b_reader', 'member'), pg_has_role('pv_b_reader', 'usage');
set role pv_b_reader;
select * from t;
reset role;
grant pv_b_app to pv_b_reader;
revoke pv_b_reader from pv_b_app;
revoke pv_b_reader from pv_b_app;
set role pv_b_app;
select * from t;
set role pv_b_noinh;
reset role;
grant select on t to public;
set role pv_b_app;
select * from t;
reset role;
revoke select on t from public;
set role pv_b_app;
select * from t;
reset role;
grant usage on t to pv_b_app;
grant select on nosuch to pv_b_app;
grant select on t to nosuchrole;
"""

SCRIPTS["ownership_and_schemas"] = """
create role pv_c_owner login;
create role pv_c_other login;
create schema s;
set role pv_c_owner;
create table t (id int);
create table s.t (id int);
reset role;
grant create, usage on schema public to pv_c_owner;
set role pv_c_owner;
create table t (id int primary key, v int);
insert into t values (1, 1);
select * from t;
grant select on t to pv_c_other;
set role pv_c_other;
select * from t;
drop table t;
alter table t add column w int;
create index ti on t (v);
truncate t;
set role pv_c_owner;
alter table t add column w int;
create index ti on t (v);
select pg_get_userbyid(relowner) from pg_class where relname = 't';
reset role;
select has_schema_privilege('pv_c_other', 'public', 'create'), has_schema_privilege('pv_c_owner', 'public', 'create');
select has_schema_privilege('pv_c_other', 's', 'usage');
grant usage on schema s to pv_c_other;
select has_schema_privilege('pv_c_other', 's', 'usage');
revoke create on schema public from pv_c_owner;
set role pv_c_owner;
create table t2 (id int);
drop table t;
reset role;
"""

SCRIPTS["sequences_and_columns"] = """
create role pv_d_u login;
create sequence sq;
create table t (id int, secret text, pub text);
insert into t values (1, 's', 'p');
set role pv_d_u;
select nextval('sq');
reset role;
grant usage on sequence sq to pv_d_u;
select has_sequence_privilege('pv_d_u', 'sq', 'usage'), has_sequence_privilege('pv_d_u', 'sq', 'select');
grant select (id, pub) on t to pv_d_u;
set role pv_d_u;
select id, pub from t;
select * from t;
reset role;
select has_column_privilege('pv_d_u', 't', 'pub', 'select'), has_column_privilege('pv_d_u', 't', 'secret', 'select');
select has_table_privilege('pv_d_u', 't', 'select'), has_any_column_privilege('pv_d_u', 't', 'select');
grant select on sq to pv_d_u;
grant execute on sequence sq to pv_d_u;
"""

SCRIPTS["role_attributes"] = """
create role pv_e_plain login;
create role pv_e_cr login createrole;
set role pv_e_plain;
create role pv_e_x;
create database pv_e_db;
reset role;
set role pv_e_cr;
create role pv_e_y;
create role pv_e_z superuser;
alter role pv_e_y createdb;
drop role pv_e_y;
set role pv_e_plain;
set role pv_e_cr;
reset role;
set role pv_e_plain;
alter role pv_e_cr nologin;
drop role pv_e_cr;
set session authorization pv_e_cr;
reset role;
"""


SCRIPTS["functions_execute"] = """
create role pv_j_u login;
create function pf(x int) returns int language sql as 'select x + 1';
set role pv_j_u;
select pf(1);
reset role;
revoke execute on function pf(int) from public;
set role pv_j_u;
select pf(1);
reset role;
select has_function_privilege('pv_j_u', 'pf(int)', 'execute');
grant execute on function pf(int) to pv_j_u;
set role pv_j_u;
select pf(2);
reset role;
select proacl is null from pg_proc where proname = 'pf';
"""


SCRIPTS["owner_to"] = """
create role pv_k_a login;
create role pv_k_b login;
create schema ks;
create table ks.t (id int);
create sequence ks.q;
grant select on ks.t to pv_k_b;
alter table ks.t owner to pv_k_a;
select pg_get_userbyid(relowner), relacl from pg_class where relname = 't';
alter sequence ks.q owner to pv_k_a;
alter schema ks owner to pv_k_a;
select pg_get_userbyid(nspowner) from pg_namespace where nspname = 'ks';
set role pv_k_a;
select * from ks.t;
alter table ks.t owner to pv_k_b;
reset role;
grant pv_k_b to pv_k_a;
set role pv_k_a;
alter table ks.t owner to pv_k_b;
select pg_get_userbyid(relowner) from pg_class where relname = 't';
set role pv_k_b;
alter table ks.t owner to pv_k_a;
reset role;
alter table ks.nosuch owner to pv_k_a;
alter table ks.t owner to nosuchrole;
"""


SCRIPTS["drop_role_with_dependents"] = """
create role pv_l_a login;
create role pv_l_b login;
create table t (id int);
grant select on t to pv_l_a;
drop role pv_l_a;
revoke select on t from pv_l_a;
drop role pv_l_a;
alter table t owner to pv_l_b;
drop role pv_l_b;
alter table t owner to cumulo;
drop role pv_l_b;
"""


# One Query creating a role and setting it: SET ROLE sees the role its own transaction made
SCRIPTS["set_role_made_in_the_same_query"] = """
create role pv_s_a; set role pv_s_a;
select current_user, session_user = current_user;
reset role;
begin;
create role pv_s_b;
set local role pv_s_b;
select current_user;
rollback;
set role pv_s_b;
drop role pv_s_a;
"""

@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return pg15, cumulo_server


@pytest.mark.parametrize("name", list(SCRIPTS))
def test_same_outcomes_as_pg15(servers, name):
    pg, cu = servers
    db = f"priv_{name}"
    fresh_database((pg.dsn(), cu.dsn()), db)
    expected = outcomes(pg.dsn(db=db), statements(SCRIPTS[name]), names=True)
    got = outcomes(cu.dsn(dbname=db), statements(SCRIPTS[name]), names=True)
    assert_same(expected, got)


def _pg8000_outcomes(port: int, password: str | None, db: str, script: str) -> list[tuple]:
    conn = pg8000.dbapi.connect(user="cumulo", password=password, host="127.0.0.1", port=port,
                                database=db)
    conn.autocommit = True
    out: list[tuple] = []
    try:
        for sql in statements(script):
            cur = conn.cursor()
            try:
                cur.execute(sql.rstrip(";"))
                out.append((sql, cur.fetchall() if cur.description else None))
            except pg8000.dbapi.DatabaseError as e:
                info = e.args[0]
                out.append((sql, info["C"], info["M"]))
    finally:
        conn.close()
    return out


PG8000_SCRIPT = """
create role pv_f_u login;
create table t (id int);
insert into t values (1);
set role pv_f_u;
select * from t;
insert into t values (2);
reset role;
grant select on t to pv_f_u;
set role pv_f_u;
select * from t;
insert into t values (2);
reset role;
select relacl from pg_class where relname = 't';
"""


def test_pg8000_same_as_pg15(servers):
    pg, cu = servers
    db = "priv_pg8000"
    fresh_database((pg.dsn(), cu.dsn()), db)
    from tests.pg15 import PASSWORD

    expected = _pg8000_outcomes(pg.port, PASSWORD, db, PG8000_SCRIPT)
    got = _pg8000_outcomes(cu.port, None, db, PG8000_SCRIPT)
    assert ("select * from t", "42501", "permission denied for table t") in got
    assert got == expected


def _copy_outcomes(dsn: str, role: str) -> list:
    """COPY in and out as a role with SELECT but not INSERT, then with INSERT too."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"create role {role} login")
        conn.execute("create table ct (id int, v text)")
        conn.execute("insert into ct values (1, 'a')")
        conn.execute(f"grant select on ct to {role}")
        conn.execute(f"set role {role}")
        for step in ("out", "in", "grant", "in", "out"):
            if step == "grant":
                conn.execute("reset role")
                conn.execute(f"grant insert on ct to {role}")
                conn.execute(f"set role {role}")
                continue
            try:
                with conn.cursor() as cur:
                    if step == "out":
                        with cur.copy("copy ct to stdout") as cp:
                            out.append(("out", b"".join(bytes(b) for b in cp)))
                    else:
                        with cur.copy("copy ct from stdin") as cp:
                            cp.write(b"2\tb\n")
                        out.append(("in", cur.rowcount))
            except psycopg.Error as e:
                out.append((step, e.sqlstate, e.diag.message_primary))
        conn.execute("reset role")
        conn.execute(f"revoke select on ct from {role}")
        conn.execute(f"set role {role}")
        try:
            with conn.cursor() as cur, cur.copy("copy (select * from ct) to stdout") as cp:
                out.append(("query", b"".join(bytes(b) for b in cp)))
        except psycopg.Error as e:
            out.append(("query", e.sqlstate, e.diag.message_primary))
        with conn.transaction():
            try:
                conn.execute("declare c cursor for select * from ct")
            except psycopg.Error as e:
                out.append(("declare", e.sqlstate, e.diag.message_primary))
    return out


def test_copy_and_cursors_same_as_pg15(servers):
    pg, cu = servers
    db = "priv_copy"
    fresh_database((pg.dsn(), cu.dsn()), db)
    expected = _copy_outcomes(pg.dsn(db=db), "pv_g_u")
    got = _copy_outcomes(cu.dsn(dbname=db), "pv_g_u")
    assert ("in", "42501", "permission denied for table ct") in got
    assert got == expected


def test_direct_api_checks_the_same_privileges(cumulo_server):
    """The direct ingest/scan functions (and so the Spark source) refuse what SQL refuses."""
    db = "priv_direct"
    fresh_database([cumulo_server.dsn()], db)
    with psycopg.connect(cumulo_server.dsn(dbname=db), autocommit=True) as conn:
        conn.execute("create role pv_h_u login")
        conn.execute("create table dt (id int primary key, v text)")
        conn.execute("insert into dt values (1, 'a')")
        conn.execute("set role pv_h_u")
        for sql in ("select count(*) from cumulo_scan('dt', null)",
                    "select cumulo_get('dt', ''::bytea)",
                    "select cumulo_write('dt', 'insert', ''::bytea)"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege,
                               match="permission denied for table dt"):
                conn.execute(sql)
        conn.execute("reset role")
        conn.execute("grant select on dt to pv_h_u")
        conn.execute("set role pv_h_u")
        assert conn.execute("select count(*) from cumulo_scan('dt', null)").fetchone()[0] >= 1
        with pytest.raises(psycopg.errors.InsufficientPrivilege,
                           match="permission denied for table dt"):
            conn.execute("select cumulo_write('dt', 'delete', ''::bytea)")


DP_SCRIPT = """
create role pv_i_r login;
create table dpt (id int, v text);
create table dpu (id int);
grant select, insert on dpt to pv_i_r;
grant select on dpt to public;
grant update (v) on dpt to pv_i_r;
"""


def test_psql_dp_same_as_pg15(servers):
    """psql's \\dp (Access privileges) prints the same table on both servers."""
    from tests.clients.test_psql import psql
    from tests.pg15 import PASSWORD

    pg, cu = servers
    db = "priv_dp"
    fresh_database((pg.dsn(), cu.dsn()), db)
    for dsn in (pg.dsn(db=db), cu.dsn(dbname=db)):
        with psycopg.connect(dsn, autocommit=True) as conn:
            for sql in statements(DP_SCRIPT):
                conn.execute(sql)
    mine = psql(cu.port, "-c", "\\dp", db=db)
    theirs = psql(pg.port, "-c", "\\dp", db=db, password=PASSWORD)
    assert "pv_i_r=ar/cumulo" in theirs.stdout
    assert mine.stdout == theirs.stdout, mine.stderr
