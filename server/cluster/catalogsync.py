"""DDL on one query engine is visible on the others before the DDL statement returns.

Why: each engine caches its catalog until its catalog version changes
(`sql.catalog.store`), and that version used to be bumped only inside the engine that
ran the DDL. Now a committed DDL also updates one znode,

    /cumulo/catalog/version   ->   JSON {"ts": newest DDL commit ts}

with a compare-and-set on the znode's version (so a smaller ts never overwrites a
larger one; the znode's own version counts the changes). Every engine watches it:
on a change it raises its catalog version and the timestamp its next catalog read
must reach (`CatalogStore.remote_bump`; the read then waits for the shared snapshot
to pass that DDL), then acknowledges in its ephemeral

    /cumulo/catalog/acks/engine-<seq>   ->   the znode version it has taken in

The engine that ran the DDL returns once every engine acknowledged, or after
`wait` seconds (an engine that just died keeps its ack znode until its ZooKeeper
session ends; it cannot answer, and it serves nobody).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from kazoo.exceptions import BadVersionError, KazooException, NodeExistsError, NoNodeError

from .. import waits

VERSION = "/cumulo/catalog/version"
ACKS = "/cumulo/catalog/acks"
log = logging.getLogger(__name__)


class CatalogSync:
    """Publishes this engine's DDL and takes in the other engines' (see module docstring)."""

    def __init__(self, zk: Any, store: Any, wait: float = 5.0) -> None:
        self.zk, self.store, self.wait = zk, store, wait
        try:
            zk.create(VERSION, json.dumps({"ts": 0}).encode(), makepath=True)
        except NodeExistsError:
            pass
        _data, stat = zk.get(VERSION)
        # NB: sequential: a restarted engine may come back before its old session expired
        self.ack_path = zk.create(f"{ACKS}/engine-", str(stat.version).encode(),
                                  ephemeral=True, sequence=True, makepath=True)
        store.publish = self.publish
        zk.DataWatch(VERSION, self._changed)

    def _changed(self, data: bytes | None, stat: Any) -> None:
        """A DDL committed somewhere (here too): reload the catalog, then acknowledge."""
        if data is None or stat is None:
            return
        self.store.remote_bump(int(json.loads(data)["ts"]))
        try:
            self.zk.set(self.ack_path, str(stat.version).encode())
        except Exception:  # noqa: BLE001 - session lost: the DDL's wait is bounded
            log.warning("could not acknowledge catalog version %d", stat.version, exc_info=True)

    def publish(self, commit_ts: int) -> None:
        """Tells every engine that DDL committed at commit_ts; waits for their acks.

        The DDL has committed already: if ZooKeeper cannot be reached, the statement still
        succeeds (the others see the change once they hear of the next one)."""
        try:
            self._publish(commit_ts)
        except KazooException:
            log.warning("could not tell the other query engines of a catalog change",
                        exc_info=True)

    def _publish(self, commit_ts: int) -> None:
        while True:
            data, stat = self.zk.get(VERSION)
            ts = max(int(json.loads(data)["ts"]), commit_ts)
            try:
                new = self.zk.set(VERSION, json.dumps({"ts": ts}).encode(), version=stat.version)
                break
            except BadVersionError:  # another engine's DDL at the same moment: read again
                continue
        deadline = time.monotonic() + self.wait
        pause = waits.Event()
        while not self._all_acked(new.version):
            if time.monotonic() > deadline:
                log.warning("catalog version %d: not every query engine acknowledged within "
                            "%.1fs", new.version, self.wait)
                return
            pause.wait(0.005)  # NB: parks the session's greenlet, not the event loop

    def _all_acked(self, version: int) -> bool:
        for child in self.zk.get_children(ACKS):
            try:
                data, _stat = self.zk.get(f"{ACKS}/{child}")
            except NoNodeError:  # that engine stopped meanwhile
                continue
            if int(data or b"0") < version:
                return False
        return True
