"""EXPLAIN's PostgreSQL layout on in-memory plans: doctests of the printer modules, plan shapes,
and the hot path: planning a query never prints a plan (the golden harness asks for traces)."""

from __future__ import annotations

import doctest
import json

import pytest
import sqlglot

from cumulo.server.errors import InvalidParameterValue, SyntaxError_
from cumulo.server.sql.context import ParamTypes
from cumulo.server.sql.optimizer import rules
from cumulo.server.sql.plan import explainopts, pgexplain, sqlexpr
from cumulo.server.sql.plan.compiler import COMPILER

from .harness import DB


@pytest.mark.parametrize("module", [sqlexpr, pgexplain, explainopts])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted and not result.failed


def _text(sql: str, analyze: bool = False, **kw) -> list[str]:
    db = DB()
    plan, _ = db.plan(sql)
    stats = None
    if analyze:
        ctx = db.ctx()
        stats = {}
        ctx.__dict__["analyze"] = stats
        for _ in plan.execute(ctx):
            pass
    return pgexplain.render(pgexplain.build(plan.root, stats), timing=False, **kw)


def test_scan_filter_and_index_cond():
    out = _text("select a from t where b = 'two' and c > 1.5", costs=False)
    assert out == ["Seq Scan on t", "  Filter: ((b = 'two'::text) AND (c > 1.5))"], out
    out = _text("select a from t where a = 2", costs=False)
    assert out == ["Index Scan using t_pkey on t", "  Index Cond: (a = 2)"], out


def test_joins_subplans_and_analyze():
    out = _text("select t.a, u.y from t join u on u.x = t.a where t.c is not null", costs=False)
    assert any("Hash Join" in ln or "Nested Loop" in ln for ln in out), out
    out = _text("select a, (select max(y) from u where u.y > t.b) from t", costs=False)
    assert any(ln.strip() == "SubPlan 1" for ln in out), out
    out = _text("select a from t where a > 1", analyze=True)
    assert out[0].endswith("(actual rows=3 loops=1)"), out


def test_json_and_yaml_documents():
    db = DB()
    plan, _ = db.plan("select b, count(*) from t group by b order by b")
    tree = pgexplain.build(plan.root)
    doc = json.loads(pgexplain.render(tree, "json")[0])
    assert doc[0]["Plan"]["Node Type"] == "Sort" and doc[0]["Plan"]["Sort Key"] == ["b"]
    below = json.dumps(doc[0]["Plan"]["Plans"])
    assert '"Node Type": "Aggregate"' in below and '"Group Key": ["b"]' in below, below
    yaml = pgexplain.render(tree, "yaml")[0]
    assert yaml.startswith('- Plan: \n    Node Type: "Sort"\n'), yaml
    assert '      - Node Type: "' in yaml and 'Node Type: "Aggregate"' in yaml, yaml


def test_options_errors():
    with pytest.raises(SyntaxError_):
        explainopts.parse("(foo)")
    with pytest.raises(InvalidParameterValue):
        explainopts.parse("(format csv)")
    with pytest.raises(InvalidParameterValue):
        explainopts.parse("(timing)")
    assert explainopts.parse("(analyze false, costs off)").analyze is False


def test_planning_prints_no_plan(monkeypatch):
    """The optimizer renders plan text only when a trace is asked for (the golden tests)."""
    calls = []
    monkeypatch.setattr(rules, "explain_lines", lambda node: calls.append(1) or [])
    db = DB()
    ast = sqlglot.parse_one("select a from t where a > 1", read="postgres")
    plan = COMPILER.plan_query(ast, db.catalog, ParamTypes([]), ["public"])
    assert plan.trace == [] and calls == []
    COMPILER.plan_query(ast, db.catalog, ParamTypes([]), ["public"], trace=True)
    assert calls
