"""Routing rows to range partitions: the one-column fast path (plain values bisected) puts
every row where the general path (bound tuples) does, with MINVALUE and MAXVALUE bounds,
gaps between partitions, a default partition and NULL keys."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from cumulo.server.errors import CheckViolation
from cumulo.server.sql.catalog.model import Column, Table
from cumulo.server.sql.partitions.members import Partitioned

COLS = (Column("k", 23, attnum=1), Column("v", 25, attnum=2))


def _parts(bounds: list[str]) -> Partitioned:
    parent = Table(100, "p", 2200, COLS, partkey="RANGE (k)")
    kids = [Table(101 + i, f"p{i}", 2200, COLS, partof=100, partbound=b)
            for i, b in enumerate(bounds)]
    return Partitioned(SimpleNamespace(tables=[parent, *kids]), parent)


@pytest.mark.parametrize("bounds", [
    ["FOR VALUES FROM (MINVALUE) TO (0)", "FOR VALUES FROM (10) TO (20)",
     "FOR VALUES FROM (20) TO (MAXVALUE)", "DEFAULT"],
    ["FOR VALUES FROM ('-5') TO (3)", "FOR VALUES FROM (7) TO (9)", "DEFAULT"],
    ["FOR VALUES FROM (MINVALUE) TO (MAXVALUE)"],
])
def test_plain_routing_matches_the_general_path(bounds):
    p = _parts(bounds)
    rows = [(random.randint(-30, 40), "x") for _ in range(500)] + [(None, "n")]
    general = [p.find(p.key_of(r)) for r in rows]
    if None in general:
        with pytest.raises(CheckViolation):
            p.route(rows)
        rows = [r for r, g in zip(rows, general, strict=True) if g is not None]
        general = [g for g in general if g is not None]
    assert p.route(rows) == general
