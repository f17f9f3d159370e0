"""Functions over a type whose OID is only known once CREATE EXTENSION made it (hstore).

Such functions are declared over a placeholder OID (`HSTORE`); `resolve` asks
`bound(name, oid)` for them with the OID of the current catalog's hstore type,
and gets ordinary `FunctionDef`s with the placeholder replaced. Without the
extension there is no OID and no candidate, so `hstore('a', 'b')` is 42883 as
in a PostgreSQL database without hstore.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from .registry import FunctionDef

HSTORE = -38  # the placeholder of hstore's OID in declared signatures
SLOTTED: dict[str, list[FunctionDef]] = {}
_bound: dict[tuple[str, int], list[FunctionDef]] = {}


def register_slotted(name: str, *, args: list[int], returns: int, strict: bool = True,
                     set_returning: bool = False,
                     out_columns: list[tuple[str, int]] | None = None,
                     ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Registers an overload whose `args` / `returns` may name `HSTORE`."""

    def wrap(impl: Callable[..., Any]) -> Callable[..., Any]:
        SLOTTED.setdefault(name, []).append(FunctionDef(
            name, impl, tuple(args), returns, strict, False, False, set_returning,
            None if out_columns is None else tuple(out_columns)))
        return impl

    return wrap


def bound(name: str, hstore_oid: int) -> list[FunctionDef]:
    """`name`'s slotted overloads with hstore's OID filled in ([] when there are none)."""
    if name not in SLOTTED or not hstore_oid:
        return []
    key = (name, hstore_oid)
    hit = _bound.get(key)
    if hit is None:
        def fill(t: Any) -> Any:
            return hstore_oid if t == HSTORE else t

        hit = [dataclasses.replace(fd, args=tuple(fill(a) for a in fd.args or ()),
                                   returns=fill(fd.returns)) for fd in SLOTTED[name]]
        _bound[key] = hit
    return hit
