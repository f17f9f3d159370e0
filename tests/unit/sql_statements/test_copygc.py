"""COPY's collector pause (`sql/copygc`): process-wide, so it must always end as it began."""

from __future__ import annotations

import gc
import threading

import pytest

from cumulo.server.sql.copygc import paused


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
