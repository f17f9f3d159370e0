"""How a query engine reaches the MasterMind leader, whichever process it is (`cluster.leader`).

Why a module of its own: the engine side (`cluster.opencluster`, `cluster.zkmap`)
needs only the leader znode and the `Led` envelope, not the election.

`LeaderClient` follows `/cumulo/mastermind/leader`: every request goes as
`Led(epoch, msg)` to the process that znode names; a MasterMind that does not lead
that term refuses it (57P03) and the client reads the znode again. When the znode
vanishes (the leader's session ended: killed, or paused past the session timeout),
requests in flight fail at once and every call waits, up to `wait` seconds, for the
next leader.
"""

from __future__ import annotations

import itertools
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kazoo.exceptions import NoNodeError

from ..errors import ConnectionFailure, SQLError
from ..kivi.remote import RemoteNode
from ..kivi.wire import register_messages

MM = "/cumulo/mastermind"
LOCK = f"{MM}/lock"
EPOCH = f"{MM}/epoch"
STATE = f"{MM}/state"
FENCE = f"{MM}/fence"
LEADER = f"{MM}/leader"
KNOWN_LTMS = f"{MM}/ltms"  # the query engines' znodes the leader knew of, about each second
NOT_LEADER = "57P03"


@dataclass(frozen=True)
class Led:
    """`msg` for the MasterMind that leads in term `epoch` (read in the leader znode).

    `rid` names the call: a retry of it (its reply was lost: the connection broke after
    the request went out) carries the same one, and the leader answers a `RequestBatch`
    it has already served with the same batch rather than a new one, which nobody would
    ever finish and which would hold the shared snapshot back for good.
    """

    epoch: int
    msg: Any
    rid: int = 0


register_messages(Led)


def not_leader(why: str) -> SQLError:
    return SQLError(f"this MasterMind does not lead the cluster: {why}", sqlstate=NOT_LEADER,
                    hint="The query engine finds the leader in ZooKeeper and asks again.")


class LeaderClient:
    """A query engine's client of the MasterMind leader, following failovers (see the
    module docstring). Shaped like `RemoteNode` (`handle`, `close`).

    `on_new_leader` is called (in kazoo's thread: it must only signal) when a leader of
    a later term appears: the engine then drops its batch of the old term's timestamps.
    """

    def __init__(self, zk: Any, wait: float = 60.0) -> None:
        self.zk, self.wait = zk, wait
        self.on_new_leader: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._node: RemoteNode | None = None
        self._epoch = 0
        self._closed = False
        # NB: random start: an engine restarted under the same LTM id uses other rids
        self._rids = itertools.count(random.getrandbits(48) + 1)
        zk.DataWatch(LEADER, self._on_leader)

    def _on_leader(self, data: bytes | None, _stat: Any) -> bool | None:
        """kazoo's thread (or a caller): the leader left (fail what waits on it), or one
        serves (connect to it)."""
        if self._closed:
            return False
        info = json.loads(data) if data else None
        with self._lock:
            old, epoch = self._node, self._epoch
            if info is not None and int(info["epoch"]) == epoch and old is not None:
                return None  # the same leader, still connected
            self._node = None if info is None else RemoteNode(info["host"], int(info["port"]))
            if info is not None:
                self._epoch = int(info["epoch"])
        if old is not None:
            old.abort()  # NB: a paused leader must not hold requests for the socket timeout
        if (info is not None and epoch and int(info["epoch"]) != epoch
                and self.on_new_leader is not None):
            self.on_new_leader()
        return None

    def _refresh(self) -> None:
        try:
            data, stat = self.zk.get(LEADER)
        except NoNodeError:
            data, stat = None, None
        except Exception:  # noqa: BLE001 - ZooKeeper away: keep what we have
            return
        self._on_leader(data, stat)

    def _leader(self, deadline: float) -> tuple[int, RemoteNode]:
        polls = 0
        while True:
            with self._lock:
                if self._node is not None:
                    return self._epoch, self._node
            if self._closed or time.monotonic() > deadline:
                raise ConnectionFailure("no MasterMind leads the cluster (none registered "
                                        f"in ZooKeeper for {self.wait:.0f} s)")
            time.sleep(0.05)
            polls += 1
            if polls % 10 == 0:  # NB: the watch should have told; ask anyway
                self._refresh()

    def handle(self, msg: Any) -> Any:
        """Sends `msg` to the leader; waits for the next one if it dies meanwhile."""
        deadline = time.monotonic() + self.wait
        rid = next(self._rids)
        while True:
            epoch, node = self._leader(deadline)
            try:
                return node.handle(Led(epoch, msg, rid))
            except ConnectionFailure:
                # NB: dead, or paused and declared dead (the watch aborted it): connect
                # afresh to whoever the znode names (what a lost reply handed out is fenced
                # by the next leader, if there is one)
                if time.monotonic() > deadline:
                    raise
                with self._lock:
                    if self._node is node:
                        self._node = None
                node.close()
                time.sleep(0.1)
                self._refresh()
            except SQLError as e:
                if e.sqlstate != NOT_LEADER or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
                self._refresh()

    def close(self) -> None:
        self._closed = True
        with self._lock:
            node, self._node = self._node, None
        if node is not None:
            node.close()


__all__ = ["EPOCH", "FENCE", "KNOWN_LTMS", "LEADER", "LOCK", "MM", "NOT_LEADER", "STATE", "LeaderClient", "Led",
           "not_leader"]
