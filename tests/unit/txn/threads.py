"""Helpers for txn unit tests that need a second writer: run a call in a thread and keep
its result or exception for the test to check, and wait until the transaction manager
says a transaction is blocked on a lock (so the test knows the wait really began)."""

from __future__ import annotations

import threading
import time


def in_thread(fn):
    """Start `fn` in a thread; return the thread and a box that gets `value` or `error`.

    >>> th, box = in_thread(lambda: 1 + 1)
    >>> th.join(); box
    {'value': 2}
    """
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            box["error"] = e

    th = threading.Thread(target=run)
    th.start()
    return th, box


def wait_blocked(tm, txn) -> None:
    """Wait (at most 5 s) until `txn` is waiting for a lock in `tm`."""
    deadline = time.monotonic() + 5
    while not tm.ltm.is_waiting(txn):
        assert time.monotonic() < deadline, "the writer never blocked"
        time.sleep(0.001)
