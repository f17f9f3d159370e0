"""Fixtures of the client compatibility suite (issue 4).

Every module talks to the session's one `cumulo serve` process (`cumulo_server`
from tests/conftest.py) with a real client, inside a database of its own
(`client_db`), so modules cannot see each other's tables and psql's listings
are deterministic. `pg15` starts a throwaway PostgreSQL 15 once per session for
the tests that compare Cumulo's answer with the oracle's.
"""

from __future__ import annotations

import psycopg
import pytest

from tests import pg15 as pg15_mod

# The shared checks in types_matrix assert; have pytest explain their failures.
pytest.register_assert_rewrite("tests.clients.types_matrix")


def make_database(server, name: str) -> str:
    """Drops and re-creates database `name` on `server`; returns the name."""
    with psycopg.connect(server.dsn(), autocommit=True) as admin:
        admin.execute(f"drop database if exists {name}")
        admin.execute(f"create database {name}")
    return name


@pytest.fixture(scope="module")
def client_db(cumulo_server, request) -> str:
    """A fresh database named after the test module (test_psql -> cl_psql)."""
    name = "cl_" + request.module.__name__.rsplit(".", 1)[-1].removeprefix("test_")
    return make_database(cumulo_server, name)


@pytest.fixture(scope="session")
def pg15():
    """A PostgreSQL 15 oracle for differential checks (skipped where PG 15 is not installed)."""
    if not pg15_mod.available():
        pytest.skip("PostgreSQL 15 binaries not installed")
    server = pg15_mod.PG15().start()
    yield server
    server.stop()
