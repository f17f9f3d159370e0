"""Sequences in cluster mode: the MasterMind hands out blocks of values, never one twice.

Why the MasterMind: every query engine draws `nextval` from a block of its own (as each
PostgreSQL session does with CACHE), and a block must never be handed to two engines.
Reserving it by a read-modify-write transaction on the stored high-water mark works only
as long as every engine's transaction conflicts with the others'; here one process
decides, one request at a time, and persists the mark before it answers:

    engine (`CatalogStore.nextval`)       MasterMind leader
      SeqReserve(oid, v, inc, n, ...)  ->  first = max(v, mark + inc); mark = first + inc*(n-1)
                                           persist a bound >= mark (ZooKeeper), then reply
      <- SeqBlock(first, mark)

The mark lives in `/cumulo/mastermind/seqs/<oid>` as a *bound*: the leader writes it
only when a block passes the bound it last wrote, and then writes it a few blocks ahead
(`AHEAD`), so that most blocks cost no ZooKeeper write (an awaited write is ~3 ms). Each
write is a multi that checks the leader's epoch (`leader.Term.write`): a deposed leader
cannot move it, and refuses the request (57P03, the engine asks the new leader). A new
leader reads the bound on first use and continues above it: the values between the old
leader's last block and its bound are skipped, never handed out again (as PostgreSQL
skips up to 32 values after a crash).

setval and ALTER SEQUENCE ... RESTART (`SeqSet`) write the exact mark, so that the next
value after them is the one PostgreSQL gives, even across a failover; a CYCLE wrap moves
the mark back and is written at once, too. An executemany run that draws many values
extends this engine's block in one step (`SeqExtend`, `CatalogStore.reserve_sequence`),
only if nobody reserved past it meanwhile.

PostgreSQL's rules (increment, MINVALUE/MAXVALUE, CYCLE, 2200H at the end) stay in
`CatalogStore`, which computes the values to ask for; the MasterMind only keeps marks.
A block is the sequence's CACHE, at least 32 values (`CatalogStore._seq_block`). A
request that needs no ZooKeeper write is answered on the MasterMind's event loop
(`writes`); one that does runs in its thread pool.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kazoo.exceptions import NoNodeError

from ..kivi.api import Ack
from ..kivi.wire import register_messages
from .leaderclient import LeaderClient

SEQS = "/cumulo/mastermind/seqs"
AHEAD = 8  # blocks the persisted bound runs ahead of the mark (ZooKeeper writes per block)
AHEAD_VALUES = 1024  # and at least this many values (CACHE 1: one value per block)


@dataclass(frozen=True)
class SeqPeek:
    """Reply the sequence's mark (the last value reserved), or None if none ever was."""

    oid: int


@dataclass(frozen=True)
class SeqReserve:
    """Reserve `n` values of sequence `oid` stepping by `inc`, from `v` or past the mark,
    whichever is further (`wrapped`: from `v`, a CYCLE restart). `lo`/`hi` are its
    MINVALUE/MAXVALUE (the persisted bound stays inside them). Reply `SeqBlock`."""

    oid: int
    v: int
    inc: int
    n: int
    wrapped: bool
    lo: int
    hi: int


@dataclass(frozen=True)
class SeqBlock:
    first: int
    mark: int


@dataclass(frozen=True)
class SeqSet:
    """setval / RESTART: the mark is `mark` from now on (persisted exactly)."""

    oid: int
    mark: int


@dataclass(frozen=True)
class SeqExtend:
    """Move the mark to `last` if it is still `expect` (`fresh` standing for no mark);
    reply the mark after."""

    oid: int
    expect: int
    fresh: int
    last: int
    inc: int
    lo: int
    hi: int


MESSAGES = (SeqPeek, SeqReserve, SeqSet, SeqExtend)
register_messages(SeqPeek, SeqReserve, SeqBlock, SeqSet, SeqExtend)


def _ahead(a: int, b: int, inc: int) -> bool:
    """Whether a lies past b in the direction the sequence moves."""
    return a > b if inc > 0 else a < b


def _bound(mark: int, inc: int, n: int, lo: int, hi: int) -> int:
    """The bound to persist for `mark`: a few blocks past it, not past the sequence's end
    (nor behind the mark itself, which may already run over it).

    >>> _bound(32, 1, 32, 1, 100)
    100
    >>> _bound(32, 1, 1, 1, 10**9)
    1056
    >>> _bound(-32, -1, 500, -10**9, -1)
    -4032
    >>> _bound(130, 1, 32, 1, 100)
    130
    """
    far = mark + inc * max(n * AHEAD, AHEAD_VALUES)
    return max(mark, min(far, hi)) if inc > 0 else min(mark, max(far, lo))


class SequenceMarks:
    """The MasterMind's sequence marks (see the module docstring).

    `load(oid)` reads a persisted bound (None: never reserved); `save(oid, bound)`
    persists one and raises if this MasterMind no longer leads. Without them (a
    MasterMind without ZooKeeper) the marks live in memory only.

    >>> m = SequenceMarks()
    >>> m.handle(SeqPeek(7)) is None
    True
    >>> m.handle(SeqReserve(7, 1, 1, 32, False, 1, 100))
    SeqBlock(first=1, mark=32)
    >>> m.handle(SeqReserve(7, 5, 1, 32, False, 1, 100))   # another engine: past the mark
    SeqBlock(first=33, mark=64)
    >>> m.handle(SeqReserve(7, 1, 1, 32, True, 1, 100))    # CYCLE: from the start again
    SeqBlock(first=1, mark=32)
    >>> m.handle(SeqExtend(7, 32, 0, 500, 1, 1, 1000))
    500
    >>> m.handle(SeqExtend(7, 32, 0, 900, 1, 1, 1000))     # someone reserved past 32
    500
    >>> _ = m.handle(SeqSet(7, 9)); m.handle(SeqPeek(7))
    9
    >>> m2 = SequenceMarks(); _ = m2.handle(SeqReserve(8, 1, 1, 32, False, 1, 10**9))
    >>> m2.writes(SeqReserve(8, 1, 1, 32, False, 1, 10**9)), m2.saved  # bound 1056 written
    (False, 1)
    """

    def __init__(self, load: Callable[[int], int | None] = lambda oid: None,
                 save: Callable[[int, int], None] = lambda oid, bound: None) -> None:
        self.load, self.save = load, save
        self._lock = threading.Lock()  # NB: served off the event loop (ZooKeeper I/O)
        self._marks: dict[int, list[int]] = {}  # oid -> [mark, persisted bound]
        self.saved = 0  # ZooKeeper writes made

    @classmethod
    def in_zookeeper(cls, term: Any) -> SequenceMarks:
        """Marks persisted under `SEQS`, written through the leader's fenced `term.write`."""
        def load(oid: int) -> int | None:
            try:
                return int(json.loads(term.zk.get(f"{SEQS}/{oid}")[0]))
            except NoNodeError:
                return None

        term.zk.ensure_path(SEQS)
        return cls(load, lambda oid, bound: term.write(f"{SEQS}/{oid}", bound))

    def writes(self, msg: Any) -> bool:
        """Whether `msg` may write ZooKeeper (then it runs off the event loop). A guess
        without the lock: one that turns out to write anyway only blocks the loop once."""
        st = self._marks.get(msg.oid)
        kind = type(msg)
        if st is None or kind is SeqSet:
            return kind is not SeqPeek or st is None
        if kind is SeqReserve:
            return msg.wrapped or _ahead(msg.v + msg.inc * msg.n, st[1], msg.inc) or \
                _ahead(st[0] + msg.inc * msg.n, st[1], msg.inc)
        if kind is SeqExtend:
            return _ahead(msg.last, st[1], msg.inc)
        return False

    def _state(self, oid: int) -> list[int] | None:
        st = self._marks.get(oid)
        if st is None:
            bound = self.load(oid)
            if bound is None:
                return None
            st = self._marks[oid] = [bound, bound]  # NB: a new leader continues above it
        return st

    def _move(self, oid: int, mark: int, bound: int, persist: bool) -> None:
        if persist:
            self.save(oid, bound)  # NB: before the answer: a successor starts above it
            self.saved += 1
        else:
            bound = self._marks[oid][1]
        self._marks[oid] = [mark, bound]

    def handle(self, msg: Any) -> Any:
        with self._lock:
            kind = type(msg)
            st = self._state(msg.oid)
            if kind is SeqPeek:
                return None if st is None else st[0]
            if kind is SeqSet:
                self._move(msg.oid, msg.mark, msg.mark, True)
                return Ack()
            if kind is SeqReserve:
                inc, v = msg.inc, msg.v
                first = v
                if st is not None and not msg.wrapped:
                    first = max(v, st[0] + inc) if inc > 0 else min(v, st[0] + inc)
                mark = first + inc * (msg.n - 1)
                # NB: a mark moving back (a CYCLE wrap) is persisted at once
                persist = st is None or msg.wrapped or _ahead(mark, st[1], inc)
                self._move(msg.oid, mark, _bound(mark, inc, msg.n, msg.lo, msg.hi), persist)
                return SeqBlock(first, mark)
            if kind is SeqExtend:
                if (msg.fresh if st is None else st[0]) != msg.expect:
                    return msg.fresh if st is None else st[0]
                inc = msg.inc
                persist = st is None or _ahead(msg.last, st[1], inc)
                self._move(msg.oid, msg.last, _bound(msg.last, inc, 1, msg.lo, msg.hi), persist)
                return msg.last
            raise TypeError(f"not a sequence message: {kind.__name__}")


class MasterMindSequences:
    """A query engine's side: what `CatalogStore` asks instead of its own counter rows
    (`CatalogStore.seq_marks`), through the client of the MasterMind leader."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def peek(self, oid: int) -> int | None:
        mark = self.client.handle(SeqPeek(oid))
        return None if mark is None else int(mark)

    def reserve(self, seq: Any, v: int, n: int, wrapped: bool) -> tuple[int, int]:
        """Reserves n values from v (or past the mark); returns (first, new mark)."""
        out = self.client.handle(SeqReserve(seq.oid, v, seq.increment, n, wrapped,
                                            seq.min_value, seq.max_value))
        return int(out.first), int(out.mark)

    def extend(self, seq: Any, expect: int, fresh: int, last: int) -> int:
        return int(self.client.handle(SeqExtend(seq.oid, expect, fresh, last, seq.increment,
                                                seq.min_value, seq.max_value)))

    def set(self, seq: Any, mark: int) -> None:
        self.client.handle(SeqSet(seq.oid, mark))


def use_mastermind_sequences(tm: Any, store: Any) -> None:
    """Lets the catalog `store` of a query engine draw sequence blocks from the MasterMind
    leader, when `tm` (a `manager.ClusterTxnManager`) follows one through ZooKeeper (whose
    marks survive a failover); otherwise it keeps its counter rows in KiVi."""
    if tm.mastermind is not None and isinstance(tm.mastermind.client, LeaderClient):
        store.seq_marks = MasterMindSequences(tm.mastermind.client)


__all__ = ["MESSAGES", "SEQS", "MasterMindSequences", "SeqBlock", "SeqExtend", "SeqPeek",
           "SeqReserve", "SeqSet", "SequenceMarks",
           "use_mastermind_sequences"]
