"""UPDATE and DELETE, planned as a SELECT of the target's `ctid` and row.

`UPDATE t SET a = a + $1 FROM u WHERE ...` becomes
`SELECT t.ctid, t.c1, ..., t.cn, CAST(a + $1 AS int4) FROM t, u WHERE ...` (built as a
tree from the statement's own nodes, never rendered to SQL text and parsed again):
the query compiler chooses the access path (a primary-key point get for
pgbench's statements), infers parameter types, and joins FROM / USING
tables; this module applies the writes through the table's `TableWriter`
in batches. SET values that are plain literals or parameters are computed
here instead, so that their type comes from the target column.
"""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import FeatureNotSupported, SQLError, UndefinedColumn, WrongObjectType
from ...pgwire.backend import Column, Result
from ...txn.api import RetryStatement
from ...txn.rowlocks import NO_KEY_UPDATE, UPDATE
from ...txn.xids import row_xmins
from ..catalog.model import Table
from ..catalog.syscols import ROW_KEY
from ..context import ParamTypes, ScopeColumn
from ..ddl.names import find_relation, get_relation, ident, table_name
from ..expr.commontype import AssignCast
from ..expr.types import type_name
from ..plan.compiler import COMPILER
from ..stmt import Stmt
from .keyed import KeyedRows
from .returning import compile_returning
from .subscriptset import subscript_assignment
from .values import _UNSET, ValueFn, compile_default, compile_value, literal_value
from .viewcheck import in_force as view_checks
from .writer import TableWriter, writer_of

if TYPE_CHECKING:
    from ..session import SQLSession

WRITE_BATCH = 1024
MAX_RETRIES = 20


def set_targets(items: list[exp.Expression], table: Table) -> list[tuple[int, exp.Expression]]:
    """Returns (row position, value expression) for each `col = expr` of a SET list."""
    by_name = {c.name: c.attnum - 1 for c in table.live_columns}
    out: list[tuple[int, exp.Expression]] = []
    for item in items:
        left, right = item.this, item.expression
        pairs = []
        if isinstance(left, exp.Tuple):
            rights = right.expressions if isinstance(right, exp.Tuple) else []
            pairs = list(zip(left.expressions, rights, strict=False))
        else:
            pairs = [(left, right)]
        for col, val in pairs:
            if isinstance(col, exp.Bracket):  # h['k'] = v on an hstore column
                col, val = subscript_assignment(col, val, table, out)
            name = ident(col.this if isinstance(col, exp.Column) else col)
            if name not in by_name:
                raise UndefinedColumn(
                    f'column "{name}" of relation "{table.name}" does not exist')
            if table.columns[by_name[name]].generated and not _is_default(val):
                raise SQLError(f'column "{name}" can only be updated to DEFAULT',
                               sqlstate="428C9",
                               detail=f'Column "{name}" is a generated column.')
            out.append((by_name[name], val))
    return out


def _column(qualifier: str, name: str) -> exp.Column:
    """`"qualifier"."name"` as a tree (quoted: the names are already folded)."""
    return exp.Column(this=exp.Identifier(this=name, quoted=True),
                      table=exp.Identifier(this=qualifier, quoted=True))


_DATATYPES: dict[str, exp.DataType] = {}


def _datatype(name: str) -> exp.DataType:
    """A column type's name as a sqlglot type (built once per name)."""
    dt = _DATATYPES.get(name)
    if dt is None:
        dt = _DATATYPES[name] = exp.DataType.build(name, dialect="postgres", udt=True)
    return dt.copy()


def _select_tree(tree: exp.Update | exp.Delete, tnode: exp.Expression,
                 select: list[exp.Expression], is_update: bool) -> exp.Select:
    """`SELECT <select> FROM <target>, <FROM / USING items> <joins> WHERE ...` as a tree.

    Built from the statement's own nodes, never through SQL text: the FROM / USING items
    become comma joins, each followed by the joins sqlglot hung under it, as a parse of
    the equivalent SELECT would have them.
    """
    joins: list[exp.Expression] = []
    items: list[exp.Expression] = []
    frm = tree.args.get("from_")
    if is_update and frm is not None:
        items.append(frm.this)
        items.extend(frm.expressions or [])
    items.extend(tree.args.get("using") or [])
    for item in items:
        item = item.copy()
        nested = item.args.get("joins") or []
        item.set("joins", None)
        joins.append(exp.Join(this=item))
        joins.extend(nested)
    joins.extend(j.copy() for j in tree.args.get("joins") or [])
    query = exp.Select(expressions=select, from_=exp.From(this=tnode.copy()))
    if joins:
        query.set("joins", joins)
    where = tree.args.get("where")
    if where is not None:
        query.set("where", where.copy())
    if tree.args.get("with_") is not None:  # NB: CTEs read by FROM / USING / WHERE
        query.set("with_", tree.args["with_"].copy())
    return query


def _is_default(e: exp.Expression) -> bool:
    """`SET col = DEFAULT` (sqlglot reads the keyword as a Var or an unquoted column)."""
    if isinstance(e, exp.Var):
        return e.name.upper() == "DEFAULT"
    return (isinstance(e, exp.Column) and not e.table and isinstance(e.this, exp.Identifier)
            and not e.this.quoted and e.name.upper() == "DEFAULT")


def _is_simple(e: exp.Expression) -> bool:

    if isinstance(e, exp.Parameter | exp.Placeholder):
        return True
    if _is_default(e):
        return True
    return literal_value(e)[0] is not _UNSET


def _row_types(s: SQLSession, tree: exp.Update | exp.Delete) -> dict[str, int]:
    """The row type of each FROM / USING item that is a table, by its name in the query."""
    frm = tree.args.get("from_")
    items = [*([frm.this, *(frm.expressions or [])] if frm is not None else []),
             *(tree.args.get("using") or [])]
    ctes = {c.alias for c in tree.args["with_"].expressions} if tree.args.get("with_") else set()
    out: dict[str, int] = {}
    for n in items:
        if isinstance(n, exp.Table) and isinstance(n.this, exp.Identifier) and (
                n.db or n.name not in ctes):
            schema, name = table_name(n)
            rel = find_relation(s.catalog(), schema, name, s.search_path())
            if rel is not None and rel.reltype:
                alias = n.args.get("alias")
                out[ident(alias.this) if alias is not None else rel.name] = rel.reltype
    return out


def _lock_left(txn: Any, space: int, keys: set[bytes], mode: int) -> None:
    """After a READ COMMITTED rerun: locks the rows the first snapshot matched and the
    rerun no longer does (changed meanwhile; a deleted one has no version to lock), as
    PostgreSQL's EvalPlanQual locks each concurrently updated row it rechecks, matching or
    not. A write of several rows meets a commit without locking its row first
    (`LocalTxnManager`'s lock for the rerun takes one key)."""
    if not keys:
        return
    left = list(keys)
    rows = txn.get(space, left)
    gone = [k for k, r in zip(left, rows, strict=True) if r is None and txn.holds((space, k))]
    if gone:  # NB: locked before a BEFORE trigger (`write`), then deleted by the rival
        txn.unlock_row(space, gone)
    there = [k for k, r in zip(left, rows, strict=True)
             if r is not None and not txn.holds((space, k))]
    if there:
        txn.lock_row(space, there, mode)


def analyse_modify(s: SQLSession, sql: str, tree: exp.Update | exp.Delete,
                   param_oids: list[int], version: int) -> Stmt:
    """Analyses an UPDATE or DELETE into a runnable Stmt."""
    is_update = isinstance(tree, exp.Update)
    tnode = tree.this
    schema, name = table_name(tnode)
    alias = ident(tnode.args["alias"].this) if tnode.args.get("alias") else None
    table = get_relation(s.catalog(), schema, name, s.search_path())
    if table.kind == "m":
        raise WrongObjectType(f'cannot change materialized view "{table.name}"')
    if table.kind != "r":
        raise FeatureNotSupported(f'cannot {"update" if is_update else "delete from"} view '
                                  f'"{table.name}"')
    q = alias or table.name
    live = table.live_columns
    select: list[exp.Expression] = [_column(q, ROW_KEY)]
    select.extend(_column(q, c.name) for c in live)
    params = ParamTypes(list(param_oids))
    computed: list[tuple[int, int]] = []  # (row position, select-list index)
    pending: list[tuple[int, exp.Expression]] = []  # plain literals/parameters/DEFAULT
    if is_update:
        for pos, e in set_targets(tree.expressions, table):
            if _is_simple(e):
                pending.append((pos, e))
            else:
                computed.append((pos, len(select)))
                col = table.columns[pos]
                select.append(AssignCast(this=e.copy(), to=_datatype(type_name(col.type_oid)),
                                          column=col.name, shown=col.domain or col.type_oid))
    # NB: PostgreSQL's `RETURNING *` is the target's columns, then every FROM / USING
    # item's (tables, subqueries, VALUES, functions, CTEs): a `*` over the joined items,
    # past the target's own columns, which come first
    nselect = len(select) + len(live)
    if tree.args.get("returning") is not None:
        select.append(exp.Star())
    query = _select_tree(tree, tnode, select, is_update)
    query.meta["freeze_stars"] = True  # NB: names each star column's FROM item (below)

    for pos, e in pending:  # NB: before planning settles unknown parameters as text
        if isinstance(e, exp.Parameter | exp.Placeholder):
            n = int(e.this.name if isinstance(e.this, exp.Expression) else e.name or 0)
            if n:
                params.infer(n, table.columns[pos].type_oid)
    plan = COMPILER.plan_query(query, s.catalog(), params, s.search_path())
    ret_extra = [(ScopeColumn(e.this.table, c.name, c.type, c.typmod),
                  Column(c.name, c.rowtype or c.type, c.typmod, c.table_oid, c.attnum))
                 for c, e in zip(plan.root.cols[nselect:], query.expressions[nselect:],
                                 strict=True)]
    extra_idx = list(range(nselect, len(plan.root.cols)))
    simple: list[tuple[int, ValueFn]] = []
    for pos, e in pending:  # compiled after the plan, so that $n types flow from it
        col = table.columns[pos]
        if _is_default(e):
            simple.append((pos, compile_default(s, col, table)))
        else:
            simple.append((pos, compile_value(s, e, col, [], params)))
    returning = compile_returning(s, tree.args.get("returning"), table, alias, params,
                                  ret_extra, _row_types(s, tree))
    slots = [c.attnum - 1 for c in live]
    ncols = len(table.columns)
    # NB: no dropped column: a read row's old values are one slice of it (after its key)
    dense = ncols + 1 if slots == list(range(ncols)) else 0
    verb = "UPDATE" if is_update else "DELETE"
    keyed = KeyedRows.of(plan.root)  # by full primary key: one read, no executor (keyed.py)
    # NB: the columns not SET keep stored values, whose typmods (char(n) padding, numeric
    # scale) hold already; generated columns are computed again, so converted again
    kept = frozenset(i for i, c in enumerate(table.columns) if not c.generated) \
        - {pos for pos, _ in computed} - {pos for pos, _ in pending}
    lock_mode = NO_KEY_UPDATE if is_update else UPDATE  # as the write itself takes

    # NB: `WHERE pk = $n` finds at most one row: no key to see twice (`pick`'s set)
    one_key = keyed is not None and keyed.param >= 0
    # one found row of an UPDATE without RETURNING whose read row is the table's row
    # (`write`'s steps for it, with no batch loop, slices or f-string)
    one_row = is_update and dense and returning is None
    tag_one = f"{verb} 1"
    # the new row is the read row and SET's values the read computed (no value function
    # to run: `new_row` has no effect beyond its result): `run_one` builds it before the lock
    pure = not simple
    # one SET value, computed by the read (pgbench's `SET abalance = abalance + $1`): the
    # new row is the read row with that value in its column's place (`new_row`, in a display)
    one_set = pure and len(computed) == 1
    set_at, set_from = computed[0] if one_set else (0, 0)

    def attempt(sess: SQLSession, ctx: Any, candidates: set[bytes] | None,
                matched: list[set[bytes]]) -> Result:
        if keyed is None:
            return write(sess, ctx, pick(plan.execute(ctx), ctx, candidates, matched))
        if one_key:  # NB: `pick` of its one batch, inline
            found = keyed.read(ctx)
            ctx.check_cancel()
            if found and candidates is not None and found[0][0] not in candidates:
                found = []
            matched.append({found[0][0]} if found else set())
        else:
            found = pick((keyed.read(ctx),), ctx, candidates, matched)
        txn = sess.txn
        if not found or txn.isolation != "read committed" or not txn.locks_first:
            return write(sess, ctx, found)
        # READ COMMITTED by key, as PostgreSQL's EvalPlanQual on the row alone: lock the rows
        # first (waiting for their writers); a row changed since the snapshot is locked in
        # its newest version, read again at a snapshot that sees it and written from there
        # (no statement rerun). A row deleted meanwhile is left unlocked, as PG locks none
        keys = [found[0][0]] if one_key else list(map(itemgetter(0), found))  # NB: C-level
        if not txn.lock_row(keyed.space, keys, lock_mode):
            return write(sess, ctx, found)
        return relocked(sess, ctx, txn, keys)

    def relocked(sess: SQLSession, ctx: Any, txn: Any, keys: list[bytes]) -> Result:
        """`attempt`'s write of the rows of `keys`, which `lock_row` locked in versions newer
        than the snapshot: read again at a snapshot that sees them and written from there;
        a row deleted meanwhile is unlocked."""
        assert keyed is not None
        with txn.fresh_snapshot():
            found = pick((keyed.read(ctx),), ctx, set(keys), [])
            if len(found) < len(keys):
                left = {r[0] for r in found}
                txn.unlock_row(keyed.space, [k for k in keys if k not in left])
            return write(sess, ctx, found)

    def pick(batches: Any, ctx: Any, candidates: set[bytes] | None,
             matched: list[set[bytes]]) -> list[tuple[Any, ...]]:
        """The rows to write: each key once, and on a rerun only the first run's."""
        seen: set[bytes] = set()
        found: list[tuple[Any, ...]] = []
        for batch in batches:  # all candidates first, then the writes (see run)
            ctx.check_cancel()
            for r in batch:
                key = r[0]
                if key not in seen and (candidates is None or key in candidates):
                    seen.add(key)
                    found.append(r)
        matched.append(seen)
        return found

    # (catalog, its writer of the table, how `write` writes one found row with it) as
    # `write` last found them: `writer_of` is the same per catalog, and a prepared
    # statement's runs mostly share one (one tuple: threads). The way: 0 the general
    # steps; 1 `replace_rows` (`update_rows`' own without triggers: not a partitioned
    # table's router); 2 its `prepare_rows` and one `put` (`TableWriter.puts_one`); 3 as
    # 2, the row's `tuple` for `prepare_rows` while no view check is in force
    # (`TableWriter.prepares_plainly`)
    last: list[tuple[Any, TableWriter | None, int]] = [(None, None, 0)]

    def new_row(r: tuple[Any, ...], old: tuple[Any, ...], ctx: Any) -> list[Any]:
        """The row an UPDATE writes for found row `r` (its table row `old`): SET's values."""
        new = list(old)
        for pos, idx in computed:
            new[pos] = r[idx]
        for pos, fn in simple:
            new[pos] = fn(old, ctx)
        return new

    def write(sess: SQLSession, ctx: Any, found: list[tuple[Any, ...]]) -> Result:
        cat = ctx.catalog
        seen_cat, writer, way = last[0]
        if seen_cat is not cat or writer is None:
            writer = writer_of(sess, table, cat)
            way = 0 if not one_row or writer.triggers is not None \
                or type(writer) is not TableWriter else 1 if not writer.puts_one(kept) \
                else 3 if writer.prepares_plainly(kept) else 2
            last[0] = (cat, writer, way)
        if way and len(found) == 1:
            r = found[0]
            old = r[1:dense]
            new = new_row(r, old, ctx)
            if way == 1:
                writer.replace_rows(sess, [r[0]], [old], [new], kept)
            else:
                sess.txn.put_one(writer.space, r[0], tuple(new)
                                 if way == 3 and view_checks() is None
                                 else writer.prepare_rows(sess, [new], kept, kept)[0])
            return Result(tag_one)
        txn = sess.txn
        if writer.triggers is not None and found and txn.isolation == "read committed" \
                and txn.locks_first and txn.lock_row(writer.space, [r[0] for r in found],
                                                     lock_mode) > 0:
            # NB: as PostgreSQL's GetTupleForTrigger: the rows are locked before their BEFORE
            # triggers fire, so a row changed meanwhile is rechecked (the rerun, its lock
            # kept) before any trigger sees it, not fired on twice
            raise RetryStatement("could not serialize access due to concurrent update")
        total = 0
        out: list[tuple[Any, ...]] = []
        # NB: a BEFORE trigger may skip rows; RETURNING of FROM columns then writes one row
        # at a time, to know which source row each written row came from. A DEFERRABLE key
        # is checked when the statement ends: its rows go in one batch
        step = 1 if extra_idx and returning is not None and writer.triggers is not None \
            else max(len(found), 1) if writer.deferrable else WRITE_BATCH
        for i in range(0, len(found), step):
            keys, olds, news = [], [], []
            for r in found[i:i + step]:
                if dense:
                    old = r[1:dense]
                else:
                    spread: list[Any] = [None] * ncols
                    for j, slot in enumerate(slots):
                        spread[slot] = r[j + 1]
                    old = tuple(spread)
                keys.append(r[0])
                olds.append(old)
                if is_update:
                    news.append(new_row(r, old, ctx))
            xmins: list[int | None] = [None] * len(keys)
            if is_update:
                rows = writer.update_rows(sess, keys, olds, news, kept)
            else:
                if returning is not None and returning.reads_xmin:  # the deleted versions'
                    xmins = list(row_xmins(sess.txn, writer.space, keys))
                rows = writer.delete_rows(sess, keys, olds)
            total += len(rows)  # NB: a BEFORE trigger may have skipped rows
            if returning is None:
                continue  # NB: no row to project: neither ctids nor xmins needed
            # NB: a BEFORE trigger that skipped rows leaves no key known per row (ctid)
            rkeys: list[bytes | None] = list(keys) if len(rows) == len(keys) else [None] * len(rows)
            if len(rows) != len(keys):
                xmins = [None] * len(rows)
            if extra_idx and len(rows) == len(keys):
                srcs = found[i:i + step]
                out.extend(returning.project(tuple(r) + tuple(src[j] for j in extra_idx), ctx,
                                             xmin=x, key=k)
                           for r, src, x, k in zip(rows, srcs, xmins, rkeys, strict=True))
            elif not extra_idx:
                out.extend(returning.project(r, ctx, xmin=x, key=k)
                           for r, x, k in zip(rows, xmins, rkeys, strict=True))
        if returning is not None:
            return Result(f"{verb} {total}", returning.columns, iter(out), done=False)
        return Result(f"{verb} {total}")

    def run(sess: SQLSession, values: list[Any]) -> Result:
        txn = sess.txn
        if txn.isolation != "read committed":
            return attempt(sess, sess.exec_context(values), None, [])
        # READ COMMITTED, as PostgreSQL's EvalPlanQual: when a row we write was changed by
        # a transaction that committed meanwhile, rerun on a fresh snapshot, but only over
        # the rows the first snapshot matched (each re-checked in its newest version).
        # A row whose write met such a commit is locked first, in its newest version
        # (`RetryStatement.locked`), and stays locked through the rerun even if it no
        # longer matches, as PostgreSQL's recheck leaves it locked.
        token = (len(txn.ws.undo), len(txn.locked))  # NB: `txn.savepoint()`, inline
        matched: list[set[bytes]] = []
        try:  # NB: the first run, which nearly always returns: no candidates, no row kept
            return attempt(sess, sess.exec_context(values), None, matched)
        except RetryStatement as e:
            if not matched:
                raise
            retry = e
        return rerun(sess, values, token, retry, matched[0])

    def run_one(sess: SQLSession, values: list[Any]) -> Result:
        """`run` of an UPDATE of one row by one parameter key (pgbench's): READ COMMITTED's
        first attempt, `attempt`'s steps for one key with no candidates, inline; any other
        isolation, or no lock before the write, takes `run`."""
        assert keyed is not None
        txn = sess.txn
        if txn.isolation != "read committed" or not txn.locks_first:
            return run(sess, values)
        token = (len(txn.ws.undo), len(txn.locked))  # NB: as `run`
        matched: set[bytes] | None = None  # the rows the first run matched, once read
        try:
            ctx = sess.exec_context(values)
            found = keyed.read(ctx)
            ctx.check_cancel()
            if not found:
                matched = set()
                return write(sess, ctx, found)
            r = found[0]
            key = r[0]
            matched = {key}
            seen_cat, writer, way = last[0]
            if way == 3 and pure and seen_cat is ctx.catalog and writer is not None \
                    and view_checks() is None:
                # NB: the lock and `write`'s way 3 in one call: the new row is built first
                # (SET's values were computed by the read; nothing runs here), written
                # only if the row is locked as read
                new = (*r[1:set_at + 1], r[set_from], *r[set_at + 2:dense]) if one_set \
                    else tuple(new_row(r, r[1:dense], ctx))
                if not txn.lock_put_one(writer.space, key, new, lock_mode):
                    return Result(tag_one)
                return relocked(sess, ctx, txn, [key])
            if txn.lock_row(keyed.space, [key], lock_mode):
                return relocked(sess, ctx, txn, [key])
            return write(sess, ctx, found)
        except RetryStatement as e:
            if matched is None:
                raise
            retry = e
        return rerun(sess, values, token, retry, matched)

    def rerun(sess: SQLSession, values: list[Any], token: Any, retry: RetryStatement,
              candidates: set[bytes]) -> Result:
        """`run`'s reruns after its first run met `retry`, over the rows it matched."""
        txn = sess.txn
        kept: list[tuple[int, bytes]] = []  # rows locked in their newest version for a rerun
        e = retry
        for n in range(1, MAX_RETRIES + 1):
            txn.rollback_to(token, keep_locks=True)
            txn.new_statement()
            if e.locked and e.space is not None and e.key is not None:
                kept.append((e.space, e.key))
            matched: list[set[bytes]] = []
            try:
                result = attempt(sess, sess.exec_context(values), candidates,
                                 matched if n < MAX_RETRIES else [])
            except RetryStatement as again:
                if not matched:
                    raise
                e = again
                continue
            for space, key in kept:  # NB: deleted meanwhile: PostgreSQL locks no version
                if txn.get(space, [key])[0] is None:
                    txn.unlock_row(space, [key])
            if matched and txn.locks_first:
                _lock_left(txn, table.space, candidates - matched[0], lock_mode)
            return result
        raise AssertionError("unreachable: the last attempt returns or raises")

    cols = returning.columns if returning is not None else None
    return Stmt(sql, "dml", run_one if one_key else run, cols, params.oids,
                version, tag=verb, plan=plan)
