"""Multi-row INSERT ... VALUES of parameters (SQLAlchemy's insertmanyvalues): one shape, many rows.

Each statement here is run twice: as the client sends it (recognised by shape, compiled once
per column) and as single-row INSERTs, which take the ordinary path; both must store the same
rows, infer the same parameter types and raise the same errors.
"""

from __future__ import annotations

import datetime as dt
import doctest
from decimal import Decimal

import pytest

from cumulo.server.errors import SQLError
from cumulo.server.pgwire import insertbatch
from cumulo.server.sql import copyout, manyvalues
from cumulo.server.sql.dml import batchinsert
from cumulo.server.sql.parse import parse_sql

from .helpers import rows, run

CASTS = ["BIGINT", "INTEGER", "FLOAT(53)", "NUMERIC(12, 2)", "VARCHAR(3)",
         "TIMESTAMP WITHOUT TIME ZONE", "BOOLEAN", "TEXT"]
DDL = ("create table t (id bigint primary key, a int, b float8, c numeric(12,2), d varchar(3), "
       "e timestamp, f boolean, g text)")


def many_sql(nrows: int, casts: list[str], tail: str = "") -> str:
    width = len(casts)
    tuples = ["(" + ", ".join(f"${r * width + j + 1}::{c}" for j, c in enumerate(casts)) + ")"
              for r in range(nrows)]
    return "INSERT INTO t VALUES " + ", ".join(tuples) + tail


def sample(i: int) -> list:
    return [i, i * 2, i * 0.5, Decimal(i) / 3, "abcdef"[: i % 5], dt.datetime(2020, 1, 1, i % 24),
            i % 2 == 0, None if i % 3 else f"g{i}"]


def test_split_recognises_one_shape_only():
    sql = many_sql(3, CASTS)
    m = manyvalues.split(sql)
    assert m is not None and m.rows == 3 and m.stride == len(CASTS)
    assert m.head == many_sql(1, CASTS)
    assert manyvalues.split("INSERT INTO t VALUES ($1, $2), ($3, 5)") is None
    assert manyvalues.split("INSERT INTO t VALUES ($1, $2), ($3::int, $4)") is None
    assert manyvalues.split("INSERT INTO t VALUES ($1, $2), ($3, $4) RETURNING $5") is None
    assert manyvalues.split("INSERT INTO t VALUES ($1, $2), ($3, $4), DEFAULT") is None
    assert manyvalues.split("INSERT INTO t VALUES ($1,$2),($3,$4) ON CONFLICT DO NOTHING") \
        is not None
    tree = parse_sql(sql)
    assert len(tree.expression.expressions) == 1 and tree.expression.meta["many"].rows == 3


def _flat(values: list[list]) -> list:
    return [v for row in values for v in row]


def test_many_rows_store_what_single_rows_store(session):
    run(session, DDL)
    data = [sample(i) for i in range(1, 41)]
    p = session.prepare(many_sql(40, CASTS), [0] * (40 * len(CASTS)))
    assert p.param_oids[: len(CASTS)] == [20, 23, 701, 1700, 1043, 1114, 16, 25]
    assert len(p.param_oids) == 40 * len(CASTS)
    assert session.execute(p, _flat(data)).tag == "INSERT 0 40"
    session.sync()
    got = rows(session, "select * from t order by id")
    run(session, "delete from t")
    one = session.prepare(many_sql(1, CASTS), [0] * len(CASTS))
    for r in data:
        session.execute(one, r)
    session.sync()
    assert rows(session, "select * from t order by id") == got
    assert got[3][3] == Decimal("1.33") and got[3][4] == "abc"  # typmods applied


def test_declared_types_may_differ_per_row(session):
    run(session, "create table t (id bigint primary key, v text, n numeric)")
    sql = "INSERT INTO t (id, v, n) VALUES ($1, $2, $3), ($4, $5, $6), ($7, $8, $9)"
    # int2, int8 and unknown for the key; text and unknown for v; numeric and int4 for n
    p = session.prepare(sql, [21, 25, 1700, 20, 0, 23, 0, 25, 0])
    assert p.param_oids == [21, 25, 1700, 20, 25, 23, 20, 25, 1700]
    session.execute(p, [1, "a", Decimal("1.5"), 2, "b", 7, 3, None, None])
    session.sync()
    assert rows(session, "select * from t order by id") == [
        (1, "a", Decimal("1.5")), (2, "b", Decimal(7)), (3, None, None)]


def test_errors_and_tails(session):
    run(session, "create table t (id int primary key, v varchar(2))")
    sql = "INSERT INTO t VALUES ($1, $2), ($3, $4)"
    p = session.prepare(sql, [0, 0, 0, 0])
    with pytest.raises(SQLError) as e:
        session.execute(p, [1, "ok", 2, "too long"])
    assert e.value.sqlstate == "22001"
    with pytest.raises(SQLError) as e:
        session.execute(p, [1, "a", 1, "b"])
    assert e.value.sqlstate == "23505"
    session.sync()
    assert rows(session, "select count(*) from t") == [(0,)]
    q = session.prepare(sql + " ON CONFLICT (id) DO NOTHING RETURNING id", [0, 0, 0, 0])
    assert session.execute(q, [1, "a", 2, "b"]).fetch() == [(1,), (2,)]
    assert session.execute(q, [2, "x", 3, "c"]).fetch() == [(3,)]
    session.sync()
    assert rows(session, "select * from t order by id") == [(1, "a"), (2, "b"), (3, "c")]


def test_plans_are_reused_inside_a_transaction_that_did_ddl(session):
    """pandas' to_sql: CREATE TABLE, then an executemany, in one transaction."""
    run(session, "begin")
    run(session, "create table t (id int primary key, v text)")
    sql = "insert into t values ($1, $2)"
    first = session.lookup(sql, (0, 0))
    assert session.lookup(sql, (0, 0)) is first  # planned once against the private catalog
    run(session, "create index t_v on t (v)")
    again = session.lookup(sql, (0, 0))
    assert again is not first  # new DDL: planned again
    session.execute(session.prepare(sql, [0, 0]), [1, "a"])
    run(session, "commit")
    assert rows(session, "select * from t") == [(1, "a")]


def test_declared_types_matching_the_casts_pass_through(session):
    """cumulo.driver declares int8/float8/text/timestamp/bool: values go in as decoded."""
    run(session, "create table t (id bigint primary key, f float8, v varchar(3), n numeric(6,2), "
                 "at timestamp, b boolean)")
    casts = ["BIGINT", "FLOAT(53)", "VARCHAR", "NUMERIC", "TIMESTAMP WITHOUT TIME ZONE",
             "BOOLEAN"]
    tuples = ", ".join("(" + ", ".join(f"${r * 6 + j + 1}::{c}" for j, c in enumerate(casts))
                       + ")" for r in range(3))
    p = session.prepare("INSERT INTO t VALUES " + tuples, [20, 701, 25, 1700, 1114, 16] * 3)
    at = dt.datetime(2024, 1, 2, 3, 4, 5)
    session.execute(p, [1, 0.5, "ab", Decimal("1.005"), at, True,
                        2, None, None, None, None, None,
                        3, 2.0, "abc", Decimal(7), at, False])
    session.sync()
    assert rows(session, "select * from t order by id") == [
        (1, 0.5, "ab", Decimal("1.01"), at, True), (2, None, None, None, None, None),
        (3, 2.0, "abc", Decimal("7.00"), at, False)]  # the column's typmod still applies
    with pytest.raises(SQLError) as e:
        session.execute(p, [4, 1.0, "abcd", Decimal(1), at, True] + [5, 1.0, "a", Decimal(1),
                                                                      at, True] * 2)
    assert e.value.sqlstate == "22001"


def test_narrower_ints_and_untyped_strings_pass_through_with_the_row_paths_errors(session):
    """cumulo.driver declares a small int as int4 and a str as unknown, under SQLAlchemy's
    `::BIGINT` and `::VARCHAR` casts: the values go in as sent, and the column's own checks
    (typmod, range) still fail exactly as one row at a time does."""
    run(session, "create table t (id bigint primary key, n int, v varchar(3), w text)")
    casts = ["BIGINT", "INTEGER", "VARCHAR", "VARCHAR"]
    sql = "INSERT INTO t VALUES " + ", ".join(
        "(" + ", ".join(f"${r * 4 + j + 1}::{c}" for j, c in enumerate(casts)) + ")"
        for r in range(3))
    declared = [23, 21, 0, 0, 20, 23, 0, 0, 23, 23, 0, 0]
    p = session.prepare(sql, declared)
    # declared types stay; the untyped ones are inferred from their casts (as PG does)
    assert p.param_oids == [d or 1043 for d in declared]
    session.execute(p, [1, 7, "ab", "x" * 50, 2**40, 2**31 - 1, None, None, 3, -5, "abc", ""])
    session.sync()
    got = rows(session, "select * from t order by id")
    assert got == [(1, 7, "ab", "x" * 50), (3, -5, "abc", ""), (2**40, 2**31 - 1, None, None)]
    assert [type(r[0]) for r in got] == [int] * 3
    errors = []
    for values in ([4, 1, "abcd", "", 5, 1, "a", "", 6, 1, "a", ""],
                   [4, 1, "a", "", 4, 1, "a", "", 6, 1, "a", ""]):
        with pytest.raises(SQLError) as many:
            session.execute(p, values)
        session.sync()
        one = session.prepare("INSERT INTO t VALUES ($1::BIGINT, $2::INTEGER, $3::VARCHAR, "
                              "$4::VARCHAR)", declared[:4])
        with pytest.raises(SQLError) as single:
            for r in range(3):
                session.execute(one, values[r * 4:r * 4 + 4])
        session.sync()
        assert (many.value.sqlstate, many.value.message) == \
            (single.value.sqlstate, single.value.message)
        errors.append(many.value.sqlstate)
    assert errors == ["22001", "23505"]
    assert rows(session, "select count(*) from t") == [(3,)]


@pytest.mark.parametrize("module", [manyvalues, batchinsert, insertbatch, copyout])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_a_run_of_serial_rows_draws_what_the_row_path_draws(engine, session):
    """An executemany run into a serial table reserves its values with one write
    (`reserve_sequence`) but hands out the same ones: the run's ids, another session's
    nextval after it, and after a failed run (given back, then replayed row by row)."""
    from cumulo.server.sql.batchexec import execute_many

    run(session, "create table sq (id serial primary key, u int unique)")
    seq = next(q for q in session.catalog().sequences if q.name == "sq_id_seq")
    p = session.prepare("insert into sq (u) values ($1)", [0])
    results, err = execute_many(session, p, [[i] for i in range(1, 3001)])
    assert err is None and len(results) == 3000
    session.sync()
    other = engine.open_session("cumulo", "cumulo", {})
    assert rows(other, "select nextval('sq_id_seq')") == [(3001,)]
    assert rows(session, "select count(*), min(id), max(id) from sq") == [(3000, 1, 3000)]
    results, err = execute_many(session, p, [[i] for i in range(5000, 5100)] + [[7], [9000]])
    assert err is not None and err.sqlstate == "23505" and len(results) == 100
    session.sync()  # NB: the implicit transaction rolls back; the sequence does not
    assert rows(session, "select currval('sq_id_seq'), nextval('sq_id_seq')") == [(3102, 3103)]
    session.store.reserve_sequence(seq, 2**40)  # past the maximum: nothing reserved, no error
    assert rows(other, "select nextval('sq_id_seq')") == [(3104,)]
    other.close()
