"""Scalar semantics: PostgreSQL's errors, casts, NULL logic, and parameter type inference."""

from __future__ import annotations

from decimal import Decimal

import pytest
import sqlglot

from cumulo.server import errors as E
from cumulo.server.sql.context import ParamTypes, ScopeColumn
from cumulo.server.sql.plan.compiler import COMPILER

from .harness import DB


@pytest.fixture(scope="module")
def db() -> DB:
    return DB()


ERRORS = [
    ("select 2147483647 + 1", E.NumericValueOutOfRange, "integer out of range"),
    ("select 32767::int2 + 1::int2", E.NumericValueOutOfRange, "smallint out of range"),
    ("select 9223372036854775807 * 2", E.NumericValueOutOfRange, "bigint out of range"),
    ("select -(-2147483647 - 1)", E.NumericValueOutOfRange, "integer out of range"),
    ("select 'x'::int", E.InvalidTextRepresentation,
     'invalid input syntax for type integer: "x"'),
    ("select int '1.5'", E.InvalidTextRepresentation,
     'invalid input syntax for type integer: "1.5"'),
    ("select 1 / 0", E.DivisionByZero, "division by zero"),
    ("select 1.0 / 0", E.DivisionByZero, "division by zero"),
    ("select 5 % 0", E.DivisionByZero, "division by zero"),
    ("select 'a'::text + 1", E.UndefinedFunction, "operator does not exist: text + integer"),
    ("select nosuchfn(1)", E.UndefinedFunction, "function nosuchfn(integer) does not exist"),
    ("select nosuch from t", E.UndefinedColumn, 'column "nosuch" does not exist'),
    ("select * from nosuch", E.UndefinedTable, 'relation "nosuch" does not exist'),
    ("select a, count(*) from t", E.GroupingError, 'column "t.a" must appear in the GROUP BY'),
    ("select x from t, u where a = 1 and y = 'a' and x = (select x from u)",
     E.CardinalityViolation, "more than one row returned by a subquery"),
    ("select 1 where 1", E.DatatypeMismatch, "argument of WHERE must be type boolean"),
    ("select a from t where count(*) > 1", E.GroupingError, "not allowed in WHERE"),
    ("select 123.456::numeric(4,2)", E.NumericValueOutOfRange, "numeric field overflow"),
    ("select 1 union select 1, 2", E.SyntaxError_, "same number of columns"),
]


@pytest.mark.parametrize("sql,exc,msg", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(db: DB, sql: str, exc: type, msg: str) -> None:
    with pytest.raises(exc) as info:
        db.rows(sql)
    assert msg in info.value.message
    if exc is E.UndefinedFunction:
        assert "explicit type casts" in info.value.hint


VALUES = [
    ("select 7 / 2, -7 / 2, 7 % -3, 7.0 / 2", (3, -3, 1, Decimal("3.5000000000000000"))),
    ("select 1::numeric / 3", (Decimal("0.33333333333333333333"),)),
    ("select 1 + 1.5, 2 * 2.5::float8, 3 > 2.5", (Decimal("2.5"), 5.0, True)),
    ("select '12'::int + 1, '1.5'::numeric, 'true'::bool, '3'::float8", (13, Decimal("1.5"), True, 3.0)),
    ("select 1::text || 'x', 1.5::text, true::text, 2.0::float8::text", ("1x", "1.5", "true", "2")),
    ("select null and false, null or true, not null, null = null", (False, True, None, None)),
    ("select 1 is null, null is not null, true is true, null is false, null is not true",
     (False, False, True, False, True)),
    ("select 'abc' like 'a%', 'abc' like 'a_', 'ABC' ilike 'a%', 'abc' not like '%c'",
     (True, False, True, False)),
    ("select 'ab' operator(pg_catalog.~) 'b', 'x' collate pg_catalog.default", (True, "x")),
    ("select 3 in (1, 2), 3 in (1, null), 1 in (1, null), 3 not in (1, null)",
     (False, None, True, None)),
    ("select array[1,2] || 3, (array['a','b'])[1], (array[1])[5]", ([1, 2, 3], "a", None)),
    ("select coalesce(null, null, 3), nullif(1, 1), greatest(1, null, 3), least(null::int)",
     (3, None, 3, None)),
    ("select case 2 when 1 then 'a' when 2 then 'b' end, case when false then 1 end",
     ("b", None)),
    ("select '2024-03-01'::date - '2024-02-01'::date, '2024-01-01'::date + 30",
     (29, __import__("datetime").date(2024, 1, 31))),
    ("select 10::int8 / 4, 10::int2 / 4::int2, 4.5::float8 / 2", (2, 2, 2.25)),
    ("select 2 ^ 10, 2.0 ^ 3", (1024.0, Decimal("8"))),
]


@pytest.mark.parametrize("sql,expected", VALUES, ids=[v[0] for v in VALUES])
def test_values(db: DB, sql: str, expected: tuple) -> None:
    assert db.rows(sql) == [expected]


def _scalar(sql: str, scope: list[ScopeColumn], expected: int = 0,
            params: ParamTypes | None = None):
    return COMPILER.compile_scalar(sqlglot.parse_one(sql, read="postgres"), scope,
                                   DB().catalog, params or ParamTypes(), ["public"], expected)


def test_compile_scalar_over_a_row(db: DB) -> None:
    scope = [ScopeColumn("t", "a", 23), ScopeColumn("t", "b", 25)]
    s = _scalar("a * 2 + length(b)", scope)
    assert s.type_oid == 23
    assert s.fn((4, "xyz"), db.ctx()) == 11
    assert s.fn((None, "xyz"), db.ctx()) is None


def test_compile_scalar_expected_type_casts_and_infers() -> None:
    params = ParamTypes([0, 0])
    s = _scalar("$1", [], expected=20, params=params)
    assert s.type_oid == 20 and params.oids[0] == 20
    s = _scalar("'42'", [], expected=23)
    assert s.fn((), None) == 42
    s = _scalar("1.6", [], expected=23)
    assert s.fn((), None) == 2
    with pytest.raises(E.InvalidTextRepresentation):
        _scalar("'x'", [], expected=23)


def test_parameter_inference(db: DB) -> None:
    cases = [
        ("select a from t where a = $1", [23]),
        ("select a from t where b like $1 and c > $2", [25, 1700]),
        ("select $1::int8, $2", [20, 25]),
        ("select a from t where a in ($1, $2)", [23, 23]),
        ("select a from t limit $1 offset $2", [20, 20]),
        ("select a from t where a = any($1)", [1007]),
        ("select abalance from pgbench_accounts where aid = $1 and $2 < bid", [23, 23]),
        ("select a + $1 from t", [23]),
        ("select $1 + interval '1 day'", [1186]),
    ]
    for sql, want in cases:
        _, params = db.plan(sql)
        assert params.oids == want, sql


def test_declared_parameter_types_are_kept(db: DB) -> None:
    _, params = db.plan("select a from t where a = $1", [20])
    assert params.oids == [20]


def test_regclass_casts(db: DB) -> None:
    rows = db.rows("select 't'::regclass, 'pg_class'::regclass = 1259, 't'::regclass::oid")
    assert rows == [(16384, True, 16384)]
    assert str(rows[0][0]) == "t"
    assert db.cols("select 't'::regclass::oid") == [("oid", 26)]
    with pytest.raises(E.UndefinedTable):
        db.rows("select 'nosuch'::regclass")


def test_explicit_cast_to_varchar_and_char_truncates(db: DB) -> None:
    """PostgreSQL: an explicit cast to (var)char(n) truncates (only assignment raises 22001)."""
    assert db.rows("select 'abc'::varchar(2), 'abc'::char(2), 'a'::char(3) || '|'") == [
        ("ab", "ab", "a|")]
