"""Placement messages a KiVi node answers, and the errors that tell a client its routing is stale.

Why a module of its own: in cluster mode the region map lives in ZooKeeper
(`cluster.regionstore`) and every query engine routes by a cached copy of it,
which may be stale after a split or a move. A node in *placement mode*
(`KiviNode(placement=True)`, what `cumulo kivi --zk` runs) therefore serves only
the regions it was given (`OpenRegion`, `ImportRegion`, its checkpoint files),
and answers a request for keys it does not hold with `WrongRegion`; a region
being moved away is frozen (`FreezeRegion`) and answers `RegionMoving` until it
is dropped or unfrozen. `KiviClient` catches both: it refreshes its map (or
waits, for a move) and sends the request again. Every request is safe to send
twice (reads at a fixed snapshot, applies keyed by `(key, ts)`), so a retry can
never duplicate or lose a write.

Both errors carry SQLSTATE 40001: should one ever outlive the client's retries
(a move that never ends), the statement fails with a retryable error rather than
a wrong answer.

>>> WrongRegion("x").sqlstate, RegionMoving("y").sqlstate
('40001', '40001')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import SQLError
from .api import RegionData
from .wire import register_messages


class WrongRegion(SQLError):
    """The node holds no region for (some of) the keys asked: the sender's map is stale."""

    sqlstate = "40001"


class RegionMoving(SQLError):
    """The region is frozen while it moves to another node: retry shortly."""

    sqlstate = "40001"


class StaleEpoch(SQLError):
    """A placement command from a MasterMind whose term has ended (`Fenced`): refused."""

    sqlstate = "57P03"


# Errors `kivi.remote` raises again by class name (they are not in `cumulo.server.errors`).
ERRORS: dict[str, type[SQLError]] = {"WrongRegion": WrongRegion, "RegionMoving": RegionMoving,
                                     "StaleEpoch": StaleEpoch}


@dataclass(frozen=True)
class Fenced:
    """`msg` sent by the MasterMind leading in term `epoch` (a fencing token).

    Why: a MasterMind paused past its ZooKeeper session is replaced, but may resume in
    the middle of a move and send its next command (drop, unfreeze, import). A node
    remembers the highest term it has seen (in a `Fenced`, or in ZooKeeper's epoch
    znode, which a new leader increments before anything else) and refuses the
    commands of an older one with `StaleEpoch`, so a deposed leader changes nothing.
    """

    epoch: int
    msg: Any


@dataclass(frozen=True)
class OpenRegion:
    """Starts serving the (empty, new) region [lo, hi) of `space`; a no-op if it is held."""

    space: int
    lo: bytes
    hi: bytes | None


@dataclass(frozen=True)
class FreezeRegion:
    """Stops serving [lo, hi) of `space` (its requests get `RegionMoving`) until it is
    dropped or unfrozen. Replies once no apply to it is running (applies hold the node lock).

    Reads at a snapshot ts <= `reads_upto` are still served (sent again, it lowers the
    bound): a move freezes the source with every read allowed while it catches up the
    tail (no commit of the region is readable anywhere else yet), then, just before the
    switch, with the snapshot S it reads then: a commit the new owner takes after the
    switch was not readable at that moment, so it lies above S (`cluster.placer`).
    """

    space: int
    lo: bytes
    hi: bytes | None
    reads_upto: int = 0


READ_ANY = 1 << 62  # `FreezeRegion.reads_upto` that lets every read through


@dataclass(frozen=True)
class UnfreezeRegion:
    """Serves a frozen region again (a move that was abandoned)."""

    space: int
    lo: bytes


@dataclass(frozen=True)
class RecoverRegion:
    """Installs a dead node's region from its checkpoint, *recovering*: it takes applies at
    once (they commute with the replay of the loggers' records that follows), but reads
    get `RegionMoving` until `UnfreezeRegion` says the replay is complete."""

    region: RegionData


@dataclass(frozen=True)
class ExportChunk:
    """Asks for the next `limit` keys, with all their versions, of the region of `space`
    starting at `lo`: those after `after` (None: from the start). Replied with a
    `RegionData`; fewer than `limit` keys means it was the last chunk.

    Why chunks: a node runs requests on its event loop, so one reply holding a whole
    large region (packing it takes seconds) would stall every other request to the node,
    the region's own writes included, while it moves."""

    space: int
    lo: bytes
    after: bytes | None
    limit: int


@dataclass(frozen=True)
class RegionSizes:
    """Asks for (space, lo, hi, keys, bytes) of every region held (bytes are estimated)."""


@dataclass(frozen=True)
class MiddleKey:
    """Asks for a key near the middle of the region of `space` starting at `lo` (None: fewer
    than two keys, nothing to split)."""

    space: int
    lo: bytes


register_messages(OpenRegion, FreezeRegion, UnfreezeRegion, RecoverRegion, RegionSizes,
                  MiddleKey, Fenced, ExportChunk)

__all__ = ["ERRORS", "READ_ANY", "ExportChunk", "Fenced", "FreezeRegion", "MiddleKey", "OpenRegion", "RecoverRegion", "RegionMoving",
           "RegionSizes", "StaleEpoch", "UnfreezeRegion", "WrongRegion"]
