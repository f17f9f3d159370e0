"""A guard that fails one query with 53200 before it can take the whole server down.

Operators that must hold their input (sort, hash aggregate, hash join build,
set operations, materialised CTEs) grow with it; PostgreSQL would spill to
disk at work_mem, Cumulo keeps them in memory. One huge query must not make
the kernel kill the server and every other session with it, so those
operators call `check(ctx)` per batch: every `EVERY` calls it reads the
process size from /proc/self/statm and raises OutOfMemory (53200, "out of
memory") when the address space passes `FRACTION` of RLIMIT_AS, or the
resident set passes `FRACTION` of physical memory when there is no limit.
The statement's Python objects are then released and the server keeps
serving.

That limit is the server's, shared by every session. So that one statement
cannot take what the others need, each sort, hash or materialisation of a
statement also has a budget, `cumulo.statement_mem`, like PostgreSQL's
work_mem (which is per operator too, but spills to disk; Cumulo cannot
spill, so it fails the statement): the operator passes each batch it keeps
to its `Kept`, which estimates the batch's size from its first row, and a
statement whose operator keeps more than the budget fails with 53200 alone.
An operator run again (a LATERAL side, a correlated subquery) starts from
zero each time. The default, -1, is half of the server's limit; 0 turns the
budget off.

>>> from types import SimpleNamespace
>>> ctx = SimpleNamespace(settings={"cumulo.statement_mem": "1MB"}, memory=None)
>>> kept = Kept(ctx)
>>> for _ in range(200):
...     kept.add([("x" * 100, i) for i in range(100)])
Traceback (most recent call last):
...
cumulo.server.errors.OutOfMemory: out of memory
"""

from __future__ import annotations

import os
import resource
import sys
from typing import Any

from ...errors import OutOfMemory
from ..context import MemoryAccount
from ..settings import memory_kb

EVERY = 16
FRACTION = 0.8
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _limits() -> tuple[int | None, int | None]:
    """(address-space limit, resident limit) in bytes; None when unknown."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    vm = int(soft * FRACTION) if soft not in (resource.RLIM_INFINITY, -1) and soft > 0 else None
    rss = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    rss = int(int(line.split()[1]) * 1024 * FRACTION)
                    break
    except OSError:
        pass
    return vm, rss


_VM_LIMIT, _RSS_LIMIT = _limits()


def usage() -> tuple[int, int]:
    """(address space, resident set) of this process in bytes (0, 0 when unknown)."""
    try:
        with open("/proc/self/statm") as f:
            size, resident = f.read().split()[:2]
        return int(size) * _PAGE, int(resident) * _PAGE
    except (OSError, ValueError):
        return 0, 0


def headroom() -> int | None:
    """Bytes this process may still take before `check` fails a query (None: no limit known).
    Operators that can size their result before building it (the vectorized joins) ask."""
    vm, rss = usage()
    room = [lim - used for lim, used in ((_VM_LIMIT, vm), (_RSS_LIMIT, rss)) if lim is not None]
    return max(0, min(room)) if room else None


def statement_budget(settings: dict[str, str] | None) -> int | None:
    """Bytes each operator of a statement may keep (cumulo.statement_mem; -1: half of the server's limit,
    0: no budget of its own)."""
    kb = memory_kb((settings or {}).get("cumulo.statement_mem", "-1"))
    if kb < 0:
        limits = [lim for lim in (_VM_LIMIT, _RSS_LIMIT) if lim is not None]
        return min(limits) // 2 if limits else None
    return kb * 1024 if kb > 0 else None


def batch_bytes(batch: list[Any]) -> int:
    """Estimates what a batch of row tuples takes, from its first row (cheap: one row)."""
    if not batch:
        return 0
    row = batch[0]
    per = sys.getsizeof(row) + 8  # NB: the list's pointer to it
    if isinstance(row, tuple):
        per += sum(sys.getsizeof(v) for v in row)
    return per * len(batch)


def _account(ctx: Any) -> MemoryAccount:
    acct = ctx.memory
    if acct is None:
        acct = ctx.memory = MemoryAccount(statement_budget(ctx.settings))
    return acct


class Kept:
    """What one execution of an operator keeps: `add` each batch it holds on to."""

    __slots__ = ("budget", "ctx", "held")

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.budget = _account(ctx).budget
        self.held = 0  # estimated bytes

    def add(self, batch: list[Any]) -> None:
        """Counts a kept batch; raises 53200 past the budget or near the server's limit."""
        if self.budget is not None:
            self.held += batch_bytes(batch)
            if self.held > self.budget:
                raise OutOfMemory(
                    "out of memory",
                    detail=f"A sort, hash or materialisation of the statement passed "
                    f"cumulo.statement_mem ({self.budget // 1024} kB).",
                    hint="Raise cumulo.statement_mem for this session, or make the query "
                    "keep fewer rows.")
        check(self.ctx)


def check(ctx: Any) -> None:
    """Raises 53200 when the process is close to its memory limit (cheap: samples)."""
    acct = _account(ctx)
    acct.checks += 1
    if acct.checks % EVERY:
        return
    vm, rss = usage()
    if (_VM_LIMIT is not None and vm > _VM_LIMIT) or (_RSS_LIMIT is not None and rss > _RSS_LIMIT):
        raise OutOfMemory("out of memory",
                          detail="The query's in-memory sort, hash or materialised rows "
                          "exceeded the server's memory limit.")
