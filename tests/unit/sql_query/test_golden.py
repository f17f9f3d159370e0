"""Golden plan tests: the plan after every optimizer rule that changed it.

Each case in `golden/*.txt` is

    query expect=point_get,pushdown_filters
    SELECT ...
    ----
    <the plan after each rule that changed it, headed by the rule's name>

followed by a blank line. `expect=` names rules that must have changed the
plan (so a silently disabled rule fails even while its golden text is being
regenerated). Run with UPDATE_GOLDENFILES=1 to rewrite the expected text.
"""

from __future__ import annotations

import os
import pathlib

import pytest

from .harness import DB

GOLDEN = pathlib.Path(__file__).parent / "golden"


def parse(text: str) -> list[dict]:
    cases = []
    for block in text.strip().split("\n\n"):
        lines = block.strip("\n").split("\n")
        header = lines[0].split()
        assert header[0] == "query", header
        opts = dict(h.split("=", 1) for h in header[1:])
        sep = lines.index("----")
        cases.append({
            "expect": [r for r in opts.get("expect", "").split(",") if r],
            "sql": "\n".join(lines[1:sep]),
            "out": "\n".join(lines[sep + 1 :]),
        })
    return cases


def render(case: dict, db: DB) -> str:
    plan, _ = db.plan(case["sql"])
    out = []
    for name, lines in plan.trace:
        out.append(f"{name}:")
        out.extend("  " + ln for ln in lines)
    return "\n".join(out), [name for name, _ in plan.trace]


def dump(case: dict, out: str) -> str:
    head = "query" + (f" expect={','.join(case['expect'])}" if case["expect"] else "")
    return f"{head}\n{case['sql']}\n----\n{out}\n"


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
