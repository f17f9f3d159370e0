"""A row plan's pushed aggregate (`cumulo.columnar = off`, a vector form that fell back, a
copy still being built after a restart) runs as the vector form's work does on the
event-loop front end: on an analytic worker thread while OLTP runs, in the loop's thread
when the server is quiet (`exec.scan.run_scan`, `kivi.columnar.pace.offload`).

Why: the node's partial aggregate is one call that returns when the whole table is
folded, so the loop's thread, which every OLTP session shares, was held that long;
`give_way` parks a statement only between batches."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from cumulo.server.kivi.columnar import pace as pace_mod
from cumulo.server.kivi.columnar.pace import BUSY, Pacer
from cumulo.server.kivi.fanout import local_node
from cumulo.server.sql.context import ExecContext
from cumulo.server.sql.plan import nodes as N
from cumulo.server.waits import Flag
from tests.hubsessions import on_a_hub
from tests.unit.columnar.pacing import reset_pacer
from tests.unit.sql_query.harness import DB, FnCtx

SQL = "select bid, count(*), sum(abalance) from pgbench_accounts group by bid"


@pytest.fixture
def pacer(monkeypatch: pytest.MonkeyPatch) -> Pacer:
    p = reset_pacer(monkeypatch, 0.25)
    monkeypatch.setattr(pace_mod, "MAX_PAUSE", 0.001)
    return p


def _run(db: DB, oltp: Pacer | None) -> list[tuple]:
    if oltp is not None:
        for who in (1, 2):
            for _ in range(BUSY):
                oltp.touch(who=who)
    txn = db.txn.txn  # NB: the embedded transaction itself (an in-process node)
    plan, _ = db.plan(SQL)
    assert any(isinstance(n, N.Scan) and n.aggregate is not None for n in N.walk(plan.root))
    ctx = ExecContext(db.catalog, txn, FnCtx(db.catalog), [], Flag(),
                      settings={"cumulo.columnar": "off"})
    return [r for b in plan.execute(ctx) for r in b]


def test_beside_oltp_it_runs_on_an_analytic_worker(pacer: Pacer,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    db = DB()
    node = local_node(db.txn.txn.ltm.kivi)
    assert node is not None
    threads: list[str] = []
    scan = node.scan

    def spy(req: Any) -> Any:
        if req.aggregate is not None:
            threads.append(threading.current_thread().name)
        return scan(req)

    monkeypatch.setattr(node, "scan", spy)
    want = [(1, 50, sum(i * 10 for i in range(1, 51)))]
    (quiet,) = on_a_hub(lambda: _run(db, None)).results
    (busy,) = on_a_hub(lambda: _run(db, pacer)).results
    assert quiet == busy == want
    assert len(threads) == 2
    assert not threads[0].startswith("analytic")  # alone: a plain call on the loop's thread
    assert threads[1].startswith("analytic")
