"""`cumulo cluster up --supervise`: one more process, which starts again any role that dies.

Why: on one machine nothing else would. A KiVi node's regions are reopened elsewhere
when it dies, a dead query engine's leftovers are cleared (`cluster.reaper`), and a
query engine's commits wait for a logger to come back or go to another one
(`proxies.RemoteLogGroup`), but the cluster only regains its full size when the process
runs again. On several machines the operator's service manager (systemd's
`Restart=always`) plays this part, with the one-role commands.

The supervisor reads `D/cluster.json` every `interval` seconds and, for each KiVi node,
conflict manager, logger or query engine whose process is gone, runs the command it
was started with again (same name, same data directory, output appended to the same
log), then records the new pid (and, once it listens, its new address). A restarted
role registers under its old name once its previous incarnation's ZooKeeper session
has expired (`zk.register`), so a paused, not dead, process is never doubled.

A MasterMind started again stands by, and leads once the leader it lost to dies
(`cluster.leader`); the first one restarted after the only one died takes over at once.
`cluster down` stops the supervisor first; once `cluster.json` is gone it exits.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("cumulo.supervisor")
RESTARTED = ("mastermind", "kivi", "conflicts", "logger", "engine")


def restart(proc: Any) -> subprocess.Popen[bytes]:
    """Starts `proc` (a `launcher.Proc`) again with its recorded command line."""
    with open(proc.log, "ab") as out:
        out.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} restarted by the supervisor "
                  f"(pid {proc.pid} died)\n".encode())
        out.flush()
        start = out.tell()
        popen = subprocess.Popen(proc.argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                 start_new_session=True, close_fds=True)
    proc.pid, proc.log_from = popen.pid, start
    return popen


def supervise(data_dir: str, interval: float, load: Callable[[str], Any],
              alive: Callable[[int], bool], listening: Callable[[Any], bool]) -> int:
    """Runs until SIGTERM or until the cluster's state file is gone (see the module doc).

    `load(data_dir)` reads the `launcher.State` (None once the cluster is down),
    `alive(pid)` tells whether a process runs, `listening(proc)` reads a restarted
    role's `LISTENING host port` line into it.
    """
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: "
                        "%(message)s")
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    children: list[subprocess.Popen[bytes]] = []
    awaiting: set[str] = set()  # restarted roles whose new address is not known yet
    log.info("supervising the cluster in %s (pid %d)", data_dir, os.getpid())
    while not stop.wait(interval):
        children = [c for c in children if c.poll() is None]  # NB: reaps the dead ones
        state = load(data_dir)
        if state is None:
            return 0
        changed = False
        for p in state.procs:
            if p.kind in RESTARTED and p.argv and not alive(p.pid):
                old = p.pid
                children.append(restart(p))
                log.info("%s (pid %d) died: started again as pid %d", p.name, old, p.pid)
                awaiting.add(p.name)
                changed = True
            elif p.name in awaiting and p.kind != "engine" and listening(p):
                awaiting.discard(p.name)
                changed = True
        if changed and not stop.is_set() and load(data_dir) is not None:
            state.save(data_dir)
    return 0


__all__ = ["RESTARTED", "restart", "supervise"]
