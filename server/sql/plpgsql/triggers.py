"""Runs a PL/pgSQL trigger function for one `TriggerCall`: NEW, OLD, the TG_* variables.

As PostgreSQL's plpgsql_exec_trigger: NEW and OLD are record variables with the
table's columns as fields (NEW is unassigned in a DELETE trigger, OLD in an
INSERT one, both in a statement-level one); TG_NAME, TG_WHEN, TG_LEVEL, TG_OP,
TG_RELID, TG_RELNAME, TG_TABLE_NAME, TG_TABLE_SCHEMA, TG_NARGS and TG_ARGV
(counted from 0) describe the firing. A BEFORE ROW trigger's value is the row
to write: `RETURN NEW` (as the body changed it), `RETURN OLD`, or `RETURN NULL`
to skip the row. Field values are cast to the columns' types on the way back.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ...errors import SQLError
from ...pgtypes import oids as T
from ...pgtypes.records import Record
from ..catalog.model import Function
from ..expr.casts import cast_function
from ..stmt import AnalyseTree
from . import routinectx
from .functions import compiled, routine_name
from .interp import Interp, Var, _Return
from .triggerdata import TriggerCall

if TYPE_CHECKING:
    from ..session import SQLSession

_TEXT_ARRAY = 1009
_DEPTH: ContextVar[int] = ContextVar("trigger_depth", default=0)


def trigger_depth() -> int:
    """pg_trigger_depth(): how many trigger functions are running, nested (0 outside)."""
    return _DEPTH.get()


def _record(call: TriggerCall, row: Any) -> Var:
    """NEW or OLD; unassigned (`value` None, its fields NULL) where the event has none."""
    fields = {name: (None if row is None else row[pos], oid)
              for pos, name, oid, _ in call.columns}
    return Var(row, T.RECORD, type_text="record", fields=fields)


def run_trigger(s: SQLSession, fn: Function, call: TriggerCall,
                analyse_tree: AnalyseTree) -> list[Any] | None:
    """Runs the trigger function; returns the row it hands back (full width) or None."""
    token = _DEPTH.set(_DEPTH.get() + 1)
    try:
        if not fn.secdef and not fn.config:  # NB: once per row: no context manager then
            return _run(s, fn, call, analyse_tree)
        with routinectx.entered(s, fn):  # NB: SECURITY DEFINER, SET clauses
            return _run(s, fn, call, analyse_tree)
    finally:
        _DEPTH.reset(token)


def _run(s: SQLSession, fn: Function, call: TriggerCall,
         analyse_tree: AnalyseTree) -> list[Any] | None:
    block, cache = compiled(s, fn)  # NB: EXECUTE was checked at CREATE TRIGGER, not here
    interp = Interp(s, analyse_tree)
    interp.name = routine_name(fn)
    interp.share_cache(cache)
    scope = interp.scopes[-1]
    scope.update({
        "new": _record(call, call.new), "old": _record(call, call.old),
        "tg_name": Var(call.name, T.NAME), "tg_when": Var(call.when, T.TEXT),
        "tg_level": Var(call.level, T.TEXT), "tg_op": Var(call.op, T.TEXT),
        "tg_relid": Var(call.table_oid, T.OID), "tg_relname": Var(call.table_name, T.NAME),
        "tg_table_name": Var(call.table_name, T.NAME),
        "tg_table_schema": Var(call.schema_name, T.NAME),
        "tg_nargs": Var(len(call.args), T.INT4), "tg_argv": Var(list(call.args), _TEXT_ARRAY),
    })
    if call.condition and not interp.truth(call.condition):
        base = call.new if call.new is not None else call.old
        return list(base) if call.when == "BEFORE" and base is not None else None
    try:
        interp.block(block)
    except _Return as r:
        value = r.value
    else:
        raise SQLError("control reached end of trigger procedure without RETURN",
                       sqlstate="2F005")
    if call.level != "ROW" or call.when == "AFTER":
        return None
    if value is None:
        return None
    if isinstance(value, tuple) and len(value) == len(call.columns):  # RETURN coalesce(NEW, OLD)
        base = call.new if call.new is not None else call.old
        out = list(base) if base is not None else []
        for (pos, _, oid, typmod), v, voi in zip(call.columns, value, _oids(value),
                                                  strict=True):
            out[pos] = _cast(v, voi, oid, typmod)
        return out
    if not isinstance(value, Var):
        raise SQLError("returned row structure does not match the structure of the triggering "
                       "table", sqlstate="42804",
                       detail="Returned type does not match the table's row type.")
    if value.fields is None or value.value is None:  # NB: RETURN NEW in a DELETE trigger
        return None
    base = call.new if call.new is not None else call.old
    out = list(base) if base is not None else []
    for pos, name, oid, typmod in call.columns:
        got = value.fields.get(name)
        if got is None:
            out[pos] = None
            continue
        out[pos] = _cast(got[0], got[1], oid, typmod)
    return out


def _oids(value: tuple[Any, ...]) -> tuple[int, ...]:
    return value.oids if isinstance(value, Record) else (0,) * len(value)


def _cast(v: Any, src: int, dst: int, typmod: int) -> Any:
    """A field's value as the column's type (NEW.n := 1.5 on an int column)."""
    if v is None or src in (dst, 0, T.UNKNOWN, T.RECORD):
        return v
    conv = cast_function(src, dst, typmod)
    return conv(v) if conv is not None else v


__all__ = ["TriggerCall", "run_trigger", "trigger_depth"]
