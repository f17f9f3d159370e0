"""Fixtures: an SQLEngine over the in-memory FakeTxnManager (or the embedded one once it exists)."""

from __future__ import annotations

import pytest

from cumulo.server.sql.engine import SQLEngine

from .fake_txn import FakeTxnManager


@pytest.fixture
def engine():
    eng = SQLEngine(FakeTxnManager())
    yield eng


@pytest.fixture
def session(engine):
    s = engine.open_session("cumulo", "cumulo", {})
    yield s
    s.close()


def run(session, sql):
    """Runs a Query message; returns [(tag, rows)] with rows fetched."""
    out = []
    for res in session.simple_query(sql):
        rows = res.fetch() if res.columns is not None else None
        out.append((res.tag, rows))
    return out
