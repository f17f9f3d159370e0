"""Transaction ids and snapshots as SQL sees them: `txid_current()`, `pg_current_snapshot()`,
`pg_visible_in_snapshot()`, `txid_status()` and the rest, as PostgreSQL 15.

The ids and snapshots are `txn.xids`' mapping onto commit timestamps; the values are
`pgtypes.xidsnap`'s. Each function comes twice, as PostgreSQL has it: the txid_* ones over
bigint and txid_snapshot, the pg_* ones (PostgreSQL 13's names) over xid8 and pg_snapshot.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...errors import InvalidParameterValue
from ...pgtypes import oids as T
from ...pgtypes.xidsnap import PG_SNAPSHOT, TXID_SNAPSHOT, XID8, snapshot_fields, visible
from ...txn import xids
from .registry import register


def _txn(ctx: Any) -> Any:
    return ctx.session.ensure_txn()


def _current(ctx: Any) -> int:
    """The transaction's id, assigned now if it has none."""
    return xids.assign(_txn(ctx))


def _if_assigned(ctx: Any) -> int | None:
    """The transaction's id, NULL while it has none."""
    return _txn(ctx).xid or None


def _snapshot(ctx: Any) -> str:
    """The statement's snapshot, `xmin:xmax:xip`."""
    return xids.current_snapshot(_txn(ctx))


def _status(ctx: Any, xid: int) -> str | None:
    """'committed', 'aborted' or 'in progress'; NULL for an id this server does not know
    (PostgreSQL's answer for one whose commit log is gone); 22023 for a future one."""
    txn = _txn(ctx)
    if xids.is_future(txn, xid):
        raise InvalidParameterValue(f"transaction ID {xid} is in the future")
    known = xids.status(txn, xid)
    if known is None and xid in (1, 2):  # PostgreSQL's bootstrap and frozen ids
        return "committed"
    return known


def _xmin(snap: str) -> int:
    """The snapshot's xmin: every id below it had ended."""
    return snapshot_fields(snap)[0]


def _xmax(snap: str) -> int:
    """The snapshot's xmax: no id from it on had ended."""
    return snapshot_fields(snap)[1]


def _xip(snap: str) -> Iterator[int]:
    """The ids in progress at the snapshot, one row each."""
    yield from snapshot_fields(snap)[2]


def _cmp(a: int, b: int) -> int:
    """xid8cmp: -1, 0 or 1."""
    return (a > b) - (a < b)


def _larger(a: int, b: int) -> int:
    """xid8_larger."""
    return max(a, b)


def _smaller(a: int, b: int) -> int:
    """xid8_smaller."""
    return min(a, b)


def _eq(a: int, b: int) -> bool:
    """xid8eq."""
    return a == b


def _ne(a: int, b: int) -> bool:
    """xid8ne."""
    return a != b


def _lt(a: int, b: int) -> bool:
    """xid8lt."""
    return a < b


def _gt(a: int, b: int) -> bool:
    """xid8gt."""
    return a > b


def _le(a: int, b: int) -> bool:
    """xid8le."""
    return a <= b


def _ge(a: int, b: int) -> bool:
    """xid8ge."""
    return a >= b


# (name, pg_proc OID) of each form: the txid_* ones (bigint, txid_snapshot), then PostgreSQL
# 13's pg_* ones (xid8, pg_snapshot)
for (_name, _oid), _ret in (((("txid_current", 2943), T.INT8)), ((("pg_current_xact_id", 5059), XID8))):
    register(_name, args=[], returns=_ret, needs_context=True, volatile=True, oid=_oid)(_current)
for (_name, _oid), _ret in ((("txid_current_if_assigned", 3348), T.INT8),
                            (("pg_current_xact_id_if_assigned", 5060), XID8)):
    register(_name, args=[], returns=_ret, needs_context=True, volatile=True,
             oid=_oid)(_if_assigned)
register("txid_current_snapshot", args=[], returns=TXID_SNAPSHOT, needs_context=True,
         volatile=True, oid=2944)(_snapshot)
register("pg_current_snapshot", args=[], returns=PG_SNAPSHOT, needs_context=True,
         volatile=True, oid=5061)(_snapshot)
for _snap, _id, _p, _base in ((TXID_SNAPSHOT, T.INT8, "txid_snapshot", 2945),
                              (PG_SNAPSHOT, XID8, "pg_snapshot", 5062)):
    register(f"{_p}_xmin", args=[_snap], returns=_id, oid=_base)(_xmin)
    register(f"{_p}_xmax", args=[_snap], returns=_id, oid=_base + 1)(_xmax)
    register(f"{_p}_xip", args=[_snap], returns=_id, set_returning=True, oid=_base + 2)(_xip)
register("txid_visible_in_snapshot", args=[T.INT8, TXID_SNAPSHOT], returns=T.BOOL,
         oid=2948)(visible)
register("pg_visible_in_snapshot", args=[XID8, PG_SNAPSHOT], returns=T.BOOL, oid=5065)(visible)
register("txid_status", args=[T.INT8], returns=T.TEXT, needs_context=True, volatile=True,
         oid=3360)(_status)
register("pg_xact_status", args=[XID8], returns=T.TEXT, needs_context=True, volatile=True,
         oid=5066)(_status)
register("xid8cmp", args=[XID8, XID8], returns=T.INT4, oid=5096)(_cmp)
register("xid8_larger", args=[XID8, XID8], returns=XID8, oid=5097)(_larger)
register("xid8_smaller", args=[XID8, XID8], returns=XID8, oid=5098)(_smaller)
for _name, _oid, _fn in (("xid8eq", 5084, _eq), ("xid8ne", 5085, _ne), ("xid8lt", 5034, _lt),
                         ("xid8gt", 5035, _gt), ("xid8le", 5036, _le), ("xid8ge", 5037, _ge)):
    register(_name, args=[XID8, XID8], returns=T.BOOL, oid=_oid)(_fn)
