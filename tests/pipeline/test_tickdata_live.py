"""`cumulo pipeline tickdata` in live mode (no --once): start, ingest while producing, Ctrl-C.

A real `cumulo pipeline tickdata` process produces ticks at a steady rate,
ingests them through the streaming query and runs the risk job every two
seconds. Once every tick is visible in SQL and the risk job has written its
results, the test presses Ctrl-C the way a terminal does (SIGINT to the
whole process group, the Spark JVM included). The process must stop by
itself, exit 0, report its produced-to-visible latency, and leave every
tick in `tickdata` exactly once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest

from cumulo.pipeline.session import C1_JIT

TICKS, PRODUCTS = 4000, 3


def _sql(server, query, params=None):
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        cur = c.execute(query, params)
        return cur.fetchall() if cur.description else None


def _progress(server):
    """(ticks the ingest query committed, rows of var_results), 0 where a table is missing."""
    have = {r[0] for r in _sql(server, "SELECT relname FROM pg_class WHERE relname IN "
                                       "('cumulo_sink_ledger', 'var_results')")}
    ticks = _sql(server, "SELECT coalesce(sum(n_rows), 0) FROM cumulo_sink_ledger "
                         "WHERE query_name = 'tickdata-ingest'")[0][0] \
        if "cumulo_sink_ledger" in have else 0
    risk = _sql(server, "SELECT count(*) FROM var_results")[0][0] if "var_results" in have else 0
    return ticks, risk


def _alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.timeout(900)
def test_live_mode_ingests_while_producing_and_stops_on_ctrl_c(cumulo_server, tmp_path):
    for t in ("tickdata", "var_results"):
        _sql(cumulo_server, f"DROP TABLE IF EXISTS {t}")
    if _progress(cumulo_server)[0]:
        _sql(cumulo_server, "DELETE FROM cumulo_sink_ledger WHERE query_name = 'tickdata-ingest'")
    logf = tmp_path / "live.log"
    cmd = [sys.executable, "-m", "cumulo.server", "pipeline", "tickdata", "--url",
           cumulo_server.dsn(), "--ticks", str(TICKS), "--products", str(PRODUCTS),
           "--rate", "1000", "--risk-every", "2", "--files-per-trigger", "2",
           "--dir", str(tmp_path / "work"), "--master", "local[2]"]
    with open(logf, "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=log, start_new_session=True,
                                env={**os.environ, "PYSPARK_SUBMIT_ARGS": C1_JIT})
    try:
        deadline = time.monotonic() + 600
        # every tick visible, and a risk run over all products printed (not only written)
        while _progress(cumulo_server)[0] != TICKS or "risk: VaR/ES 99%" not in logf.read_text():
            assert proc.poll() is None, logf.read_text()[-3000:]
            assert time.monotonic() < deadline, logf.read_text()[-3000:]
            time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole group
        assert proc.wait(120) == 0, logf.read_text()[-3000:]
        stop = time.monotonic() + 30
        while _alive(proc.pid) and time.monotonic() < stop:  # the JVM exits after its driver
            time.sleep(0.2)
        assert not _alive(proc.pid), "a process of the pipeline outlived Ctrl-C"
    finally:
        if _alive(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)
    out = logf.read_text()
    assert "stopping" in out and "Traceback" not in out, out[-3000:]
    assert _progress(cumulo_server) == (TICKS, PRODUCTS)
    assert "produced-to-visible p50" in out or "latency over" in out, out[-3000:]
    assert _sql(cumulo_server, "SELECT count(*), count(DISTINCT (product, datetime)) "
                               "FROM tickdata") == [(TICKS, TICKS)]
    ids = [b for (b,) in _sql(cumulo_server, "SELECT batch_id FROM cumulo_sink_ledger WHERE "
                                             "query_name = 'tickdata-ingest' ORDER BY batch_id")]
    assert ids == list(range(len(ids)))
