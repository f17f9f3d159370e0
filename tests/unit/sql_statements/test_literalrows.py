"""Multi-row VALUES of literals (`sql/literalrows.py`): recognised, typed as PostgreSQL types
them, and stored through the parameterised multi-row path; irregular statements fall back.

The outcomes are compared with PostgreSQL 15 in
tests/integration/test_literal_rows_pg15.py; here the fast path is shown to be the one taken.
"""

from __future__ import annotations

import datetime
import doctest
from decimal import Decimal

from psycopg2.extensions import adapt

from cumulo.server.sql import literalrows, parse
from tests.integration.test_literal_rows_pg15 import _insert, _rows
from tests.unit.sql_statements.helpers import rows as fetch
from tests.unit.sql_statements.helpers import run


def test_doctests() -> None:
    assert doctest.testmod(literalrows).failed == 0


def test_recognised_and_typed() -> None:
    sql = _insert(_rows(300), " ON CONFLICT (id) DO UPDATE SET i = 2.5 RETURNING id")
    got = literalrows.normalize(sql)
    assert got is not None and parse.normalize(sql) == got
    ntext, values, oids = got
    assert ntext.startswith("INSERT INTO lr VALUES ($1,$2,$3,$4,$5,$6,$7),($8,")
    assert ntext.endswith("($2094,$2095,$2096,$2097,$2098,$2099,$2100)"
                          " ON CONFLICT (id) DO UPDATE SET i = 2.5 RETURNING id")
    assert len(values) == len(oids) == 300 * 7
    assert values[:7] == (0, None, None, Decimal("-0.555"), 0, False, 0)
    assert oids[:7] == (23, 0, 0, 1700, 23, 16, 23)
    assert values[7 + 1] == "it's 1" and values[7 + 4] == -2147483648 and oids[7 + 4] == 23
    assert values[14 + 6] == 2**63 - 1 and oids[14 + 6] == 20
    assert values[21 + 4] == Decimal("3.5") and oids[21 + 4] == 1700


def test_literal_types_by_size() -> None:
    sql = ("INSERT INTO t VALUES (2147483647, -2147483649, 99999999999999999999, -0.0),"
           " (-9223372036854775808, 1e200000, .5, 5.)")
    _, values, oids = literalrows.normalize(sql.replace("1e200000", "1e3")) or ("", (), ())
    assert oids == (23, 20, 1700, 1700, 20, 1700, 1700, 1700)
    assert values[3] == 0 and not values[3].is_signed()
    assert literalrows.normalize(sql) is None  # NB: numeric_in's 22003 from the general path


def test_irregular_statements_fall_back() -> None:
    for sql in ("INSERT INTO t VALUES (1, 'a')",                     # one row
                "INSERT INTO t VALUES (1, DEFAULT), (2, 'b')",
                "INSERT INTO t VALUES (1, 'a'), (2, 'b', 3)",         # widths differ
                "INSERT INTO t VALUES (1, 'a'::text), (2, 'b')",
                "INSERT INTO t VALUES (- 1, 'a'), (2, 'b')",
                "INSERT INTO t VALUES (1, E'a'), (2, 'b')",
                "INSERT INTO t VALUES (1, $1), (2, 'b')",
                "INSERT INTO t VALUES (1, 'a'), (2, 'b') -- c",
                "INSERT INTO t VALUES (1, 'a'), (2, 'b') junk",
                "INSERT INTO t SELECT 1, 'a'"):
        assert literalrows.normalize(sql) is None, sql


def test_stored_through_session(session) -> None:
    run(session, "CREATE TABLE lt (id int PRIMARY KEY, v text, n numeric(6,1), i int, b boolean)")
    rows = ", ".join(f"({k}, {'NULL' if k % 4 == 0 else repr(f'v{k}')}, {k}.25, {k}.5, "
                     f"{'TRUE' if k % 2 else 'FALSE'})" for k in range(1000))
    run(session, f"INSERT INTO lt VALUES {rows}")
    run(session, "INSERT INTO lt VALUES (999, 'x', 1, 1, TRUE), "
                 "(1000, 'y', 1.04, 2, NULL) ON CONFLICT DO NOTHING")
    got = fetch(session, "SELECT count(*), count(v), sum(n), sum(i), count(*) FILTER (WHERE b) "
                         "FROM lt")
    assert [tuple(r) for r in got] == [(1001, 751, Decimal("499801.0"), 500502, 500)]


def test_psycopg2_rendering_is_recognised() -> None:
    """What `execute_values` sends: ` -1` for negatives, `'...'::date`, `'...'::timestamptz`."""
    data = [(k, None if k % 3 == 0 else f"o'k {k}", k / 8, k % 2 == 0, -k,
             datetime.date(2024, 1, 1) + datetime.timedelta(days=k),
             datetime.datetime(2024, 5, 1, 12, k, tzinfo=datetime.UTC)) for k in range(4)]
    sql = "INSERT INTO ev VALUES " + ",".join(
        "(" + ",".join(adapt(v).getquoted().decode() for v in r) + ")" for r in data)
    got = literalrows.normalize(sql)
    assert got is not None
    assert got[0].startswith("INSERT INTO ev VALUES ($1,$2,$3,$4,$5,$6::date,$7::timestamptz),")
    assert got[1][7:14] == (1, "o'k 1", Decimal("0.125"), False, -1, "2024-01-02",
                            "2024-05-01T12:01:00+00:00")
    assert got[2][7:14] == (23, 0, 1700, 16, 23, 0, 0)
