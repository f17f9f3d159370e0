"""Runs plain functions as session greenlets of a `waits.Hub`, the loop front end's way.

Unit tests use it to show that something that waits parks only its own session: the
functions share one event-loop thread as real sessions do. The loop runs on a thread of
its own joined with a timeout, so a function that blocks the thread (a plain lock held
across a park, say) fails the test instead of hanging it; it is a guard, not a timing.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from cumulo.server import waits


@dataclass
class HubRun:
    """What each function returned or raised, in the order given, and the hub's counts of
    calls it offloaded to threads (`waits.blocking`) and of parks (`Hub.parks`)."""

    results: list[object] = field(default_factory=list)
    offloaded: int = 0
    parks: int = 0


def on_a_hub(*sessions: Callable[[], object], timeout: float = 30.0) -> HubRun:
    got: dict[int, object] = {}
    run_info = HubRun()

    async def main() -> None:
        hub = waits.Hub(asyncio.get_running_loop()).install()
        done = asyncio.Event()
        left = [len(sessions)]
        try:
            for i, fn in enumerate(sessions):
                def run(i: int = i, fn: Callable[[], object] = fn) -> None:
                    try:
                        got[i] = fn()
                    except Exception as e:  # noqa: BLE001 - handed back to the test
                        got[i] = e
                    finally:
                        left[0] -= 1
                        if not left[0]:
                            done.set()

                hub.spawn(run)
            await asyncio.wait_for(done.wait(), timeout)
            run_info.offloaded = hub.offloaded
            run_info.parks = hub.parks
        finally:
            hub.uninstall()

    t = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    t.start()
    t.join(timeout + 5)
    assert not t.is_alive(), "a session blocked the loop's thread: the others never ran"
    assert len(got) == len(sessions), f"only {len(got)} of {len(sessions)} sessions ended"
    run_info.results = [got[i] for i in range(len(sessions))]
    return run_info
