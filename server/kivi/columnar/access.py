"""Columnar snapshots of a whole space, gathered over the nodes a `KiviClient` routes to.

This is the top of the columnar package: it knows nodes and the client, which
themselves only know `copy`. Only in-process nodes hand out their packs (the
arrays are shared, not copied); with a remote node this returns None and the
SQL layer keeps the row path (partial results from node-side workers are the
cluster-mode design, not built yet).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..client import KiviClient
from ..node import KiviNode
from .copy import Snapshot


def space_snapshots(kivi: Any, space: int, ts: int, wait: bool = True) -> list[Snapshot] | None:
    """Every region of `space` visible at ts as columnar snapshots; None when unavailable
    (and, without `wait`, while a copy is being built: `KiviNode.columnar`).

    `kivi` is a `KiviClient` or a bare `KiviNode`.
    """
    if isinstance(kivi, KiviNode):
        return kivi.columnar(space, ts, wait)
    if not isinstance(kivi, KiviClient):
        return None
    nodes = kivi.nodes
    owners = {info.node for info in kivi.map.overlapping(space, None, None)}
    out: list[Snapshot] = []
    for name in sorted(owners):
        node = nodes[name]
        if not isinstance(node, KiviNode):
            return None
        snaps = node.columnar(space, ts, wait)
        if snaps is None:
            return None
        out.extend(snaps)
    return out


def built_space_snapshots(kivi: Any, space: int, ts: int) -> list[Snapshot] | None:
    """`space_snapshots`, but only when every region of `space` already has a built copy
    (None otherwise, and nothing is built).

    For readers that would rather take the row path than pay for a copy nobody asked
    for: automatic ANALYZE samples a copy that analytic queries built, and scans rows
    otherwise. (A copy dropped between the look and the read is rebuilt, outside the
    node lock as always: rare, and never a stall of the writers.)
    """
    nodes = _local_nodes(kivi)
    if nodes is None:
        return None
    regions = [r for node in nodes for r in node.regions() if r.space == space]
    if not regions or any(r.store.columnar_bytes == 0 for r in regions):
        return None
    return space_snapshots(kivi, space, ts)


def _local_nodes(kivi: Any) -> list[KiviNode] | None:
    """The in-process nodes behind `kivi`; None when any node is remote."""
    if isinstance(kivi, KiviNode):
        return [kivi]
    if not isinstance(kivi, KiviClient):
        return None
    nodes = list(kivi.nodes.values())
    return nodes if all(isinstance(n, KiviNode) for n in nodes) else None


def warm_copies(kivi: Any, ts: Callable[[], int], stop: Callable[[], bool]) -> int:
    """Builds again, after a restart, the copies the in-process nodes had
    (`KiviNode.warm_columnar`); returns how many spaces were built."""
    return sum(node.warm_columnar(ts, stop) for node in _local_nodes(kivi) or ()
               if not stop())


def copy_bytes(kivi: Any) -> dict[int, int]:
    """Bytes held by the built columnar copies of in-process nodes, per space (a space
    absent: no region of it has a copy). For tests and monitoring: a dropped or truncated
    table's space must disappear from here."""
    if isinstance(kivi, KiviNode):
        nodes = [kivi]
    elif isinstance(kivi, KiviClient):
        nodes = [n for n in kivi.nodes.values() if isinstance(n, KiviNode)]
    else:
        return {}
    out: dict[int, int] = {}
    for node in nodes:
        for r in node.regions():
            b = r.store.columnar_bytes
            if b:
                out[r.space] = out.get(r.space, 0) + b
    return out


__all__ = ["built_space_snapshots", "copy_bytes", "space_snapshots", "warm_copies"]
