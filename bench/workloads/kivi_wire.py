"""kivi-wire: CPU per hot KiVi message, general `wire` encoding against `kivi.framing`.

Why: a cluster query engine makes a `kivi.remote` round trip for nearly every
statement, and each side encodes one message and decodes another. This measures,
in process and in CPU microseconds (not wall time: the machine is shared), what
one message costs to pack and unpack both ways, for the messages of a pgbench
select-only read: a one-key `Get` and its one-row `GetReply` (pgbench_accounts'
shape: int, int, int, char(84)), and a 100-row `ScanReply`. Then one real round
trip to a `cumulo kivi` role process (client and server CPU), which uses the
framing, next to a bare TCP echo (the floor of crossing a process).

`python -m bench kivi-wire` (no PostgreSQL: there is nothing to compare a codec
with; `bench workers` and `bench cluster` give the end-to-end figures).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from cumulo.server.kivi import framing
from cumulo.server.kivi.api import Get, GetReply, ScanReply
from cumulo.server.kivi.wire import packb, unpackb

from ..core import Figure, RunContext
from .workers import transport_costs

NAME = "kivi-wire"
DESCRIPTION = "CPU per KiVi message: general msgpack vs fixed layouts; one kivi.remote round trip"
SYSTEM = "cumulo"

ROW = (1, 1, 0, " " * 84)


def cpu_us(fn: Callable[[], Any], n: int) -> float:
    """CPU microseconds per call of fn (best of three runs of n calls)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        for _ in range(n):
            fn()
        best = min(best, time.process_time() - t0)
    return best / n * 1e6


def codec_costs(n: int = 20_000) -> dict[str, tuple[float, float]]:
    """{message: (general µs, framing µs)}: pack plus unpack of each, as both sides do."""
    get = Get(3, 1 << 40, [b"\x80\x00\x00\x00\x00\x01\x86\xa0"])
    reply = GetReply([ROW])
    scan = ScanReply([ROW] * 100, b"\x80\x00\x00\x00\x00\x00\x00\x64")
    cases = {
        "Get (1 key)": (lambda: unpackb(packb(get)),
                        lambda: framing.unpack_request(framing.pack_request(get))),
        "GetReply (1 row)": (lambda: unpackb(packb([0, reply])),
                             lambda: framing.unpack_reply(framing.pack_reply(reply))),
        "ScanReply (100 rows)": (lambda: unpackb(packb([0, scan])),
                                 lambda: framing.unpack_reply(framing.pack_reply(scan))),
    }
    out = {}
    for name, (general, fast) in cases.items():
        k = n if "100" not in name else n // 20
        out[name] = (cpu_us(general, k), cpu_us(fast, k))
    return out


def run(ctx: RunContext) -> list[Figure]:
    figures = []
    for name, (general, fast) in codec_costs().items():
        figures.append(Figure(NAME, f"{name} pack+unpack", "µs CPU", "lower",
                              {"general": general, SYSTEM: fast},
                              note="general = kivi.wire msgpack; cumulo = kivi.framing"))
    for name, (client, server) in transport_costs().items():
        figures.append(Figure(NAME, f"{name} (client / server)", "µs CPU", "lower",
                              {"client": client, "server": server}))
    ctx.notes.append(f"kivi-wire ran in process (pid {os.getpid()}); load {os.getloadavg()}")
    return figures


if __name__ == "__main__":
    print(f"load {os.getloadavg()}")
    for name, (general, fast) in codec_costs().items():
        print(f"{name:24} general {general:7.2f} µs   framing {fast:7.2f} µs   {general / fast:4.1f}x")
    for name, (client, server) in transport_costs().items():
        print(f"{name:32} client {client:6.1f} µs   server {server:6.1f} µs")
