"""Fixtures: an SQLEngine over an in-memory embedded transaction manager."""

from __future__ import annotations

import pytest

from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded


@pytest.fixture
def engine():
    eng = SQLEngine(open_embedded(None, gc_interval=None))
    yield eng
    eng.close()


@pytest.fixture
def session(engine):
    s = engine.open_session("cumulo", "cumulo", {})
    yield s
    s.close()
