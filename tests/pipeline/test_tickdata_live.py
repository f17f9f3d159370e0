"""`cumulo pipeline tickdata` in live mode (no --once): start, ingest while producing, Ctrl-C.

The command's own code (`cli.run`, what `main` runs once Spark is up) runs
on the tests' SparkSession, which saves a second JVM start: its producer
writes ticks at a steady rate, the streaming query ingests them and the
risk job runs every two seconds. Once every tick is visible in SQL and a
risk run over all products has been printed, the test delivers SIGINT to
its own process, as Ctrl-C in a terminal would (pyspark's SIGINT handler,
which cancels jobs inside py4j calls, is set aside while the loop runs). The run must stop by
itself and return 0, report its produced-to-visible latency, leave no
streaming query behind, and have written every tick to `tickdata` once.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import psycopg
import pytest

from cumulo.pipeline.tickdata import cli

TICKS, PRODUCTS = 4000, 3


def _sql(server, query, params=None):
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        cur = c.execute(query, params)
        return cur.fetchall() if cur.description else None


def _ticks(server):
    """Ticks the ingest query committed (its ledger rows), 0 before the ledger exists."""
    if not _sql(server, "SELECT 1 FROM pg_class WHERE relname = 'cumulo_sink_ledger'"):
        return 0
    return _sql(server, "SELECT coalesce(sum(n_rows), 0) FROM cumulo_sink_ledger "
                        "WHERE query_name = 'tickdata-ingest'")[0][0]


class CtrlC(threading.Thread):
    """Presses Ctrl-C (SIGINT to this process) once `ready()` holds; records why it gave up."""

    def __init__(self, ready, limit: float) -> None:
        super().__init__(daemon=True)
        self.ready, self.limit, self.error = ready, limit, None
        self.done = threading.Event()

    def run(self) -> None:
        deadline = time.monotonic() + self.limit
        try:
            while not self.done.is_set() and not self.ready():
                if time.monotonic() > deadline:
                    self.error = "the live run did not ingest everything in time"
                    break
                time.sleep(0.5)
        except Exception as e:  # noqa: BLE001 (reported by the test)
            self.error = repr(e)
        if not self.done.is_set():
            os.kill(os.getpid(), signal.SIGINT)


@pytest.mark.timeout(900)
def test_live_mode_ingests_while_producing_and_stops_on_ctrl_c(spark, cumulo_server, tmp_path,
                                                                capfd):
    for t in ("tickdata", "var_results"):
        _sql(cumulo_server, f"DROP TABLE IF EXISTS {t}")
    if _ticks(cumulo_server):
        _sql(cumulo_server, "DELETE FROM cumulo_sink_ledger WHERE query_name = 'tickdata-ingest'")
    args = cli.parser().parse_args([
        "tickdata", "--url", cumulo_server.dsn(), "--ticks", str(TICKS), "--products",
        str(PRODUCTS), "--rate", "1000", "--risk-every", "2", "--files-per-trigger", "2",
        "--dir", str(tmp_path / "work")])
    def ready():  # every tick visible, and a risk run over all of them written
        return _ticks(cumulo_server) == TICKS and _sql(
            cumulo_server, "SELECT count(*) FROM pg_class WHERE relname = 'var_results'") == [
            (1,)] and _sql(cumulo_server, "SELECT count(*) FROM var_results WHERE n_obs = 250"
                                          ) == [(PRODUCTS,)]

    presser = CtrlC(ready, 600)
    presser.start()
    try:
        assert cli.run(args, spark) == 0
    finally:
        presser.done.set()
        presser.join(30)
    assert presser.error is None, presser.error
    out = capfd.readouterr().err
    assert "risk: VaR/ES 99%" in out and "stopping" in out and "latency over" in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    assert not spark.streams.active
    assert _sql(cumulo_server, "SELECT count(*), count(DISTINCT (product, datetime)) "
                               "FROM tickdata") == [(TICKS, TICKS)]
    assert _sql(cumulo_server, "SELECT count(*) FROM var_results") == [(PRODUCTS,)]
    ids = [b for (b,) in _sql(cumulo_server, "SELECT batch_id FROM cumulo_sink_ledger WHERE "
                                             "query_name = 'tickdata-ingest' ORDER BY batch_id")]
    assert ids == list(range(len(ids)))
