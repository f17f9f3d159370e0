"""The narrow, batched interface of a KiVi storage node, as seen by the transaction layer.

Requests and replies are frozen dataclasses (`Write`, `Apply`: NamedTuples) so that they can
cross a process boundary (msgpack) unchanged; an in-process node and a socket client
expose the same `KiviNodeAPI`.

Keys are bytes produced by `kivi.keycodec.encode_key(tuple)`, whose byte order
equals SQL order. Rows are tuples of Python values (None, bool, int, float,
decimal.Decimal, str, bytes, datetime.date, datetime.time, datetime.datetime,
datetime.timedelta, uuid.UUID, list, dict) in table column order.

A `space` is the integer id of one table or one index: each space has its own
key range, split into regions by the region map.

## Filter and expression IR (shared with the SQL layer's pushdown rules)

A filter or scalar expression is a nested tuple, serialisable as msgpack lists:

    ("col", i)                   column i of the stored row (before projection)
    ("const", v)                 a constant
    ("cmp", op, a, b)            op in "=", "<>", "<", "<=", ">", ">="
    ("and", [e, ...]) / ("or", [e, ...]) / ("not", e)
    ("is_null", e) / ("is_not_null", e)
    ("in", e, [v, ...])          constants only
    ("like", e, pattern, ci)     SQL LIKE with `\\` escape; ci=True for ILIKE
    ("arith", op, a, b)          op in "+", "-", "*", "/", "%"
    ("param", n)                 the execution's parameter n (1-based): `Scan.params[n - 1]`

NULL follows SQL three-valued logic; a row passes a filter only if it yields True.
The IR is a serializable form of the SQL layer's bound expressions (`sql.expr.bound`):
leaves carry their SQL type OID as a third item, `("col", 2, 1700)`, as bound (the
optimizer's pushed filters, foreign-key cascades, runtime filters, the direct API); an
untyped leaf takes its constant's type (IS NULL checks, where none matters). The node does
not compile it itself: the SQL layer's compilers (row code and vector code,
`sql.expr.pushed`) are installed into it (`kivi.filters`), and compile a shape once;
nothing walks the tree per row. A prepared statement's tree keeps its parameter slots
and its values travel beside it, so it compiles once whatever the values.

## Partial aggregates

`AggSpec(group_by=(i, ...), aggs=(("count_star", None), ("sum", j), ...))`
with functions count_star, count, sum, min, max. A node returns one row per
group: the group values followed by one partial value per aggregate. Partials
from several regions are merged by `kivi.agg.merge_partials`; AVG is SUM over
COUNT, computed above the node.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

Row = tuple[Any, ...]
IR = tuple[Any, ...]


@dataclass(frozen=True)
class AggSpec:
    """Group keys (column indexes) and aggregate functions to compute inside the node."""

    group_by: tuple[int, ...] = ()
    aggs: tuple[tuple[str, int | None], ...] = ()


@dataclass(frozen=True)
class Scan:
    """Reads the visible rows of one space in [lo, hi) as of snapshot `ts`, in key order.

    `lo=None` / `hi=None` mean unbounded. `projection` lists the column indexes to
    return (None: all). `filter` is an IR tree evaluated on the stored row, before
    projection. `limit` counts rows after the filter. With `aggregate` set, the
    reply carries partial aggregates instead of rows. `with_keys` prepends the
    encoded key to each returned row (used by UPDATE/DELETE and index lookups).
    `reverse` scans in descending key order. `params` holds the values of the
    filter's `("param", n)` leaves (others may be None).
    """

    space: int
    ts: int
    lo: bytes | None = None
    hi: bytes | None = None
    projection: tuple[int, ...] | None = None
    filter: IR | None = None
    limit: int | None = None
    aggregate: AggSpec | None = None
    with_keys: bool = False
    reverse: bool = False
    batch_size: int = 1024
    params: Sequence[Any] = ()


@dataclass(frozen=True)
class ScanReply:
    rows: list[Row]
    # Where to resume for the next batch; None once the range is exhausted (or the
    # limit reached). A forward scan continues with lo=resume_key, a reverse scan
    # with hi=resume_key; the rest of the request stays the same, except `limit`,
    # which the caller lowers by the number of rows already received.
    resume_key: bytes | None = None


@dataclass(frozen=True)
class Get:
    """Reads the newest version <= ts of each key; a missing or deleted key gives None."""

    space: int
    ts: int
    keys: list[bytes]


@dataclass(frozen=True)
class GetReply:
    rows: list[Row | None]


class Write(NamedTuple):
    """One mutation: `row=None` is a delete (a tombstone).

    A NamedTuple, not a frozen dataclass as the other messages are: every OLTP commit
    builds one per written row (`WriteSet.for_commit`), and a frozen dataclass's
    `__init__` (a Python call and a setattr per field) cost about twice as much. It is
    as immutable, and `kivi.wire` sends it as a message all the same.
    """

    space: int
    key: bytes
    row: Row | None


@dataclass(frozen=True)
class SpaceWrites:
    """Many mutations of one space as two parallel lists (`rows[i]` None: a delete).

    A bulk load's write set travels from commit to the node this way: a COPY of
    a million rows then costs no `Write` object (and no per-row Python call) on
    its way into the log and the version store.
    """

    space: int
    keys: list[bytes]
    rows: list[Row | None]


class Apply(NamedTuple):
    """Applies a committed write set at commit timestamp `ts`. Idempotent: replaying it is harmless.

    The write set is `writes` plus `spaces` (the same mutations, grouped by space); a
    key appears at most once in all.

    A NamedTuple as `Write` is, for the same reason: every commit builds one (the LTM
    with `tuple.__new__`, a C call), where a frozen dataclass's `__init__` was a Python
    call and a setattr per field.
    """

    ts: int
    writes: Sequence[Write] = ()
    spaces: Sequence[SpaceWrites] = ()


@dataclass(frozen=True)
class LatestCommit:
    """Asks for the newest commit timestamp of each key (any version, tombstones included).

    Used for write-write conflict checks: a key whose latest commit is after the
    writer's snapshot is a lost update. With `ts`, the commit timestamp of the version
    a read at `ts` sees instead (what SQL's xmin names: `txn.xids.row_xmins`).
    """

    space: int
    keys: list[bytes]
    ts: int | None = None


@dataclass(frozen=True)
class LatestCommitReply:
    ts: list[int | None]


@dataclass(frozen=True)
class DropSpace:
    """Removes every version of a space (DROP TABLE / TRUNCATE after commit)."""

    space: int


@dataclass(frozen=True)
class Collect:
    """Garbage-collects versions hidden from every snapshot >= low_water."""

    low_water: int


@dataclass(frozen=True)
class Checkpoint:
    """Writes every region's state as of `ts` to the node's data dir.

    Replies `Ack(ts)` only once the files are durable; `Ack(None)` when nothing was written
    (a node without a data dir). The redo log below ts may be trimmed only after `Ack(ts)`.
    """

    ts: int


@dataclass(frozen=True)
class RegionData:
    """One region's key range and versions, as moved between nodes or written to a checkpoint.

    `lo=b""` is the start of the space and `hi=None` its end; `chains[i]` holds
    the `(commit_ts, row-or-None)` versions of `keys[i]`, newest first.
    """

    space: int
    lo: bytes
    hi: bytes | None
    keys: list[bytes] = field(default_factory=list)
    chains: Sequence[Sequence[tuple[int, Row | None]]] = field(default_factory=list)
    checkpoint_ts: int = 0


@dataclass(frozen=True)
class SplitRegion:
    """Splits the node's region of `space` that holds `key` into [lo, key) and [key, hi)."""

    space: int
    key: bytes


@dataclass(frozen=True)
class ExportRegion:
    """Asks for a copy of the region of `space` starting at `lo` (replied with a RegionData)."""

    space: int
    lo: bytes


@dataclass(frozen=True)
class ImportRegion:
    """Installs a region on this node (the receiving end of a move)."""

    region: RegionData


@dataclass(frozen=True)
class DropRegion:
    """Forgets the region of `space` starting at `lo` (the sending end of a move)."""

    space: int
    lo: bytes


@dataclass(frozen=True)
class NodeStatus:
    """Asks a node for its id, checkpoint ts and regions (replied with a NodeStatusReply)."""


@dataclass(frozen=True)
class NodeStatusReply:
    """What a node says about itself."""

    node_id: str
    # Redo records with ts > checkpoint_ts must be replayed after a restart.
    checkpoint_ts: int
    # (space, lo, hi, number of keys) per region held.
    regions: list[tuple[int, bytes, bytes | None, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Ack:
    value: Any = None


class KiviNodeAPI(Protocol):
    """What the transaction layer calls; in-process node and socket client alike."""

    def scan(self, req: Scan) -> ScanReply: ...

    def get(self, req: Get) -> GetReply: ...

    def get_rows(self, space: int, ts: int, keys: list[bytes]) -> list[Row | None]:
        """`get(Get(space, ts, keys)).rows`: an in-process node answers it without building
        the request and reply (a point read's hot path); a client sends the Get."""

    def apply(self, req: Apply) -> Ack: ...

    def latest_commit(self, req: LatestCommit) -> LatestCommitReply: ...

    def drop_space(self, req: DropSpace) -> Ack: ...

    def collect(self, req: Collect) -> Ack: ...

    def checkpoint(self, req: Checkpoint) -> Ack: ...

    @property
    def checkpoint_ts(self) -> int:
        """The ts up to which the node's data is in a checkpoint (0: none yet): recovery
        replays the redo records after it."""

    def close(self) -> None:
        """Lets go of the node's connections and threads (an in-process node has none)."""


def batched(seq: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """Splits a sequence into slices of at most `size` items."""
    return [seq[i : i + size] for i in range(0, len(seq), size)]
