"""How each session's `Columnar` nodes ran, counted on every execution: `cumulo_columnar_runs`.

Why: EXPLAIN ANALYZE shows whether the vector form computed a query, but it is
not the plain run. It plans the statement's text once more, and the simple
protocol's literals-as-parameters (`1 + 10` reaching the vector path as
`$1 + $2`) are folded there, so a fallback that only plain runs take (TPC-H
Q19 ran on rows on every plain run, unseen) cannot show in its output. These
counters are taken by the run itself, whatever asked for it: a test (and a
user) reads them before and after a plain execution.

Per session (by backend pid), three counts:
- `vector`: a Columnar node whose vector form computed its rows;
- `rows`: one whose row plan ran instead (`cumulo.columnar = off`, a small key
  range under `auto`, no copy to read, or a fallback);
- `fallback`: of those, the ones whose vector form started and gave up (`Unsafe`).

`SELECT cumulo_columnar_runs('vector')` returns the calling session's count
(itself runs no Columnar node). Sessions are forgotten oldest first past
`KEEP` backends, so the table stays small on a server that sees many.

    >>> class Ctx:  # what `note_run` reads of an ExecContext
    ...     class functions: backend_pid = 7
    >>> note_run(Ctx, "vector"); note_run(Ctx, "rows"); note_run(Ctx, "vector")
    >>> runs_of(7, "vector"), runs_of(7, "rows"), runs_of(7, "fallback"), runs_of(8, "vector")
    (2, 1, 0, 0)
"""

from __future__ import annotations

import threading
from typing import Any

from ....errors import InvalidParameterValue
from ....pgtypes import oids as T
from ...functions.registry import register

OUTCOMES = ("vector", "rows", "fallback")
KEEP = 4096  # sessions whose counts are kept

_RUNS: dict[int, dict[str, int]] = {}
_LOCK = threading.Lock()


def note_run(ctx: Any, outcome: str) -> None:
    """Counts one execution of a Columnar node by the session running `ctx`."""
    pid = ctx.functions.backend_pid
    with _LOCK:
        counts = _RUNS.get(pid)
        if counts is None:
            if len(_RUNS) >= KEEP:
                del _RUNS[next(iter(_RUNS))]
            counts = _RUNS[pid] = dict.fromkeys(OUTCOMES, 0)
        counts[outcome] += 1


def runs_of(pid: int, outcome: str) -> int:
    """The session's count of `outcome` so far."""
    counts = _RUNS.get(pid)
    return 0 if counts is None else counts[outcome]


@register("cumulo_columnar_runs", args=[T.TEXT], returns=T.INT8, needs_context=True,
          volatile=True)
def cumulo_columnar_runs(ctx: Any, outcome: str) -> int:
    """How many times this session's Columnar nodes ran as `outcome` (see the module doc)."""
    if outcome not in OUTCOMES:
        raise InvalidParameterValue(
            f'unrecognized columnar run outcome "{outcome}"',
            hint="Valid outcomes are " + ", ".join(OUTCOMES) + ".")
    return runs_of(ctx.backend_pid, outcome)


__all__ = ["OUTCOMES", "cumulo_columnar_runs", "note_run", "runs_of"]
