"""Picking the ports of a cluster's query engines before `cumulo cluster up --port P` starts.

Engine i listens on P + i, so a run of free ports is needed. It is picked
below the kernel's ephemeral range (32768 and up on Linux): the roles that
`cluster up` starts bind port 0, and one of them could take a port picked
from the ephemeral range before the engine that should listen there does
(CI saw exactly that). The tests and the cluster benchmark both use it.

>>> p = port_run(2)
>>> LOW <= p and p + 1 < HIGH
True
"""

from __future__ import annotations

import random
import socket

LOW, HIGH = 20000, 30000  # below the ephemeral range


def port_run(n: int, tries: int = 200) -> int:
    """Returns a port P such that P .. P + n - 1 are all free on 127.0.0.1 now."""
    for _ in range(tries):
        port = random.randint(LOW, HIGH - n)
        try:
            for p in range(port, port + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError(f"found no {n} consecutive free ports below the ephemeral range")
