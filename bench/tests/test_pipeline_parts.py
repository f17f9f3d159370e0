"""The pipeline workload's pure parts: the COPY payload and the sustained-rate arithmetic."""

from __future__ import annotations

import doctest
import struct

from bench.workloads import pipeline


def test_doctests() -> None:
    assert doctest.testmod(pipeline).failed == 0


def test_copy_payload_is_pg_binary_copy() -> None:
    payload = pipeline.copy_binary(3)
    assert payload.startswith(b"PGCOPY\n\xff\r\n\x00") and payload.endswith(b"\xff\xff")
    first = payload[19:19 + 2 + 4 + 8 + 4 + 4 + 4 + 8]
    assert struct.unpack(">hiqiiid", first) == (3, 8, 1, 4, 1, 8, 0.25)


def test_sustained_skips_the_first_batch_and_empty_ones() -> None:
    p = [{"numInputRows": n, "durationMs": {"triggerExecution": ms}}
         for n, ms in [(100, 5000), (300, 1000), (0, 10), (100, 1000)]]
    assert pipeline.sustained(p) == 400 * 1000.0 / 2000
    assert pipeline.sustained(p[:1]) is None
