"""The collector pause of bulk batches (`kivi/bulkgc`): process-wide, so it must always end as it
began; only a bulk batch's end freezes."""

from __future__ import annotations

import gc
import threading

import pytest

from cumulo.server.kivi.bulkgc import FREEZE_AT, paused


def test_overlapping_pauses_from_threads_end_with_the_collector_on():
    assert gc.isenabled()
    first_in, second_done = threading.Event(), threading.Event()
    seen = []

    def other():
        first_in.wait()
        with paused():
            seen.append(gc.isenabled())
        second_done.set()

    t = threading.Thread(target=other)
    t.start()
    with paused():
        first_in.set()
        second_done.wait(10)
        seen.append(gc.isenabled())  # the other pause ended first: still paused here
    t.join()
    assert seen == [False, False] and gc.isenabled()


def test_an_error_ends_the_pause_and_a_disabled_collector_stays_disabled():
    with pytest.raises(ZeroDivisionError), paused():
        raise ZeroDivisionError
    assert gc.isenabled()
    gc.disable()
    try:
        with paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_bulk_batch_is_frozen_and_a_small_pause_is_not():
    frozen = gc.get_freeze_count()
    with paused():
        small = [(i, "x") for i in range(100)]
    # NB: not ==: a frozen object that dies meanwhile (another test's, freed by its thread)
    # lowers the count; a freeze would have raised it by the 100 young tuples at least
    assert gc.get_freeze_count() < frozen + 100 and gc.isenabled()
    with paused():
        rows = [(i, "x") for i in range(2 * FREEZE_AT)]  # alive at the end, as a stored batch
    assert gc.get_freeze_count() >= frozen + FREEZE_AT and gc.isenabled()
    assert len(small) + len(rows) == 100 + 2 * FREEZE_AT
