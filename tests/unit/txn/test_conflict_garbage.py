"""A write conflict's error leaves no reference cycle behind (issue 11, OLTP stalls).

Under pgbench TPC-B every branch update that meets a concurrent writer raises
RetryStatement (READ COMMITTED) or SerializationFailure. When the raising
frame kept the error in a local, frame -> error -> traceback -> frame was a
cycle: about 90 objects per conflict that only Python's cyclic collector
frees, and its passes over them held the GIL for 100+ ms, stalling every
session (`python -m bench htap`). The error must die with its last reference.
"""

from __future__ import annotations

import gc
import weakref

import pytest

from cumulo.server.errors import SerializationFailure
from cumulo.server.txn.api import RetryStatement
from cumulo.server.txn.embedded import open_embedded

S = 7


@pytest.mark.parametrize("isolation,error", [("read committed", RetryStatement),
                                             ("repeatable read", SerializationFailure)])
def test_conflict_error_is_freed_without_the_cyclic_collector(isolation, error) -> None:
    tm = open_embedded(None, gc_interval=None)
    enabled = gc.isenabled()
    gc.disable()
    try:
        t = tm.begin(isolation=isolation)
        t.get(S, [])  # takes the snapshot
        w = tm.begin()
        w.put(S, [(b"k", (1,))])
        w.commit()
        try:
            t.put(S, [(b"k", (2,))])  # committed after t's snapshot: a conflict
        except error as exc:
            ref = weakref.ref(exc)
            assert exc.sqlstate == "40001"
        else:
            pytest.fail("no conflict")
        assert ref() is None, "the conflict's error is held by a reference cycle"
        t.abort()
    finally:
        if enabled:
            gc.enable()
        tm.close()
