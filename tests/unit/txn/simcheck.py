"""The simulation's checker: what snapshot isolation promises, verified on a finished history.

Why a separate module: the checker must be trusted more than what it checks, so it
knows nothing of the components; it only sees `TxnRecord`s (what each transaction
read, wrote, and when it started and committed) and checks, after the run:

1. every committed transaction read exactly the state as of its start ts: for each
   key it read, the value written by the committed transaction with the largest
   commit ts <= start (None if none, or if that one deleted the key);
2. no two concurrent committed transactions wrote the same key: among a key's
   committed writers in commit order, each one started at or after the previous
   one's commit (checking neighbours is enough);
3. session consistency: a session's transaction started at or after the commit of
   the session's previous update transaction.

(The third promise, that the snapshot never exposes a gap, is checked online by the
simulator, each time the snapshot moves.) Aborted transactions are checked for 1 too:
snapshot reads must be consistent even when the transaction later fails.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any


class SimViolation(AssertionError):
    """An isolation or durability promise was broken; the message names the seed to replay."""

    def __init__(self, seed: int, what: str) -> None:
        super().__init__(f"{what} (replay with CUMULO_SIM_SEED={seed})")
        self.seed = seed
        self.what = what


@dataclass(frozen=True)
class TxnRecord:
    tid: int
    session: int
    start: int | None
    cts: int | None  # None: read-only or aborted
    need: int  # the session's previous update commit
    reads: dict[int, Any]  # key -> value read from the snapshot (None: absent)
    writes: dict[int, Any]  # key -> value written (None: deleted); empty if aborted
    committed: bool


class Checker:
    """Collects transaction records and checks them (see the module docstring)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.records: list[TxnRecord] = []

    def add(self, rec: TxnRecord) -> None:
        self.records.append(rec)

    def fail(self, what: str) -> None:
        raise SimViolation(self.seed, what)

    def check(self) -> dict[str, int]:
        """Runs every check; returns counts for the report."""
        versions: dict[int, list[tuple[int, Any, TxnRecord]]] = {}
        seen_cts: set[int] = set()
        sessions: dict[int, int] = {}
        for r in self.records:
            if r.committed and r.start is not None and r.start < r.need:
                self.fail(f"txn {r.tid} started at {r.start}, before its session's commit {r.need}")
            if r.committed and r.session in sessions and r.need < sessions[r.session]:
                self.fail(f"txn {r.tid} ignored its session's last commit")
            if r.cts is None:
                continue
            if r.cts in seen_cts:
                self.fail(f"commit ts {r.cts} used twice")
            seen_cts.add(r.cts)
            if r.start is None or r.cts <= r.start:
                self.fail(f"txn {r.tid} committed at {r.cts}, not after its start {r.start}")
            sessions[r.session] = r.cts
            for key, value in r.writes.items():
                versions.setdefault(key, []).append((r.cts, value, r))
        stamps: dict[int, list[int]] = {}
        for key, vs in versions.items():
            vs.sort(key=lambda v: v[0])
            stamps[key] = [v[0] for v in vs]
            for (a_cts, _va, a), (_b_cts, _vb, b) in zip(vs, vs[1:], strict=False):
                if b.start < a_cts:  # type: ignore[operator]
                    self.fail(
                        f"lost update on key {key}: txn {b.tid} (start {b.start}, commit {b.cts}) "
                        f"and txn {a.tid} (commit {a_cts}) were concurrent and both committed"
                    )
        reads = 0
        for r in self.records:
            for key, value in r.reads.items():
                reads += 1
                ts = stamps.get(key)
                i = bisect_right(ts, r.start) if ts else 0  # type: ignore[arg-type]
                expect = versions[key][i - 1][1] if i else None
                if value != expect:
                    what = "committed" if r.committed else "aborted"
                    self.fail(
                        f"{what} txn {r.tid} read key {key} = {value!r} at snapshot {r.start}; "
                        f"the state as of {r.start} has {expect!r}"
                    )
        return {
            "records": len(self.records),
            "commits": len(seen_cts),
            "reads_checked": reads,
        }
