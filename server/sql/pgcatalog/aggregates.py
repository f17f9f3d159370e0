"""pg_aggregate: PostgreSQL 15's rows for the aggregates Cumulo runs.

Cumulo plans aggregates by name (`plan.aggregates`) and runs them in Python, so it has no
transition functions of its own; the rows are PostgreSQL's (`aggdata`, recorded by
tools/gen_pgaggregates.py), listed for each aggregate pg_proc lists (`aggprocs.AGG_PROCS`,
prokind 'a'). What clients read from them is real: aggkind 'n' (normal), 'o' (ordered-set:
percentile_cont/disc, mode) or 'h' (hypothetical-set: rank, dense_rank, percent_rank,
cume_dist), aggnumdirectargs, aggsortop for min/max, the transition type. The regproc
columns print as PostgreSQL prints them.

>>> row = next(r for r in pg_aggregate(None) if r[0] == 3986)
>>> str(row[0]), row[1], row[2], str(row[3])
('pg_catalog.rank', 'h', 1, 'ordered_set_transition_multi')
"""

from __future__ import annotations

from typing import Any

from ..expr.regcast import RegOid
from .aggdata import ORDERED_ARGS, PG_AGGREGATE
from .aggprocs import AGG_PROCS
from .registry import pg_relation

__all__ = ["ORDERED_ARGS", "pg_aggregate"]


def _row(oid: int, rec: tuple[Any, ...]) -> tuple[Any, ...]:
    label, kind, ndirect, *rest = rec
    procs = [RegOid(p, name) for p, name in rest[:8]]
    return (RegOid(oid, label), kind, ndirect, *procs, *rest[8:])


_ROWS = tuple(_row(oid, PG_AGGREGATE[oid]) for oid in sorted(
    {r[0] for r in AGG_PROCS if r[4] == "a"}) if oid in PG_AGGREGATE)


@pg_relation("pg_catalog", "pg_aggregate")
def pg_aggregate(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """One row per aggregate in pg_proc (prokind 'a')."""
    return _ROWS
