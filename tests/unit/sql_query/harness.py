"""A small in-memory `Txn` and catalog for the query compiler's tests.

Used until `server/txn/embedded.py` exists; it evaluates the KiVi filter IR
with a plain interpreter (fine for tests) and counts gets and scans so tests
can assert which access path a plan took.
"""

from __future__ import annotations

import datetime as dt
import threading
from decimal import Decimal
from typing import Any

import sqlglot

from cumulo.server.sql.catalog.model import (
    CatalogSnapshot,
    Column,
    Database,
    Index,
    Role,
    Schema,
    Table,
)
from cumulo.server.sql.context import ExecContext, ParamTypes
from cumulo.server.sql.exec.keys import encode_key
from cumulo.server.sql.plan.compiler import COMPILER
from cumulo.server.txn.api import ScanSpec
from cumulo.server.waits import Flag


def _ir(e: Any, row: tuple, params: Any = ()) -> Any:
    k = e[0]
    if k == "col":
        return row[e[1]]
    if k == "const":
        return e[1]
    if k == "param":
        return params[e[1] - 1]
    if k == "cmp":
        a, b = _ir(e[2], row, params), _ir(e[3], row, params)
        if a is None or b is None:
            return None
        return {"=": a == b, "<>": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[e[1]]
    if k == "and":
        vals = [_ir(x, row, params) for x in e[1]]
        return False if False in vals else None if None in vals else True
    if k == "or":
        vals = [_ir(x, row, params) for x in e[1]]
        return True if True in vals else None if None in vals else False
    if k == "not":
        v = _ir(e[1], row, params)
        return None if v is None else not v
    if k == "is_null":
        return _ir(e[1], row, params) is None
    if k == "is_not_null":
        return _ir(e[1], row, params) is not None
    if k == "in":
        v = _ir(e[1], row, params)
        return None if v is None else v in e[2]
    if k == "like":
        from cumulo.server.sql.expr.runtime import like

        v = _ir(e[1], row, params)
        return None if v is None else like(v, e[2], e[3])
    raise AssertionError(e)


class MemTxn:
    """Just enough of `txn.api.Txn` for read queries."""

    isolation = "read committed"
    read_only = False
    has_writes = False  # read queries only (`check_cancel` asks, to pace read-only statements)
    lock_timeout = None

    def cancel(self) -> None:
        """Nothing waits in a MemTxn."""

    def __init__(self) -> None:
        self.spaces: dict[int, dict[bytes, tuple]] = {}
        self.gets = 0
        self.scans: list[ScanSpec] = []

    def load(self, table: Table, rows: list[tuple]) -> None:
        pos = {c.attnum: i for i, c in enumerate(sorted(table.columns, key=lambda c: c.attnum))}
        space = self.spaces.setdefault(table.space, {})
        for n, r in enumerate(rows):
            key = tuple(r[pos[a]] for a in table.primary_key) if table.primary_key else (n,)
            space[encode_key(key)] = tuple(r)

    def get(self, space: int, keys: list[bytes]) -> list:
        self.gets += 1
        data = self.spaces.get(space, {})
        return [data.get(k) for k in keys]

    def scan(self, spec: ScanSpec):
        self.scans.append(spec)
        data = self.spaces.get(spec.space, {})
        out = []
        for k in sorted(data, reverse=spec.reverse):
            if spec.lo is not None and k < spec.lo:
                continue
            if spec.hi is not None and k >= spec.hi:
                continue
            r = data[k]
            if spec.filter is not None and _ir(spec.filter, r, spec.params) is not True:
                continue
            if spec.projection is not None:
                r = tuple(r[i] for i in spec.projection)
            out.append((k, *r) if spec.with_keys else r)
            if spec.limit is not None and len(out) >= spec.limit:
                break
        for i in range(0, len(out), 3):  # small batches exercise batch boundaries
            yield out[i : i + 3]


class CountingTxn:
    """Wraps a real transaction, counting the gets and recording the scans a plan makes."""

    def __init__(self, txn: Any) -> None:
        self.txn = txn
        self.gets = 0
        self.scans: list[ScanSpec] = []

    def get(self, space: int, keys: list[bytes]) -> list:
        self.gets += 1
        return self.txn.get(space, keys)

    def scan(self, spec: ScanSpec):
        self.scans.append(spec)
        return self.txn.scan(spec)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.txn, name)


def real_txn(tables: list[tuple[Table, list[tuple]]], index: list) -> CountingTxn | None:
    """Loads the tables into an in-memory embedded TxnManager; None if it does not exist yet."""
    try:
        from cumulo.server.txn.embedded import open_embedded
    except ImportError:
        return None
    mgr = open_embedded(None, gc_interval=None)
    w = mgr.begin()
    for table, rows in tables:
        pos = {c.attnum: i for i, c in enumerate(sorted(table.columns, key=lambda c: c.attnum))}
        items = []
        for n, r in enumerate(rows):
            key = tuple(r[pos[a]] for a in table.primary_key) if table.primary_key else (n,)
            items.append((encode_key(key), tuple(r)))
        w.put(table.space, items)
    w.put(IDX.space, index)
    w.commit()
    return CountingTxn(mgr.begin(isolation="repeatable read"))


class FnCtx:
    """A FunctionContext stand-in."""

    def __init__(self, catalog: CatalogSnapshot) -> None:
        self.catalog = catalog
        self.user = "postgres"
        self.database = "postgres"
        self.backend_pid = 1
        self.statement_timestamp = dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
        self.session = None  # NB: no session: the views that list sessions show this one alone
        self.cancel_event = threading.Event()

    def get_setting(self, name: str) -> str | None:
        return None

    def search_path(self) -> list[str]:
        return ["public"]


def col(name: str, oid: int, attnum: int, **kw: Any) -> Column:
    return Column(name, oid, attnum=attnum, **kw)


T_OID, U_OID, ACC_OID, V_OID = 16384, 16390, 16400, 16410

T = Table(T_OID, "t", 2200, (col("a", 23, 1, not_null=True), col("b", 25, 2), col("c", 1700, 3)),
          primary_key=(1,), space=1)
U = Table(U_OID, "u", 2200, (col("x", 23, 1), col("y", 25, 2)), primary_key=(), space=2)
ACC = Table(ACC_OID, "pgbench_accounts", 2200,
            (col("aid", 23, 1), col("bid", 23, 2), col("abalance", 23, 3),
             col("filler", 1042, 4, typmod=88)), primary_key=(1,), space=3)
V = Table(V_OID, "tv", 2200, (col("a", 23, 1), col("b", 25, 2)), kind="v",
          view_sql="select a, b from t where a > 1")
IDX = Index(16420, "u_y_idx", U_OID, (2,), space=4)

T_ROWS = [(1, "one", Decimal("1.5")), (2, "two", None), (3, "three", Decimal("3.25")),
          (4, None, Decimal("-1"))]
U_ROWS = [(1, "a"), (2, "b"), (2, "c"), (5, None)]


def catalog() -> CatalogSnapshot:
    return CatalogSnapshot(
        database=Database(5, "postgres"),
        databases=(Database(5, "postgres"),),
        roles=(Role(10, "postgres", superuser=True),),
        schemas=(Schema(11, "pg_catalog"), Schema(2200, "public")),
        tables=(T, U, ACC, V),
        indexes=(IDX,),
    )


class DB:
    """Plans and runs queries against the in-memory tables."""

    def __init__(self, use_real: bool = True) -> None:
        self.catalog = catalog()
        data = [(T, T_ROWS), (U, U_ROWS), (ACC, [(i, 1, i * 10, " " * 84) for i in range(1, 51)])]
        # u_y_idx: key = y + the row's key, value = (the row's key,) (U has a hidden row id)
        index = [(encode_key((y,)) + encode_key((n,)), (encode_key((n,)),))
                 for n, (_x, y) in enumerate(U_ROWS)]
        txn: Any = real_txn(data, index) if use_real else None
        if txn is None:
            txn = MemTxn()
            for table, rows in data:
                txn.load(table, rows)
            txn.spaces[IDX.space] = dict(index)
        self.txn = txn

    def plan(self, sql: str, param_oids: list[int] | None = None):
        params = ParamTypes(list(param_oids or []))
        plan = COMPILER.plan_query(sqlglot.parse_one(sql, read="postgres"), self.catalog, params,
                                   ["public"], trace=True)
        return plan, params

    def ctx(self, params: list[Any] | None = None) -> ExecContext:
        return ExecContext(self.catalog, self.txn, FnCtx(self.catalog), list(params or []),
                           Flag())

    def rows(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        plan, _ = self.plan(sql)
        out: list[tuple] = []
        for b in plan.execute(self.ctx(params)):
            out.extend(b)
        return out

    def cols(self, sql: str) -> list[tuple[str, int]]:
        plan, _ = self.plan(sql)
        return [(c.name, c.type_oid) for c in plan.columns]
