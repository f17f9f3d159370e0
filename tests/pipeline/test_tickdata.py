"""`cumulo pipeline tickdata --once`, killed with SIGKILL mid-ingest and run again from its checkpoint.

The first run, a real `cumulo pipeline tickdata --once` process, is killed
(the Python driver and its JVM, the whole process group) once the sink has
committed some micro-batches but not all. The same command's code (`cli.run`,
what `main` runs after starting Spark) then resumes from the checkpoint on the
tests' SparkSession, which saves a second JVM start. Every produced tick must be in
`tickdata` exactly once, every micro-batch in the ledger once, and
`var_results` must equal VaR/ES computed here with numpy from the Avro spool.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import fastavro
import numpy as np
import psycopg
import pytest

from cumulo.pipeline.session import C1_JIT
from cumulo.pipeline.tickdata import cli

TICKS, PRODUCTS = 4000, 3  # 8 micro-batches of one file; 1,333 ticks per product (VaR needs 251)
FILES = TICKS // 500


def _sql(server, query, params=None):
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        cur = c.execute(query, params)
        return cur.fetchall() if cur.description else None


def _command(server, workdir):
    return [sys.executable, "-m", "cumulo.server", "pipeline", "tickdata", "--url", server.dsn(),
            "--ticks", str(TICKS), "--products", str(PRODUCTS), "--once", "--dir", workdir,
            "--files-per-trigger", "1", "--master", "local[2]"]


def _env():
    return {**os.environ, "PYSPARK_SUBMIT_ARGS": C1_JIT}


def _batches(server):
    rows = _sql(server, "SELECT to_regclass('cumulo_sink_ledger') IS NOT NULL")
    if not rows or not rows[0][0]:
        return 0
    return _sql(server, "SELECT count(*) FROM cumulo_sink_ledger "
                        "WHERE query_name = 'tickdata-ingest'")[0][0]


def expected_risk(spool):
    """VaR/ES 99% per product over the last 250 log returns, straight from the Avro files."""
    closes: dict[str, list[tuple]] = {}
    for name in sorted(n for n in os.listdir(spool) if n.endswith(".avro")):
        with open(os.path.join(spool, name), "rb") as f:
            for r in fastavro.reader(f):
                closes.setdefault(r["product"], []).append((r["datetime"], r["tik_close"]))
    out = {}
    for product, pts in closes.items():
        px = np.array([c for _, c in sorted(pts)])
        rets = np.diff(np.log(px))[-250:]
        q = np.percentile(rets, 1.0)
        out[product] = (len(rets), -q, -rets[rets <= q].mean())
    return out


@pytest.mark.timeout(900)
def test_sigkill_mid_ingest_then_restart_is_exactly_once_and_var_matches(spark, cumulo_server,
                                                                         tmp_path, capsys):
    for t in ("tickdata", "var_results"):
        _sql(cumulo_server, f"DROP TABLE IF EXISTS {t}")
    if _batches(cumulo_server):
        _sql(cumulo_server, "DELETE FROM cumulo_sink_ledger WHERE query_name = 'tickdata-ingest'")
    workdir = str(tmp_path / "tickdata")
    log = open(tmp_path / "first.log", "wb")
    first = subprocess.Popen(_command(cumulo_server, workdir), stdout=log, stderr=log,
                             env=_env(), start_new_session=True)
    try:
        deadline = time.monotonic() + 600
        while _batches(cumulo_server) < 2:
            assert first.poll() is None, open(tmp_path / "first.log").read()[-3000:]
            assert time.monotonic() < deadline, "the first run committed nothing in 600 s"
            time.sleep(0.05)
        os.killpg(first.pid, signal.SIGKILL)
        first.wait(30)
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
            first.wait(30)
        log.close()
    at_kill = _batches(cumulo_server)
    assert 2 <= at_kill < FILES, f"killed after {at_kill} of {FILES} batches: not mid-ingest"
    assert _sql(cumulo_server, "SELECT to_regclass('var_results')") == [(None,)]  # no risk yet

    args = cli.parser().parse_args(_command(cumulo_server, workdir)[4:])
    assert cli.run(args, spark) == 0
    assert "risk: VaR/ES 99%" in capsys.readouterr().err

    assert _sql(cumulo_server, "SELECT count(*), count(DISTINCT (product, datetime)) "
                               "FROM tickdata") == [(TICKS, TICKS)]
    ledger = _sql(cumulo_server, "SELECT batch_id, n_rows FROM cumulo_sink_ledger "
                                 "WHERE query_name = 'tickdata-ingest' ORDER BY batch_id")
    assert [b for b, _ in ledger] == list(range(FILES))  # each micro-batch committed once
    assert sum(n for _, n in ledger) == TICKS

    want = expected_risk(os.path.join(workdir, "spool"))
    got = _sql(cumulo_server, "SELECT product, n_obs, var, es, confidence FROM var_results "
                              "ORDER BY product")
    assert [g[0] for g in got] == sorted(want)
    for product, n_obs, var, es, conf in got:
        w = want[product]
        assert (n_obs, conf) == (w[0], 0.99)
        assert var == pytest.approx(w[1], rel=1e-9) and es == pytest.approx(w[2], rel=1e-9)
