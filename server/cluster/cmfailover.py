"""A conflict manager that dies and starts again: nobody loses an update (CLUSTER.md §3.4).

Why: a conflict manager's state (who holds which key, each key's last commit) lives in
its memory. A new process in its place (`cluster up --supervise`, or an operator)
knows nothing, and serving writes with that blank state could let two writers of one
key both commit: one that took its lock from the dead manager, and one that takes it
from the new one. So the new manager refuses writes (57P03) until it is reset
(`services.Reset`), and the reset waits for two things:

1. **Every query engine has doomed its transactions** (`EngineCmWatch`): when a
   manager's member znode goes (its session expired) or changes address, the engine
   makes every transaction active at that moment fail at its commit or lock wait
   (`LocalTxnManager.doom_active`, 40001), reconnects to the managers registered now,
   and acknowledges by writing their addresses into its LTM znode
   (`/cumulo/ltms/ltm-<seq>`).
2. **The watermark**: the MasterMind (`CmRestarts`), once every live engine has
   acknowledged the new address, resets the manager with `H`, the largest timestamp
   handed out so far. Every key then counts as committed at `H`: a writer whose
   snapshot is older gets 40001 (READ COMMITTED retries the statement at a snapshot
   that includes `H`), so a commit the dead manager knew of is never overwritten
   unseen.

Meanwhile, statements that need the manager fail with a clear, retryable error: 40001
while it is unreachable, 57P03 until it is reset; a release or settle after a commit
(whose locks died with the manager anyway) is skipped (`proxies`).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from typing import Any

from ..kivi.remote import RemoteNode
from . import zk as zk_mod
from .services import CmStatus, Reset

log = logging.getLogger("cumulo.cmfailover")
CMS = f"{zk_mod.ROOT}/cm"


def addresses(members: zk_mod.Membership) -> dict[int, str]:
    """Conflict manager index -> "host:port", as registered now."""
    return {int(m["index"]): f"{m['host']}:{m['port']}"
            for m in members.roles.get("cm", {}).values()}


def acknowledge(zk: Any, path: str, cms: dict[int, str]) -> None:
    """Writes the managers this engine now uses into its LTM znode."""
    zk.set(path, json.dumps({"cms": sorted(cms.values())}).encode())


class EngineCmWatch:
    """A query engine's side (see the module docstring); `tm` is its `ClusterTxnManager`."""

    def __init__(self, zk: Any, tm: Any, path: str) -> None:
        self.zk, self.tm, self.path = zk, tm, path
        self.known = addresses(zk_mod.discover(zk))
        acknowledge(zk, path, self.known)
        self.doomed = 0  # transactions doomed so far (for the log and tests)
        self._queue: queue.Queue[bool] = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True, name="cm-watch")
        self._thread.start()
        zk.ChildrenWatch(CMS, lambda _children: self._queue.put(True))

    def _run(self) -> None:
        while self._queue.get():
            try:
                self._changed()
            except Exception:  # noqa: BLE001 - ZooKeeper away: the next event retries
                log.exception("following the conflict managers failed")

    def _changed(self) -> None:
        now = addresses(zk_mod.discover(self.zk))
        lost = [i for i, a in self.known.items() if now.get(i) != a]
        if lost:
            n = self.tm.ltm.doom_active()
            self.doomed += n
            log.warning("conflict manager(s) %s gone: %d active transactions will fail "
                        "(40001)", lost, n)
        for i, addr in now.items():
            cm = self.tm.cms[i]
            if f"{cm.client.host}:{cm.client.port}" != addr:
                host, _, port = addr.rpartition(":")
                old, cm.client = cm.client, RemoteNode(host, int(port))
                old.close()
        self.known = now
        acknowledge(self.zk, self.path, now)


class CmRestarts:
    """The MasterMind's side: resets a conflict manager that waits for it, once every live
    query engine acknowledged its address, at the watermark (module docstring)."""

    def __init__(self, zk: Any, mm: Any, poll: float = 0.1) -> None:
        self.zk, self.mm, self.poll = zk, mm, poll
        self.resets: list[tuple[str, int]] = []  # (address, watermark), for the log and tests
        self._queue: queue.Queue[bool] = queue.Queue()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="cm-restarts")

    def start(self) -> CmRestarts:
        self._thread.start()
        self.zk.ensure_path(CMS)
        self.zk.ChildrenWatch(CMS, lambda _children: self._queue.put(True))
        return self

    def stop(self) -> None:
        self._stop.set()
        self._queue.put(False)
        self._thread.join(10)

    def _run(self) -> None:
        while self._queue.get() and not self._stop.is_set():
            try:
                for addr in addresses(zk_mod.discover(self.zk)).values():
                    self._reset_if_needed(addr)
            except Exception:  # noqa: BLE001 - a manager or ZooKeeper away: retry soon
                log.exception("resetting a restarted conflict manager failed; retrying")
                time.sleep(1.0)
                self._queue.put(True)

    def _reset_if_needed(self, addr: str) -> None:
        host, _, port = addr.rpartition(":")
        cm = RemoteNode(host, int(port), timeout=10.0)
        try:
            if not cm.handle(CmStatus()):
                return
            t0 = time.monotonic()
            while not self._stop.is_set() and not self._acknowledged(addr):
                time.sleep(self.poll)
            high = self.mm.high_mark()
            cm.handle(Reset(high, only_if_needed=True))
        finally:
            cm.close()
        self.resets.append((addr, high))
        log.info("conflict manager %s reset at watermark %d, %.3f s after every query engine "
                 "followed it", addr, high, time.monotonic() - t0)

    def _acknowledged(self, addr: str) -> bool:
        """Tells whether every live query engine now uses the manager at `addr`."""
        for child in self.zk.get_children(zk_mod.LTMS):
            try:
                data, _stat = self.zk.get(f"{zk_mod.LTMS}/{child}")
            except Exception:  # noqa: BLE001 - the engine left meanwhile
                continue
            if addr not in json.loads(data or b"{}").get("cms", ()):
                return False
        return True


__all__ = ["CMS", "CmRestarts", "EngineCmWatch", "acknowledge", "addresses"]
