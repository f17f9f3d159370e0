"""Each session resolves type names and enum labels against its own catalog, however the
sessions of a thread, or of two threads, take turns.

`SQLSession.catalog()` installs its catalog's user types into the calling context
(`usertypes.use`) only when that context holds another catalog (`usertypes.INSTALLED`);
an enum's labels are process-wide (`pgtypes.enums.LABELS`) and installed again at every
`catalog()`. These tests interleave a session with uncommitted type DDL and one without.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

from cumulo.server.pgtypes import enums

from .helpers import fails, rows, run


def test_two_sessions_of_one_thread_keep_their_own_types(engine, session):
    other = engine.open_session("cumulo", "cumulo", {})
    try:
        run(session, "begin; create domain posint as int check (value > 0)")
        assert rows(session, "select 1::posint") == [(1,)]
        fails(other, "select 2::posint", "42704")  # NB: not committed: the other has none
        assert rows(session, "select 3::posint") == [(3,)]
        fails(other, "select 4::posint", "42704")
        run(session, "commit")
        assert rows(other, "select 5::posint") == [(5,)]
        fails(session, "select (-1)::posint", "23514")
    finally:
        other.close()


class _Worker:
    """One thread, kept for the whole test, that runs what it is given in order: its
    context keeps what `catalog()` installed there between calls."""

    def __init__(self) -> None:
        self.jobs: queue.Queue[Callable[[], Any] | None] = queue.Queue()
        self.done: queue.Queue[tuple[bool, Any]] = queue.Queue()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            try:
                self.done.put((True, job()))
            except BaseException as e:  # NB: handed back to the test's thread
                self.done.put((False, e))

    def call(self, job: Callable[[], Any]) -> Any:
        self.jobs.put(job)
        ok, value = self.done.get(timeout=120)
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        self.jobs.put(None)
        self.thread.join(timeout=120)
        assert not self.thread.is_alive()


def _label_in(session: Any, oid: int, label: str) -> str:
    """`label` read as a text parameter of enum `oid` after `session`'s next catalog use."""
    session.catalog()
    return enums.input_function(oid)(label)


def test_enum_labels_follow_each_session_across_threads(engine, session):
    run(session, "create type mood as enum ('sad', 'ok')")
    [(mood,)] = rows(session, "select 'mood'::regtype::oid")
    other = engine.open_session("cumulo", "cumulo", {})
    worker = _Worker()
    try:
        worker.call(lambda: run(other, "begin; alter type mood rename value 'sad' to 'blue'"))
        assert worker.call(lambda: rows(other, "select 'blue'::mood::text")) == [("blue",)]
        # NB: this thread's session installs the committed labels in between
        assert rows(session, "select 'sad'::mood::text") == [("sad",)]
        assert worker.call(lambda: rows(other, "select 'blue'::mood::text")) == [("blue",)]
        worker.call(lambda: fails(other, "select 'sad'::mood", "22P02"))
        # a Bind's text parameter of the enum is read with the labels the last `catalog()`
        # of its thread installed (pgtypes.text's decoder, enums.LABELS)
        assert rows(session, "select 'sad'::mood::text") == [("sad",)]
        assert worker.call(lambda: _label_in(other, mood, "blue")) == "blue"
        assert _label_in(session, mood, "sad") == "sad"
        worker.call(lambda: run(other, "rollback"))
        assert worker.call(lambda: rows(other, "select 'sad'::mood::text")) == [("sad",)]
    finally:
        worker.stop()
        other.close()
