"""Analytic scans give way to OLTP (`kivi.columnar.pace`): the pacing rule with its clocks
injected, then the wiring: the row store's reads and applies mark OLTP as running, and
columnar scans and first builds pause, outside the node lock, with unchanged answers."""

from __future__ import annotations

import doctest
import threading

import greenlet
import pytest

from cumulo.server.kivi.api import Apply, SpaceWrites, Write
from cumulo.server.kivi.columnar import pace as pace_mod
from cumulo.server.kivi.columnar.copy import PACK_ROWS
from cumulo.server.kivi.columnar.pace import BUSY, MAX_PAUSE, SLICE, WINDOW, Pacer
from cumulo.server.kivi.mvcc import VersionStore
from cumulo.server.kivi.node import KiviNode
from tests.unit.columnar.pacing import reset_pacer


class Clocks:
    def __init__(self) -> None:
        self.cpu = 0.0
        self.now = 1000.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def pacer(self, share: float) -> Pacer:
        return Pacer(share, cpu=lambda: self.cpu, now=lambda: self.now + self.cpu,
                     sleep=self.sleep)


def busy(p: Pacer, who: int) -> None:
    for _ in range(BUSY):
        p.touch(who=who)


def test_doctests() -> None:
    assert doctest.testmod(pace_mod).failed == 0


def test_a_scan_alone_never_pauses() -> None:
    c = Clocks()
    p = c.pacer(0.25)
    for _ in range(10):
        c.cpu += 0.05
        p.pace(who=1)
    assert c.slept == []


def test_own_oltp_work_does_not_count() -> None:
    c = Clocks()
    p = c.pacer(0.25)
    p.pace(who=1)
    p.touch(who=1)
    c.cpu += 0.01
    p.pace(who=1)
    assert c.slept == []


def test_pause_keeps_the_share_while_another_session_runs_oltp() -> None:
    c = Clocks()
    p = c.pacer(0.2)
    p.pace(who=1)  # the first call only reads the clock
    busy(p, 2)
    c.cpu += SLICE / 2
    p.pace(who=1)
    assert c.slept == []  # less than a slice used: no clock read beyond the first
    c.cpu += SLICE / 2
    p.pace(who=1)
    assert c.slept == [pytest.approx(SLICE * 4)]  # 20 %: 4 units of sleep per unit of work
    c.cpu += 1.0
    busy(p, 2)
    p.pace(who=1)
    assert c.slept[-1] == MAX_PAUSE


def test_oltp_stops_counting_after_the_window() -> None:
    c = Clocks()
    p = c.pacer(0.5)
    p.pace(who=1)
    busy(p, 2)
    c.now += WINDOW * 2
    c.cpu += 0.01
    p.pace(who=1)
    assert c.slept == []
    assert p.seen == {}  # the stale session is forgotten


def test_gil_switches_fast_only_while_a_scan_is_paced() -> None:
    c = Clocks()
    switched: list[float] = []
    p = Pacer(0.25, cpu=lambda: c.cpu, now=lambda: c.now + c.cpu, sleep=c.sleep,
              switch=switched.append)
    slow = p.slow_switch
    p.pace(who=1)
    c.cpu += SLICE
    p.pace(who=1)
    assert switched == []  # a scan alone: Python's interval stays
    busy(p, 2)
    assert switched == []  # OLTP alone: Python's interval stays
    c.cpu += SLICE
    p.pace(who=1)
    c.cpu += SLICE
    busy(p, 2)
    p.pace(who=1)
    assert switched == [pace_mod.FAST_SWITCH]  # paced beside OLTP: set once
    c.now += WINDOW * 3  # OLTP stopped
    c.cpu += SLICE
    p.pace(who=1)
    assert switched == [pace_mod.FAST_SWITCH, slow]
    off = Pacer(1.0, cpu=lambda: c.cpu, now=lambda: c.now + c.cpu, sleep=c.slept.append,
                switch=switched.append)
    busy(off, 2)
    c.cpu += 1.0
    off.pace(who=1)
    assert switched == [pace_mod.FAST_SWITCH, slow]  # pacing off: never switched


def test_share_one_turns_pacing_off_and_bad_shares_are_refused() -> None:
    c = Clocks()
    p = c.pacer(1.0)
    busy(p, 2)
    for _ in range(3):
        c.cpu += 1.0
        p.pace(who=1)
    assert c.slept == []
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(ValueError):
            p.set_share(bad)


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The process pacer with clocks that run a slice per call (so every pack's pace pauses
    while OLTP runs) and a sleep that records instead of sleeping."""
    slept: list[float] = []
    ticks = iter(range(1, 10**9))
    clock = iter(range(1, 10**9))
    pacer = pace_mod.PACER
    monkeypatch.setattr(pacer, "cpu", lambda: next(ticks) * SLICE)
    monkeypatch.setattr(pacer, "now", lambda: next(clock) * SLICE)
    monkeypatch.setattr(pacer, "sleep", slept.append)
    reset_pacer(monkeypatch, 0.5)
    monkeypatch.setattr(pacer, "mark", type(pacer.mark)())  # this thread's clocks, reset
    return slept


def _oltp_elsewhere(node: KiviNode) -> None:
    """Point reads on other threads: other sessions run OLTP (the node stamps each read)."""
    for _ in range(BUSY + 1):
        t = threading.Thread(target=node.get_rows, args=(1, 10**9, [b"k000001"]), daemon=True)
        t.start()
        t.join(60)
        assert not t.is_alive()


def test_a_lone_commit_does_not_count_as_oltp() -> None:
    c = Clocks()
    p = c.pacer(0.25)
    p.pace(who=1)
    p.touch(who=2)
    p.touch(who=2)
    c.cpu += 0.05
    p.pace(who=1)
    assert c.slept == []
    busy(p, 2)
    c.cpu += 0.05
    p.pace(who=1)
    assert len(c.slept) == 1
    c.now += 3 * WINDOW  # the burst is over; one more commit long after
    p.touch(who=2)
    c.cpu += 0.05
    p.pace(who=1)
    assert len(c.slept) == 1


def _node(n: int) -> tuple[KiviNode, VersionStore]:
    """A node whose space 1 holds n rows, and the store of its one region."""
    node = KiviNode()
    node.apply(Apply(5, [], [SpaceWrites(1, [b"k%06d" % i for i in range(n)],
                                          [(i, i % 7) for i in range(n)])]))
    return node, node.regions()[0].store


def test_scans_pause_only_while_others_run_oltp(recorded: list[float]) -> None:
    node, s = _node(3 * PACK_ROWS // 2)
    want = sorted(r for _, r in s.scan(None, None, 10))
    snap = s.columnar(10)
    assert snap is not None
    for v in snap.views:
        v.column(0)
    assert recorded == []  # no OLTP anywhere: full speed
    _oltp_elsewhere(node)
    snap = s.columnar(10)
    assert snap is not None
    cols = [v.column(1) for v in snap.views]
    assert recorded and all(0 < x <= MAX_PAUSE for x in recorded)
    assert sum(len(c) for c in cols) == len(want)
    assert sorted(snap.rows()) == want


def test_a_first_build_pauses_between_packs_outside_the_node_lock(
        recorded: list[float]) -> None:
    node = KiviNode()
    n = 2 * PACK_ROWS + 10
    node.apply(Apply(3, [Write(1, b"k%06d" % i, (i, i % 3)) for i in range(n)]))
    held: list[bool] = []
    real = pace_mod.PACER.sleep

    def sleep(seconds: float) -> None:
        # NB: a pause under the node lock would stall every writer of the node
        held.append(node._lock._is_owned())  # type: ignore[attr-defined]
        real(seconds)

    pace_mod.PACER.sleep = sleep
    _oltp_elsewhere(node)
    snaps = node.columnar(1, 10)  # the first build: pauses between packs
    assert snaps is not None and sum(len(s.rows()) for s in snaps) == n
    assert held and not any(held)


def test_each_statement_is_counted_afresh() -> None:
    """A polling session's short queries (a freshness probe: ~1 ms of CPU each) never pause,
    however many ran before on the thread; a long statement is still held to the share."""
    c = Clocks()
    p = c.pacer(0.25)
    busy(p, 2)
    for _ in range(20):  # 20 statements of 0.8 * SLICE each: 16 slices in all
        p.begin()
        for _ in range(4):
            c.cpu += SLICE / 5
            p.pace(who=1)
    assert c.slept == []
    p.begin()
    for _ in range(5):  # one statement of 3 slices (its first call only sets the mark)
        c.cpu += SLICE * 0.6
        busy(p, 2)
        p.pace(who=1)
    assert c.slept == [pytest.approx(SLICE * 3.6)] * 2


def test_a_session_does_not_inherit_the_count_of_another_on_its_thread() -> None:
    """On the event loop's thread every session greenlet reads one CPU clock: the count a
    paced session left (here 10 slices of other sessions' CPU later) is not the next one's,
    which paced its first batch MAX_PAUSE beside OLTP (`bench htap`'s analytic loop)."""
    c = Clocks()
    p = c.pacer(0.25)
    busy(p, 2)
    first, second = (greenlet.greenlet(lambda: p.pace(who=1)),
                     greenlet.greenlet(lambda: p.pace(who=3)))  # both live: two ids
    first.switch()  # an earlier statement's last pace
    c.cpu += SLICE * 10  # the loop runs OLTP sessions meanwhile
    c.now += 1.0
    busy(p, 2)
    second.switch()  # another statement's first batch
    assert c.slept == []


def test_paced_sessions_split_the_share() -> None:
    """Two analytic sessions (or a query and an automatic ANALYZE) beside OLTP together keep
    to the share: each pauses as long as if it had half of it."""
    c = Clocks()
    p = c.pacer(0.25)
    busy(p, 3)
    p.pace(who=1)  # the first call only reads the clock
    c.cpu += SLICE
    p.pace(who=1)
    assert c.slept == [pytest.approx(SLICE * 3)]  # alone: 25 %
    p.pacing(2, c.now + c.cpu)  # another session was paced just now
    busy(p, 3)
    c.cpu += SLICE
    p.pace(who=1)
    assert c.slept[-1] == pytest.approx(SLICE * 7)  # 12.5 % each
    c.now += 2 * WINDOW  # the other one ended
    busy(p, 3)
    c.cpu += SLICE
    p.pace(who=1)
    assert c.slept[-1] == pytest.approx(SLICE * 3)


def test_an_analytic_worker_is_paced_without_the_fast_switch():
    # on the event loop every OLTP session is the loop's thread: a shorter GIL interval
    # while a worker's scan is paced would only hand the GIL to the worker more often
    def on_a_thread(worker: bool) -> tuple[list[float], list[float]]:
        c = Clocks()
        switched: list[float] = []
        p = Pacer(0.25, cpu=lambda: c.cpu, now=lambda: c.now + c.cpu, sleep=c.sleep,
                  switch=switched.append)

        def scan() -> None:
            p.mark.worker = worker
            busy(p, who=1)
            p.pace(who=2)
            c.cpu += 2 * SLICE
            p.pace(who=2)

        t = threading.Thread(target=scan)
        t.start()
        t.join()
        return c.slept, switched

    slept, switched = on_a_thread(worker=True)
    assert slept and switched == []
    slept, switched = on_a_thread(worker=False)
    assert slept and switched == [pace_mod.FAST_SWITCH]


def test_the_analytic_workers_are_marked_as_they_start():
    mark = pace_mod.PACER.mark
    assert pace_mod._workers().submit(lambda: mark.worker).result()  # noqa: SLF001
    assert not mark.worker  # this thread is no worker


def test_background_work_keeps_a_share_of_its_own() -> None:
    # a checkpoint or a freeze is paced at its floor's share, not the analytic queries'
    c = Clocks()
    p = c.pacer(0.1)
    busy(p, 3)
    p.pace(who=1, least=0.25)  # the first call only reads the clock
    c.cpu += SLICE
    p.pace(who=1, least=0.25)
    assert c.slept == [pytest.approx(SLICE * 3)]  # 25 %, not 10 %
    p.set_share(1.0)
    c.cpu += SLICE
    p.pace(who=1, least=0.25)
    assert len(c.slept) == 1  # pacing off is off for it too
