"""A query engine joins a cluster: its transaction manager, wired from ZooKeeper's registry.

`open_cluster` reads the registered roles (`cluster.zk.discover`) and wires a
`ClusterTxnManager`: the KiVi nodes behind one `KiviClient` that routes by the
region map in ZooKeeper (`cluster.zkmap`), the conflict managers in bucket
order, the loggers by name, and a MasterMind role if one is registered; then
the engine registers as `/cumulo/ltms/ltm-<seq>` to get an LTM id of its own
(`cluster.zk.join_as_ltm`). Why a module of its own: the wiring sits above
everything it wires (`cmfailover` watches ZooKeeper through `cluster.zk`), so
`cluster.zk` stays the membership primitives they all use.
"""

from __future__ import annotations

from typing import Any

from ..kivi.client import KiviClient
from ..kivi.remote import RemoteNode
from .cmfailover import EngineCmWatch
from .leaderclient import LeaderClient
from .manager import ClusterTxnManager
from .proxies import RemoteConflictManager, RemoteLogGroup
from .zk import discover, join_as_ltm
from .zkmap import ZkRegionMap


def open_cluster(zk: Any, *, recover: bool = True, reset_conflicts: bool = True,
                 gc_interval: float | None = 30.0) -> Any:
    """Wires a `ClusterTxnManager` to the registered KiVi nodes, conflict managers and loggers.

    As the cluster's (single) LTM, it resets the conflict managers to the recovered high
    mark (see `cluster.services.Reset`).
    """
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
