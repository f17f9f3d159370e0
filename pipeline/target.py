"""The write target of the `cumulo` source and sink: options, the ledger, batched writes.

The ledger table records `(query_name, batch_id, n_rows)` in the same
transaction as the rows it stands for, so "were these rows written?" has
an atomic answer: a batch job's task asks it for its partition before
writing (a retried task skips), a streaming query for its micro-batch (a
replayed batch skips).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from pyspark.sql import types as st

import cumulo.driver as cd

from .sparktypes import create_table_sql, quote_table

LEDGER = "cumulo_sink_ledger"
LEDGER_DDL = ("CREATE TABLE IF NOT EXISTS {} (query_name text NOT NULL, batch_id bigint NOT NULL, "
              "n_rows bigint NOT NULL, committed_at timestamptz NOT NULL DEFAULT now(), "
              "PRIMARY KEY (query_name, batch_id))")
DEFAULT_PARTITIONS = 4
SNAPSHOT_LEASE_S = 600.0  # planning to the last partition's start must fit in it
WRITE_CHUNK = 131072


def truthy(v: Any) -> bool:
    """Reads a boolean option."""
    return str(v).strip().lower() in ("true", "1", "yes", "on")


@dataclass
class Options:
    """The source's options, validated once (plain fields: it is pickled into tasks)."""

    url: str
    table: str
    upsert: bool = False
    create_table: bool = False
    primary_key: tuple[str, ...] = ()
    partitions: int = DEFAULT_PARTITIONS
    lease: float = SNAPSHOT_LEASE_S
    ledger: str = LEDGER
    query_name: str = ""
    push_filters: bool = False
    fail_after_commit: int = -1  # tests: raise right after the DB commit of this batch
    fail_first_attempt: bool = False  # tests: each task's first attempt dies after its commit

    @classmethod
    def parse(cls, options: Any) -> Options:
        o = {k.lower(): v for k, v in dict(options).items()}
        for need in ("url", "table"):
            if not o.get(need):
                raise ValueError(f"the cumulo data source needs the option {need!r}")
        pk = tuple(p.strip() for p in o.get("primarykey", "").split(",") if p.strip())
        return cls(
            url=o["url"], table=o["table"], upsert=truthy(o.get("upsert", "false")),
            create_table=truthy(o.get("createtable", "false")), primary_key=pk,
            partitions=int(o.get("numpartitions", DEFAULT_PARTITIONS)),
            lease=float(o.get("snapshotleaseseconds", SNAPSHOT_LEASE_S)),
            ledger=o.get("ledgertable", LEDGER),
            query_name=o.get("queryname") or o.get("checkpointlocation") or "",
            push_filters=truthy(o.get("pushfilters", "false")),
            fail_after_commit=int(o.get("testing.failaftercommit", -1)),
            fail_first_attempt=truthy(o.get("testing.failfirstattempt", "false")),
        )

    def connect(self) -> cd.Connection:
        """Opens a driver connection (autocommit off: every call below is transactional)."""
        return cd.connect(self.url)


class InjectedCrash(RuntimeError):
    """A failure the `testing.*` options inject right after a database commit."""


def one(conn: cd.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
    """Runs a statement; returns the first value of its first row (None without rows)."""
    cur = conn.cursor()
    cur.execute(sql, params)
    row = cur.fetchone() if cur.description else None
    cur.close()
    return None if row is None else row[0]


def prepare_target(o: Options, schema: st.StructType, overwrite: bool) -> None:
    """Creates the target (createTable) and the ledger, truncates on overwrite; one transaction."""
    conn = o.connect()
    try:
        cur = conn.cursor()
        if o.create_table:
            cur.execute(create_table_sql(o.table, schema, o.primary_key))
        cur.execute(LEDGER_DDL.format(quote_table(o.ledger)))
        if overwrite:
            cur.execute(f"TRUNCATE {quote_table(o.table)}")
        conn.commit()
    finally:
        conn.close()


def write_batches(conn: cd.Connection, o: Options, batches: Iterator[pa.RecordBatch]) -> int:
    """Sends batches through the direct API in chunks of WRITE_CHUNK rows; returns the rows."""
    t = conn.table(o.table)
    op = t.upsert if o.upsert else t.insert
    n, pending, size = 0, [], 0
    for b in batches:
        if b.num_rows:
            pending.append(b)
            size += b.num_rows
        if size >= WRITE_CHUNK:
            n += op(pa.Table.from_batches(pending))
            pending, size = [], 0
    if pending:
        n += op(pa.Table.from_batches(pending))
    return n


def ledger_has(conn: cd.Connection, o: Options, key: str, batch: int) -> bool:
    """Tells whether (key, batch) committed already (the transaction's snapshot decides)."""
    return one(conn, f"SELECT count(*) FROM {quote_table(o.ledger)} WHERE query_name = %s "
                      "AND batch_id = %s", (key, batch)) > 0


def ledger_commit(conn: cd.Connection, o: Options, key: str, batch: int, rows: int) -> None:
    """Records (key, batch) in the transaction that wrote its rows, and commits it.

    One simple query carries both statements (a round trip less per task or
    micro-batch): a failing INSERT skips the COMMIT and leaves the transaction
    failed, as two calls would, and a failing COMMIT raises here as commit() would.
    """
    conn.cursor().execute(f"INSERT INTO {quote_table(o.ledger)} (query_name, batch_id, n_rows) "
                          f"VALUES ({literal(key)}, {int(batch)}, {int(rows)}); COMMIT")


def literal(text: str) -> str:
    """A SQL string literal (standard_conforming_strings: only quotes are doubled).

    >>> literal("it's")
    "'it''s'"
    """
    if "\0" in text:
        raise ValueError("a ledger key cannot hold a NUL character")
    return "'" + text.replace("'", "''") + "'"
