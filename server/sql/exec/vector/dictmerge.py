"""The union of several packs' string dictionaries, and where each pack's strings sit in it:
computed once per set of dictionaries, not once per query.

Why: a string column read across packs is concatenated (`frame.concat`) into one
column over one sorted dictionary. Merging is Arrow work (unique, sort, index_in),
but each dictionary must first become an Arrow string array, a pass over its
Python strings. CH-benCHmark Q16 groups 100,000 items by `i_name` (100,000
distinct names in two packs): profiled beside TPC-C, that conversion and merge
were ~40 % of the query, and the analytic stream ran it again every loop. A
pack's columns are encoded once and never change (a new version of a row goes
to another pack), so the same dictionaries come back, as the same objects, for
every query until their packs are rewritten.

The cache is keyed by the dictionaries' identities, checked through weak
references (an id is reused once its array is freed), and holds at most `SIZE`
merges, the least recently used going first, plus, per merge, the union as an
Arrow array and each input's positions in it.

    >>> import numpy as np
    >>> a = np.array(["b", "é"], dtype=object); b = np.array(["a", "b", "Z"], dtype=object)
    >>> d, at = merged([a, b])
    >>> d.tolist(), [p.tolist() for p in at]
    (['Z', 'a', 'b', 'é'], [[2, 3], [1, 2, 0]])
    >>> merged([a, b])[0] is d  # the second time: the same merge
    True
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

SIZE = 64  # merges kept

_CACHE: OrderedDict[tuple[int, ...], tuple[list[weakref.ref], np.ndarray, list[np.ndarray]]] = (
    OrderedDict())
_LOCK = threading.Lock()


def merged(dicts: list[np.ndarray]) -> tuple[np.ndarray, list[np.ndarray]]:
    """The sorted union of sorted string dictionaries (object arrays) and, per input, the
    int32 position of each of its strings in the union. Arrow hashes and sorts the strings
    in C and orders them by their UTF-8 bytes, which is Python's code point order."""
    key = tuple(map(id, dicts))
    with _LOCK:
        hit = _CACHE.get(key)
        if hit is not None and all(r() is d for r, d in zip(hit[0], dicts, strict=True)):
            _CACHE.move_to_end(key)
            return hit[1], hit[2]
    arrays = [pa.array(d, pa.string()) for d in dicts]
    u = pc.unique(pa.chunked_array([a for a in arrays if len(a)], pa.string()))
    u = u.take(pc.sort_indices(u))
    union = u.to_numpy(zero_copy_only=False)
    at = [pc.index_in(a, value_set=u).to_numpy(zero_copy_only=False).astype(np.int32)
          if len(a) else np.zeros(0, np.int32) for a in arrays]
    with _LOCK:
        _CACHE[key] = ([weakref.ref(d) for d in dicts], union, at)
        while len(_CACHE) > SIZE:
            _CACHE.popitem(last=False)
    return union, at


__all__ = ["merged"]
