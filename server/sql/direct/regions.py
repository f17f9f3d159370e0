"""Placement from SQL: the view `cumulo_regions`, and `cumulo_split` / `cumulo_move`.

| entry point | what it does |
|---|---|
| `SELECT * FROM cumulo_regions` | one row per region of the database's tables and indexes: `table_name`, `region_id`, `start_key`, `end_key` (NULL: unbounded), `node`, `epoch` (up by one per split or move), `rows`, `bytes` |
| `SELECT cumulo_split('t', key)` | splits t's region holding the primary key `key` there; returns the id of the region that now starts at `key` |
| `SELECT cumulo_move(region_id, 'kivi-1')` | moves a region to another KiVi node (cluster mode); returns its new epoch |

Splits and moves are for superusers (42501 otherwise).

Why functions over the storage client rather than SQL statements: placement is not
part of the data model; in cluster mode the MasterMind makes the change
(`cluster.placer`), live, while reads and writes go on. In embedded mode there is
one node: its regions are shown (ids are their ordinals) and can be split; nothing
can move. Rows and bytes are the nodes' estimates (keys with any version; bytes
from a sample of rows).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ...errors import FeatureNotSupported, InsufficientPrivilege, InvalidParameterValue
from ...kivi.api import SplitRegion
from ...kivi.client import KiviClient
from ...kivi.keycodec import decode_key, encode_key
from ...kivi.node import KiviNode
from ...kivi.regionmap import RegionInfo
from ...pgtypes import oids as T
from ..functions.registry import register
from ..pgcatalog.registry import virtual_table
from ..privileges.check import current_role
from .functions import _table

_INTS = {T.INT2, T.INT4, T.INT8}
_TEXTS = {T.TEXT, T.VARCHAR, T.BPCHAR}


def _storage(ctx: Any) -> Any:
    """The transaction layer's KiVi: a `KiviClient` (cluster mode) or a `KiviNode`."""
    return ctx.session.ensure_txn().ltm.kivi


def _regions(kivi: Any, spaces: set[int]) -> list[tuple[RegionInfo, int | None, int | None]]:
    if isinstance(kivi, KiviClient):
        for space in spaces:
            kivi.map.regions(space)  # a table not written yet gets its region now
        return kivi.describe()
    if isinstance(kivi, KiviNode):
        return [(RegionInfo(space, lo, hi, kivi.node_id, i), keys, size)
                for i, (space, lo, hi, keys, size) in enumerate(kivi.region_sizes(), 1)]
    return []


def _key_text(key: bytes | None) -> str | None:
    """A region boundary as text: the key's values, or hex if it is not a plain key."""
    if not key:
        return None
    try:
        values = decode_key(key)
    except Exception:  # noqa: BLE001 - an index key with descending parts, say
        return "\\x" + key.hex()
    return str(values[0]) if len(values) == 1 else "(" + ", ".join(map(str, values)) + ")"


@virtual_table("pg_catalog", "cumulo_regions", [
    ("table_name", T.TEXT), ("region_id", T.INT8), ("start_key", T.TEXT), ("end_key", T.TEXT),
    ("node", T.TEXT), ("epoch", T.INT8), ("rows", T.INT8), ("bytes", T.INT8)], kind="v")
def cumulo_regions(ctx: Any) -> list[tuple[Any, ...]]:
    """The regions of the database's tables and indexes, in (relation, key) order."""
    if ctx.session is None:  # NB: outside a session (a unit test's function context)
        return []
    names = {t.space: t.name for t in ctx.catalog.tables if t.kind == "r"}
    names.update({i.space: i.name for i in ctx.catalog.indexes if i.space})
    found = []
    for info, keys, size in _regions(_storage(ctx), set(names)):
        name = names.get(info.space)
        if name is not None:
            found.append(((name, info.lo), (name, info.id, _key_text(info.lo),
                                            _key_text(info.hi), info.node, info.epoch, keys,
                                            size)))
    return [row for _k, row in sorted(found, key=lambda f: f[0])]


def _require_superuser(ctx: Any, fn: str) -> None:
    """Placement is the cluster's administration, as PostgreSQL's pg_* admin functions."""
    role = current_role(ctx.session)
    if role is None or not role.superuser:
        raise InsufficientPrivilege(f"must be superuser to call {fn}")


def _split_key(ctx: Any, table: str, value: Any) -> tuple[int, bytes]:
    t = _table(ctx, table, "r")
    if not t.primary_key:
        raise FeatureNotSupported(f'table "{t.name}" has no primary key to split at')
    col = next(c for c in t.columns if c.attnum == t.primary_key[0])
    try:
        if col.type_oid in _INTS:
            v: Any = int(value)
        elif col.type_oid == T.NUMERIC:
            v = Decimal(str(value))
        elif col.type_oid in _TEXTS:
            v = str(value)
        else:
            raise FeatureNotSupported("cumulo_split takes integer, numeric or text keys")
    except (ValueError, ArithmeticError):
        raise InvalidParameterValue(f'"{value}" is not a key of table "{t.name}"') from None
    return t.space, encode_key((v,))


def _split(ctx: Any, table: str, value: Any) -> int:
    _require_superuser(ctx, "cumulo_split")
    space, key = _split_key(ctx, table, value)
    kivi = _storage(ctx)
    if isinstance(kivi, KiviClient):
        info = kivi.map.locate(space, key)
        if info.lo == key:
            raise InvalidParameterValue("a region already starts at that key")
        _lower, upper = kivi.split(space, key)
        return upper.id
    if isinstance(kivi, KiviNode):
        held = [r for r in kivi.regions() if r.space == space and r.lo == key]
        if held:
            raise InvalidParameterValue("a region already starts at that key")
        kivi.split_region(SplitRegion(space, key))
        return next(i for i, r in enumerate(kivi.regions(), 1) if r.space == space and r.lo == key)
    raise FeatureNotSupported("this storage cannot split regions")


@register("cumulo_split", args=[T.TEXT, T.TEXT], returns=T.INT8, needs_context=True,
          volatile=True)
def cumulo_split(ctx: Any, table: str, key: str) -> int:
    """Splits the table's region holding the primary key value `key` at it."""
    return _split(ctx, table, key)


@register("cumulo_split", args=[T.TEXT, T.INT8], returns=T.INT8, needs_context=True,
          volatile=True)
def cumulo_split_int(ctx: Any, table: str, key: int) -> int:
    """Splits the table's region holding the primary key value `key` at it."""
    return _split(ctx, table, key)


@register("cumulo_move", args=[T.INT8, T.TEXT], returns=T.INT8, needs_context=True,
          volatile=True)
def cumulo_move(ctx: Any, region_id: int, node: str) -> int:
    """Moves a region to another KiVi node, live; returns the region's new epoch."""
    _require_superuser(ctx, "cumulo_move")
    kivi = _storage(ctx)
    if not isinstance(kivi, KiviClient) or len(kivi.map.nodes) < 1:
        raise FeatureNotSupported("cumulo_move needs cluster mode (this server has one node)")
    try:
        kivi.move_region(region_id, node)
    except (ValueError, KeyError) as e:
        raise InvalidParameterValue(str(e)) from None
    moved = [i for i in kivi.map.all_regions() if i.id == region_id]
    return moved[0].epoch if moved else 0
