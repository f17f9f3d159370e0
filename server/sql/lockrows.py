"""SELECT ... FOR UPDATE | NO KEY UPDATE | SHARE | KEY SHARE [OF t] [NOWAIT | SKIP LOCKED].

PostgreSQL puts a LockRows node under the Limit: each row the query produces
is locked (row by row, so a LIMIT locks only what it returns), rows that SKIP
LOCKED passes over do not count against the LIMIT, and under READ COMMITTED a
row changed since the snapshot is locked in its newest version and rechecked
(EvalPlanQual): it is returned as it is now if it still matches, else dropped.

Here the query is planned without its locking clause, LIMIT and OFFSET, and
with one extra column per locked table: its row key (`ROW_KEY`, the KiVi key). The
LIMIT and OFFSET expressions ride along as two more columns (so a `$n` there
is typed int8 as PostgreSQL types it, in the same planning pass).
`LockRowsPlan.execute` takes `Txn.lock_row` for each row, applies OFFSET and
LIMIT, and strips the extra columns. A READ COMMITTED recheck runs the query
again at a snapshot that includes the newer version (`Txn.fresh_snapshot`) and
looks the row up by its ctids; the rerun is kept for the next changed rows
that the same snapshot covers. REPEATABLE READ and SERIALIZABLE get 40001 from
`lock_row`, as in PostgreSQL.

The plan object stands in for the compiled plan everywhere a query plan goes
(portals, DECLARE CURSOR, EXPLAIN), so a cursor locks rows as they are fetched.
Locking clauses inside WHERE subqueries are not applied (their statement's
own writes still take their locks); inside a CTE or a FROM subquery they are
0A000 (`nestedlocks`), never a silent lock-free read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ..errors import (
    FeatureNotSupported,
    LockNotAvailable,
    ReadOnlySQLTransaction,
    SQLError,
    UndefinedTable,
)
from ..txn.rowlocks import KEY_SHARE, MODE_NAMES, NO_KEY_UPDATE, NOWAIT, SHARE, SKIP, UPDATE, WAIT
from .catalog.syscols import ROW_KEY
from .ddl.names import find_relation, ident, table_name

if TYPE_CHECKING:
    from .context import ExecContext, ParamTypes

_LIMIT = "__cumulo_lock_limit"
_OFFSET = "__cumulo_lock_offset"


@dataclasses.dataclass(frozen=True)
class Target:
    """One locked table of the FROM list."""

    space: int
    name: str  # the relation's name, for NOWAIT's message
    mode: int
    wait: int


def lock_mode(lock: exp.Lock) -> int:
    """The row-lock mode of one sqlglot locking clause."""
    if lock.args.get("update"):
        return NO_KEY_UPDATE if lock.args.get("key") else UPDATE
    return KEY_SHARE if lock.args.get("key") else SHARE


def _wait_of(lock: exp.Lock) -> int:
    w = lock.args.get("wait")
    return NOWAIT if w is True else SKIP if w is False else WAIT


def wants_locks(tree: exp.Expression) -> bool:
    """Tells whether a query has a locking clause of its own (not only in a subquery)."""
    if isinstance(tree, exp.Select):
        return bool(tree.args.get("locks"))
    if isinstance(tree, exp.SetOperation):
        return wants_locks(tree.this) or wants_locks(tree.expression)
    return False


def _from_items(tree: exp.Select) -> list[tuple[exp.Expression, bool]]:
    """The FROM list's items in order, each with whether an outer join makes it nullable."""
    items: list[tuple[exp.Expression, bool]] = []
    frm = tree.args.get("from_")
    if frm is not None:
        items.append((frm.this, False))
        items.extend((e, False) for e in frm.expressions or [])
    for j in tree.args.get("joins") or []:
        side = (j.args.get("side") or "").upper()
        if side in ("RIGHT", "FULL"):
            items = [(e, True) for e, _ in items]
        items.append((j.this, side in ("LEFT", "FULL")))
    return items


def _check_shape(tree: exp.Expression, word: str) -> None:
    """PostgreSQL's 0A000 errors for clauses that leave no row to lock."""
    def no(what: str) -> SQLError:
        return FeatureNotSupported(f"{word} is not allowed with {what}")

    if not isinstance(tree, exp.Select):
        raise no("UNION/INTERSECT/EXCEPT")
    if tree.args.get("distinct") is not None:
        raise no("DISTINCT clause")
    if tree.args.get("group") is not None:
        raise no("GROUP BY clause")
    if tree.args.get("having") is not None:
        raise no("HAVING clause")
    for e in tree.expressions:
        for node in e.walk():
            if isinstance(node, exp.Subquery | exp.Select) and node is not e:
                continue
            if isinstance(node, exp.Window):
                raise no("window functions")
            if isinstance(node, exp.AggFunc) and node.find_ancestor(exp.Window) is None:
                raise no("aggregate functions")


def _targets(s: Any, tree: exp.Select, locks: list[exp.Lock]) -> list[tuple[str, Target]]:
    """(qualifier, Target) of each table the locking clauses lock, in FROM order."""
    ctes = {ident(c.args["alias"].this) for c in (tree.args.get("with_") or exp.With()).expressions
            if c.args.get("alias") is not None}
    items = _from_items(tree)
    chosen: dict[str, tuple[int, int]] = {}  # qualifier -> (mode, wait)
    for lock in locks:
        mode, wait = lock_mode(lock), _wait_of(lock)
        names = [ident(t.this) for t in lock.expressions or []]
        word = MODE_NAMES[mode]
        quals = []
        for item, _ in items:
            q = ident(item.args["alias"].this) if item.args.get("alias") else (
                ident(item.this) if isinstance(item, exp.Table) else "")
            quals.append(q)
        for n in names:
            if n not in quals:
                raise UndefinedTable(f'relation "{n}" in {word} clause not found in FROM clause')
        for (item, nullable), q in zip(items, quals, strict=True):
            if names and q not in names:
                continue
            if isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
                schema, name = table_name(item)
                if schema is None and name in ctes:
                    if names:
                        raise FeatureNotSupported(f"{word} cannot be applied to a WITH query")
                    continue
            elif not names and not isinstance(item, exp.Subquery):
                continue  # a function or VALUES: nothing to lock, as in PostgreSQL
            else:
                raise FeatureNotSupported(f"{word} on a subquery in FROM is not supported")
            if nullable:
                raise FeatureNotSupported(
                    f"{word} cannot be applied to the nullable side of an outer join")
            old = chosen.get(q)
            # NB: PostgreSQL: the strongest mode wins, and NOWAIT over SKIP LOCKED over waiting
            chosen[q] = (mode, wait) if old is None else (max(old[0], mode), max(old[1], wait))
    out = []
    cat, path = s.catalog(), s.search_path()
    for item, _ in items:
        if not isinstance(item, exp.Table):
            continue
        q = ident(item.args["alias"].this) if item.args.get("alias") else ident(item.this)
        if q not in chosen:
            continue
        schema, name = table_name(item)
        rel = find_relation(cat, schema, name, path)
        if rel is None:
            continue  # NB: the planner reports it
        if rel.kind != "r":
            raise FeatureNotSupported(f"{MODE_NAMES[chosen[q][0]]} on a view is not supported")
        out.append((q, Target(rel.space, rel.name, *chosen[q])))
    return out


def _limit_expr(node: exp.Expression | None) -> exp.Expression | None:
    if node is None:
        return None
    if isinstance(node, exp.Fetch):
        return node.args.get("count") or exp.Literal.number(1)
    return node.expression


def plan_locking(s: Any, tree: exp.Expression, params: ParamTypes, compiler: Any) -> LockRowsPlan:
    """Plans a SELECT with locking clauses (see the module doc)."""
    sel = tree
    while isinstance(sel, exp.SetOperation):
        sel = sel.expression if wants_locks(sel.expression) else sel.this
    locks = sel.args["locks"]
    word = MODE_NAMES[max(lock_mode(lk) for lk in locks)]
    _check_shape(tree, MODE_NAMES[lock_mode(locks[0])])
    assert isinstance(tree, exp.Select)
    targets = _targets(s, tree, locks)
    inner = tree.copy()
    inner.set("locks", None)
    lim = inner.args.get("limit")
    if isinstance(lim, exp.Fetch) and lim.args.get("limit_options") is not None:
        lim = None  # WITH TIES: left in the query (rows it skips count against it)
    else:
        inner.set("limit", None)
    off = inner.args.get("offset")
    inner.set("offset", None)
    extra: list[Any] = [exp.column(ROW_KEY, table=exp.to_identifier(q, quoted=True)).as_(f"__cumulo_ctid{i}")
             for i, (q, _) in enumerate(targets)]
    lim_e, off_e = _limit_expr(lim), _limit_expr(off)
    for e, alias in ((lim_e, _LIMIT), (off_e, _OFFSET)):
        if e is not None:
            extra.append(exp.cast(e.copy(), "bigint").as_(alias))
    base = len(extra)
    for x in extra:
        inner.append("expressions", x)
    plan = compiler.plan_query(inner, s.catalog(), params, s.search_path())
    width = len(plan.columns) - base
    return LockRowsPlan(plan, width, [t for _, t in targets], lim_e is not None,
                        off_e is not None, word)


class LockRowsPlan:
    """A query plan that locks its rows as it produces them (implements `context.QueryPlan`)."""

    def __init__(self, inner: Any, width: int, targets: list[Target], has_limit: bool,
                 has_offset: bool, word: str) -> None:
        self.inner = inner
        self.width = width
        self.targets = targets
        self.has_limit = has_limit
        self.has_offset = has_offset
        self.word = word
        self.columns = list(inner.columns[:width])
        self.root = inner.root
        self.trace = inner.trace
        self.point = None  # NB: rows it locks go through execute, never a bare point read
        self.constant = inner.constant

    def explain(self, ctx: ExecContext | None = None, analyze: bool = False) -> list[str]:
        """EXPLAIN's lines: PostgreSQL's LockRows node over the query's plan."""
        lines = self.inner.explain(ctx, analyze)
        return ["LockRows", *("  " + ln if i == 0 else "  " + ln for i, ln in enumerate(lines))]

    def execute_columns(self, ctx: ExecContext) -> None:
        """Never by columns: every row is locked as it is read."""
        return None

    def execute(self, ctx: ExecContext) -> Iterator[list[tuple]]:
        """Runs the query, locking each row before it is returned (see the module doc)."""
        txn = ctx.txn
        if txn.read_only:  # NB: PostgreSQL checks when the executor starts, rows or not
            raise ReadOnlySQLTransaction(f"cannot execute SELECT {self.word} in a read-only "
                                         "transaction")
        width, targets = self.width, self.targets
        nt = len(targets)
        lim_at = width + nt
        off_at = lim_at + int(self.has_limit)
        limit: int | None = None
        offset = 0
        first = True
        emitted = 0
        recheck: tuple[int, dict[tuple, list[tuple]]] | None = None
        for batch in self.inner.execute(ctx):
            for row in batch:
                if first:
                    first = False
                    if self.has_limit:
                        limit = row[lim_at]
                        if limit is not None and limit < 0:
                            raise SQLError("LIMIT must not be negative", sqlstate="2201W")
                    if self.has_offset:
                        offset = row[off_at] or 0
                        if offset < 0:
                            raise SQLError("OFFSET must not be negative", sqlstate="2201X")
                if limit is not None and emitted >= limit:
                    break
                newest = 0
                skipped = False
                changed: list[tuple[Target, bytes]] = []  # locked afresh in a newer version
                for j, t in enumerate(targets):
                    key = row[width + j]
                    if key is None:
                        continue
                    got = self._lock(txn, t, key)
                    if got < 0:
                        skipped = True
                        break
                    if got:
                        changed.append((t, key))
                    newest = max(newest, got)
                if skipped:
                    continue
                if newest:
                    if recheck is None or recheck[0] < newest:
                        recheck = self._rerun(ctx)
                    found = recheck[1].get(row[width:lim_at])
                    if not found:  # deleted, or no longer matching: PostgreSQL skips it
                        self._unlock_deleted(txn, changed)
                        continue
                    row = found.pop(0)
                    for j, t in enumerate(targets):  # its join partners may be others now
                        if row[width + j] is not None:
                            self._lock(txn, t, row[width + j])
                if offset > 0:
                    offset -= 1
                    continue
                emitted += 1
                yield [row[:width]]  # NB: one row at a time: a cursor locks what it fetches
            if limit is not None and emitted >= limit:
                return

    def _lock(self, txn: Any, t: Target, key: bytes) -> int:
        try:
            return txn.lock_row(t.space, [key], t.mode, t.wait)
        except LockNotAvailable as e:
            if t.wait == NOWAIT and str(e) == "could not obtain lock on row":
                raise LockNotAvailable(
                    f'could not obtain lock on row in relation "{t.name}"') from None
            raise

    @staticmethod
    def _unlock_deleted(txn: Any, changed: list[tuple[Target, bytes]]) -> None:
        """Drops the locks just taken on rows deleted meanwhile: PostgreSQL cannot lock a
        deleted row (one that only stopped matching stays locked, as there)."""
        with txn.fresh_snapshot():
            gone = [(t, k) for t, k in changed if txn.get(t.space, [k])[0] is None]
        for t, k in gone:
            txn.unlock_row(t.space, [k])

    def _rerun(self, ctx: ExecContext) -> tuple[int, dict[tuple, list[tuple]]]:
        """Runs the query at a snapshot that sees the rows locked so far in their newest
        versions; returns that snapshot and the rows by their ctids."""
        txn = ctx.txn
        width, end = self.width, self.width + len(self.targets)
        rows: dict[tuple, list[tuple]] = {}
        with txn.fresh_snapshot() as ts:
            for batch in self.inner.execute(dataclasses.replace(ctx)):
                for r in batch:
                    rows.setdefault(r[width:end], []).append(r)
        return ts, rows


__all__ = ["LockRowsPlan", "plan_locking", "wants_locks"]
