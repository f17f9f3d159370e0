"""Runs SQLite's sqllogictest select1..5 against a real `cumulo serve` through psycopg.

Every record must pass except those listed in `known_failures.txt` (file:line),
and every listed record must still fail: the list only shrinks. Rewrite it with
`UPDATE_SLT_KNOWN=1` after fixing something.
"""

from __future__ import annotations

import os
from pathlib import Path

import psycopg
import pytest

from tests.slt.runner import run_file

SUITE = Path(__file__).resolve().parents[2].parent / "shared" / "suites" / "slt"
KNOWN = Path(__file__).with_name("known_failures.txt")
FILES = [f"select{i}.test" for i in range(1, 6)]


def _known() -> dict[str, set[int]]:
    known: dict[str, set[int]] = {}
    if KNOWN.exists():
        for line in KNOWN.read_text().split():
            name, _, num = line.partition(":")
            known.setdefault(name, set()).add(int(num))
    return known


@pytest.mark.parametrize("name", FILES)
def test_slt_file(cumulo_server, name):
    path = SUITE / name
    if not path.exists():
        pytest.skip(f"{path} is not present: the external test suites are not part of this repository")
    db = "slt_" + name.split(".")[0]
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as admin:
        admin.execute(f"drop database if exists {db}")
        admin.execute(f"create database {db}")
    with psycopg.connect(cumulo_server.dsn(dbname=db), autocommit=True) as conn:
        passed, failures = run_file(conn, str(path))
    failed_lines = {line for line, _ in failures}
    known = _known().get(name, set())
    if os.environ.get("UPDATE_SLT_KNOWN"):
        others = (
            [x for x in KNOWN.read_text().split() if not x.startswith(name + ":")]
            if KNOWN.exists()
            else []
        )
        KNOWN.write_text(
            "".join(
                f"{x}\n" for x in sorted(others + [f"{name}:{n}" for n in sorted(failed_lines)])
            )
        )
        return
    new = sorted(failed_lines - known)
    fixed = sorted(known - failed_lines)
    print(f"{name}: {passed} passed, {len(failures)} failed ({len(known)} known)")
    detail = "\n".join(f"  line {line}: {why}" for line, why in failures if line in new[:20])
    assert not new, f"{name}: {len(new)} records fail that are not known failures:\n{detail}"
    assert not fixed, f"{name}: known failures now pass, shrink known_failures.txt: {fixed[:20]}"
