"""Analytic and background work give way to OLTP on the event-loop front end
(`kivi.columnar.pace`): vector work runs on an analytic worker thread while OLTP runs,
long read-only statements park between batches, background work keeps to its share
only beside two OLTP sessions or more, and checkpoint files are written in frames."""

from __future__ import annotations

import contextvars
import tempfile
import threading
from pathlib import Path

import pytest

from cumulo.server import waits
from cumulo.server.kivi import checkpoint as ckpt
from cumulo.server.kivi.columnar import pace as pace_mod
from cumulo.server.kivi.columnar.pace import BUSY, SLICE, Pacer
from tests.hubsessions import on_a_hub
from tests.unit.columnar.pacing import reset_pacer

_MARK: contextvars.ContextVar[str] = contextvars.ContextVar("mark", default="unset")


@pytest.fixture
def pacer(monkeypatch: pytest.MonkeyPatch) -> Pacer:
    """The process pacer, reset, with pacing on and no GIL switching."""
    p = reset_pacer(monkeypatch, 0.25)
    monkeypatch.setattr(pace_mod, "MAX_PAUSE", 0.001)
    return p


def _oltp(p: Pacer, *who: int) -> None:
    for w in who:
        for _ in range(BUSY):
            p.touch(who=w)


def _where() -> tuple[str, str]:
    return threading.current_thread().name, _MARK.get()


def test_offload_off_a_hub_is_a_plain_call(pacer: Pacer) -> None:
    _oltp(pacer, 1, 2)
    assert pace_mod.offload(_where) == (threading.current_thread().name, "unset")


def test_offload_runs_on_a_worker_only_while_oltp_runs(pacer: Pacer) -> None:
    def alone() -> tuple[str, str]:
        return pace_mod.offload(_where)

    def beside_oltp() -> tuple[str, str]:
        _oltp(pacer, 1, 2)
        _MARK.set("session's")
        return pace_mod.offload(_where)

    quiet, busy = on_a_hub(alone, beside_oltp).results
    assert not isinstance(quiet, tuple) or not quiet[0].startswith("analytic")
    assert isinstance(busy, tuple) and busy[0].startswith("analytic")
    assert busy[1] == "session's"  # the session's context goes along


def test_offload_raises_in_its_session(pacer: Pacer) -> None:
    def failing() -> object:
        _oltp(pacer, 1)
        return pace_mod.offload(int, "x")

    (got,) = on_a_hub(failing).results
    assert isinstance(got, ValueError)


def test_an_offloaded_statement_settles_its_share_once_its_result_is_built(pacer: Pacer) -> None:
    def parks_to_settle(answer: object) -> int:
        hub = waits.current_hub()
        assert hub is not None
        hub.switched_at -= 0.01  # parsed and planned for 10 ms
        assert pace_mod.offload(lambda: answer) == answer
        before = hub.parks
        pace_mod.settle()
        pace_mod.settle()  # a bill is paid once
        return hub.parks - before

    def alone() -> int:
        return parks_to_settle(7)

    def beside_oltp() -> tuple[int, int]:
        _oltp(pacer, 1, 2)
        return parks_to_settle(None), parks_to_settle(7)  # a refusal owes nothing

    assert on_a_hub(alone).results == [0]
    assert on_a_hub(beside_oltp).results == [(0, 1)]


def test_an_offloaded_statement_is_one_session_to_pacing(pacer: Pacer) -> None:
    # its worker's `pace` and its session's `settle` share its part of the share
    def statement() -> tuple[int, int]:
        _oltp(pacer, 1, 2)
        assert not pace_mod.billed()
        worker = pace_mod.offload(lambda: pacer.pacing(pace_mod._session(), pacer.now()))  # noqa: SLF001
        assert pace_mod.billed()  # its result's pulls are paced by `settle`, not `pace`
        return worker, pacer.pacing(pace_mod._session(), pacer.now())  # noqa: SLF001

    assert on_a_hub(statement).results == [(1, 1)]


def test_a_long_read_only_statement_parks_beside_oltp(pacer: Pacer) -> None:
    order: list[str] = []

    def long_reader() -> None:
        _oltp(pacer, 1)
        hub = waits.current_hub()
        assert hub is not None
        hub.switched_at -= 1.0  # it has held the loop's thread for a second
        order.append("writer's turn?")
        pace_mod.give_way(True)  # a statement with writes never parks
        order.append("reader parks")
        pace_mod.give_way(False)
        order.append("reader resumes")

    def other() -> None:
        order.append("other session")

    on_a_hub(long_reader, other)
    assert order == ["writer's turn?", "reader parks", "other session", "reader resumes"]


def test_a_short_statement_or_a_quiet_server_never_parks(pacer: Pacer) -> None:
    order: list[str] = []

    def reader() -> None:
        hub = waits.current_hub()
        assert hub is not None
        hub.switched_at -= 1.0
        pace_mod.give_way(False)  # no OLTP: no pause
        _oltp(pacer, 1)
        hub.switched_at = pace_mod.time.monotonic()
        pace_mod.give_way(False)  # just switched in: no pause
        hub.switched_at -= 1.0
        pace_mod.give_way(False, pace_mod.time.monotonic())  # a statement just begun: OLTP
        order.append("reader done")

    def other() -> None:
        order.append("other session")

    on_a_hub(reader, other)
    assert order == ["reader done", "other session"]


def test_background_work_paces_only_beside_two_oltp_sessions() -> None:
    clock = {"cpu": 0.0, "now": 100.0}
    slept: list[float] = []
    p = Pacer(0.25, cpu=lambda: clock["cpu"], now=lambda: clock["now"] + clock["cpu"],
              sleep=slept.append)
    p.pace(who=9, sessions=2)
    _oltp(p, 1)  # one session (a bulk load): the background work runs on
    clock["cpu"] += 2 * SLICE
    p.pace(who=9, sessions=2)
    assert slept == []
    _oltp(p, 2)
    clock["cpu"] += 2 * SLICE
    p.pace(who=9, sessions=2)
    assert slept == [pytest.approx(6 * SLICE)]


def test_checkpoint_windows_are_written_in_frames(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ckpt, "FRAME", 4)
    d = Path(tempfile.mkdtemp())
    n = 2 * ckpt.FRAME + 3
    keys = [i.to_bytes(4, "big") for i in range(n)]
    chains = [((5, (i,)),) for i in range(n)]
    windows = iter([(keys[:ckpt.FRAME + 1], chains[:ckpt.FRAME + 1]), ([], []),
                    (keys[ckpt.FRAME + 1:], chains[ckpt.FRAME + 1:])])
    got = ckpt.read_region(ckpt.write_windows(d, ckpt.Windows(3, b"", None, 7, windows)))
    assert got.keys == keys and [tuple(c) for c in got.chains] == chains
    assert got.checkpoint_ts == 7
    empty = ckpt.read_region(ckpt.write_windows(d, ckpt.Windows(4, b"", None, 7, iter([]))))
    assert (empty.space, empty.keys) == (4, [])
