"""`waits.blocking`: a call that blocks in the kernel parks only its own session greenlet.

On the event-loop front end every session is a greenlet on the loop's thread, so a
CHECKPOINT's file writes or a commit's fsync made on that thread would stop every other
session. The test makes that visible without timing: session A's blocking call can only
return after session B has run a statement, so if the call held the loop's thread, B
could never run and A's call gives up (False).
"""

from __future__ import annotations

import asyncio
import threading

import greenlet

from server import waits


def _run_sessions(*sessions):
    """Runs each function as a session greenlet of a hub on a fresh loop, until all end."""
    results: dict[str, object] = {}

    async def main() -> None:
        hub = waits.Hub(asyncio.get_running_loop()).install()
        done = asyncio.Event()
        left = [len(sessions)]
        try:
            for fn in sessions:
                def run(fn=fn) -> None:
                    try:
                        results[fn.__name__] = fn()
                    finally:
                        left[0] -= 1
                        if not left[0]:
                            done.set()

                hub.spawn(run)
            await asyncio.wait_for(done.wait(), 30)
            results["offloaded"] = hub.offloaded
        finally:
            hub.uninstall()

    asyncio.run(main())
    return results


def test_blocking_call_lets_other_sessions_run():
    other_ran = threading.Event()

    def a_checkpoint():
        # NB: returns True only if session b ran while this call was blocked
        return waits.blocking(other_ran.wait, 10.0)

    def b_statement():
        other_ran.set()
        return "ran"

    got = _run_sessions(a_checkpoint, b_statement)
    assert got["a_checkpoint"] is True
    assert got["b_statement"] == "ran"
    assert got["offloaded"] == 1


def test_blocking_call_raises_in_its_session():
    def failing():
        try:
            waits.blocking(int, "not a number")
        except ValueError as e:
            return f"ValueError: {e}"
        return "no error"

    got = _run_sessions(failing)
    assert got["failing"].startswith("ValueError: invalid literal")


def test_blocking_outside_a_hub_is_a_plain_call():
    assert waits.blocking(threading.get_ident) == threading.get_ident()
    main = greenlet.getcurrent()
    assert waits.blocking(greenlet.getcurrent) is main
