"""A local SparkSession set up for Cumulo (tests, the tickdata pipeline, benchmarks).

What it takes care of (PIPELINE.md §1 and §6):

- Spark's Python workers run this interpreter (`PYSPARK_PYTHON`), so they can
  import `cumulo`;
- `pyspark_cumulo` must be found by `pkgutil.iter_modules()` in those
  workers for `format("cumulo")` to auto-register. A regular install puts it
  in site-packages; an editable one maps it through an import hook that
  `iter_modules` does not see, so its folder goes onto `PYTHONPATH`;
- with pip's pyspark, SPARK_HOME is a lean copy whose workers import pyspark
  from site-packages rather than from a zip (`sparkhome.py`: seconds of CPU
  per worker process, tenths per task);
- filter pushdown is enabled (a reader with `pushFilters` fails without it),
  the session time zone is UTC, the UI is off, and the PostgreSQL JDBC jar is
  on the class path for the JDBC comparison path.
"""

from __future__ import annotations

import os
import pkgutil
import sys
from typing import Any

import pyspark_cumulo

from .sparkhome import use_lean_home

JDBC_JAR = "/usr/share/java/postgresql.jar"
C1_JIT = "--driver-java-options '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' pyspark-shell"


def make_discoverable() -> None:
    """Puts pyspark_cumulo's folder on PYTHONPATH unless iter_modules already finds it,
    and picks the lean SPARK_HOME (`sparkhome.use_lean_home`).

    Spark's JVM starts once per Python process and its Python workers inherit the JVM's
    environment from that moment, so a process that may start Spark elsewhere first (a
    test run: the JDBC client tests) calls this before then.
    """
    use_lean_home()
    if any(m.name == "pyspark_cumulo" for m in pkgutil.iter_modules()):
        return
    folder = os.path.dirname(os.path.abspath(pyspark_cumulo.__file__))
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if folder not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([folder, *paths])


def spark_session(master: str = "local[*]", app: str = "cumulo", fast_start: bool = False,
                  conf: dict[str, str] | None = None) -> Any:
    """Returns a SparkSession for Cumulo; `fast_start` picks C1-only JIT (tests, not benchmarks)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if fast_start:
        os.environ.setdefault("PYSPARK_SUBMIT_ARGS", C1_JIT)
    make_discoverable()
    from pyspark.sql import SparkSession  # NB: after the environment is set for its JVM

    b = (SparkSession.builder.master(master).appName(app)
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.sql.python.filterPushdown.enabled", "true")
         .config("spark.sql.shuffle.partitions", "2" if master.startswith("local[2") else "4"))
    if os.path.exists(JDBC_JAR):
        b = b.config("spark.jars", JDBC_JAR).config("spark.driver.extraClassPath", JDBC_JAR)
    for k, v in (conf or {}).items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
