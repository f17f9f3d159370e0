"""`cumulo cluster up|status|down` and the one-role commands `cumulo kivi|logger|conflicts|mastermind`.

Why a launcher: cluster mode is several processes (ZooKeeper, a MasterMind, KiVi nodes,
conflict managers, loggers, query engines) that must start in order, each knowing
ZooKeeper's address, each with its own data directory. `cluster up` does that on one
machine; on several machines an operator runs the one-role commands instead, which are
`cluster.role` under the `cumulo` name.

Every role is its own process, started as `cumulo <role> --zk HOSTS --data-dir D/<name>`
so that `ps` tells them apart, detached from the terminal (its own session), with its
output in `D/logs/<name>.log`. What runs where is written to `D/cluster.json`, which
`status` and `down` read: the cluster outlives the `up` command.

Start order: ZooKeeper (Debian's package, unless `--zk` names one), then the MasterMind
(`--masterminds N`: one leads, the others stand by, `cluster.leader`), KiVi nodes, conflict managers and loggers, all at once (each prints `LISTENING host port`
once it serves and has registered in ZooKeeper), then the query engines
(`cumulo serve --cluster HOSTS`), which discover the others through ZooKeeper. `up`
returns once every engine accepts connections. `down` stops them in the reverse order,
with SIGTERM (a logger makes its records durable, a query engine does PostgreSQL's smart
shutdown), and SIGKILL only for a process that outlives `--timeout`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..kivi.api import NodeStatus
from ..kivi.remote import RemoteNode
from . import role as role_mod
from . import supervisor
from . import zk as zk_mod
from .leaderclient import KNOWN_LTMS, LEADER, LOCK

ZK_CLASSPATH = "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar"
STATE = "cluster.json"
READY = "ready to accept connections"  # what `cumulo serve` logs once it serves (cli.py)
# The one-role commands, and the `cluster.role` role each runs.
ROLE_COMMANDS = {"mastermind": "mastermind", "kivi": "kivi", "logger": "logger", "conflicts": "cm"}
# What `cumulo --help` says of each command this module runs.
COMMAND_HELP = {
    "cluster": "cluster mode on this machine: `cumulo cluster up --nodes N --data-dir D --port P` "
    "starts every role as its own process; `cluster status|down --data-dir D`",
    "mastermind": "run the MasterMind role alone: cumulo mastermind --zk ZK_HOSTS (run two or "
    "more: one leads, elected in ZooKeeper, the others take over if it dies)",
    "kivi": "run a KiVi storage node alone: cumulo kivi --zk ZK_HOSTS --data-dir DIR --name ID",
    "logger": "run a logger alone: cumulo logger --zk ZK_HOSTS --data-dir DIR --name ID",
    "conflicts": "run a conflict manager alone: cumulo conflicts --zk ZK_HOSTS --index I --managers M",
}


@dataclass
class Proc:
    """One process of the cluster, as `cluster.json` records it."""

    name: str  # e.g. kivi-2
    kind: str  # zookeeper | mastermind | kivi | conflicts | logger | engine
    pid: int
    host: str = "127.0.0.1"
    port: int = 0
    data_dir: str = ""
    log: str = ""
    log_from: int = 0  # where this run's output starts in `log` (earlier runs' is above)
    argv: list[str] = field(default_factory=list)  # how to start it again (`cluster.supervisor`)


@dataclass
class State:
    """What `cluster up` started: read by `status` and `down`."""

    zk: str
    procs: list[Proc] = field(default_factory=list)

    def save(self, data_dir: str) -> None:
        tmp = os.path.join(data_dir, STATE + ".tmp")
        with open(tmp, "w") as f:
            json.dump({"zk": self.zk, "procs": [asdict(p) for p in self.procs]}, f, indent=1)
        os.replace(tmp, os.path.join(data_dir, STATE))

    @staticmethod
    def load(data_dir: str) -> State | None:
        try:
            with open(os.path.join(data_dir, STATE)) as f:
                raw = json.load(f)
        except FileNotFoundError:
            return None
        return State(raw["zk"], [Proc(**p) for p in raw["procs"]])


class LaunchError(Exception):
    """Why `cluster up` could not start the cluster (one line, plus a log tail)."""


def cumulo_command() -> list[str]:
    """How to run `cumulo` as a child so that `ps` shows `cumulo <role>`."""
    script = os.path.join(os.path.dirname(sys.executable), "cumulo")
    if os.path.isfile(script):
        return [sys.executable, script]
    return [sys.executable, "-m", "cumulo.server.cli"]


def alive(pid: int) -> bool:
    """True if `pid` runs (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def wait_until(ready: Callable[[], bool], seconds: float, interval: float = 0.05) -> bool:
    """Polls `ready()` every `interval` seconds: True once it holds, False after `seconds`.

    The one wait loop of the launcher (a role to listen, an engine to accept, processes
    to exit).
    """
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def accepts(host: str, port: int, timeout: float = 1.0) -> bool:
    """True if something accepts TCP connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def zk_ok(hosts: str) -> bool:
    """ZooKeeper's `ruok` four-letter command (needs 4lw.commands.whitelist), on its first host."""
    host, _, port = hosts.split(",")[0].partition(":")
    try:
        with socket.create_connection((host, int(port or 2181)), timeout=1.0) as s:
            s.sendall(b"ruok")
            return s.recv(4) == b"imok"
    except OSError:
        return False


class Launcher:
    """Starts processes detached, with their output in D/logs, and records them."""

    def __init__(self, data_dir: str, zk: str) -> None:
        self.dir = data_dir
        self.state = State(zk)
        os.makedirs(os.path.join(data_dir, "logs"), exist_ok=True)

    def spawn(self, name: str, kind: str, argv: list[str], data_dir: str = "",
              port: int = 0) -> Proc:
        log = os.path.join(self.dir, "logs", f"{name}.log")
        with open(log, "ab") as out:
            start = out.tell()
            popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                     start_new_session=True, close_fds=True)
        proc = Proc(name, kind, popen.pid, port=port, data_dir=data_dir, log=log, log_from=start,
                    argv=list(argv))
        self.state.procs.append(proc)
        self.state.save(self.dir)  # NB: at once, so that `down` finds a half-started cluster
        return proc

    def wait(self, proc: Proc, ready: Any, what: str, seconds: float) -> None:
        """Waits until `ready()`; raises if the process dies first or `seconds` pass."""

        def done() -> bool:
            if ready():
                return True
            if not alive(proc.pid):
                raise LaunchError(f"{proc.name} exited before {what}:\n{self.last_lines(proc)}")
            return False

        if not wait_until(done, seconds):
            raise LaunchError(f"{proc.name}: timed out waiting for {what}:\n"
                              f"{self.last_lines(proc)}")

    @staticmethod
    def output(proc: Proc) -> list[str]:
        """The lines this run of the process has written so far."""
        with open(proc.log, "rb") as f:
            f.seek(proc.log_from)
            return f.read().decode(errors="replace").splitlines()

    def last_lines(self, proc: Proc, n: int = 15) -> str:
        return "\n".join(self.output(proc)[-n:])

    def listening(self, proc: Proc) -> bool:
        """Reads the role's `LISTENING host port` line (printed once it is registered)."""
        for line in self.output(proc):
            if line.startswith("LISTENING "):
                _, proc.host, port = line.split()
                proc.port = int(port)
                return True
        return False


def start_zookeeper(launch: Launcher, port: int) -> str:
    java = shutil.which("java")
    if java is None or not os.path.exists(ZK_CLASSPATH.split(":")[0]):
        raise LaunchError("ZooKeeper is not installed (apt-get install zookeeper), "
                          "or name a running one with --zk HOST:PORT")
    d = os.path.join(launch.dir, "zookeeper")
    os.makedirs(d, exist_ok=True)
    cfg = os.path.join(d, "zoo.cfg")
    with open(cfg, "w") as f:
        f.write(f"tickTime=500\ndataDir={d}/data\nclientPort={port}\nclientPortAddress=127.0.0.1\n"
                "admin.enableServer=false\n4lw.commands.whitelist=ruok,srvr,stat,cons\n"
                "maxSessionTimeout=20000\n")
    proc = launch.spawn("zookeeper", "zookeeper", [
        java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", ZK_CLASSPATH,
        f"-Dzookeeper.log.dir={d}", "org.apache.zookeeper.server.ZooKeeperServerMain", cfg,
    ], data_dir=d, port=port)
    hosts = f"127.0.0.1:{port}"
    launch.wait(proc, lambda: zk_ok(hosts), "ZooKeeper to answer ruok", 60)
    forget_members(hosts)
    return hosts


def forget_members(hosts: str) -> None:
    """Deletes the membership a previous run left in our own ZooKeeper's files.

    Why: ZooKeeper restores sessions from its files and keeps their ephemeral znodes until
    they expire, so a role that was SIGKILLed last time would still look registered (its
    name taken, its old address discovered by the engines). No process of this cluster
    runs now (`up` checked), so every member znode is stale.
    """
    client = zk_mod.connect(hosts, timeout=30.0)
    try:
        # NB: not the epoch nor the state: timestamps go on above the old bound. The engines
        # known to the last leader go: their ids are handed out again from 0, and they
        # left nothing a reaper must clear (the new engines recover from the loggers)
        for path in (zk_mod.ROOT, zk_mod.LTMS, LOCK, LEADER, KNOWN_LTMS):
            if client.exists(path):
                client.delete(path, recursive=True)
    finally:
        client.stop()


def up(args: argparse.Namespace) -> int:
    d = os.path.abspath(args.data_dir)
    os.makedirs(d, exist_ok=True)
    old = State.load(d)
    if old is not None and any(alive(p.pid) for p in old.procs):
        print(f"cumulo cluster: a cluster already runs from {d} (cumulo cluster down "
              f"--data-dir {d})", file=sys.stderr)
        return 1
    launch = Launcher(d, args.zk or "")
    cumulo = cumulo_command()
    try:
        if not args.zk:
            launch.state.zk = start_zookeeper(launch, args.zk_port or free_port())
            launch.state.save(d)
        zk = launch.state.zk
        common = ["--zk", zk, "--zk-session-timeout", str(args.zk_session_timeout)]
        # NB: the MasterMind and the conflict managers keep no files today; their --data-dir
        # is where they will, and it makes every process of this cluster findable by D in ps.
        roles = []
        for i in range(max(1, args.masterminds)):  # NB: one leads, the others stand by
            name = "mastermind" if i == 0 else f"mastermind-{i}"
            dd = os.path.join(d, name)
            roles.append(launch.spawn(name, "mastermind", [
                *cumulo, "mastermind", *common, "--data-dir", dd, "--name", name,
                "--region-split-bytes", str(args.region_split_bytes),
                "--placement-interval", str(args.placement_interval)], dd))
        for i in range(args.nodes):
            dd = os.path.join(d, f"kivi-{i}")
            roles.append(launch.spawn(f"kivi-{i}", "kivi", [
                *cumulo, "kivi", *common, "--data-dir", dd, "--name", f"kivi-{i}",
                *([] if args.cold_rows else ["--no-cold-rows"])], dd))
        for i in range(args.conflict_managers):
            dd = os.path.join(d, f"conflicts-{i}")
            roles.append(launch.spawn(f"conflicts-{i}", "conflicts", [
                *cumulo, "conflicts", *common, "--data-dir", dd, "--index", str(i), "--managers",
                str(args.conflict_managers), "--name", f"conflicts-{i}"], dd))
        for i in range(args.loggers):
            dd = os.path.join(d, f"logger-{i}")
            roles.append(launch.spawn(f"logger-{i}", "logger", [
                *cumulo, "logger", *common, "--data-dir", dd, "--name", f"logger-{i}"], dd))
        for p in roles:  # NB: all started before any is awaited: they import in parallel
            launch.wait(p, lambda p=p: launch.listening(p), "it listens", args.timeout)
        launch.state.save(d)
        engines = []
        for i in range(args.engines):
            dd = os.path.join(d, f"engine-{i}")
            port = args.port + i
            engines.append(launch.spawn(f"engine-{i}", "engine", [
                *cumulo, "serve", "--cluster", zk, "--host", args.host, "--port", str(port),
                "--data-dir", dd, "--gc-interval", str(args.gc_interval),
                "--zk-session-timeout", str(args.zk_session_timeout)], dd, port))
            engines[-1].host = args.host
            # NB: one at a time: the first engine to join resets the conflict managers
            # NB: its own log line, not only a connect: the port could be someone else's
            launch.wait(engines[-1], lambda p=engines[-1]: any(
                READY in line for line in launch.output(p)) and accepts(p.host, p.port),
                "it accepts connections", args.timeout)
        if args.supervise:  # NB: last: it restarts what dies from now on
            launch.spawn("supervisor", "supervisor", [
                *cumulo, "cluster", "supervise", "--data-dir", d])
        launch.state.save(d)
    except LaunchError as e:
        print(f"cumulo cluster up: {e}", file=sys.stderr)
        stop_all(launch.state, 10.0)
        return 1
    print(f"cluster up in {d} (ZooKeeper {launch.state.zk})")
    print_table(launch.state.procs, None)
    if args.engines:
        ports = ", ".join(str(args.port + i) for i in range(args.engines))
        print(f"connect: psql -h {args.host} -p {args.port} -U cumulo cumulo"
              f"  (query engines on port {ports})")
    return 0


def print_table(procs: list[Proc], health: dict[str, tuple[str, str]] | None) -> None:
    head = f"{'ROLE':<13}{'PID':>8}  {'ADDRESS':<22}"
    if health is not None:
        head += f"{'HEALTH':<28}{'REGIONS':<8}"
    print(head + "DATA")
    for p in procs:
        row = f"{p.name:<13}{p.pid:>8}  {p.host + ':' + str(p.port):<22}"
        if health is not None:
            h, regions = health[p.name]
            row += f"{h:<28}{regions:<8}"
        print(row + (p.data_dir or "-"))


def health_of(state: State) -> dict[str, tuple[str, str]]:
    """Per process: (health, region count). Healthy: running, reachable and, for a role,
    registered in ZooKeeper; a KiVi node also says how many regions it holds."""
    registered: dict[str, set[str]] = {}
    zk_error = ""
    leader_port = 0
    try:
        client = zk_mod.connect(state.zk, timeout=5.0)
        try:
            registered = {r: set(m) for r, m in zk_mod.discover(client).roles.items()}
            if client.exists(LEADER):
                leader_port = int(json.loads(client.get(LEADER)[0])["port"])
        finally:
            client.stop()
    except Exception as e:  # noqa: BLE001 - ZooKeeper down: say so per role
        zk_error = f"ZooKeeper unreachable ({type(e).__name__})"
    out: dict[str, tuple[str, str]] = {}
    for p in state.procs:
        regions = "-"
        if not alive(p.pid):
            out[p.name] = ("down (no process)", regions)
            continue
        if p.kind == "zookeeper":
            out[p.name] = ("ok" if zk_ok(state.zk) else "not answering ruok", regions)
            continue
        if p.kind == "supervisor":  # NB: it listens on nothing
            out[p.name] = ("ok", regions)
            continue
        if not accepts(p.host, p.port):
            out[p.name] = ("running, not accepting", regions)
            continue
        role = ROLE_COMMANDS.get(p.kind)
        if role is not None and zk_error:
            out[p.name] = (zk_error, regions)
            continue
        if role is not None and p.name not in registered.get(role, set()):
            out[p.name] = ("not registered in ZooKeeper", regions)
            continue
        if p.kind == "kivi":
            node = RemoteNode(p.host, p.port, timeout=5.0)
            try:
                reply = node.handle(NodeStatus())
                regions = str(len(reply.regions))
            except Exception as e:  # noqa: BLE001 - report, do not fail the listing
                out[p.name] = (f"status failed: {type(e).__name__}", regions)
                continue
            finally:
                node.close()
        if p.kind == "mastermind":
            out[p.name] = ("ok (leader)" if p.port == leader_port else "ok (standby)", regions)
            continue
        out[p.name] = ("ok", regions)
    return out


def status(args: argparse.Namespace) -> int:
    d = os.path.abspath(args.data_dir)
    state = State.load(d)
    if state is None:
        print(f"cumulo cluster: no cluster runs from {d} (none was started, or it was "
              "stopped)", file=sys.stderr)
        return 1
    report = health_of(state)
    print(f"cluster in {d} (ZooKeeper {state.zk})")
    print_table(state.procs, report)
    return 0 if all(h.startswith("ok") for h, _ in report.values()) else 3


KIND_ORDER = ["supervisor", "engine", "mastermind", "kivi", "conflicts", "logger", "zookeeper"]


def stop_all(state: State, timeout: float) -> list[str]:
    """SIGTERM in the reverse order of start, SIGKILL past `timeout`; returns what was killed."""
    killed = []
    for kind in KIND_ORDER:
        group = [p for p in state.procs if p.kind == kind and alive(p.pid)]
        for p in group:
            try:
                os.kill(p.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

        def exited(group: list[Proc] = group) -> bool:
            return not any(alive(p.pid) for p in group)

        wait_until(exited, timeout)
        for p in group:
            if alive(p.pid):
                killed.append(p.name)
                try:
                    os.kill(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
    return killed


def down(args: argparse.Namespace) -> int:
    d = os.path.abspath(args.data_dir)
    state = State.load(d)
    if state is None:
        print(f"cumulo cluster: no cluster runs from {d} (none was started, or it was "
              "stopped)", file=sys.stderr)
        return 1
    killed = stop_all(state, args.timeout)
    os.replace(os.path.join(d, STATE), os.path.join(d, STATE + ".last"))
    print(f"cluster in {d} stopped" + (f" (killed after {args.timeout:g}s: {', '.join(killed)})"
                                       if killed else ""))
    return 0


def cluster_parser(prog: str = "cumulo cluster") -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=prog, description="Runs a Cumulo cluster on this machine: "
                                "every role in its own process, coordinated through ZooKeeper.")
    sub = p.add_subparsers(dest="action", required=True)
    u = sub.add_parser("up", help="start ZooKeeper, the MasterMind, KiVi nodes, conflict "
                       "managers, loggers and query engines; return once they serve")
    u.add_argument("--nodes", type=int, default=3, help="KiVi storage nodes (default 3)")
    u.add_argument("--data-dir", required=True, help="every role's data and logs go under it")
    u.add_argument("--port", type=int, default=5433,
                   help="pgwire port of the first query engine; the next ones follow (default 5433)")
    u.add_argument("--host", default="127.0.0.1", help="address the query engines listen on")
    u.add_argument("--engines", type=int, default=1, help="query engines (default 1)")
    u.add_argument("--gc-interval", type=float, default=30.0,
                   help="seconds between the query engines' garbage collections (default 30)")
    u.add_argument("--region-split-bytes", type=int, default=64 << 20,
                   help="the MasterMind splits a region past about this many bytes (64 MiB)")
    u.add_argument("--placement-interval", type=float, default=5.0,
                   help="seconds between the MasterMind's split and balance rounds "
                   "(0: only splits and moves asked for with cumulo_split/cumulo_move)")
    u.add_argument("--cold-rows", action=argparse.BooleanOptionalAction, default=True,
                   help="KiVi nodes keep settled rows in compact cold segments (default on)")
    u.add_argument("--zk", help="use this ZooKeeper (HOST:PORT[,...]) instead of starting one")
    u.add_argument("--zk-port", type=int, help="client port of the ZooKeeper started (default: free)")
    u.add_argument("--masterminds", type=int, default=1,
                   help="MasterMind processes: one leads, the others take over if it dies "
                   "(default 1)")
    u.add_argument("--conflict-managers", type=int, default=1, help="(default 1)")
    u.add_argument("--loggers", type=int, default=1, help="(default 1)")
    u.add_argument("--zk-session-timeout", type=float, default=6.0,
                   help="seconds after which a crashed role leaves ZooKeeper (default 6)")
    u.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each role")
    u.add_argument("--supervise", action="store_true",
                   help="also start a supervisor that starts again any role that dies")
    s = sub.add_parser("status", help="list each role with its pid, health and region count")
    s.add_argument("--data-dir", required=True)
    sv = sub.add_parser("supervise", help="(started by up --supervise) restart the roles that die")
    sv.add_argument("--data-dir", required=True)
    sv.add_argument("--interval", type=float, default=0.5, help="seconds between checks")
    dn = sub.add_parser("down", help="stop every process of the cluster (SIGTERM, then SIGKILL)")
    dn.add_argument("--data-dir", required=True)
    dn.add_argument("--timeout", type=float, default=20.0,
                    help="seconds a role gets to stop before SIGKILL (default 20)")
    return p


def cluster_main(argv: list[str]) -> int:
    args = cluster_parser().parse_args(argv)
    if args.action == "supervise":
        d = os.path.abspath(args.data_dir)
        return supervisor.supervise(d, args.interval, State.load, alive,
                                    Launcher(d, "").listening)
    return {"up": up, "status": status, "down": down}[args.action](args)


def main(argv: list[str]) -> int:
    """Runs `cumulo cluster ...` or `cumulo <role> ...` (argv[0] is the command)."""
    if argv[0] == "cluster":
        return cluster_main(argv[1:])
    return role_mod.main(argv[1:], prog=f"cumulo {argv[0]}", role=ROLE_COMMANDS[argv[0]])
