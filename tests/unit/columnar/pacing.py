"""The process pacer (`kivi.columnar.pace.PACER`) put back to a known state for one test:
no session seen yet, nothing paced, the GIL switch interval left alone."""

from __future__ import annotations

import pytest

from cumulo.server.kivi.columnar import pace as pace_mod
from cumulo.server.kivi.columnar.pace import Pacer


def reset_pacer(monkeypatch: pytest.MonkeyPatch, share: float) -> Pacer:
    p = pace_mod.PACER
    monkeypatch.setattr(p, "share", share)
    monkeypatch.setattr(p, "seen", {})
    monkeypatch.setattr(p, "count", 0)
    monkeypatch.setattr(p, "before", 0)
    monkeypatch.setattr(p, "since", 0.0)
    monkeypatch.setattr(p, "paced", {})
    monkeypatch.setattr(p, "switch", None)
    return p
