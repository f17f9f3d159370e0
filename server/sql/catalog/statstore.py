"""Stored statistics: what ANALYZE learnt about each table, as rows of a KiVi system space.

Why in KiVi, like the catalog: ANALYZE's results then commit or roll back
with the transaction that ran it, survive a restart, and disappear with the
table (DROP TABLE deletes the row in its own transaction). PostgreSQL keeps
them the same way, in pg_statistic and pg_class.reltuples.

Layout: space 4 (`STATS_SPACE`), key `(database oid, table oid)`, row
`(database oid, table oid, payload)`, the payload being
`optimizer.stats.to_payload` encoded with `kivi.wire` (so Decimal, dates and
UUIDs in histograms and most-common values come back as they went in).

The optimizer reads `optimizer.stats.STATS`; `CatalogStore.snapshot` calls
`reload` whenever the catalog version changes (ANALYZE bumps it after
writing), so every session plans with the committed statistics.
"""

from __future__ import annotations

from typing import Any

from ...kivi.keycodec import encode_key
from ...kivi.wire import packb, unpackb
from ...txn.api import ScanSpec
from ..optimizer import stats
from ..optimizer.stats import from_payload, to_payload

STATS_SPACE = 4


def save(txn: Any, db_oid: int, table_oid: int, ts: Any) -> None:
    """Writes a table's statistics in `txn` (replacing the previous ones)."""

    key = encode_key((db_oid, table_oid))
    txn.put(STATS_SPACE, [(key, (db_oid, table_oid, packb(to_payload(ts))))])


def delete(txn: Any, db_oid: int, table_oid: int) -> None:
    """Deletes a table's statistics in `txn` (DROP TABLE)."""
    txn.delete(STATS_SPACE, [encode_key((db_oid, table_oid))])


def delete_database(txn: Any, db_oid: int) -> None:
    """Deletes the statistics of every table of a database (DROP DATABASE)."""
    keys = [encode_key((r[0], r[1])) for r in _rows(txn) if r[0] == db_oid]
    if keys:
        txn.delete(STATS_SPACE, keys)


def _rows(txn: Any) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for batch in txn.scan(ScanSpec(STATS_SPACE, batch_size=4096)):
        out.extend(batch)
    return out


def load(txn: Any) -> dict[int, Any]:
    """Returns every stored table's statistics as `TableStats`, by table OID."""

    return {r[1]: from_payload(unpackb(r[2])) for r in _rows(txn)}


def reload(txn: Any) -> dict[int, Any]:
    """Replaces the optimizer's statistics with the ones committed as `txn` sees them;
    returns them (the store keeps its own copy: `CatalogStore.stats`)."""

    fresh = load(txn)
    # NB: never empty meanwhile: a statement planned on another thread reads it
    stats.STATS.update(fresh)
    for gone in [oid for oid in stats.STATS if oid not in fresh]:
        stats.STATS.pop(gone, None)
    return fresh
