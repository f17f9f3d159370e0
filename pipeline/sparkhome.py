"""A SPARK_HOME for pip-installed pyspark whose Python workers import pyspark from site-packages.

Spark puts `$SPARK_HOME/python/lib/pyspark.zip` and the py4j zip at the
front of every Python worker's PYTHONPATH. With pip's pyspark, SPARK_HOME is
the package folder, which ships those zips too, so every worker process
imports pyspark from the zip instead of the installed package, and:

- a zip holds no bytecode cache, so each new worker compiles pyspark's
  modules from source: about 2.3 s of CPU per process against 0.8 s from
  site-packages (measured: import pyspark.worker, pyspark.sql.datasource,
  pyarrow and cumulo.pipeline.source, loaded machine);
- each task calls `importlib.invalidate_caches()`, which makes every zip on
  sys.path re-read its whole directory: about 0.4 s of CPU per task with the
  two zips and the spark-core jar, 0.08 s with the jar alone.

A streaming micro-batch runs several Python tasks and a commit process, so
this was most of the Python CPU of a micro-batch. The fix is a SPARK_HOME of
symbolic links to the package's folders except `python/`: the JVM (bin/,
jars/) is the same one, and the workers, finding no zips, import the same
pyspark from site-packages with its bytecode cache. It is built once per
pyspark folder, in the temp folder, and used only when the user has not set
SPARK_HOME and pyspark is the pip layout (its folder holds `jars/` and
`python/lib/pyspark.zip`).

The spark-core jar stays on the workers' path whatever SPARK_HOME is (Spark
adds the jar its Python glue class came from) and holds no Python, so the
entry points of the `cumulo` sources and sinks in a worker take it off
(`forget_spark_jar`): the worker is reused, so its later tasks skip the
re-read (about 6,000 entries).
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

import pyspark

LEFT_OUT = {"python", "__pycache__"}


def package_home() -> str:
    """The folder of the installed pyspark package (pip's SPARK_HOME)."""
    return os.path.dirname(os.path.abspath(pyspark.__file__))


def is_pip_layout(home: str) -> bool:
    """Whether `home` is pip's pyspark folder: the JVM's jars and the workers' zip inside."""
    return (os.path.isdir(os.path.join(home, "jars"))
            and os.path.isfile(os.path.join(home, "python", "lib", "pyspark.zip")))


def lean_home(home: str, root: str | None = None) -> str:
    """Builds (once) and returns the link farm for `home`: every entry but python/."""
    digest = hashlib.sha1(home.encode()).hexdigest()[:12]
    target = os.path.join(root or tempfile.gettempdir(), f"cumulo-spark-home-{os.getuid()}-{digest}")
    if os.path.isdir(target):
        return target
    staging = tempfile.mkdtemp(prefix=os.path.basename(target) + ".", dir=os.path.dirname(target))
    for name in sorted(os.listdir(home)):
        if name not in LEFT_OUT:
            os.symlink(os.path.join(home, name), os.path.join(staging, name))
    try:
        os.rename(staging, target)
    except OSError:  # another process built it first: use theirs
        for name in os.listdir(staging):
            os.unlink(os.path.join(staging, name))
        os.rmdir(staging)
    return target


def use_lean_home() -> None:
    """Points SPARK_HOME at the lean home, unless the user set SPARK_HOME or pyspark is not pip's.

    Only a JVM started after this call sees it.
    """
    if os.environ.get("SPARK_HOME"):
        return
    home = package_home()
    if is_pip_layout(home):
        os.environ["SPARK_HOME"] = lean_home(home)


def is_spark_jar(entry: str) -> bool:
    """Whether a sys.path entry is the spark-core jar Spark puts on its workers' path.

    >>> is_spark_jar("/x/jars/spark-core_2.13-4.3.0.jar"), is_spark_jar("/x/pyspark.zip")
    (True, False)
    """
    name = os.path.basename(entry)
    return name.startswith("spark-core_") and name.endswith(".jar")


def forget_spark_jar() -> None:
    """Takes the spark-core jar off this process's import path (a Spark worker's; see above)."""
    if any(is_spark_jar(p) for p in sys.path):
        sys.path[:] = [p for p in sys.path if not is_spark_jar(p)]
        for p in [p for p in sys.path_importer_cache if is_spark_jar(p)]:
            del sys.path_importer_cache[p]
