"""After a restart the columnar copies are built in the background (`kivi.columnar.warm`):
while a space waits for its build, `cumulo.columnar = auto` reads rows instead of waiting,
and every answer is the same with the columnar path on, off and auto, before and after the
build. A small key range under `auto` never builds a copy (`exec.vector.run._small_range`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from cumulo.server.kivi.columnar.access import copy_bytes
from cumulo.server.kivi.columnar.warm import read_marker
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn import embedded
from cumulo.server.txn.embedded import open_embedded
from tests.unit.columnar.sqlrun import run

QUERIES = (
    "SELECT g, count(*), sum(v), min(v), max(s) FROM w GROUP BY g ORDER BY g",
    "SELECT id, v FROM w WHERE v > 10 ORDER BY v DESC, id LIMIT 5",
    "SELECT w.g, count(*) FROM w JOIN d ON d.g = w.g WHERE d.name <> 'x' GROUP BY w.g ORDER BY 1",
)


def _answers(s: Any, mode: str) -> list[list]:
    run(s, f"SET cumulo.columnar = {mode}")
    return [run(s, q)[-1] for q in QUERIES]


def _runs(s: Any) -> tuple[int, int]:
    got = run(s, "SELECT cumulo_columnar_runs('vector'), cumulo_columnar_runs('rows')")[-1]
    return got[0]


def test_copies_build_in_the_background_after_a_restart(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    eng = SQLEngine(open_embedded(str(tmp_path), gc_interval=None))
    s = eng.open_session("cumulo", "cumulo", {})
    run(s, "CREATE TABLE w (id int PRIMARY KEY, g int, v int, s text)")
    run(s, "CREATE TABLE d (g int PRIMARY KEY, name text)")
    run(s, "INSERT INTO w SELECT i, i % 5, i, 's' || (i % 7) FROM generate_series(1, 3000) i")
    run(s, "INSERT INTO d SELECT i, 'n' || i FROM generate_series(0, 4) i")
    want = _answers(s, "off")
    assert _answers(s, "on") == want  # builds both copies: the marker names their spaces
    spaces = set(copy_bytes(eng.tm.ltm.kivi))
    assert len(spaces) == 2 and spaces <= read_marker(tmp_path / "kivi")
    run(s, "UPDATE w SET v = -v WHERE g = 1")  # redo after the copies were built
    run(s, "DELETE FROM w WHERE g = 2 AND id < 100")
    want = _answers(s, "off")
    eng.close()

    gate, done = threading.Event(), threading.Event()
    real = embedded.warm_copies

    def gated(*args: Any) -> int:  # the background build waits until the test lets it go
        gate.wait(30)
        try:
            return real(*args)
        finally:
            done.set()

    monkeypatch.setattr(embedded, "warm_copies", gated)
    eng = SQLEngine(open_embedded(str(tmp_path), gc_interval=None))
    try:
        s = eng.open_session("cumulo", "cumulo", {})
        kivi = eng.tm.ltm.kivi
        vector = _runs(s)[0]  # NB: counted by backend pid, which the new engine may reuse
        assert _answers(s, "auto") == want  # pending: the row path answers, nothing built
        assert copy_bytes(kivi) == {}
        assert _runs(s)[0] == vector
        assert _answers(s, "off") == want
        gate.set()
        assert done.wait(30)
        assert spaces <= set(copy_bytes(kivi))  # built with no query asking
        vector = _runs(s)[0]
        assert _answers(s, "auto") == want
        assert _runs(s)[0] > vector  # and `auto` reads the copies now
        assert _answers(s, "on") == want
        run(s, "UPDATE w SET v = 0 WHERE id = 7")  # writes after the background build
        assert _answers(s, "on") == _answers(s, "off") == _answers(s, "auto")
    finally:
        gate.set()
        eng.close()


def test_a_small_key_range_builds_no_copy(engine) -> None:  # type: ignore[no-untyped-def]
    s = engine.open_session("cumulo", "cumulo", {})
    run(s, "CREATE TABLE r (id int PRIMARY KEY, v int)")
    run(s, "INSERT INTO r SELECT i, i % 11 FROM generate_series(1, 30000) i")
    q = "SELECT sum(v), count(*) FROM r WHERE id < 500"
    want = run(s, q)[-1]
    assert copy_bytes(engine.tm.ltm.kivi) == {}  # the row path read the range
    run(s, "SET cumulo.columnar = on")
    assert run(s, q)[-1] == want
    assert copy_bytes(engine.tm.ltm.kivi)
