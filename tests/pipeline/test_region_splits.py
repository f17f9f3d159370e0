"""A table split into regions is read one partition per region (`cumulo_splits`' first choice)."""

from __future__ import annotations

from cumulo.server.kivi.api import SplitRegion
from cumulo.server.kivi.keycodec import encode_key
from cumulo.server.kivi.node import KiviNode
from cumulo.server.sql.direct.scan import region_starts


def test_region_starts_are_the_split_keys_of_the_space():
    node = KiviNode()
    assert region_starts(node, 7) == []  # one region: the caller cuts by key quantiles
    node.split_region(SplitRegion(7, encode_key((60,))))
    node.split_region(SplitRegion(7, encode_key((30,))))
    node.split_region(SplitRegion(8, encode_key((5,))))
    assert region_starts(node, 7) == [encode_key((30,)), encode_key((60,))]
    assert region_starts(node, 8) == [encode_key((5,))]
    assert region_starts(object(), 7) == []
