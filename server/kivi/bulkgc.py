"""The cyclic garbage collector paused over a bulk batch, whose stored rows it then never walks.

A block of COPY input becomes tens of thousands of short-lived containers (the
csv module's record lists, the column lists) next to the rows that stay, and the
commit of a bulk batch adds two tuples per row to the version store (its
`(ts, row)` version and the chain holding it). None of these are in reference
cycles: reference counting frees the short-lived ones, and the stored ones live
until their row is rewritten. Yet the collector walks every one: with it
running, a young collection every 10,000 allocations, whose survivors are
walked again by the older generations; paused and resumed, one young collection
of them all. Either way the walk costs about as much (in process, 6 types, 15-20 %
of COPY FROM's CPU: 2.4 -> 2.1 us/row text, 1.75 -> 1.4 binary).

So a pause that ends after a bulk batch (its young generation grew by at least
`FREEZE_AT` objects while it lasted) moves everything tracked into the permanent generation
(`gc.freeze`, a list splice) instead of collecting it: the batch's objects are
never walked, as the server's start does for the rows recovery loads. The cost:
garbage cycles already pending at that moment, and objects alive then that later
die in a cycle, are kept for good (a short-lived statement's pending cycles
measured a few per transaction; a client connected through a freeze keeps its
session's cycles after it disconnects). A smaller pause ends as an ordinary one:
the next allocation after it collects as usual.

`paused()` spans one block of COPY input (about 1 MiB or one writer batch: tens of
milliseconds) or one bulk commit's apply (`KiviNode.apply`). The effect is
process-wide, so it is bounded that way: a count of open pauses across threads, the
collector re-enabled when the last one ends, and never enabled by a pause if it was
disabled before the first.

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

FREEZE_AT = 1 << 13  # young objects at a pause's end that make it a bulk batch's

_lock = threading.Lock()
_open = 0
_was_enabled = False
_young_before = 0  # the young generation's count as the first pause began


@contextmanager
def paused() -> Iterator[None]:
    """Disables the cyclic collector until the last overlapping pause ends; freezes what
    a bulk batch left tracked (see above)."""
    global _open, _was_enabled, _young_before
    with _lock:
        if _open == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
            _young_before = gc.get_count()[0]
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0 and _was_enabled:
                if gc.get_count()[0] - _young_before >= FREEZE_AT:
                    gc.freeze()
                gc.enable()
