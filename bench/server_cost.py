"""What a server spends per transaction: CPU time and context switches, read from /proc.

tps says how fast; these say why. The server is found by the TCP port it
listens on (PostgreSQL: the postmaster, then every process it forked: one
backend per connection plus its helpers; Cumulo: one process, all of its
threads). A `CostMeter` samples the whole tree at two instants of a timed run,
while every connection is open, and divides the CPU seconds and context
switches between them by the transactions pgbench reported in between.

    >>> m = CostMeter(None)
    >>> m.result() is None
    True
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def listening_pid(port: int) -> int | None:
    """Returns the pid of the process listening on 127.0.0.1:port (TCP), if it is ours to see."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    parts = line.split()
                    if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                        inodes.add(parts[9])
        except OSError:
            continue
    if not inodes:
        return None
    targets = {f"socket:[{i}]" for i in inodes}
    for pid in _pids():
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}") in targets:
                    return pid
        except OSError:
            continue
    return None


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def tree(root: int) -> list[int]:
    """root and every descendant process."""
    children: dict[int, list[int]] = {}
    for pid in _pids():
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo += children.get(pid, [])
    return out


@dataclass(frozen=True)
class Sample:
    cpu_s: float
    switches: dict[int, int]  # thread id -> its context switches so far

    def switches_since(self, before: Sample) -> int:
        """Context switches between two samples, thread by thread: a thread that ended in
        between takes its count with it (not subtracted), one that began counts whole."""
        return sum(n - before.switches.get(tid, 0) for tid, n in self.switches.items())


def cpu_of(pid: int) -> float:
    """CPU seconds so far of every thread of one process, from /proc schedstat (nanoseconds:
    finer than /proc stat's clock ticks, for per-round-trip costs)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError):
            pass
    return total / 1e9


def sample(root: int) -> Sample:
    """CPU seconds (user + system) and context switches (voluntary + not) of root's tree."""
    cpu, switches = 0.0, {}
    for pid in tree(root):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            # NB: with the children's reaped time (cutime, cstime): a backend or autovacuum
            # worker that ends between the samples must not take its CPU away
            cpu += sum(int(v) for v in fields[11:15]) / _TICK
            for task in os.listdir(f"/proc/{pid}/task"):
                n = 0
                with open(f"/proc/{pid}/task/{task}/status") as f:
                    for line in f:
                        if line.startswith(("voluntary_ctxt", "nonvoluntary_ctxt")):
                            n += int(line.split()[1])
                switches[int(task)] = n
        except (OSError, ValueError, IndexError):
            continue  # a process that ended meanwhile
    return Sample(cpu, switches)


@dataclass(frozen=True)
class Cost:
    cpu_us_per_tx: float
    switches_per_tx: float


class CostMeter:
    """Samples a server at each pgbench progress line; the first and last ones count."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.first: tuple[Sample, float] | None = None
        self.last: tuple[Sample, float] | None = None
        self.prev: tuple[Sample, float] | None = None  # the sample before `last`
        self.transactions = 0.0  # since the first sample

    def progress(self, interval_tps: float, interval_s: float = 1.0) -> None:
        """Called at each progress line (pgbench -P 1): tps over the last interval."""
        if self.pid is None:
            return
        s = sample(self.pid)
        if self.first is None:
            self.first = (s, 0.0)
            return
        self.transactions += interval_tps * interval_s
        self.prev, self.last = self.last, (s, self.transactions)

    def result(self) -> Cost | None:
        if self.first is None or self.last is None or self.last[1] <= 0:
            return None
        a = self.first[0]
        b, n = self.last
        if self.prev is not None and self.prev[1] > 0 and _kept(a, b) < _kept(a, self.prev[0]):
            # NB: pgbench can print its last progress line after its clients hung up; a
            # threaded server's connection threads are gone by then, and their switches
            # with them (select-only read 0.0008 per tx instead of about 1)
            b, n = self.prev
        return Cost((b.cpu_s - a.cpu_s) / n * 1e6, b.switches_since(a) / n)


def _kept(a: Sample, b: Sample) -> int:
    """How many of a's threads b still has."""
    return len(a.switches.keys() & b.switches.keys())


def wait_quiet(port: int, idle_s: float = 0.05, tick: float = 1.0, ticks: int = 3,
               limit: float = 180.0) -> float:
    """Waits until the server listening on `port` used at most `idle_s` CPU seconds in each of
    `ticks` ticks in a row (its background work after a load is done: Cumulo freezes the
    rows once no commit came for a second, PostgreSQL's autovacuum), at most `limit`
    seconds; returns the seconds waited."""
    pid = listening_pid(port)
    if pid is None:
        return 0.0
    start = time.perf_counter()
    last, calm = sample(pid).cpu_s, 0
    while calm < ticks and time.perf_counter() - start < limit:
        time.sleep(tick)
        now = sample(pid).cpu_s
        calm = calm + 1 if now - last <= idle_s else 0
        last = now
    return time.perf_counter() - start
