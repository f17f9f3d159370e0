"""Targets for the driver tests: a throwaway PostgreSQL 15, and a `cumulo serve` process.

Every test that takes `target` runs once per target. PostgreSQL 15 is the
reference: the driver is a general PostgreSQL driver and must pass there.
The Cumulo target is skipped, with the reason in the report, only when the
server cannot be started; once it starts, its failures are real failures.
Tests that need PostgreSQL-only setup (roles per password method, TLS) take
`pg` directly.
"""

from __future__ import annotations

import itertools
import shutil
from dataclasses import dataclass

import pytest

from tests.pg15 import PASSWORD, PG15, available
from tests.server_process import CumuloServer

_names = itertools.count()


@dataclass
class Target:
    """One server the tests can connect to."""

    kind: str
    host: str
    port: int
    user: str = "cumulo"
    password: str | None = PASSWORD

    def dsn(self, **query: object) -> str:
        """Returns a cumulo:// URL for this target, with extra query settings."""
        auth = self.user if self.password is None else f"{self.user}:{self.password}"
        qs = "&".join(f"{k}={v}" for k, v in query.items())
        return f"cumulo://{auth}@{self.host}:{self.port}/cumulo" + (f"?{qs}" if qs else "")


@pytest.fixture(scope="session")
def pg():
    """A PostgreSQL 15 server for the whole test session."""
    if not available():
        pytest.skip("PostgreSQL 15 binaries are not installed in /usr/lib/postgresql/15/bin")
    server = PG15().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def cumulo_target():
    """A `cumulo serve` process for the whole test session (skipped if it cannot start)."""
    server = CumuloServer()
    try:
        server.start(timeout=20)
    except Exception as e:  # noqa: BLE001 - any failure to start is reported as the skip reason
        shutil.rmtree(server.data_dir, ignore_errors=True)
        first = str(e).strip().splitlines()
        pytest.skip(f"cumulo serve did not start: {first[0] if first else e!r}"
                    f" ... {first[-1] if len(first) > 1 else ''}")
    yield server
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)


@pytest.fixture(scope="session", params=["pg15", "cumulo"])
def target(request) -> Target:
    """Each server the driver must work against."""
    if request.param == "pg15":
        server = request.getfixturevalue("pg")
        return Target("pg15", server.host, server.port)
    server = request.getfixturevalue("cumulo_target")
    return Target("cumulo", server.host, server.port, password=None)


@pytest.fixture
def conn(target):
    """A fresh sync connection (autocommit off, as PEP 249 says)."""
    from cumulo.driver import connect

    c = connect(target.dsn())
    yield c
    c.close()


@pytest.fixture
def table(target):
    """A table name unique to the test; the table is dropped afterwards if it was created."""
    from cumulo.driver import connect

    name = f"drv_t{next(_names)}"
    yield name
    c = connect(target.dsn(), autocommit=True)
    c.cursor().execute(f"DROP TABLE IF EXISTS {name}")
    c.close()
