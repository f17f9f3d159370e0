"""Large commits in cluster mode: redo records in parts, Applies in pieces.

A record above `RemoteLogGroup.part_bytes` travels to a logger (a real
`LoggerService` behind `kivi.remote`) as parts, each its own request; recovery
(`read_log`) gives it back whole, and ignores a record some of whose parts never
reached the files (a crash mid-way). An Apply above `RemoteNode.apply_rows`
writes reaches a real KiVi node as several, all at its ts.
"""

from __future__ import annotations

import doctest
import os

import pytest

from cumulo.server.cluster.proxies import RemoteLogGroup
from cumulo.server.cluster.services import LoggerService
from cumulo.server.kivi import remote
from cumulo.server.kivi.api import Apply, Get, SpaceWrites, Write
from cumulo.server.kivi.node import KiviNode
from cumulo.server.kivi.remote import NodeServerThread, RemoteNode, apply_parts
from cumulo.server.txn import logger
from cumulo.server.txn.codec import pack_record, unpack_record
from cumulo.server.txn.logger import RedoLog, read_log, split_record


def test_doctests():
    for module in (logger, remote):
        assert doctest.testmod(module).failed == 0


def test_a_big_record_goes_in_parts_and_comes_back_whole(tmp_path):
    svc = LoggerService(str(tmp_path / "log"), "L0")
    server = NodeServerThread(svc, offload=svc.offload)
    try:
        group = RemoteLogGroup([(server.host, server.port)], part_bytes=4096)
        keys = [b"k%06d" % i for i in range(3000)]
        rows = [(i, "x" * 20) for i in range(3000)]
        big = pack_record(41, [], (), [SpaceWrites(5, keys, rows)])
        small = pack_record(42, [Write(5, b"z", (1, "y"))])
        group.log(41, big)
        group.log(42, small)
        assert svc.records > len(big) // 4096  # one request (and record) per part
        found = {unpack_record(p)[0]: p for p in read_log(str(tmp_path / "log"))}
        assert found == {41: big, 42: small}
        group.close()
    finally:
        server.stop()
        svc.close()


def test_a_record_missing_a_part_is_not_recovered(tmp_path):
    """A crash after some parts were durable: the commit was never acknowledged, and
    recovery must not replay a piece of it (nor choke on it)."""
    payload = os.urandom(10_000)
    parts = split_record(9, payload, 1000, 1)
    log = RedoLog(str(tmp_path), "L0")
    for p in parts[:-1]:
        log.log(9, p)
    log.log(10, b"\x94\x0a\x90\x90\x90")  # a whole record ([10, [], [], []]) in between
    log.close()
    assert list(read_log(str(tmp_path))) == [b"\x94\x0a\x90\x90\x90"]
    log = RedoLog(str(tmp_path), "L0")  # a new segment, as after a restart
    log.log(9, parts[-1])
    log.log(9, parts[0])  # sent twice (a retried request): counts once
    log.close()
    assert sorted(read_log(str(tmp_path)), key=len) == [b"\x94\x0a\x90\x90\x90", payload]


@pytest.mark.parametrize("rows", [1, 7, 100])
def test_apply_in_pieces_reaches_the_node_whole(rows):
    req = Apply(30, [Write(1, b"w%02d" % i, (i,)) for i in range(10)],
                [SpaceWrites(1, [b"s%03d" % i for i in range(25)], [(i,) for i in range(25)])])
    parts = apply_parts(req, rows)
    assert all(len(p.writes) + sum(len(s.keys) for s in p.spaces) <= rows for p in parts)
    assert all(p.ts == 30 for p in parts) and len(parts) == -(-35 // rows)
    server = NodeServerThread(KiviNode())
    try:
        node = RemoteNode(server.host, server.port, apply_rows=rows)
        node.apply(req)
        keys = [w.key for w in req.writes] + req.spaces[0].keys
        got = node.get(Get(1, 30, keys)).rows
        assert got == [(i,) for i in range(10)] + [(i,) for i in range(25)]
        assert node.get(Get(1, 29, keys)).rows == [None] * 35
        node.close()
    finally:
        server.stop()
