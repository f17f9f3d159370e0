"""Fixtures of the columnar unit tests: an SQLEngine over an in-memory embedded store with
no background garbage collection (the tests decide when copies are built and collected)."""

from __future__ import annotations

import pytest

from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded


@pytest.fixture
def engine():  # type: ignore[no-untyped-def]
    eng = SQLEngine(open_embedded(None, gc_interval=None))
    yield eng
    eng.close()
