"""Fixtures of the dialect tests; keeps the SQLAlchemy suite folder out of the main run.

`sqla_suite/` loads SQLAlchemy's own pytest plugin, which would take over
every test of the run; `test_sqla_suite.py` runs it in a subprocess instead.

The URLs carry PGPASSWORD when it is set, so that the tests can run against
a PostgreSQL 15 oracle (CUMULO_TEST_ORACLE_PORT, see tests/conftest.py) to
check that their expectations are PostgreSQL's.
"""

from __future__ import annotations

import os

import pytest

collect_ignore = ["sqla_suite"]


def url_for(server, scheme: str = "cumulo") -> str:
    """The SQLAlchemy URL of a test server for `cumulo://` or `cumulo+async://`."""
    password = os.environ.get("PGPASSWORD")
    auth = f"cumulo:{password}" if password else "cumulo"
    return f"{scheme}://{auth}@127.0.0.1:{server.port}/cumulo"


@pytest.fixture(scope="session")
def sync_url(cumulo_server) -> str:
    return url_for(cumulo_server)


@pytest.fixture(scope="session")
def async_url(cumulo_server) -> str:
    return url_for(cumulo_server, "cumulo+async")
