"""A list of keys its builder vouches for: they strictly ascend (sorted, no repeat).

A bulk load's keys are usually in key order already (a COPY of ascending ids, a
direct-API upsert of an Arrow batch, a Spark task's slice). Several layers ask
the same question of such a batch: the write set and the conflict managers
want its smallest and largest key (`txn.keyspan`), the direct API wants to
know that no key repeats, and KiVi's bulk apply wants it sorted. For a million
keys each question is a Python-level comparison pass (about 50-100 ms). Whoever
builds the batch from something that answers it for free (numpy's comparison
of the integer column, `sql.direct.colkeys`; a write set whose bulk batches
each followed the last, `txn.writeset`) hands the keys over as
`AscendingKeys`, and the readers take `keys[0]`, `keys[-1]` and the order on
trust.

The promise holds only while nobody changes the list: producers hand it over
and keep no reference they would mutate. `type(keys) is AscendingKeys` (not
isinstance) is the test: a slice or a copy made with `list()` is a plain list
again, and says nothing.

>>> keys = AscendingKeys([b"a", b"c"])
>>> ascends(keys), ascends([b"c", b"a"]), ascends([b"a", b"a"]), ascends([])
(True, False, False, True)
"""

from __future__ import annotations

from itertools import islice
from operator import lt


class AscendingKeys(list[bytes]):
    """Keys that strictly ascend; see the module docstring for who may build one."""

    __slots__ = ()


def ascends(keys: list[bytes]) -> bool:
    """Tells whether keys strictly ascend: at once for `AscendingKeys`, else one C-level pass."""
    return type(keys) is AscendingKeys or all(map(lt, keys, islice(keys, 1, None)))
