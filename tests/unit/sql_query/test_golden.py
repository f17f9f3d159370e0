"""Golden plan tests: the plan after every optimizer rule that changed it.

Each case in `golden/*.txt` is

    query expect=point_get,pushdown_filters
    SELECT ...
    ----
    <the plan after each rule that changed it, headed by the rule's name>

followed by a blank line. `expect=` names rules that must have changed the
plan (so a silently disabled rule fails even while its golden text is being
regenerated). `analyze=t,u` collects ANALYZE statistics for those tables
before planning. Lines starting with `#` before a case say why its plan is
the right one. Run with UPDATE_GOLDENFILES=1 to rewrite the expected text.
"""

from __future__ import annotations

import os
import pathlib

import pytest

from cumulo.server.sql.optimizer import stats

from .harness import DB

GOLDEN = pathlib.Path(__file__).parent / "golden"


def parse(text: str) -> list[dict]:
    cases = []
    for block in text.strip().split("\n\n"):
        lines = block.strip("\n").split("\n")
        why = [ln for ln in lines if ln.startswith("#")]  # comments: why the plan is right
        lines = lines[len(why):]
        header = lines[0].split()
        assert header[0] == "query", header
        opts = dict(h.split("=", 1) for h in header[1:])
        sep = lines.index("----")
        cases.append({
            "why": why,
            "expect": [r for r in opts.get("expect", "").split(",") if r],
            "analyze": [t for t in opts.get("analyze", "").split(",") if t],
            "sql": "\n".join(lines[1:sep]),
            "out": "\n".join(lines[sep + 1 :]),
        })
    return cases


def render(case: dict, db: DB) -> tuple[str, list[str]]:
    """The plan trace; with `analyze=t1,t2` the tables get ANALYZE statistics first."""
    tables = {t.name: t for t in db.catalog.tables}
    for name in case["analyze"]:
        stats.analyze(db.txn, tables[name])
    try:
        plan, _ = db.plan(case["sql"])
    finally:
        stats.STATS.clear()
    out = []
    for name, lines in plan.trace:
        out.append(f"{name}:")
        out.extend("  " + ln for ln in lines)
    return "\n".join(out), [name for name, _ in plan.trace]


def dump(case: dict, out: str) -> str:
    head = "query" + (f" expect={','.join(case['expect'])}" if case["expect"] else "")
    if case["analyze"]:
        head += f" analyze={','.join(case['analyze'])}"
    why = "".join(w + "\n" for w in case["why"])
    return f"{why}{head}\n{case['sql']}\n----\n{out}\n"


FILES = sorted(GOLDEN.glob("*.txt"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_golden(path: pathlib.Path) -> None:
    db = DB()
    cases = parse(path.read_text())
    assert cases, "empty golden file"
    got_all = []
    failures = []
    for case in cases:
        out, rules = render(case, db)
        for rule in case["expect"]:
            if rule not in rules:
                failures.append(f"{case['sql']}: expected rule {rule} to change the plan")
        got_all.append(dump(case, out))
        if out != case["out"] and not os.environ.get("UPDATE_GOLDENFILES"):
            failures.append(f"{case['sql']}:\n--- expected\n{case['out']}\n--- got\n{out}")
    if os.environ.get("UPDATE_GOLDENFILES"):
        path.write_text("\n".join(got_all))
    assert not failures, "\n\n".join(failures)
