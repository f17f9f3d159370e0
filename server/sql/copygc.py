"""The cyclic garbage collector paused while COPY FROM converts one block of input.

A block of COPY input becomes tens of thousands of short-lived containers (the
csv module's record lists, the column lists) next to the rows that stay. With
the collector running, every 10,000 allocations a young collection walks them,
the ones alive at that moment are promoted, and enough promotions start a full
collection that walks the whole heap, KiVi's stored rows included: in process,
loading TPC-H's `orders` spent more time in the collector than in parsing.
None of these objects are in reference cycles (reference counting frees them),
so the collector only finds nothing in them.

`paused()` disables the collector for one block (at most about 1 MiB of input
or one writer batch: tens of milliseconds); the next allocation after it
collects as usual. The effect is process-wide, so it is bounded that way: a
count of open pauses across threads, the collector re-enabled when the last
one ends, and never enabled by a pause if it was disabled before the first.

>>> import gc
>>> with paused():
...     inside = gc.isenabled()
>>> inside, gc.isenabled()
(False, True)
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_open = 0
_was_enabled = False


@contextmanager
def paused() -> Iterator[None]:
    """Disables the cyclic collector until the last overlapping pause ends."""
    global _open, _was_enabled
    with _lock:
        if _open == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0 and _was_enabled:
                gc.enable()
