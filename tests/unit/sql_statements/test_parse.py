"""The pre-parser: statement splitting, utility recognition, transaction modes."""

from __future__ import annotations

import pytest

from cumulo.server.errors import SyntaxError_
from cumulo.server.sql.parse import (
    PlanCache,
    normalize,
    parse_sql,
    split_statements,
    txn_modes,
    unquote_ident,
    utility,
)


def test_split_respects_quotes_and_comments():
    sql = ("select 'a;b'; select \"x;y\" from t; -- c;d\nselect $$ ; $$; select $tag$ ;$ $tag$;"
           " /* ; /* nested ; */ */ select E'\\';'")
    assert split_statements(sql) == [
        "select 'a;b'", 'select "x;y" from t', "-- c;d\nselect $$ ; $$",
        "select $tag$ ;$ $tag$", "/* ; /* nested ; */ */ select E'\\';'"]


def test_split_drops_empty_and_comment_only():
    assert split_statements("") == []
    assert split_statements(" ;; ") == []
    assert split_statements("-- only a comment") == []
    assert split_statements("select 1;") == ["select 1"]
    assert split_statements("select $1, 'it''s;'; x") == ["select $1, 'it''s;'", "x"]


@pytest.mark.parametrize("sql,kind", [
    ("BEGIN", "begin"), ("begin transaction isolation level serializable", "begin"),
    ("START TRANSACTION READ ONLY", "begin"), ("commit", "commit"), ("END", "commit"),
    ("rollback", "rollback"), ("ABORT", "rollback"), ("rollback to savepoint a", "rollback_to"),
    ("rollback to a", "rollback_to"), ("savepoint a", "savepoint"), ("release a", "release"),
    ("set transaction isolation level repeatable read", "set_txn"),
    ("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE",
     "set_session_txn"),
    ("set search_path to public, x", "set"), ("set local statement_timeout = 0", "set"),
    ("set time zone 'UTC'", "set_tz"), ("reset all", "reset"), ("show all", "show"),
    ("SHOW transaction isolation level", "show"), ("discard all", "discard"),
    ("close all", "close"), ("declare c cursor for select 1", "declare"),
    ("fetch forward 5 from c", "fetch"), ("move 3 in c", "fetch"), ("fetch c", "fetch"),
    ("listen x", "listen"), ("unlisten *", "listen"), ("vacuum analyze t", "vacuum"),
    ("checkpoint", "checkpoint"), ("prepare p (int) as select $1", "prepare"),
    ("execute p(1)", "execute"), ("deallocate all", "deallocate"),
    ("explain analyze select 1", "explain"), ("copy t from stdin", "copy"),
    ("create user bob password 'x'", "role"), ("create database d", "database"),
    ("comment on table t is 'x'", "comment"), ("create sequence s", "sequence"),
])
def test_utility_kinds(sql, kind):
    found = utility(sql)
    assert found is not None and found[0] == kind


@pytest.mark.parametrize("sql", ["select 1", "insert into t values (1)", "create table t (a int)",
                                 "update t set a = 1", "setval"])
def test_not_utility(sql):
    assert utility(sql) is None


def test_txn_modes():
    assert txn_modes(" ISOLATION LEVEL REPEATABLE READ, READ ONLY DEFERRABLE") == {
        "isolation": "repeatable read", "read_only": True, "deferrable": True}
    assert txn_modes("read write not deferrable") == {"read_only": False, "deferrable": False}
    assert txn_modes(None) == {}


def test_unquote_ident():
    assert unquote_ident("Foo") == "foo"
    assert unquote_ident('"Foo""x"') == 'Foo"x'


def test_syntax_error_position():
    with pytest.raises(SyntaxError_) as info:
        parse_sql("select from where")
    assert info.value.sqlstate == "42601"
    assert info.value.message.startswith("syntax error")


def test_plan_cache_invalidates_on_version():
    class E:
        version = 3

    cache = PlanCache(size=2)
    cache.put("a", E())
    assert cache.get("a", 3) is not None
    assert cache.get("a", 4) is None
    assert cache.get("a", 3) is None  # dropped once stale
    for k in "xyz":
        cache.put(k, E())
    assert cache.get("x", 3) is None and cache.get("z", 3) is not None


def test_parameter_array_casts_parse():
    tree = parse_sql("select oid from pg_type where oid = any($1::oid[]) and 1 = $2 :: int [ ]")
    assert "CAST($1 AS pg_catalog.oid[])" in tree.sql("postgres")
    assert "CAST($2 AS pg_catalog.int[])" in tree.sql("postgres")


def test_a_negative_literal_is_one_parameter():
    """pgbench's `abalance + -3227` and an INSERT of a negative number share the plan of the
    positive ones: `-$1` was an expression of a literal, which refused a shared plan."""
    up = "UPDATE a SET x = x + {} WHERE aid = 5"
    assert normalize(up.format("-3227")) == ("UPDATE a SET x = x + $1 WHERE aid = $2",
                                             (-3227, 5), (23, 23))
    assert normalize(up.format("3227"))[0] == normalize(up.format("- 3227"))[0]
    assert normalize("select a -5 from t") == ("select a -$1 from t", (5,), (23,))  # binary
    assert normalize("select 1 where x = -2147483648")[1:] == ((1, -2147483648), (23, 23))
    assert normalize("select 1 where x = -9223372036854775808")[1:] == (
        (1, -9223372036854775808), (23, 20))
