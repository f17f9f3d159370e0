"""`waits.blocking`: a call that blocks in the kernel parks only its own session greenlet.

On the event-loop front end every session is a greenlet on the loop's thread, so a
CHECKPOINT's file writes or a commit's fsync made on that thread would stop every other
session. The test makes that visible without timing: session A's blocking call can only
return after session B has run a statement, so if the call held the loop's thread, B
could never run and A's call gives up (False).
"""

from __future__ import annotations

import threading

import greenlet
import pytest

from cumulo.server import waits
from tests.hubsessions import on_a_hub


def test_blocking_call_lets_other_sessions_run():
    other_ran = threading.Event()

    def a_checkpoint():
        # NB: returns True only if session b ran while this call was blocked
        return waits.blocking(other_ran.wait, 10.0)

    def b_statement():
        other_ran.set()
        return "ran"

    got = on_a_hub(a_checkpoint, b_statement)
    assert got.results == [True, "ran"]
    assert got.offloaded == 1


def test_blocking_call_raises_in_its_session():
    def failing():
        try:
            waits.blocking(int, "not a number")
        except ValueError as e:
            return f"ValueError: {e}"
        return "no error"

    (got,) = on_a_hub(failing).results
    assert str(got).startswith("ValueError: invalid literal")


def test_blocking_outside_a_hub_is_a_plain_call():
    assert waits.blocking(threading.get_ident) == threading.get_ident()
    main = greenlet.getcurrent()
    assert waits.blocking(greenlet.getcurrent) is main


@pytest.mark.parametrize("notify", ["notify_all", "notify"])
def test_condition_notify_all_checks_ownership_and_wakes_threads_and_sessions(notify):
    """`Condition.notify_all` and `notify` skip threading's notify when no thread waits,
    yet keep its rule (un-acquired: RuntimeError, with a plain Lock or an RLock) and wake
    both a thread and a hub's session that wait (one of each for `notify`: threads and
    sessions are woken apart). A Condition on a plain Lock is built without threading's
    probes of the lock, and still waits and is notified as threading's."""
    for cond in (waits.Condition(threading.Lock()), waits.Condition()):
        try:
            getattr(cond, notify)()
        except RuntimeError:
            pass
        else:
            raise AssertionError(f"{notify} without the lock did not raise")
        with cond:
            getattr(cond, notify)()  # nobody waits: nothing happens
            assert cond.wait(0.001) is False  # a thread's timed wait, as threading's
    cond = waits.Condition(threading.Lock())
    state = {"go": False}
    waiting = threading.Event()

    def thread_waits():
        with cond:
            waiting.set()
            while not state["go"]:
                cond.wait()

    t = threading.Thread(target=thread_waits, daemon=True)
    t.start()
    assert waiting.wait(30)

    def session_waits():
        with cond:
            while not state["go"]:
                cond.wait()
        return "woken"

    def session_wakes():
        with cond:
            state["go"] = True
            getattr(cond, notify)()
        return "done"

    assert on_a_hub(session_waits, session_wakes).results == ["woken", "done"]
    t.join(30)
    assert not t.is_alive()


def test_lock_held_across_a_park_parks_the_next_session_until_released():
    """`waits.Lock` through `with`: a session holding it parks (an Event); a second one
    asking for it parks too instead of blocking the loop's thread, and gets it when the
    first releases it."""
    lock, go, seen = waits.Lock(), waits.Event(), []

    def holder():
        with lock:
            seen.append("held")
            go.wait()
            seen.append("released")
        return "holder"

    def asker():
        with lock:
            seen.append("got")
        return "asker"

    def opener():
        go.set()
        return "opener"

    assert on_a_hub(holder, asker, opener).results == ["holder", "asker", "opener"]
    assert seen == ["held", "released", "got"] and not lock.locked()
