"""ZooKeeper membership for cluster mode: roles register, query engines discover them.

Why ZooKeeper (ARCHITECTURE.md): membership must follow the processes' lives. Each
role process (`cluster.role --zk HOST:PORT`) creates an *ephemeral* znode

    /cumulo/roles/<role>/<name>   ->   JSON {"host", "port", ...role facts}

which ZooKeeper deletes by itself when the process's session ends (a clean stop at
once; a crash once the session times out). A conflict manager adds which bucket
share it owns (`index`, `managers`, `buckets`), so that an LTM can rebuild the
bucket -> manager map from the registry alone.

`discover` reads the registry, `join_as_ltm` gives a query engine an LTM id of its
own (`/cumulo/ltms/ltm-<seq>`); `cluster.opencluster` wires an engine's transaction
manager from them.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import NodeExistsError

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
