"""The compilers a KiVi node runs pushed filters with, installed when the node is wired.

Why: one expression IR, compiled to each target. A pushed filter (`kivi.api`'s IR,
with the execution's parameter values beside it in `Scan.params`) is the SQL layer's
bound expression in serializable form, and it is compiled by the SQL layer's own
compilers (row code and vector code, `sql.expr.pushed`), not by a compiler of KiVi's.
KiVi does not import the SQL layer: the compilers are passed in (`install`) by
whoever wires a node, when it imports `sql.expr.pushed` (a query engine's executor; a
KiVi node process, `cluster.role`).

Three targets, each `ir -> function`, compiled once per shape by the installer:

- `positions(ir)(rows, params)`: the positions of the rows for which the filter is TRUE;
- `rows(ir)(rows, params)`: those rows;
- `mask(ir)`: None when the filter has no vector form, else
  `fn(column, n, params)`: a boolean array over a columnar pack's n rows (its
  columns by `column(j)`), raising `Unsafe` where the kernels cannot say exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InternalError
from .columnar.aggregate import Selected
from .columnar.copy import Snapshot

Row = tuple[Any, ...]
Params = Sequence[Any]


@dataclass(frozen=True)
class Compilers:
    positions: Callable[[Any], Callable[[list[Row], Params], list[int]]]
    rows: Callable[[Any], Callable[[list[Row], Params], list[Row]]]
    mask: Callable[[Any], Callable[[Callable[[int], Any], int, Params], np.ndarray] | None]


_installed: list[Compilers] = []


def install(compilers: Compilers) -> None:
    """Makes `compilers` the ones every node of this process runs pushed filters with."""
    _installed[:] = [compilers]


def _get() -> Compilers:
    if not _installed:
        raise InternalError("no filter compilers installed: import cumulo.server.sql.expr.pushed")
    return _installed[0]


def positions(ir: Any) -> Callable[[list[Row], Params], list[int]]:
    """`fn(rows, params)`: the positions of the rows for which the filter is TRUE."""
    return _get().positions(ir)


def rows(ir: Any) -> Callable[[list[Row], Params], list[Row]]:
    """`fn(rows, params)`: the rows for which the filter is TRUE."""
    return _get().rows(ir)


def mask(ir: Any) -> Callable[[Callable[[int], Any], int, Params], np.ndarray] | None:
    """The filter's vector code (see the module's docstring), or None."""
    return _get().mask(ir)


def selected(snap: Snapshot, vector: Callable[[Callable[[int], Any], int, Params], np.ndarray],
             params: Params) -> list[Selected]:
    """The rows of a snapshot that are visible and pass a filter's vector code, pack by pack
    (raises `Unsafe` where the kernels cannot say exactly: the caller folds rows)."""
    out = []
    for v in snap.views:
        p = v.pack
        m = vector(p.column, p.n, params)
        if v.mask is not None:
            m = m & v.mask
        idx = np.flatnonzero(m)
        if len(idx):  # NB: the aggregate kernels expect no empty selection
            out.append(Selected(p, idx))
    return out


__all__ = ["Compilers", "install", "mask", "positions", "rows", "selected"]
