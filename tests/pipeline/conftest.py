"""The pipeline tests' one SparkSession (PIPELINE.md §6): local[2], C1 JIT, shared by every test.

`local[2,3]`: two cores, and a failed task is retried (up to 3 attempts), as
on a cluster, so the retry tests see real retries. Starting the JVM is the
cost, so the session is made once per pytest run and stopped at the end.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    from cumulo.pipeline.session import spark_session

    session = spark_session("local[2,3]", app="cumulo-tests", fast_start=True,
                            conf={"spark.default.parallelism": "2"})
    yield session
    session.stop()
