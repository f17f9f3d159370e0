"""Shared fixtures: a real `cumulo serve` process per test session."""

from __future__ import annotations

import shutil

import pytest

from tests.server_process import CumuloServer


@pytest.fixture(scope="session")
def cumulo_server():
    """A `cumulo serve` process shared by the integration tests of one pytest run."""
    server = CumuloServer().start()
    yield server
    code = server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)
    assert code == 0, f"cumulo serve did not shut down cleanly ({code}):\n{server.log()}"


@pytest.fixture
def fresh_server():
    """A `cumulo serve` process of the test's own, for restart and crash tests."""
    server = CumuloServer().start()
    yield server
    server.stop()
    shutil.rmtree(server.data_dir, ignore_errors=True)
