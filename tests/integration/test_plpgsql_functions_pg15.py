"""CREATE FUNCTION ... LANGUAGE sql | plpgsql and DROP FUNCTION (issue 16 item 18), and
PL/pgSQL SELECT / EXECUTE / RETURNING ... INTO [STRICT], vs PG 15.

Each statement runs on PostgreSQL 15 and on Cumulo through psycopg: status, rows,
SQLSTATE, message and notices must be the same. Functions are catalog rows, so
they also survive a restart (`test_functions_survive_a_restart`).
"""

from __future__ import annotations

import psycopg
import pytest

from tests.integration.stmtdiff import assert_same, fresh_databases, outcomes

STATEMENTS = [
    'drop table if exists ft',
    'create table ft (id int primary key, v int)',
    'insert into ft values (1, 10), (2, 20)',
    'create function add_one(a int) returns int language sql as $$ select a + 1 $$',
    'select add_one(2), add_one(null)',
    "create function add2(int, int) returns int as 'select $1 + $2' language sql immutable",
    'select add2(3, 4)',
    'create or replace function twice(x int) returns int as $$\nbegin\n  return x * 2;\nend;\n$$ language plpgsql',
    'select twice(21), twice(v) from ft order by id',
    'create function total() returns bigint language plpgsql as $$\ndeclare t bigint;\nbegin\n  select sum(v) into t from ft;\n  return t;\nend $$',
    'select total()',
    "create function bump(k int) returns void language plpgsql as $$\nbegin\n  update ft set v = v + 1 where id = k;\n  if not found then\n    raise exception 'no row %', k;\n  end if;\nend $$",
    'select bump(1)',
    'select bump(9)',
    'select * from ft order by id',
    'create function twice(x int) returns int as $$ begin return x; end $$ language plpgsql',
    'create function pos(int) returns int language plpgsql as $$ begin return $1 + 100; end $$',
    'select pos(1)',
    'create function bad() returns int language plpgsql as $$ begin return 1 end $$',
    'create function nores() returns int language plpgsql as $$ begin perform 1; end $$',
    'select nores()',
    "do $$ begin raise notice 'twice %', twice(5); end $$",
    'drop function add_one',
    'drop function add2(int, int)',
    'drop function nosuch',
    'drop function twice(int)',
    'drop function total, bump, pos, nores',
    'drop table ft\n',
]


def run(dsn: str, statements: list[str] = STATEMENTS) -> list[tuple]:
    """Status, rows and NOTICEs per statement."""
    return outcomes(dsn, statements, notices=True)


@pytest.fixture(scope="module")
def servers(cumulo_server, pg15):
    return fresh_databases(pg15, cumulo_server, "plpgsql_fn")


def test_functions_same_as_pg15(servers):
    expected = run(servers[0])
    assert sum(1 for r in expected if r[1] == "CREATE FUNCTION") >= 6
    got = run(servers[1])
    assert_same(expected, got)

# INTO STRICT: P0002 / P0003 with PG's HINT and CONTEXT; RETURNING INTO of many rows is
# P0003 without STRICT; ROW_COUNT after SELECT INTO counts the one row; EXECUTE keeps FOUND
STRICT = [
    "drop table if exists st",
    "create table st (id int primary key, v int)",
    "insert into st values (1, 10), (2, 20), (3, 20)",
    "create function sget(k int) returns int language plpgsql as $$\ndeclare r int;\nbegin\n"
    "  r := -1;\n  select v into strict r from st where v = k;\n  return r;\nend $$",
    "select sget(10)",
    "select sget(99)",
    "select sget(20)",
    "create function sexe(k int) returns int language plpgsql as $$\ndeclare r int;\nbegin\n"
    "  execute 'select v from st where v = $1' into strict r using k;\n  return r;\nend $$",
    "select sexe(10)",
    "select sexe(99)",
    "select sexe(20)",
    "create function sdiag(k int) returns text language plpgsql as $$\n"
    "declare r int; n bigint; f boolean;\nbegin\n"
    "  select v into r from st where v >= k order by id;\n  get diagnostics n = row_count;\n"
    "  f := found;\n  execute 'select v from st where v >= $1 order by id' into r using k;\n"
    "  return r || ' ' || n || ' ' || f || ' ' || found;\nend $$",
    "select sdiag(10), sdiag(99)",
    "create function supd(k int, s boolean) returns int language plpgsql as $$\n"
    "declare r int;\nbegin\n  if s then\n"
    "    update st set v = v + 1 where v = k returning id into strict r;\n  else\n"
    "    update st set v = v + 1 where v = k returning id into r;\n  end if;\n"
    "  return r;\nend $$",
    "select supd(10, false), supd(99, false)",
    "select supd(20, false)",
    "select supd(99, true)",
    "select supd(11, true)",
    "do $$ declare r int; begin insert into st values (7, 1), (8, 1) returning id into r; "
    "end $$",
    "do $$ declare r record; begin delete from st where v = 99 returning * into strict r; "
    "end $$",
    "create function scatch(k int) returns text language plpgsql as $$\ndeclare r int;\n"
    "begin\n  select v into strict r from st where v = k;\n  return r;\nexception\n"
    "  when no_data_found then return 'none';\n  when too_many_rows then return 'many';\n"
    "end $$",
    "select scatch(99), scatch(20), scatch(12)",
    "select * from st order by id",
    "drop function sget, sexe, sdiag, supd, scatch",
    "drop table st",
]


def run_diag(dsn: str, statements: list[str]) -> list[tuple]:
    """As `run`, with each error's DETAIL, HINT and CONTEXT too."""
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        for sql in statements:
            try:
                cur = c.execute(sql)
                out.append((sql, cur.statusmessage, cur.fetchall() if cur.description else None))
            except psycopg.Error as e:
                d = e.diag
                out.append((sql, e.sqlstate, d.message_primary, d.message_detail,
                            d.message_hint, d.context))
    return out


def test_into_strict_same_as_pg15(servers):
    expected = run_diag(servers[0], STRICT)
    assert sum(1 for r in expected if r[1] in ("P0002", "P0003")) >= 6
    got = run_diag(servers[1], STRICT)
    assert_same(expected, got)


CATALOG = [
    "create function pf1(a int, b text) returns int language sql immutable strict as "
    "$$ select a $$",
    "select proname, pronargs, proargtypes::text, prorettype::regtype::text, provolatile, "
    "proisstrict, proargnames, prosrc, l.lanname from pg_proc p "
    "join pg_language l on l.oid = p.prolang where proname = 'pf1'",
    "drop function pf1",
    "select count(*) from pg_proc where proname = 'pf1'",
]


def test_pg_proc_lists_them_as_pg15(servers):
    expected = run(servers[0], CATALOG)
    assert expected[1][2] and expected[1][2][0][0] == "pf1"
    assert run(servers[1], CATALOG) == expected


def test_functions_survive_a_restart(fresh_server):
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        c.execute("create function plus(a int, b int) returns int language plpgsql as "
                  "$$ begin return a + b; end $$")
    fresh_server.restart()
    with psycopg.connect(fresh_server.dsn(), autocommit=True) as c:
        assert c.execute("select plus(2, 3)").fetchone() == (5,)
        c.execute("drop function plus(int, int)")
        with pytest.raises(psycopg.errors.UndefinedFunction):
            c.execute("select plus(2, 3)")


def run_full(dsn: str, statements: list[str]) -> list[tuple]:
    """As `run_diag`, with each NOTICE's message, DETAIL and CONTEXT too."""
    out: list[tuple] = []
    with psycopg.connect(dsn, autocommit=True) as c:
        notes: list[tuple] = []
        c.add_notice_handler(lambda d: notes.append((d.message_primary, d.context)))
        for sql in statements:
            notes.clear()
            try:
                cur = c.execute(sql)
                out.append((sql, cur.statusmessage, cur.fetchall() if cur.description else None,
                            list(notes)))
            except psycopg.Error as e:
                d = e.diag
                out.append((sql, e.sqlstate, d.message_primary, d.message_detail,
                            d.message_hint, d.context, list(notes)))
    return out


def _same_full(servers, statements: list[str]) -> list[tuple]:
    expected = run_full(servers[0], statements)
    got = run_full(servers[1], statements)
    assert_same(expected, got)
    return expected


# Errors inside SQL functions name them (`SQL function "f" statement 2`), after the inner
# routines' lines; an inlined call has none, or `during inlining` when the planner folds
# it; an IMMUTABLE call over constants runs as statements. NOTICEs carry every caller.
CONTEXTS = [
    "create table hc_t (a int primary key, b text)",
    "insert into hc_t values (0, 'x')",
    "create function hc_in(x int) returns int language sql as 'select 1/x'",
    "select hc_in(0)",
    "select hc_in(a) from hc_t",
    "select * from hc_in(0)",
    "create function hc_two(x int) returns int language sql as 'select 1; select 1/x'",
    "select hc_two(0)",
    "create function hc_imm(x int) returns int language sql immutable as 'select 1/x'",
    "select hc_imm(0)",
    "create function hc_strict(x int, y int) returns int language sql strict as 'select 1/x'",
    "select hc_strict(0, 1)",
    "create function hc_from(x int) returns int language sql as 'select 1/x from hc_t'",
    "select hc_from(0)",
    "create function hc_ins(x int) returns int language sql as "
    "$$ insert into hc_t values (x, 'a'); select x $$",
    "select hc_ins(1)",
    "select hc_ins(1)",
    "create function hc_pl(x int) returns int language plpgsql as $$ begin return hc_ins(x); end $$",
    "select hc_pl(1)",
    "create function hc_sql_pl(x int) returns int language sql as 'select hc_pl(x)'",
    "select hc_sql_pl(1)",
    "create function hc_atomic(x int) returns int language sql begin atomic select 1/x; end",
    "select hc_atomic(0)",
    "create function hc_ret(x int) returns int language sql return 1/x",
    "select hc_ret(0)",
    "create function hc_set(x int) returns setof int language sql as 'select 1/x'",
    "select * from hc_set(0)",
    "create procedure hc_proc(x int) language sql as $$ insert into hc_t values (x, 'a') $$",
    "call hc_proc(0)",
    "create function hc_note() returns int language plpgsql as "
    "$$ begin raise notice 'hi'; return 1; end $$",
    "create function hc_note_sql() returns int language sql as "
    "'select hc_note() from hc_t where a = 0'",
    "select hc_note_sql()",
    "create function hc_note_pl() returns int language plpgsql as "
    "$$ begin perform hc_note(); return 1; end $$",
    "select hc_note_pl()",
    "create function hc_bad() returns int language sql as 'select nosuch from hc_t'",
    "create function hc_text() returns int language sql as 'select b from hc_t'",
    "create function hc_cols() returns int language sql as $$ select 1, 2 $$",
    "create function hc_noret() returns int language sql as $$ insert into hc_t values (9) $$",
    "create function hc_void() returns void language sql as $$ insert into hc_t values (9) $$",
    "select hc_void()",
    "create function hc_big() returns int language sql as $$ select 5::bigint $$",
    "select hc_big()",
    "create function hc_later() returns int language sql as "
    "$$ create table hc_z (a int); select a from hc_z $$",
    "set check_function_bodies = off",
    "create function hc_off() returns int language sql as $$ select nosuch $$",
    "reset check_function_bodies",
    # a PL/pgSQL expression whose constant part fails while planned names itself
    "create function hc_e1() returns int language plpgsql as $$ begin return 1/0; end $$",
    "select hc_e1()",
    "create function hc_e2() returns int language sql as 'select hc_e1() from hc_t where a = 0'",
    "select hc_e2()",
    "create function hc_e3(x int) returns int language plpgsql as $$ begin return 1/x; end $$",
    "select hc_e3(0)",
    "do $$ begin if 1/0 > 0 then null; end if; end $$",
    "do $$ begin raise notice '%', 1/0; end $$",
    "do $$ declare x int := 1/0; begin null; end $$",
    "do $$ declare x int; begin x := 1/0; end $$",
    "do $$ begin for i in 1..(1/0) loop null; end loop; end $$",
    "do $$ begin if now() < '2000-01-01'::date + 1/0 then null; end if; end $$",
    # a parameter qualified by its routine's name; SQL procedures are checked and named too
    "create function hc_q1(x int) returns int language sql as 'select hc_q1.x + 1'",
    "select hc_q1(1)",
    "create function hc_q2(x int) returns int language plpgsql as "
    "$$ begin return hc_q2.x + 1; end $$",
    "select hc_q2(1)",
    "create function hc_q3(a int) returns bigint language sql as "
    "'select count(*) from hc_t where hc_t.a = hc_q3.a'",
    "select hc_q3(0)",
    "create procedure hc_q4() language sql as 'select nosuch'",
    "create procedure hc_q5(x int) language sql as "
    "$$ insert into hc_t values (x, 'p'); select 1/(x - x) $$",
    "call hc_q5(3)",
    "create function hc_q6(x anyelement) returns int language sql as 'select nosuch'",
]


def test_sql_function_context_same_as_pg15(servers):
    out = _same_full(servers, CONTEXTS)
    assert any(r[1] == "22012" and r[5] == 'SQL function "hc_two" statement 2' for r in out)


# `#print_strict_params` / `#variable_conflict` and their plpgsql.* settings
OPTIONS = [
    "create table ho_t (a int, b text)",
    "insert into ho_t values (1, 'x'), (2, 'y''q')",
    "create function ho_p1(k int) returns text language plpgsql as $$\n#print_strict_params on\n"
    "declare r text; z text := 'o''k';\nbegin\n  select b into strict r from ho_t "
    "where a = k and b <> z;\n  return r;\nend $$",
    "select ho_p1(5)",
    "select ho_p1(1)",
    "create function ho_p2(k int) returns text language plpgsql as $$\n#print_strict_params on\n"
    "declare r text;\nbegin\n  execute 'select b from ho_t where a > $1' into strict r "
    "using k;\n  return r;\nend $$",
    "select ho_p2(0)",
    "select ho_p2(5)",
    "create function ho_p3(k int) returns text language plpgsql as $$\n#print_strict_params off\n"
    "declare r text;\nbegin\n  select b into strict r from ho_t where a > k;\n  return r;\nend $$",
    "select ho_p3(0)",
    "show plpgsql.print_strict_params",
    "set plpgsql.print_strict_params = on",
    "create function ho_p4(k int) returns text language plpgsql as $$\ndeclare r text;\nbegin\n"
    "  select b into strict r from ho_t where a > k;\n  return r;\nend $$",
    "select ho_p4(0)",
    "set plpgsql.print_strict_params = bogus",
    "reset plpgsql.print_strict_params",
    "set plpgsql.variable_conflict = bogus",
    "show plpgsql.variable_conflict",
    "create function ho_v1(a int) returns int language plpgsql as $$\ndeclare n int;\nbegin\n"
    "  select count(*) into n from ho_t where ho_t.a = a;\n  return n;\nend $$",
    "select ho_v1(1)",
    "create function ho_v2(a int) returns int language plpgsql as $$\n#variable_conflict "
    "use_variable\ndeclare n int;\nbegin\n  select count(*) into n from ho_t where ho_t.a = a;\n"
    "  return n;\nend $$",
    "select ho_v2(1)",
    "create function ho_v3(a int) returns int language plpgsql as $$\n#variable_conflict "
    "use_column\ndeclare n int;\nbegin\n  select count(*) into n from ho_t where ho_t.a = a;\n"
    "  return n;\nend $$",
    "select ho_v3(1)",
    "create function ho_v4(b text) returns int language plpgsql as "
    "$$ begin update ho_t set b = 'z' where b = 'q'; return 1; end $$",
    "select ho_v4('q')",
    "create function ho_v5(a int) returns int language plpgsql as $$ declare n int; begin "
    "select count(*) into n from (select a from ho_t) s where s.a > 0; return n; end $$",
    "select ho_v5(1)",
    "create function ho_v6(a int) returns int language plpgsql as $$ declare r int; begin "
    "insert into ho_t(a) values (a) returning a into r; return r; end $$",
    "select ho_v6(4)",
    "create function ho_v7(a int) returns int language plpgsql as $$ declare r int; begin "
    "insert into ho_t(a) values (a); return 1; end $$",
    "select ho_v7(5)",
    "create function ho_v8(a int) returns bigint language sql as "
    "'select count(*) from ho_t where a = a'",
    "select ho_v8(1)",
    "set plpgsql.variable_conflict = use_column",
    "create function ho_v9(a int) returns int language plpgsql as $$ declare n int; begin "
    "select count(*) into n from ho_t where a = a; return n; end $$",
    "select ho_v9(100)",
    "reset plpgsql.variable_conflict",
]


def test_compile_options_same_as_pg15(servers):
    out = _same_full(servers, OPTIONS)
    assert any(r[1] == "P0002" and r[3] == "parameters: k = '5', z = 'o''k'" for r in out)
    assert sum(1 for r in out if r[1] == "42702") >= 3


# PL/pgSQL stores values through the assignment cast, else I/O conversion (COERCION_PLPGSQL)
ASSIGN = [
    "create domain ha_pos as int check (value > 0)",
    "create table ha_t (a int, b text, c numeric)",
    "insert into ha_t values (1, '5', 2.5), (2, 'x', 3.7)",
    "do $$ declare i int; begin i := '12'::text; raise notice '%', i; end $$",
    "do $$ declare i int; begin i := true; end $$",
    "do $$ declare i int; begin i   =  true ; end $$",
    "do $$ declare v varchar(2); begin v:='abc'; end $$",
    "do $$ declare b bool; begin b := 2; end $$",
    "do $$ declare b bool; begin b := 1; raise notice '%', b; end $$",
    "do $$ declare v varchar(3); begin v := 'abcdef'; end $$",
    "do $$ declare v varchar(3) := 'abcdef'; begin null; end $$",
    "do $$ declare i int; begin i := '12.7'; end $$",
    "do $$ declare i int; begin i := 12.7::text; end $$",
    "do $$ declare p ha_pos; begin p := 5; raise notice '%', p; p := -1; end $$",
    "do $$ declare i int; begin select true into i; end $$",
    "do $$ declare v varchar(2); begin select 'abc' into v; end $$",
    "do $$ declare i int; begin select c into i from ha_t where a = 1; raise notice '%', i; end $$",
    "do $$ declare i int; begin for i in select b from ha_t order by a loop "
    "raise notice '%', i; end loop; end $$",
    "do $$ declare x text; begin x := 12.50; raise notice '%', x; x := true; "
    "raise notice '%', x; end $$",
    "do $$ declare n numeric(4,1); begin n := 123.456; raise notice '%', n; n := 12345; end $$",
    "do $$ declare c char(3); begin c := 'ab'; raise notice '[%]', c; end $$",
    "do $$ declare j jsonb; begin j := '{\"x\":1}'::json; raise notice '%', j; end $$",
    "create function ha_r1() returns int language plpgsql as $$ begin return '5'::text; end $$",
    "select ha_r1()",
    "create function ha_r2() returns int language plpgsql as $$ begin return true; end $$",
    "select ha_r2()",
    "create function ha_r3() returns numeric language plpgsql as $$ begin return 5; end $$",
    "select ha_r3(), pg_typeof(ha_r3())::text",
    "create function ha_r4() returns int language plpgsql as $$ begin return 2.5; end $$",
    "select ha_r4()",
    "create function ha_s1() returns int language sql as $$ select c from ha_t where a = 2 $$",
    "select ha_s1()",
    "create function ha_s2() returns text language sql as $$ select a from ha_t order by a $$",
    "select ha_s2()",
    "create function ha_s3() returns int language sql as $$ select '5'::text $$",
    # polymorphic parameters and results take each call's types
    "create function ha_p1(x anyelement) returns anyelement language sql as $$ select x $$",
    "select ha_p1(3), ha_p1('a'::text), ha_p1(2.5), pg_typeof(ha_p1(3))::text",
    "create function ha_p2(x anyelement) returns anyelement language plpgsql as "
    "$$ begin return x; end $$",
    "select ha_p2(3), ha_p2(true)",
    "create function ha_p3(x anyarray) returns anyelement language sql as $$ select x[1] $$",
    "select ha_p3(array[4,5]), ha_p3(array['a','b'])",
    "create function ha_p4(x anyelement, n int) returns anyarray language sql as "
    "$$ select array_fill(x, array[n]) $$",
    "select ha_p4(7, 2)",
    "select ha_p1('lit')",
]


def test_plpgsql_assignment_same_as_pg15(servers):
    out = _same_full(servers, ASSIGN)
    assert any(r[1] == "22P02" and r[2] == 'invalid input syntax for type integer: "t"'
               for r in out)


_SAME_BUILTINS = ("'abs', 'now', 'array_length', 'pg_typeof', 'count', 'generate_series', "
                  "'row_number', 'concat', 'string_agg', 'date_trunc', 'substr'")
# information_schema.routines / .parameters list the built-in functions, as pg_proc has them
BUILTIN_ROUTINES = [
    f"select * from information_schema.routines where routine_name in ({_SAME_BUILTINS}) "
    "order by specific_name",
    "select * from information_schema.parameters where specific_name in (select specific_name "
    f"from information_schema.routines where routine_name in ({_SAME_BUILTINS})) "
    "order by specific_name, ordinal_position",
    "select routine_schema, count(*) > 1000 from information_schema.routines group by 1 "
    "order by 1",
]


def test_information_schema_lists_builtins_as_pg15(servers):
    expected = run(servers[0], BUILTIN_ROUTINES)
    assert len(expected[0][2]) >= 30
    assert run(servers[1], BUILTIN_ROUTINES) == expected


# BEGIN ATOMIC bodies printed back as ruleutils deparses them (pg_get_functiondef, \sf,
# pg_get_function_sqlbody for pg_dump): INSERT / UPDATE / DELETE, several statements
ATOMIC = [
    "create table hb_t (a int, b text, c numeric, v varchar(10))",
    "create table hb_u (a int, d date)",
    "create function hb1(x int) returns int language sql begin atomic "
    "insert into hb_t values (x, 'a'); select x; end",
    "create function hb2(x int) returns bigint language sql begin atomic update hb_t set "
    "b = 'z' where a = x; delete from hb_t where a > x; select count(*) from hb_t "
    "where b = 'z'; end",
    "create function hb3(x int) returns setof int language sql begin atomic "
    "select a from hb_t where a > x order by a; end",
    "create procedure hb4(x int, y text) language sql begin atomic insert into hb_t(a, b) "
    "select x, y; insert into hb_t(b) values (y) returning a; end",
    "create function hb5(x int, y text) returns int language sql begin atomic "
    "select a from hb_t where b = y; end",
    "create function hb6(x int) returns bigint language sql begin atomic insert into hb_t "
    "(a, c, v) values (x, x, 'q'); insert into hb_t values (1, 'k', 2.5), (2, 'l', 3); "
    "select count(*) from hb_t; end",
    "create function hb7(x int) returns int language sql begin atomic update hb_t set "
    "a = a + x, b = 'w' where a < x and b is not null returning a; end",
    "create function hb8(int) returns int language sql begin atomic select $1 + 1; end",
    "create function hb9(x int) returns int language sql begin atomic select hb_t.a from hb_t "
    "join hb_u on hb_t.a = hb_u.a where hb_u.d > '2020-01-01'; end",
    "create procedure hb10(x int) language sql begin atomic delete from hb_t where a = x "
    "returning a; update hb_u set d = now() where a = x; end",
    "create function hb11(x int) returns int language sql return x * 2",
    "select p.proname, p.prosrc, pg_get_functiondef(p.oid), pg_get_function_sqlbody(p.oid) "
    "from pg_proc p where p.proname like 'hb%' order by 1",
]


def test_atomic_bodies_print_as_pg15(servers):
    expected = run(servers[0], ATOMIC)
    assert len(expected[-1][2]) == 11
    assert run(servers[1], ATOMIC) == expected
