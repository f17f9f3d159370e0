"""OR factoring changes plans, never results (three-valued logic included)."""

from __future__ import annotations

import pytest

from cumulo.server.sql.plan import builder

from .harness import DB

QUERIES = [
    "select t.a, u.x from t, u where (t.a = u.x and t.b = 'one') or (t.a = u.x and u.y = 'b')",
    "select t.a, u.x from t, u where (t.a = u.x and u.y is null) or (t.a = u.x)",
    "select t.a from t where (c > 0 and b is null) or (c > 0 and a = 4) or (c > 0 and b = 'x')",
    "select t.a, u.x from t, u where (t.c > 1 and u.x = 2) or (t.c > 1 and u.y = 'c') "
    "or (t.c > 1 and u.y is null)",
    "select a from t where (b = 'one' and a = 1) or (b = 'two')",
]


@pytest.mark.parametrize("sql", QUERIES)
def test_factoring_keeps_results(sql, monkeypatch):
    db = DB()
    factored = sorted(db.rows(sql), key=repr)
    monkeypatch.setattr(builder, "factor_or", lambda pred: pred)
    assert sorted(db.rows(sql), key=repr) == factored


def test_common_join_key_becomes_a_hash_join():
    plan, _ = DB().plan(QUERIES[0])
    assert any("algo=hash keys=a=x" in ln for ln in plan.explain())
