"""ZooKeeper membership for cluster mode: roles register, query engines discover them.

Why ZooKeeper (ARCHITECTURE.md): membership must follow the processes' lives. Each
role process (`cluster.role --zk HOST:PORT`) creates an *ephemeral* znode

    /cumulo/roles/<role>/<name>   ->   JSON {"host", "port", ...role facts}

which ZooKeeper deletes by itself when the process's session ends (a clean stop at
once; a crash once the session times out). A conflict manager adds which bucket
share it owns (`index`, `managers`, `buckets`), so that an LTM can rebuild the
bucket -> manager map from the registry alone.

`discover` reads the registry; `open_cluster` wires a `ClusterTxnManager` from it
(KiVi nodes behind one `KiviClient` that routes by the region map in ZooKeeper,
`cluster.zkmap`; the conflict managers in bucket order, the
loggers by name, and a MasterMind role if one is registered; then the query engine
also registers as `/cumulo/ltms/ltm-<seq>` to get an LTM id of its own). kazoo is
imported lazily: embedded mode never needs it.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

ROOT = "/cumulo/roles"


@dataclass
class Membership:
    """The registered roles: role -> {name: facts}."""

    roles: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)

    def addresses(self, role: str) -> list[tuple[str, tuple[str, int]]]:
        """Returns [(name, (host, port))] of a role, sorted by name."""
        members = self.roles.get(role, {})
        return [(n, (m["host"], int(m["port"]))) for n, m in sorted(members.items())]


def connect(hosts: str, session_timeout: float = 10.0, timeout: float = 10.0) -> Any:
    """Returns a started kazoo client (a crashed member vanishes after `session_timeout`)."""
    from kazoo.client import KazooClient

    zk = KazooClient(hosts=hosts, timeout=session_timeout)
    zk.start(timeout=timeout)
    return zk


def session_timeout(zk: Any, requested: float) -> float:
    """The session timeout the server granted this client, in seconds.

    Why: ZooKeeper clamps the timeout a client asks for into [minSessionTimeout,
    maxSessionTimeout] (by default 2 and 20 ticks), and a lease computed from the
    requested value would outlive a shorter session (`cluster.lease`). kazoo 2.11 reads
    the negotiated value at connect but keeps it to itself (python-zk/kazoo#769), so the
    server is asked: its `cons` command lists each connection's session id and `to=`
    timeout. A server that does not allow `cons` (4lw.commands.whitelist) gives no
    answer; then the requested value is used, with a warning.
    """
    sid = zk.client_id[0] if zk.client_id else None
    try:
        out = zk.command(b"cons")
    except Exception:  # noqa: BLE001 - not allowed, or the connection moved: say so below
        out = ""
    for line in out.splitlines():
        m = re.search(r"sid=0x([0-9a-f]+).*?\bto=(\d+)", line)
        if m and int(m.group(1), 16) == sid:
            return int(m.group(2)) / 1000.0
    logging.getLogger("cumulo.zk").warning(
        "ZooKeeper does not tell this session's timeout (allow `cons` in "
        "4lw.commands.whitelist): assuming the requested %.1f s", requested)
    return requested


def register(zk: Any, role: str, name: str, facts: dict[str, Any], wait: float = 0.0) -> str:
    """Creates this process's ephemeral member znode; returns its path.

    A role restarted under its old name (by hand, or by `cluster up --supervise`) may
    find the znode of its previous incarnation, which lives until that session expires:
    it waits up to `wait` seconds for it to go (it never deletes it: the previous
    incarnation may be paused, not dead, and must be declared dead the usual way).
    """
    from kazoo.exceptions import NodeExistsError

    path = f"{ROOT}/{role}/{name}"
    deadline = time.monotonic() + wait
    while True:
        try:
            zk.create(path, json.dumps(facts).encode(), ephemeral=True, makepath=True)
            return path
        except NodeExistsError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def discover(zk: Any) -> Membership:
    """Reads every registered role."""
    out = Membership()
    if not zk.exists(ROOT):
        return out
    for role in zk.get_children(ROOT):
        members: dict[str, dict[str, Any]] = {}
        for name in zk.get_children(f"{ROOT}/{role}"):
            try:
                data, _stat = zk.get(f"{ROOT}/{role}/{name}")
            except Exception:  # noqa: BLE001 - the member left between the two reads
                continue
            members[name] = json.loads(data)
        out.roles[role] = members
    return out


def open_cluster(zk: Any, *, recover: bool = True, reset_conflicts: bool = True,
                 gc_interval: float | None = 30.0) -> Any:
    """Wires a `ClusterTxnManager` to the registered KiVi nodes, conflict managers and loggers.

    As the cluster's (single) LTM, it resets the conflict managers to the recovered high
    mark (see `cluster.services.Reset`).
    """
    from ..kivi.client import KiviClient
    from ..kivi.remote import RemoteNode
    from .cmfailover import EngineCmWatch
    from .leaderclient import LeaderClient
    from .manager import ClusterTxnManager
    from .proxies import RemoteConflictManager, RemoteLogGroup
    from .zkmap import ZkRegionMap

    members = discover(zk)
    nodes = {name: RemoteNode(h, p) for name, (h, p) in members.addresses("kivi")}
    cms_facts = sorted(members.roles.get("cm", {}).values(), key=lambda m: m["index"])
    if not nodes or not cms_facts:
        raise RuntimeError(f"incomplete cluster in ZooKeeper: {members.roles}")
    managers, buckets = cms_facts[0]["managers"], cms_facts[0]["buckets"]
    if [m["index"] for m in cms_facts] != list(range(managers)):
        raise RuntimeError(f"conflict managers missing: {[m['index'] for m in cms_facts]}")
    cms = [
        RemoteConflictManager(m["host"], int(m["port"]), frozenset(range(m["index"], buckets,
                                                                        managers)))
        for m in cms_facts
    ]
    loggers = [addr for _n, addr in members.addresses("logger")]
    log = RemoteLogGroup(loggers, locate=lambda: [a for _n, a in discover(zk).addresses("logger")]
                         ) if loggers else None
    masterminds = members.addresses("mastermind")
    ltm_id, first, ltm_path = 0, True, ""
    if masterminds:  # several query engines may share this cluster: each needs its own id
        ltm_id, first, ltm_path = join_as_ltm(zk)
    # NB: without a MasterMind to recover them (`cluster.failover`), the engine gives the
    # regions of nodes that are gone to live ones as it starts (its replay of the loggers
    # fills them); afterwards such a region waits for its node
    region_map = ZkRegionMap(zk, sorted(nodes), adopt=not masterminds)
    kivi = KiviClient(nodes, region_map)
    region_map.on_leave = kivi.node_left  # NB: a paused node must not hold requests 60 s
    tm = ClusterTxnManager(kivi, cms, log, buckets=buckets,
                           recover=recover, reset_conflicts=reset_conflicts and first,
                           ltm_id=ltm_id, mastermind=LeaderClient(zk) if masterminds else None,
                           gc_interval=gc_interval)
    region_map.adopt = False
    if ltm_path:  # NB: follows restarted conflict managers (the MasterMind resets them)
        EngineCmWatch(zk, tm, ltm_path)
    return tm


LTMS = "/cumulo/ltms"
MAX_LTMS = 1 << 15  # a transaction id is ltm_id << 48 | n, in 63 bits


def join_as_ltm(zk: Any) -> tuple[int, bool, str]:
    """Registers this query engine (ephemeral, sequential); returns (its LTM id, first?,
    its znode).

    The first engine of a cluster resets the conflict managers; a later one must not,
    since the others' transactions hold write locks there.
    """
    path = zk.create(f"{LTMS}/ltm-", b"", ephemeral=True, sequence=True, makepath=True)
    mine = path.rsplit("/", 1)[1]
    others = [c for c in zk.get_children(LTMS) if c != mine]
    return int(mine.rsplit("-", 1)[1]) % MAX_LTMS, not others, path
