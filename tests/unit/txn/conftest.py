"""Fixture of the transaction unit tests: an in-memory embedded transaction manager with no
background garbage collection (the tests decide when versions are collected)."""

from __future__ import annotations

import pytest

from cumulo.server.txn.embedded import open_embedded


@pytest.fixture
def tm():  # type: ignore[no-untyped-def]
    m = open_embedded(None, gc_interval=None)
    yield m
    m.close()
