"""The lean SPARK_HOME (pipeline/sparkhome.py): pip's pyspark without its worker zips.

No Spark starts here: these check the link farm and the path clean-up the
Spark tests rely on (their workers' speed, not their answers, depends on it).
"""

from __future__ import annotations

import doctest
import os
import sys

from cumulo.pipeline import sparkhome


def _fake_pip_home(root):
    home = root / "pyspark"
    for d in ("bin", "jars", "python/lib", "__pycache__"):
        (home / d).mkdir(parents=True)
    (home / "python/lib/pyspark.zip").write_bytes(b"")
    (home / "jars/spark-core_2.13-4.3.0.jar").write_bytes(b"")
    (home / "worker.py").write_text("")
    return str(home)


def test_lean_home_links_everything_but_the_worker_zips(tmp_path):
    home = _fake_pip_home(tmp_path)
    assert sparkhome.is_pip_layout(home) and not sparkhome.is_pip_layout(str(tmp_path))
    lean = sparkhome.lean_home(home, root=str(tmp_path))
    assert sorted(os.listdir(lean)) == ["bin", "jars", "worker.py"]
    assert os.path.realpath(os.path.join(lean, "jars")) == os.path.join(home, "jars")
    assert not os.path.exists(os.path.join(lean, "python", "lib", "pyspark.zip"))
    assert sparkhome.lean_home(home, root=str(tmp_path)) == lean  # built once
    assert [n for n in os.listdir(tmp_path) if n.startswith("cumulo-spark-home")] == [
        os.path.basename(lean)]  # no staging folder left behind


def test_a_users_spark_home_is_left_alone(monkeypatch):
    monkeypatch.setenv("SPARK_HOME", "/opt/my-spark")
    sparkhome.use_lean_home()
    assert os.environ["SPARK_HOME"] == "/opt/my-spark"


def test_forget_spark_jar_takes_only_the_core_jar_off_the_path(monkeypatch):
    jar = "/x/jars/spark-core_2.13-4.3.0.jar"
    monkeypatch.setattr(sys, "path", ["/x/pyspark.zip", jar, *sys.path])
    monkeypatch.setitem(sys.path_importer_cache, jar, None)
    sparkhome.forget_spark_jar()
    assert jar not in sys.path and jar not in sys.path_importer_cache
    assert sys.path[0] == "/x/pyspark.zip"
    assert doctest.testmod(sparkhome).failed == 0
