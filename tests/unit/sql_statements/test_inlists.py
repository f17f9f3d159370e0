"""Long IN lists of literals: one array constant, probed as a hash set, same answers as lists.

Each query runs with a list long enough to be rewritten (parse.inlists) and with the same
list written as OR-ed equalities (`x = a OR x = b ...`), which no rewrite touches: the rows
must agree, NULL rules included.
"""

from __future__ import annotations

import doctest

from cumulo.server.sql import inlists, paramlists

from .helpers import rows, run

N = inlists.MIN_ITEMS + 36


def _ors(col: str, items: list[str], negate: bool) -> str:
    if negate:
        return " AND ".join(f"{col} <> {x}" for x in items)
    return "(" + " OR ".join(f"{col} = {x}" for x in items) + ")"


def test_rewrite_keeps_typing_rules():
    ints = ", ".join(str(i) for i in range(N))
    assert "'::int8[])" in inlists.rewrite(f"select 1 where x in ({ints})")
    assert "::numeric[]" in inlists.rewrite(f"select 1 where x in ({ints}, 99999999999999999999)")
    mixed = f"select 1 where x in ({ints}, 'a')"
    assert inlists.rewrite(mixed) == mixed
    nulls = f"select 1 where x in ({ints}, NULL)"
    assert inlists.rewrite(nulls) == nulls
    quoted = f"select 'x in ({ints})'"
    assert inlists.rewrite(quoted) == quoted


def test_long_lists_answer_like_short_ones(session):
    run(session, "create table t (id int primary key, b bigint, n numeric, d date, v varchar(9), "
                 "c char(3))")
    run(session, "insert into t select g, g * 10, g / 4.0, date '2020-01-01' + g, 'v' || g, "
                 "'c' || (g % 7) from generate_series(1, 300) g")
    run(session, "insert into t values (1000, null, null, null, null, null)")
    cases = [
        ("id", [str(i) for i in range(0, 3 * N, 3)]),
        ("b", [str(i * 10) for i in range(N)]),
        ("n", [str(i) for i in range(N)]),
        ("v", [f"'v{i}'" for i in range(N)]),
        ("d", [f"'2020-{1 + i % 9:02d}-{1 + i % 28:02d}'" for i in range(N)]),
        ("id + 1", [str(i) for i in range(N)]),
        ("c", [f"'c{i % 7}'" for i in range(N)]),
        ("v", [f"'it''s {i}'" for i in range(N)] + ["'v5'"]),
    ]
    for col, items in cases:
        for negate in (False, True):
            word = "not in" if negate else "in"
            fast = f"select id from t where {col} {word} ({', '.join(items)}) order by id"
            assert inlists.has_long_list(fast)
            slow = f"select id from t where {_ors(col, items, negate)} order by id"
            assert rows(session, fast) == rows(session, slow), (col, negate)
    assert rows(session, "select count(*) from t where id in (" + ", ".join(
        str(i) for i in range(100_000)) + ")") == [(301,)]


def test_long_case_and_deep_expressions_compile(session):
    """Django's bulk_update writes one CASE WHEN per row; Python allows 200 nested parentheses."""
    run(session, "create table t (id int primary key, v text)")
    run(session, "insert into t select g, 'old' from generate_series(1, 500) g")
    whens = " ".join(f"WHEN (t.id = {i}) THEN 'new{i}'" for i in range(1, 401))
    run(session, f"update t set v = CASE {whens} ELSE NULL END where id <= 450")
    assert rows(session, "select count(*), count(v), min(v) from t where id <= 450") == [
        (450, 400, "new1")]
    deep = "id" + " + 1" * 300
    assert rows(session, f"select {deep} from t where id = 1") == [(301,)]
    ands = " AND ".join(f"(id <> {i} OR v IS NULL)" for i in range(300))
    assert rows(session, f"select count(*) from t where {ands}") == [(201,)]


def test_parameter_lists_doctests():
    assert doctest.testmod(paramlists).failed == 0
