"""pg_lsn values: input checks, position order and binary I/O (pgtypes.lsn), its operators
(expr.lsnops); the modules' doctests and the order PostgreSQL's pg_lsn_cmp gives."""

from __future__ import annotations

import doctest
import random

import pytest

from cumulo.server.errors import InvalidParameterValue, InvalidTextRepresentation
from cumulo.server.pgtypes import lsn
from cumulo.server.sql.expr import lsnops


@pytest.mark.parametrize("module", [lsn, lsnops])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted and not result.failed


def test_order_is_by_position_not_text():
    rng = random.Random(7)
    positions = [rng.randrange(1 << 64) for _ in range(500)] + [0, (1 << 64) - 1, 1 << 32]
    values = [lsn.of_position(p) for p in positions]
    assert sorted(values) == [lsn.of_position(p) for p in sorted(positions)]
    assert max(values) == lsn.of_position(max(positions))
    for v, p in zip(values, positions, strict=True):
        assert lsn.parse_lsn(v.lower()) == v and lsn.recv_lsn(lsn.send_lsn(v)) == v
        assert lsn.send_lsn(v) == p.to_bytes(8, "big")


@pytest.mark.parametrize("text", ["foo", "16/", "/1", " 0/0", "0/0 ", "123456789/0", "0/123456789", "1/-1"])
def test_bad_input_is_22p02(text):
    with pytest.raises(InvalidTextRepresentation):
        lsn.parse_lsn(text)


def test_moving_past_the_ends_is_22023():
    with pytest.raises(InvalidParameterValue):
        lsnops._less(lsn.of_position(0), 1)
    with pytest.raises(InvalidParameterValue):
        lsnops._plus(lsn.of_position((1 << 64) - 1), 1)
