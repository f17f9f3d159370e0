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
"""

from __future__ import annotations

import os
import resource
from typing import Any

from ...errors import OutOfMemory

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


def check(ctx: Any) -> None:
    """Raises 53200 when the process is close to its memory limit (cheap: samples)."""
    d = ctx.__dict__
    n = d.get("_memguard", 0) + 1
    d["_memguard"] = n
    if n % EVERY:
        return
    vm, rss = usage()
    if (_VM_LIMIT is not None and vm > _VM_LIMIT) or (_RSS_LIMIT is not None and rss > _RSS_LIMIT):
        raise OutOfMemory("out of memory",
                          detail="The query's in-memory sort, hash or materialised rows "
                          "exceeded the server's memory limit.")
