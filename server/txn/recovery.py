"""Recovery: storage checkpoint + redo-log replay, and taking new checkpoints.

Each KiVi node checkpoints its regions as of a timestamp C. On restart the
node loads its checkpoint, and every redo record with ts > C is applied again,
in timestamp order. Replay is idempotent, because a version is keyed by its
commit ts: applying a record twice installs the same version twice, which is
one version. Timestamps then continue above the largest recovered one.

    log:         [3][4][5][6][7][8][9]      records (any order across loggers)
    checkpoint:  state as of C = 5
    replay:                [6][7][8][9]     -> snapshot = next_ts - 1 = 9

Where C is kept: the node reports its own (`checkpoint_ts`), and
`<data_dir>/txn/checkpoint` records the last checkpoint the LTM completed
(written after the node's succeeded); recovery believes the larger.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable
from typing import Any

from ..kivi.api import Apply, Checkpoint, DropSpace, KiviNodeAPI
from .codec import unpack_bulk
from .logger import read_log

log = logging.getLogger("cumulo.recovery")


def _ckpt_path(data_dir: str) -> str:
    return os.path.join(data_dir, "txn", "checkpoint")


def checkpoint_ts(data_dir: str, node: Any) -> int:
    """Returns the timestamp the storage state on disk is complete up to."""
    try:
        with open(_ckpt_path(data_dir)) as f:
            ours = int(f.read().strip() or 0)
    except FileNotFoundError:
        ours = 0
    # NB: the larger of the two. Ours is written only after the node's checkpoint
    # succeeded; the node's may be lower than the truth (a region created after the
    # checkpoint reports 0), and replaying records older than a checkpoint that the
    # trimmed log no longer holds in full could resurrect deleted rows.
    return max(ours, node.checkpoint_ts)


def replay(data_dir: str, node: KiviNodeAPI) -> tuple[int, int]:
    """Replays the redo log above the checkpoint; returns (max recovered ts, records replayed)."""
    base = checkpoint_ts(data_dir, node)
    return replay_records(read_log(os.path.join(data_dir, "log")), node, base)


def replay_records(payloads: Iterable[bytes], node: KiviNodeAPI, base: int) -> tuple[int, int]:
    """Applies the redo records above `base` in ts order; returns (max ts, records replayed).

    The records may come from local segment files or from remote loggers (cluster mode).
    Logs how many records were replayed and how long it took (checkpoint + redo).
    """
    t0 = time.monotonic()
    records = []
    for payload in payloads:
        peek = record_ts(payload)
        if peek is not None and peek <= base:
            continue  # NB: in the checkpoint already: not worth decoding its writes
        ts, writes, drops, spaces = unpack_bulk(payload)
        if ts > base:
            records.append((ts, writes, drops, spaces))
    records.sort(key=lambda r: r[0])
    top = base
    for ts, writes, drops, spaces in records:
        for space in drops:
            node.drop_space(DropSpace(space))
        if writes or spaces:
            node.apply(Apply(ts, writes, spaces))
        top = max(top, ts)
    took = time.monotonic() - t0
    if records:
        log.info("redo done: replayed %d records (commits %d..%d) above the checkpoint at "
                 "commit %d in %.3f s", len(records), records[0][0], top, base, took)
    else:
        log.info("no redo needed: storage is checkpointed up to commit %d", base)
    return top, len(records)


_UINT = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}


def record_ts(payload: bytes) -> int | None:
    """A redo record's commit ts, read from its first bytes (a msgpack array whose first
    item is the ts); None if the encoding is not the expected one.

    >>> from .codec import pack_record
    >>> record_ts(pack_record(70000, [], []))
    70000
    """
    if len(payload) < 2:
        return None
    head = payload[0]
    at = 1 if 0x90 <= head <= 0x9F else 3 if head == 0xDC else 5 if head == 0xDD else 0
    if not at or len(payload) <= at:
        return None
    tag = payload[at]
    if tag < 0x80:
        return tag
    size = _UINT.get(tag)
    if size is None or len(payload) < at + 1 + size:
        return None
    return int.from_bytes(payload[at + 1:at + 1 + size], "big")


def durable_checkpoint(node: KiviNodeAPI, ts: int) -> bool:
    """Asks storage to checkpoint as of ts; tells whether it is now durable as of ts.

    NB: a node without files (in memory) acks with no ts, and so does a cluster whose nodes
    did not all write theirs. Then the redo log is the only copy of the commits below ts:
    recording ts or trimming the log would lose them at the next restart.
    """
    ack = node.checkpoint(Checkpoint(ts))
    return ack.value == ts


def take_checkpoint(data_dir: str, node: KiviNodeAPI, ts: int) -> bool:
    """Checkpoints storage as of ts and records ts durably; False (nothing recorded, so
    the log must not be trimmed) if storage could not make its checkpoint durable."""
    if not durable_checkpoint(node, ts):
        return False
    path = _ckpt_path(data_dir)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(ts))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(os.path.dirname(path), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return True
