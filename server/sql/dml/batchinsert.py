"""One bulk write for a run of executions of the same one-row INSERT.

Clients load data by executing one prepared `INSERT ... VALUES ($1, $2, ...)`
once per row, pipelined up to a single Sync (psycopg's and asyncpg's
executemany, `cumulo.driver`). Each execution on its own pays a statement's
fixed costs and a write-set round for one row; here a run of them becomes
column lists and one `TableWriter.insert` per 2,048 rows, the path COPY and
multi-row VALUES take.

Only statements whose run-together is indistinguishable from row-by-row
execution get a `BatchInsert` (anything else keeps the row path):

- VALUES has one row whose elements are parameters, literals, casts of those,
  or DEFAULT; no WITH or ON CONFLICT;
- RETURNING, if any, names plain columns of the target (the ORM's `RETURNING
  t.id`): each row's reply carries its own row;
- every column left to its default has none, a constant or transaction-stable
  one (`now()`), or takes the next value of a sequence (serial, identity), at
  most one such column: its values are drawn row after row as the row path
  draws them, and a failed run gives them back (`sequences`, see
  `sql.batchexec`). A volatile function would be consumed differently when a
  failed batch is replayed row by row;
- at run time, no foreign key of the table references the table itself (row by
  row, a row may not reference a later row of the run).

A failed bulk write says nothing about which row failed: the caller
(`sql.batchexec`) rolls it back and replays the rows one by one, so the error
and its row are exactly those of the row path.
"""

from __future__ import annotations

import dataclasses
from itertools import repeat
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...pgwire.backend import Result
from ..catalog.model import Column, Sequence, Table
from ..context import ExecContext, ParamTypes
from ..ddl.names import find_sequence, parse_qualified
from ..parse import parse_sql
from .manyrows import _passes_through, param_number
from .returning import Returning
from .values import ValueFn, literal_value, nextval_target
from .writer import writer_of

if TYPE_CHECKING:
    from ..session import SQLSession

BATCH = 2048
_STABLE_CALLS = frozenset({"now", "transaction_timestamp", "current_timestamp",
                           "current_date", "localtimestamp", "current_user", "session_user"})
_STABLE_NODES = (exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime, exp.CurrentUser,
                 exp.DataType, exp.Cast, exp.Paren, exp.Neg, exp.Literal, exp.Null, exp.Boolean,
                 exp.Identifier, exp.Var)
_IMMUTABLE = (int, float, str, bool, bytes, type(None))


def plain_value(node: exp.Expression) -> bool:
    """Tells whether a VALUES element is a parameter, a literal, a cast of either, or DEFAULT.

    >>> from sqlglot import parse_one
    >>> [plain_value(e) for e in parse_one(
    ...     "insert into t values ($1, $2::bigint, 'x', -1, default, now(), $1 + 1)",
    ...     read="postgres").expression.expressions[0].expressions]
    [True, True, True, True, True, False, False]
    """
    if isinstance(node, exp.Cast):
        node = node.this
    if isinstance(node, exp.Var):
        return node.name.upper() == "DEFAULT"
    return param_number(node) > 0 or literal_value(node)[1] != 0  # NB: 0: not a literal


def stable_default(col: Column) -> bool:
    """Tells whether a column's DEFAULT gives the same value for every row of a transaction.

    >>> stable_default(Column("a", 23, -1, 1))
    True
    >>> stable_default(Column("a", 1114, -1, 1, default="now()"))
    True
    >>> stable_default(Column("a", 23, -1, 1, default="nextval('s'::regclass)"))
    False
    >>> stable_default(Column("a", 701, -1, 1, default="random()"))
    False
    """
    if col.identity:
        return False
    if col.default is None:
        return True
    try:
        tree = parse_sql(f"SELECT {col.default}").expressions[0]
    except Exception:  # NB: a default this cannot read keeps the row path
        return False
    for node in tree.walk():
        if isinstance(node, exp.Anonymous):
            if node.name.lower() not in _STABLE_CALLS or node.expressions:
                return False
        elif not isinstance(node, _STABLE_NODES):
            return False
    return True


def default_sequence(s: SQLSession, table: Table, col: Column) -> Sequence | None:
    """The sequence a column's DEFAULT draws from (identity, serial's `nextval('...')`), or
    None when it is anything else."""
    if col.identity:
        return next((q for q in s.catalog().sequences
                     if q.owned_by == (table.oid, col.attnum)), None)
    if col.default is None:
        return None
    try:
        name = nextval_target(parse_sql(f"SELECT {col.default}").expressions[0])
    except Exception:  # NB: a default this cannot read keeps the row path
        return None
    if name is None:
        return None
    schema, nm = parse_qualified(name)
    return find_sequence(s.catalog(), schema, nm, s.search_path())


def plain_returning(returning: Returning | None) -> bool:
    """Tells whether RETURNING only picks columns of the written row (no expression)."""
    return returning is not None and returning.xmax_pos is None and all(
        f is None for f in returning.fns)


@dataclasses.dataclass
class _Slot:
    """How one table column gets its value in a run: a parameter as sent, or a function."""

    pos: int
    param: int = -1  # 0-based parameter index whose decoded value is stored as it is
    fn: ValueFn | None = None  # else fn(None, ctx) with ctx.params = the row's parameters
    per_row: bool = True  # False: a default whose value is immutable, computed once per chunk


class BatchInsert:
    """Runs a one-row INSERT for many parameter lists as one bulk write (see module doc)."""

    def __init__(self, table: Table, slots: list[_Slot], sequences: tuple[Sequence, ...] = (),
                 returning: Returning | None = None) -> None:
        self.table = table
        self.slots = slots
        self.ncols = len(table.columns)
        self.sequences = sequences  # drawn from per row: given back if the run fails
        self.returning = returning  # plain columns only (plain_returning)
        self._stmt: Any = None

    def ready(self, s: SQLSession) -> bool:
        """Tells whether the table, as the session's catalog has it now, allows a bulk run."""
        writer = writer_of(s, self.table)
        return not any(fk.ref_table_oid == self.table.oid for fk in writer.fks)

    def run(self, s: SQLSession, seq: list[list[Any]]) -> Result:
        """Inserts one row per parameter list; raises the first error the bulk write meets.

        With RETURNING, the Result's rows are each input row's RETURNING tuple, in order.
        """
        writer = writer_of(s, self.table)
        ctx = s.exec_context(seq[0] if seq else [])
        ret = self.returning
        out: list[tuple[Any, ...]] = []
        for i in range(0, len(seq), BATCH):
            ctx.check_cancel()
            chunk = seq[i:i + BATCH]
            for sq in self.sequences:  # NB: one durable write for the chunk's values
                s.store.reserve_sequence(sq, len(chunk))
            rows = self.rows(ctx, chunk)
            if ret is None:
                writer.insert(s, rows)  # type: ignore[arg-type]
            else:
                out += [ret.project(r, ctx)
                        for r in writer.insert_rows(s, rows)]  # type: ignore[arg-type]
        if ret is not None:
            return Result(f"INSERT 0 {len(seq)}", ret.columns, iter(out), done=False)
        return Result(f"INSERT 0 {len(seq)}")

    def rows(self, ctx: ExecContext, chunk: list[list[Any]]) -> list[tuple[Any, ...]]:
        """The chunk's rows as full tuples (dropped and unnamed columns hold None)."""
        n = len(chunk)
        columns: list[Any] = [repeat(None, n)] * self.ncols
        for slot in self.slots:
            if slot.param >= 0:
                p = slot.param
                columns[slot.pos] = [params[p] for params in chunk]
                continue
            fn = slot.fn
            assert fn is not None
            if not slot.per_row:
                v = fn(None, ctx)
                if isinstance(v, _IMMUTABLE):
                    columns[slot.pos] = repeat(v, n)
                    continue
            vals = []
            for params in chunk:
                ctx.params = params
                vals.append(fn(None, ctx))
            columns[slot.pos] = vals
        return list(zip(*columns))  # noqa: B905 - repeat() columns are as long as the chunk


def batch_insert(s: SQLSession, tree: exp.Insert, table: Table, cols: list[int],
                 exprs: list[exp.Expression], row_fns: list[ValueFn],
                 defaults: list[tuple[int, ValueFn]], params: ParamTypes,
                 returning: Returning | None = None) -> BatchInsert | None:
    """A `BatchInsert` for an analysed one-row INSERT, or None if it must keep the row path.

    `exprs` and `row_fns` are its VALUES elements and their compiled values for the
    target positions `cols`; `defaults` the compiled defaults of the other columns;
    `returning` its compiled RETURNING list.
    """
    if tree.args.get("with_") is not None or tree.args.get("conflict") is not None:
        return None
    if tree.args.get("returning") is not None and not plain_returning(returning):
        return None
    if not all(plain_value(e) for e in exprs):
        return None
    slots: list[_Slot] = []
    sequences: list[Sequence] = []

    def default_slot(pos: int, fn: ValueFn) -> bool:
        col = table.columns[pos]
        if stable_default(col):
            slots.append(_Slot(pos, fn=fn, per_row=False))
            return True
        seq = default_sequence(s, table, col)
        if seq is None or sequences:  # NB: two columns from sequences: drawn in another order
            return False
        sequences.append(seq)
        slots.append(_Slot(pos, fn=fn, per_row=True))
        return True

    for pos, node, fn in zip(cols, exprs, row_fns, strict=True):
        col = table.columns[pos]
        if isinstance(node, exp.Var):  # DEFAULT
            if not default_slot(pos, fn):
                return None
            continue
        p = param_number(node)
        declared = params.oids[p - 1] if 0 < p <= len(params.oids) else 0
        if p and _passes_through(node, declared, col):
            slots.append(_Slot(pos, param=p - 1))
        else:
            slots.append(_Slot(pos, fn=fn, per_row=p > 0))
    for pos, fn in defaults:
        if not default_slot(pos, fn):
            return None
    return BatchInsert(table, slots, tuple(sequences), returning if tree.args.get("returning")
                       is not None else None)
