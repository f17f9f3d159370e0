"""The `cumulo` streaming sink is exactly-once: a crash between the database commit and Spark's
commit log replays the batch, and the replay is skipped by the ledger.

The target table has no primary key, so a replayed batch that was written twice would show
as duplicate rows: the checks count rows and distinct values.
"""

from __future__ import annotations

import json
import os

import psycopg
import pytest


def _sql(server, query, params=None):
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        cur = c.execute(query, params)
        return cur.fetchall() if cur.description else None


def _spool(folder, first, files, per_file=50):
    os.makedirs(folder, exist_ok=True)
    for f in range(first, first + files):
        rows = [{"n": f * per_file + i, "src": f"file{f}"} for i in range(per_file)]
        tmp = os.path.join(folder, f".f{f:04d}.tmp")
        with open(tmp, "w") as out:
            out.write("\n".join(json.dumps(r) for r in rows))
        os.rename(tmp, os.path.join(folder, f"f{f:04d}.json"))


def _query(spark, server, src, checkpoint, **opts):
    stream = (spark.readStream.schema("n long, src string").option("maxFilesPerTrigger", 1)
              .json(src))
    w = (stream.writeStream.format("cumulo").option("url", server.dsn())
         .option("table", "ss_events").option("checkpointLocation", checkpoint)
         .trigger(availableNow=True))
    for k, v in opts.items():
        w = w.option(k, str(v))
    return w.start()


def test_crash_after_db_commit_replays_and_skips(spark, cumulo_server, tmp_path):
    _sql(cumulo_server, "DROP TABLE IF EXISTS ss_events")
    _sql(cumulo_server, "CREATE TABLE ss_events (n bigint, src text)")  # no key
    src, ckpt = str(tmp_path / "in"), str(tmp_path / "ckpt")
    _spool(src, 0, 4)
    q = _query(spark, cumulo_server, src, ckpt, **{"testing.failAfterCommit": 2})
    with pytest.raises(Exception, match="injected crash after the commit of batch 2"):
        q.awaitTermination()
    assert os.path.exists(os.path.join(ckpt, "offsets", "2"))
    assert not os.path.exists(os.path.join(ckpt, "commits", "2"))  # Spark never logged it
    assert _sql(cumulo_server, "SELECT count(*) FROM ss_events") == [(150,)]  # 0, 1 and 2
    _spool(src, 4, 2)
    q = _query(spark, cumulo_server, src, ckpt)
    q.awaitTermination()
    assert os.path.exists(os.path.join(ckpt, "commits", "2"))
    assert _sql(cumulo_server, "SELECT count(*), count(DISTINCT n), min(n), max(n) "
                               "FROM ss_events") == [(300, 300, 0, 299)]
    ledger = _sql(cumulo_server, "SELECT batch_id, n_rows FROM cumulo_sink_ledger "
                                 "WHERE query_name = %s ORDER BY batch_id", (ckpt,))
    assert ledger == [(b, 50) for b in range(6)]  # batch 2 once, though Spark ran it twice


def test_a_target_dropped_between_queries_is_created_again(spark, cumulo_server, tmp_path):
    """The sink prepares its target once per process; a table dropped since is recreated
    (createTable) by the commit that finds it missing, and that batch lands once."""
    _sql(cumulo_server, "DROP TABLE IF EXISTS ss_events")
    src = str(tmp_path / "in")
    _spool(src, 0, 1)
    opts = {"createTable": "true", "primaryKey": "n", "upsert": "true"}
    _query(spark, cumulo_server, src, str(tmp_path / "c1"), **opts).awaitTermination()
    assert _sql(cumulo_server, "SELECT count(*) FROM ss_events") == [(50,)]
    _sql(cumulo_server, "DROP TABLE ss_events")
    _spool(src, 1, 1)
    _query(spark, cumulo_server, src, str(tmp_path / "c2"), **opts).awaitTermination()
    assert _sql(cumulo_server, "SELECT count(*), count(DISTINCT n), min(n), max(n) "
                               "FROM ss_events") == [(100, 100, 0, 99)]
