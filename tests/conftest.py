"""Shared fixtures: a real `cumulo serve` process per test session, PostgreSQL 15 oracles."""

from __future__ import annotations

import faulthandler
import os
import shutil
import sys
import threading
import time

import pytest

from cumulo.pipeline.session import make_discoverable
from cumulo.server.sql.expr import pushed  # noqa: F401 - the filter compilers KiVi nodes run
from tests import pg15 as pg15_mod
from tests import reaper
from tests.server_process import CumuloServer

# Whichever test starts Spark's JVM first fixes its Python workers' environment for the
# whole run, so `format("cumulo")` must be discoverable before any test starts Spark.
make_discoverable()


def pytest_sessionstart(session):
    """Stops the servers that an earlier, killed test run left running (tests/reaper.py)."""
    for line in reaper.reap_stale():
        print(f"tests/reaper.py: {line}")


_exit_status: list[int] = []


def pytest_sessionfinish(session, exitstatus):
    _exit_status.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    """Ends the run even if a test left a non-daemon thread blocked (a lock wait, a join
    that timed out): the interpreter waits for every such thread at exit, and the run
    would never end. A watchdog gives the normal exit (which also stops idle thread
    pools) two minutes, then prints every thread's stack and exits with the tests' own
    status (the test that left the thread has failed already if its check saw it)."""
    status = _exit_status[0] if _exit_status else 1

    def watchdog() -> None:
        time.sleep(120)
        left = ", ".join(t.name for t in threading.enumerate()
                         if t is not threading.main_thread() and not t.daemon)
        print(f"\ntests/conftest.py: the run did not exit; threads left: {left}", file=sys.stderr)
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        sys.stderr.flush()
        os._exit(status)

    threading.Thread(target=watchdog, name="exit-watchdog", daemon=True).start()


@pytest.fixture(scope="session")
def cumulo_server():
    """A `cumulo serve` process shared by the integration tests of one pytest run.

    With CUMULO_TEST_ORACLE_PORT set, the tests run against that server instead
    (a PostgreSQL 15 on 127.0.0.1): this is how their expectations are checked
    against the oracle.
    """
    oracle = os.environ.get("CUMULO_TEST_ORACLE_PORT")
    if oracle:
        yield CumuloServer(port=int(oracle))
        return
    server = CumuloServer().start()
    yield server
    code = server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)
    assert code == 0, f"cumulo serve did not shut down cleanly ({code}):\n{server.log()}"


def _own_server():
    server = CumuloServer().start()
    yield server
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


@pytest.fixture
def fresh_server():
    """A `cumulo serve` process of the test's own, for restart and crash tests."""
    yield from _own_server()


@pytest.fixture(scope="module")
def module_server():
    """A `cumulo serve` process of the module's own, for tests that read its whole log (or
    need settings no other module touched) but neither restart nor kill it."""
    yield from _own_server()


@pytest.fixture(scope="module")
def pg15():
    """A throwaway PostgreSQL 15 per test module: the oracle of differential tests.

    Missing binaries fail the test rather than skip it: the README's test command
    installs them, and a differential check that did not run must not look passed.
    """
    if not pg15_mod.available():
        pytest.fail("PostgreSQL 15 binaries are missing: the oracle is required")
    server = pg15_mod.PG15().start()
    yield server
    server.stop()
