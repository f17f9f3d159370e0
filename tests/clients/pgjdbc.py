"""pgJDBC in this test process: one JVM (JPype) with Debian's PostgreSQL JDBC driver.

A JVM cannot be restarted in a process, so the first test that needs pgJDBC starts it
and it is left to exit with the process; every test module that uses pgJDBC goes
through `start`, so whichever runs first starts it with the right class path.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

JAR = "/usr/share/java/postgresql.jar"


def start() -> Any:
    """Returns the `jpype` module with pgJDBC's JVM running; skips the test when it cannot be."""
    jpype = pytest.importorskip("jpype", reason="JPype1 is not installed (pip install JPype1)")
    if not os.path.exists(JAR) or not shutil.which("java"):
        pytest.skip(f"needs {JAR} (apt-get install libpostgresql-jdbc-java) and java")
    if not jpype.isJVMStarted():
        jpype.startJVM(classpath=[JAR], convertStrings=False)
    elif JAR not in str(jpype.java.lang.System.getProperty("java.class.path")):
        pytest.skip("a JVM without pgJDBC was already started in this process")
    return jpype
