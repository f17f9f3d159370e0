"""A cluster engine's background loop (`cluster.loops.keep_running`) outlives its failures.

The wake-up and snapshot threads of a cluster-mode engine caught only SQLError: any
other exception ended the thread silently, and every later wait on another engine hung.
"""

from __future__ import annotations

import logging
import threading

import pytest

from cumulo.server.cluster.loops import keep_running
from cumulo.server.errors import ConnectionFailure


def test_the_loop_logs_what_fails_and_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    stop = threading.Event()
    seen: list[str] = []
    # what each turn does: a bug twice, an unreachable peer, a bug, a good turn, a bug...
    script = ["bug", "bug", "unreachable", "bug", "ok", "bug", "ok"]

    def step() -> None:
        what = script[len(seen)]
        seen.append(what)
        if what == "bug":
            raise KeyError("a reply it did not expect")
        if what == "unreachable":
            raise ConnectionFailure("cannot reach the conflict manager")
        if len(seen) == len(script):
            stop.set()

    with caplog.at_level(logging.ERROR, logger="cumulo.cluster"):
        th = threading.Thread(target=keep_running, args=(step, stop, 0.001, "the test poll"),
                              daemon=True)
        th.start()
        th.join(60)
    assert not th.is_alive(), "the loop did not end when told to"
    assert seen == script  # every failure was followed by another turn
    failures = [r for r in caplog.records if r.name == "cumulo.cluster"]
    assert len(failures) == 4  # the bugs, each with its traceback; the SQLError is expected
    assert all(r.exc_info and r.exc_info[0] is KeyError for r in failures)
    # the pause doubles while failures repeat, and starts over after a good turn
    assert [r.args[1] for r in failures] == [0.001, 0.002, 0.004, 0.001]


def test_the_loop_ends_while_it_pauses() -> None:
    stop = threading.Event()
    turns: list[int] = []

    def step() -> None:
        turns.append(1)
        stop.set()  # NB: told to end as it fails: the pause (an hour) must not hold it
        raise RuntimeError("boom")

    th = threading.Thread(target=keep_running, args=(step, stop, 3600.0, "the test poll"),
                          daemon=True)
    th.start()
    th.join(60)
    assert not th.is_alive()
    assert turns == [1]
