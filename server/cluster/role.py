"""Runs one cluster role in its own process: a KiVi node, a conflict manager, a logger, MasterMind.

    python -m cumulo.server.cluster.role kivi   --port 0 --data-dir D [--name n0]
    python -m cumulo.server.cluster.role cm     --port 0 --index I --managers N --buckets B
    python -m cumulo.server.cluster.role logger --port 0 --data-dir D [--name L0]
    python -m cumulo.server.cluster.role mastermind --port 0

or, the same, `cumulo kivi|conflicts|logger|mastermind ...` (`cluster.launcher`, which
also starts a whole local cluster: `cumulo cluster up`).

Why one entry point: every role is "an object with `handle` behind `kivi.remote`", so
they differ only in the object built. Once listening, the process prints one line,
`LISTENING <host> <port>`, on stdout (port 0 picks a free port; a parent reads the
line to learn it) and serves until SIGTERM or SIGINT (or, with `--stdin-watch`, until
its stdin closes: the parent died), after which a logger makes everything durable and
a node closes its files.

With `--zk HOST:PORT`, the role also registers itself in ZooKeeper as an ephemeral
node `/cumulo/roles/<role>/<name>` (see `cluster.zk`: membership that disappears
when the process dies). kazoo is imported only then. A KiVi node then runs in
placement mode (it serves only the regions the map in ZooKeeper gives it, see
`kivi.routing`), and the MasterMind owns placement (`cluster.placer`: splits past
`--region-split-bytes`, balancing every `--placement-interval` seconds) and clears
what a query engine that died left behind (`cluster.reaper`).

A KiVi node runs the filters pushed into its scans with the SQL layer's expression
compilers (`sql.expr.pushed`, which installs them into `kivi.filters` when imported): one
expression IR compiled by one compiler per target. That is the only part of the SQL layer a
role process loads: the compilers, the casts and type facts they call (`sql.expr.typefacts`)
and the session settings those read, but no parser (sqlglot), planner, catalog or wire
protocol, about 0.09 s of start-up (`tests/unit/test_layering.py` keeps it so).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from ..kivi import mvcc
from ..kivi.api import DropRegion
from ..kivi.node import KiviNode
from ..kivi.remote import offload_aggregates, serve_node
from ..sql.expr import pushed  # noqa: F401 - installs the filter compilers into kivi.filters
from . import regionstore
from . import zk as zk_mod
from .cmfailover import CmRestarts
from .failover import LOG_DIRS, record_node, replay_own
from .leader import MasterMindRole, Term
from .leaderclient import EPOCH, FENCE
from .lease import Gated, LeaseGate
from .manager import bucket_shares
from .mastermind import MasterMindService
from .placer import Placer
from .reaper import Reaper
from .services import ConflictService, LoggerService


def build(args: argparse.Namespace) -> tuple[Any, Any]:
    """Returns (the object to serve, its offload predicate)."""
    if args.role == "kivi":
        mvcc.FREEZE_ROWS = args.cold_rows  # NB: as `cumulo serve` does for its embedded node
        logging.getLogger("cumulo.kivi").info("cold rows %s", "on" if args.cold_rows else "off")
        node = KiviNode(args.data_dir, node_id=args.name or "n0", placement=bool(args.zk))
        return node, offload_aggregates
    if args.role == "cm":
        owned = bucket_shares(args.managers, args.buckets)[args.index]
        return ConflictService(owned, needs_reset=True), ConflictService.offload
    if args.role == "mastermind" and args.zk:  # NB: led by whoever wins the election
        role = MasterMindRole(None, args.host, 0, args.zk_session_timeout,
                              lambda mm, term: lead(args, role, mm, term))
        return role, role.offload
    if args.role == "mastermind":
        mm = MasterMindService()
        return mm, mm.offload
    if args.role == "logger":
        if not args.data_dir:
            raise SystemExit("a logger needs --data-dir")
        svc = LoggerService(args.data_dir, args.name or "L0", sync_commit=not args.no_sync_commit)
        return svc, svc.offload
    raise SystemExit(f"unknown role {args.role!r}")


def lead(args: argparse.Namespace, role: MasterMindRole, mm: MasterMindService,
         term: Term) -> Callable[[], None]:
    """Starts what only the MasterMind leader runs, fenced by its term; returns its stop."""
    zk = role.zk
    placer = mm.placer = Placer.for_cluster(zk, split_bytes=args.region_split_bytes,
                                            interval=args.placement_interval)
    placer.fence, placer.may_act, placer.epoch = term.fence, role.may_act, term.epoch
    placer.snapshot = lambda: mm.snapshots.snapshot  # NB: a move copies, then catches up
    if args.placement_interval > 0:
        placer.start()
    reaper = Reaper(zk, mm, seen=term.known_ltms).start()  # a dead engine's leftovers (§3.2)
    restarts = CmRestarts(zk, mm).start()  # a restarted conflict manager (§3.4)

    def stop() -> None:
        placer.stop()
        reaper.stop()
        restarts.stop()

    return stop


def follow_fence(zk: Any, logger: LoggerService) -> None:
    """A logger refuses the records of a MasterMind term that ended (`cluster.leader`),
    also when it (re)starts after the new leader fenced the others."""
    def on_fence(data: bytes | None, _stat: Any) -> None:
        if data:
            logger.fence_below(int(data))

    zk.DataWatch(FENCE, on_fence)


def follow_epoch(zk: Any, node: KiviNode) -> None:
    """A KiVi node learns each new MasterMind term as soon as it begins (the new leader
    increments the epoch znode first): from then on the deposed leader's placement
    commands are refused (`routing.Fenced`), even before the new one sends any."""
    def on_epoch(data: bytes | None, _stat: Any) -> None:
        if data:
            node.fence_epoch(int(data))

    zk.DataWatch(EPOCH, on_epoch)


def drop_given_away(zk: Any, node: KiviNode, name: str) -> None:
    """Drops the regions this node's files hold that the map now gives to another node
    (reopened elsewhere while this node was dead: its copies are stale)."""
    for r in node.regions():
        got = regionstore.read_space(zk, r.space)
        owner = next((x.owner for x in got[0] if x.contains(r.lo)), name) if got else name
        if owner != name:
            node.drop_region(DropRegion(r.space, r.lo))


def facts(args: argparse.Namespace, host: str, port: int) -> dict[str, Any]:
    """What the role tells ZooKeeper about itself (see `cluster.zk`)."""
    out: dict[str, Any] = {"host": host, "port": port}
    if args.role == "cm":
        out.update(index=args.index, managers=args.managers, buckets=args.buckets)
    return out


async def serve(args: argparse.Namespace) -> None:
    obj, offload = build(args)
    # NB: a KiVi node in placement mode answers data requests only while its ZooKeeper
    # session surely lives (`cluster.lease`): a paused node declared dead stays silent
    gate = LeaseGate(args.zk_session_timeout) if args.zk and isinstance(obj, KiviNode) else None
    server = await serve_node(obj if gate is None else Gated(obj, gate), args.host, args.port,
                              offload=offload)
    host, port = server.sockets[0].getsockname()[:2]
    zk = None
    if args.zk:
        name = args.name or (f"cm{args.index}" if args.role == "cm" else f"{args.role}-{port}")
        zk = zk_mod.connect(args.zk, session_timeout=args.zk_session_timeout)
        # NB: the leases last what the server granted, which may be less than asked for
        granted = zk_mod.session_timeout(zk, args.zk_session_timeout)
        if gate is not None:
            gate.timeout = granted
        if isinstance(obj, MasterMindRole):
            obj.session_timeout = granted
        if isinstance(obj, LoggerService):
            follow_fence(zk, obj)
            record_node(zk, name, args.data_dir, LOG_DIRS)  # NB: a takeover reads it if down
        if isinstance(obj, KiviNode):
            follow_epoch(zk, obj)
            record_node(zk, name, args.data_dir)
            drop_given_away(zk, obj, name)
            replay_own(zk, obj, name)
        member = zk_mod.register(zk, args.role, name, facts(args, host, port),
                                 wait=2 * args.zk_session_timeout + 5)
        if isinstance(obj, KiviNode):  # NB: given away while we waited for our old znode
            drop_given_away(zk, obj, name)
        if gate is not None and isinstance(obj, KiviNode):
            def rejoin(zk: Any = zk, node: KiviNode = obj, name: str = name,
                       about: dict[str, Any] = facts(args, host, port)) -> None:
                drop_given_away(zk, node, name)
                zk_mod.register(zk, "kivi", name, about)

            gate.arm(zk, member, rejoin)
        if isinstance(obj, MasterMindRole):
            obj.zk, obj.host, obj.port = zk, host, port
            def register_again(zk: Any = zk, name: str = name,
                               about: dict[str, Any] = facts(args, host, port)) -> None:
                zk_mod.register(zk, "mastermind", name, about)

            obj.rejoin = register_again
            obj.campaign()
    # NB: as `cumulo serve`'s: a node keeps millions of long-lived tuples, and a move passes
    # a region's versions through the MasterMind; with the default thresholds, collections
    # that walk them all stalled its loop (every snapshot ask in the cluster) ~100 ms
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 100)
    print(f"LISTENING {host} {port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    if args.stdin_watch:
        # The parent holds our stdin's other end: EOF means it died (even by SIGKILL).
        def on_stdin() -> None:
            if not os.read(sys.stdin.fileno(), 4096):
                loop.remove_reader(sys.stdin.fileno())
                stop.set()

        loop.add_reader(sys.stdin.fileno(), on_stdin)
    await stop.wait()
    server.close()
    if gate is not None:
        gate.stop()
    if isinstance(obj, MasterMindRole):
        obj.stop()
    if zk is not None:
        zk.stop()
    if isinstance(obj, LoggerService):
        obj.close()


def main(argv: list[str] | None = None, prog: str = "cumulo-role", role: str | None = None) -> int:
    """Runs one role: named first in argv, or by `role` (`cumulo kivi|logger|conflicts|mastermind`
    come here that way, see `launcher`)."""
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    if role is None:
        p.add_argument("role", choices=["kivi", "cm", "logger", "mastermind"])
    else:
        p.set_defaults(role=role)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on, and registered in ZooKeeper for the others to reach")
    p.add_argument("--port", type=int, default=0, help="TCP port (default 0: any free one)")
    p.add_argument("--data-dir", help="where a KiVi node checkpoints and a logger writes its log")
    p.add_argument("--name", help="the role's id in ZooKeeper (e.g. kivi-2)")
    p.add_argument("--index", type=int, default=0,
                   help="conflict managers: which share of the buckets this one owns (0-based)")
    p.add_argument("--managers", type=int, default=1,
                   help="conflict managers: how many share the buckets")
    p.add_argument("--buckets", type=int, default=1024, help="conflict managers: bucket count")
    p.add_argument("--no-sync-commit", action="store_true",
                   help="loggers: acknowledge before the redo record is fsynced")
    p.add_argument("--cold-rows", action=argparse.BooleanOptionalAction, default=True,
                   help="KiVi nodes: keep settled rows in compact cold segments (about half "
                        "the memory; --no-cold-rows keeps every row as its own version)")
    p.add_argument("--stdin-watch", action="store_true",
                   help="stop when stdin reaches end of file (the parent process died)")
    p.add_argument("--zk", help="ZooKeeper HOST:PORT to register in")
    p.add_argument("--region-split-bytes", type=int, default=64 << 20,
                   help="MasterMind: split a region once it holds about this many bytes")
    p.add_argument("--placement-interval", type=float, default=5.0,
                   help="MasterMind: seconds between checks for regions to split or move "
                   "(0: split only when asked, never balance)")
    p.add_argument("--zk-session-timeout", type=float, default=10.0,
                   help="seconds after which a crashed role leaves the registry")
    args = p.parse_args(argv)
    # NB: the role's log (D/logs/<name>.log under `cluster up`) tells what it decided: a
    # failover, a split or move, a dead query engine cleared
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    asyncio.run(serve(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
