"""INSERT: VALUES lists, DEFAULT, INSERT ... SELECT, ON CONFLICT and RETURNING.

The statement is analysed once (target, column mapping, compiled values and
defaults); each execution builds full row lists, hands them to the table's
`TableWriter` in batches, and answers `INSERT 0 n`. ON CONFLICT goes row by
row, because each row's outcome depends on the rows before it.
"""

from __future__ import annotations

import re
from itertools import repeat
from operator import add
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from ...errors import (
    CardinalityViolation,
    DuplicateColumn,
    ExclusionViolation,
    FeatureNotSupported,
    InvalidColumnReference,
    ObjectNotInPrerequisiteState,
    SerializationFailure,
    SQLError,
    SyntaxError_,
    UndefinedColumn,
    UndefinedObject,
    UniqueViolation,
    WrongObjectType,
)
from ...kivi.keycodec import encode_key
from ...pgtypes import oids as T
from ...pgwire.backend import Result
from ...txn.api import RetryStatement, ScanSpec
from ...txn.rowlocks import NO_KEY_UPDATE, SHARE
from ...txn.validate import RW_MESSAGE
from ..catalog.model import Index, Table
from ..context import ParamTypes, ScopeColumn
from ..ddl.names import get_relation, ident, table_name
from ..plan.compiler import COMPILER
from ..stmt import Stmt
from .batchinsert import batch_insert
from .manyrows import compile_rows
from .partrouter import routed_conflict
from .returning import compile_returning
from .update import set_targets
from .values import ValueFn, _assign, compile_default, compile_value, table_scope
from .writer import TableWriter, prefix_end, writer_of

if TYPE_CHECKING:
    from ..session import SQLSession

BATCH = 2048


def target_columns(table: Table, names: list[str]) -> list[int]:
    """Maps an INSERT column list to row positions (all live columns if empty)."""
    if not names:
        return [c.attnum - 1 for c in table.live_columns]
    by_name = {c.name: c.attnum - 1 for c in table.live_columns}
    out = []
    for n in names:
        if n not in by_name:
            raise UndefinedColumn(f'column "{n}" of relation "{table.name}" does not exist')
        if by_name[n] in out:
            raise DuplicateColumn(f'column "{n}" specified more than once')
        out.append(by_name[n])
    return out


def _at(node: Any) -> int | None:
    """1-based position of the leftmost token of a parsed expression (PG's P field), if known."""
    if node is None:
        return None
    starts = [n.meta["start"] for n in node.walk() if isinstance(n.meta.get("start"), int)]
    return min(starts) + 1 if starts else None


def analyse_insert(s: SQLSession, sql: str, tree: exp.Insert, param_oids: list[int],
                   version: int) -> Stmt:
    """Analyses an INSERT into a runnable Stmt."""
    target = tree.this
    names = [ident(e) for e in target.expressions] if isinstance(target, exp.Schema) else []
    tnode = target.this if isinstance(target, exp.Schema) else target
    schema, name = table_name(tnode)
    alias = ident(tnode.args["alias"].this) if tnode.args.get("alias") else None
    table = get_relation(s.catalog(), schema, name, s.search_path())
    if table.kind == "m":
        raise WrongObjectType(f'cannot change materialized view "{table.name}"')
    if table.kind != "r":
        raise FeatureNotSupported(f'cannot insert into view "{table.name}"')
    try:
        cols = target_columns(table, names)
    except DuplicateColumn as dup:  # NB: PostgreSQL points at the second mention
        seen: set[str] = set()
        for node in target.expressions:
            if ident(node) in seen:
                dup.position = _at(node)
                break
            seen.add(ident(node))
        raise
    overriding, ignored = _overriding(sql, table, cols)
    params = ParamTypes(list(param_oids))
    ncols = len(table.columns)
    defaults: dict[int, ValueFn] = {}
    for c in table.live_columns:
        if c.attnum - 1 not in cols:
            defaults[c.attnum - 1] = compile_default(s, c, table)
    default_fns = {c.attnum - 1: compile_default(s, c, table) for c in table.live_columns
                   if c.default is not None or c.identity}
    source = tree.expression
    if tree.args.get("with_") is not None and isinstance(source, exp.Query) \
            and source.args.get("with_") is None:
        source = source.copy()
        source.set("with_", tree.args["with_"].copy())  # NB: WITH ... INSERT ... SELECT
    rows_fns: list[list[ValueFn]] | None = None
    many_fn: Any = None  # the rows of a multi-row VALUES of one shape (manyrows)
    plan: Any = None  # the source query's QueryPlan, unless rows_fns is set
    if tree.args.get("default") and source is None:
        rows_fns = [[]]
        cols = []
        defaults = {c.attnum - 1: compile_default(s, c, table) for c in table.live_columns}
    elif isinstance(source, exp.Values) and all(isinstance(t, exp.Tuple) for t in
                                                 source.expressions):
        rows_fns = []
        widths = {len(t.expressions) for t in source.expressions}
        if len(widths) > 1:
            first = len(source.expressions[0].expressions)
            odd = next(t for t in source.expressions if len(t.expressions) != first)
            raise SyntaxError_("VALUES lists must all be the same length",
                               position=_at(odd.expressions[0] if odd.expressions else odd))
        if not names and widths and max(widths) < len(cols):
            cols = cols[:max(widths)]  # NB: without a column list, the rest get defaults
            for c in table.live_columns:
                if c.attnum - 1 not in cols:
                    defaults[c.attnum - 1] = compile_default(s, c, table)
        many = source.meta.get("many")
        if many is not None and len(source.expressions[0].expressions) == len(cols):
            for pos in cols:
                _check_identity(table.columns[pos], overriding or pos in ignored)
                if pos in ignored:  # NB: computed, then replaced by the identity's next value
                    defaults[pos] = default_fns[pos]
            many_fn = compile_rows(s, source.expressions[0].expressions,
                                   [table.columns[pos] for pos in cols], many.rows, many.stride,
                                   params)
        for tup in source.expressions if many_fn is None else ():
            exprs = tup.expressions
            if len(exprs) > len(cols):
                raise SyntaxError_("INSERT has more expressions than target columns",
                                   position=_at(exprs[len(cols)]))
            if len(exprs) < len(cols):
                extra = target.expressions[len(exprs)] if names else None
                raise SyntaxError_("INSERT has more target columns than expressions",
                                   position=_at(extra))
            fns: list[ValueFn] = []
            for pos, e in zip(cols, exprs, strict=True):
                if isinstance(e, exp.Var) and e.name.upper() == "DEFAULT" or pos in ignored:
                    fns.append(default_fns.get(pos) or (lambda row, ctx: None))
                else:
                    _check_identity(table.columns[pos], overriding)
                    fns.append(compile_value(s, e, table.columns[pos], [], params))
            rows_fns.append(fns)
        if many_fn is not None:
            rows_fns = None
    elif source is not None:
        plan = COMPILER.plan_query(source, s.catalog(), params, s.search_path())
        if len(plan.columns) > len(cols):
            items = source.expressions if isinstance(source, exp.Select) else []
            raise SyntaxError_("INSERT has more expressions than target columns",
                               position=_at(items[len(cols)]) if len(items) > len(cols) else None)
        cols = cols[: len(plan.columns)]
        for pos in cols:
            _check_identity(table.columns[pos], overriding or pos in ignored)  # and SELECT
            if pos in ignored:
                defaults[pos] = default_fns[pos]
        for c in table.live_columns:
            if c.attnum - 1 not in cols:
                defaults[c.attnum - 1] = compile_default(s, c, table)
    else:
        raise SyntaxError_("syntax error at end of input")
    reads_target = source is not None and any(
        ident(t.this) == table.name for t in source.find_all(exp.Table))
    returning = compile_returning(s, tree.args.get("returning"), table, alias, params)
    conflict = routed_conflict(s, tree.args["conflict"], table, alias, params, _analyse_conflict) \
        if table.partkey and tree.args.get("conflict") is not None \
        else _analyse_conflict(s, tree.args.get("conflict"), table, alias, params)
    convs = _source_convs(plan, cols, table, source) if plan is not None else None
    if convs and ignored:
        convs = [(pos, conv) for pos, conv in convs if pos not in ignored]
    default_items = list(defaults.items())
    col_pos = list(cols)
    whole_rows = col_pos == list(range(ncols)) and not default_items and not convs
    # NB: a column with no DEFAULT (nor identity) is NULL, as a new row's `[None] * ncols`
    # has it already: no call per row (pgbench_history's filler)
    filled = [(pos, f) for pos, f in default_items
              if table.columns[pos].default is not None or table.columns[pos].identity]
    # A VALUES row whose columns are the table's first ones, in order (pgbench's INSERT into
    # pgbench_history): its values list, then NULLs for the rest, with no placing loop
    in_order = rows_fns is not None and col_pos == list(range(len(col_pos)))
    tail: list[Any] = [None] * (ncols - len(col_pos))
    many_run = None  # NB: runs of pipelined executions of a one-row VALUES (batchinsert)
    if rows_fns is not None and len(rows_fns) == 1 and isinstance(source, exp.Values) \
            and not reads_target and not ignored:
        many_run = batch_insert(s, tree, table, col_pos, source.expressions[0].expressions,
                                rows_fns[0], default_items, params, returning)

    one_fns = rows_fns[0] if rows_fns is not None and len(rows_fns) == 1 else None
    # (catalog, its writer of the table, whether it writes by `write_rows` directly: no
    # trigger, not a partitioned table's router) as `run` last found them: `writer_of` is
    # the same per catalog, and a prepared statement's runs mostly share one (one tuple:
    # threads)
    last: list[tuple[Any, TableWriter | None, bool]] = [(None, None, False)]

    def found(sess: SQLSession, cat: Any) -> tuple[Any, TableWriter, bool]:
        """`last`, found again for catalog `cat`."""
        writer = writer_of(sess, table, cat)
        got = (cat, writer, writer.triggers is None and type(writer) is TableWriter)
        last[0] = got
        return got

    def run(sess: SQLSession, values: list[Any]) -> Result:
        ctx = sess.exec_context(values)
        cat = ctx.catalog
        seen_cat, writer, direct = last[0]
        if seen_cat is not cat or writer is None:
            _, writer, direct = found(sess, cat)
        out_rows: list[tuple[Any, ...]] = []
        total = 0
        batches: Any
        if many_fn is not None:
            batches = [many_fn(ctx)]
        elif one_fns is not None:  # NB: one VALUES row: one comprehension, not two
            batches = [[[f(None, ctx) for f in one_fns]]]
        elif rows_fns is not None:
            batches = [[[f(None, ctx) for f in fns] for fns in rows_fns]]
        elif reads_target:
            # NB: the source reads the target: take every row before writing any (Halloween).
            batches = [[r for b in plan.execute(ctx) for r in b]]
        else:
            batches = plan.execute(ctx)
        for batch in batches:
            ctx.check_cancel()
            if whole_rows and many_fn is not None:
                rows = batch  # NB: every column, in order, nothing to fill in: as built
            elif in_order:
                rows = list(map(add, batch, repeat(tail)))  # NB: new lists (`rows_fns`')
            else:
                rows = []
                for src in batch:
                    r = [None] * ncols
                    for pos, v in zip(col_pos, src, strict=False):
                        r[pos] = v
                    rows.append(r)
            if filled:  # NB: row by row, in column order: nextval()s as before
                for r in rows:
                    for pos, f in filled:
                        r[pos] = f(None, ctx)
            if convs:
                for pos, conv in convs:
                    for r in rows:
                        if r[pos] is not None:
                            r[pos] = conv(r[pos])
            for i in range(0, len(rows), BATCH):
                chunk = rows if len(rows) <= BATCH else rows[i:i + BATCH]  # NB: no copy of one
                if conflict is not None:
                    total += conflict(sess, writer, chunk, ctx, out_rows, returning)
                elif returning is None:
                    # NB: `insert`, minus its two calls down to `write_rows` when no trigger fires
                    total += len(writer.write_rows(sess, chunk)) if direct \
                        else writer.insert(sess, chunk)
                else:
                    keys: list[bytes] = []
                    stored = writer.insert_rows(sess, chunk, keys_out=keys)
                    total += len(stored)
                    out_rows.extend(returning.project(r, ctx, key=k)
                                    for r, k in zip(stored, keys, strict=True))
        if returning is not None:
            return Result(f"INSERT 0 {total}", returning.columns, iter(out_rows), done=False)
        return Result(f"INSERT 0 {total}")

    def run_one(sess: SQLSession, values: list[Any]) -> Result:
        """`run` of one VALUES row of the table's first columns, in order, with no other
        column to fill in (DEFAULT, identity), no conversion, ON CONFLICT or RETURNING
        (pgbench's INSERT into pgbench_history): its row built and written with no batch
        loops."""
        assert one_fns is not None
        ctx = sess.exec_context(values)
        cat = ctx.catalog
        seen_cat, writer, direct = last[0]
        if seen_cat is not cat or writer is None:
            _, writer, direct = found(sess, cat)
        row = [f(None, ctx) for f in one_fns]
        row += tail  # NB: the columns after them: NULL
        ctx.check_cancel()
        n = len(writer.write_rows(sess, [row])) if direct else writer.insert(sess, [row])
        return Result("INSERT 0 1" if n == 1 else f"INSERT 0 {n}")

    one_row = one_fns is not None and many_fn is None and in_order and not filled \
        and not convs and conflict is None and returning is None
    cols_out = returning.columns if returning is not None else None
    return Stmt(sql, "dml", run_one if one_row else run, cols_out, params.oids, version,
                tag="INSERT", many=many_run)


def _check_generated(col: Any) -> None:
    if col.generated:

        raise SQLError(
            f'cannot insert a non-DEFAULT value into column "{col.name}"', sqlstate="428C9",
            detail=f'Column "{col.name}" is a generated column.')


_OVERRIDING = re.compile(r"\bOVERRIDING\s+(SYSTEM|USER)\s+VALUE\b", re.I)


def _overriding(sql: str, table: Table, cols: list[int]) -> tuple[bool, set[int]]:
    """(OVERRIDING SYSTEM VALUE given, the target positions whose values OVERRIDING USER
    VALUE ignores: the identity columns', which take their next value, as in PostgreSQL)."""
    m = _OVERRIDING.search(sql)
    which = m.group(1).upper() if m is not None else None
    ignored = {pos for pos in cols if table.columns[pos].identity} if which == "USER" else set()
    return which == "SYSTEM", ignored


def _check_identity(col: Any, overriding: bool) -> None:
    _check_generated(col)
    if col.identity == "a" and not overriding:

        raise SQLError(
            f'cannot insert a non-DEFAULT value into column "{col.name}"', sqlstate="428C9",
            detail=f'Column "{col.name}" is an identity column defined as GENERATED ALWAYS.',
            hint="Use OVERRIDING SYSTEM VALUE to override.")


def _source_convs(plan: Any, cols: list[int], table: Table,
                  source: exp.Expression) -> list[tuple[int, Any]]:
    """The assignment casts of an INSERT ... SELECT's columns; a quoted literal in the
    select list (or NULL) stays untyped as in PostgreSQL (`SELECT 'true'` into a boolean)."""
    items = source.expressions if isinstance(source, exp.Select) else []
    untyped = {i for i, e in enumerate(items) if isinstance(e.unalias(), exp.Null) or (
        isinstance(e.unalias(), exp.Literal) and e.unalias().is_string)}
    out = []
    for i, (pos, pc) in enumerate(zip(cols, plan.columns, strict=False)):
        src = T.UNKNOWN if i in untyped else pc.type_oid
        conv = _assign(src, table.columns[pos]) if src not in (0, 705) or i in untyped else None
        if conv is not None:
            out.append((pos, conv))
    return out


_CONCURRENT = "could not serialize access due to concurrent update"
_ROW_TRIES = 20  # READ COMMITTED: one row's tries before the statement reruns


def _analyse_conflict(s: SQLSession, node: Any, table: Table, alias: str | None,
                      params: ParamTypes) -> Any:
    if node is None:
        return None
    action = str(node.args.get("action") or "").upper()
    targets = [k.this if isinstance(k, exp.Ordered) else k
               for k in node.args.get("conflict_keys") or []]
    exprs_wanted = any(not isinstance(k, exp.Column | exp.Identifier) for k in targets)
    keys = [] if exprs_wanted else [ident(k) for k in targets]
    cat = s.catalog()
    by_name = {c.name: c.attnum for c in table.live_columns}
    arbiters: list[tuple[int, ...] | Index] = []
    # EXCLUDE constraints as arbiters: DO NOTHING skips a row one of them refuses (23P01)
    exclusions = set() if keys or exprs_wanted or node.args.get("constraint") is not None \
        else {c.name for c in cat.constraints_of(table.oid) if c.kind == "x"}
    if node.args.get("constraint") is not None:
        cname = ident(node.args["constraint"])
        con = next((c for c in cat.constraints_of(table.oid) if c.name == cname), None)
        if con is not None and con.kind == "x":
            if "UPDATE" in action:
                raise WrongObjectType("ON CONFLICT DO UPDATE not supported with exclusion "
                                      "constraints")
            exclusions = {cname}
        elif con is None or con.kind not in ("p", "u"):

            raise UndefinedObject(
                f'constraint "{cname}" for table "{table.name}" does not exist')
        arbiters = [con.columns]
    elif exprs_wanted:  # ON CONFLICT (lower(name)): the unique expression index on exactly that
        arbiters = [i for i in cat.indexes_of(table.oid) if i.unique and i.space and i.exprs
                    and _same_keys(i, targets, by_name)]
        if not arbiters:
            raise InvalidColumnReference(
                "there is no unique or exclusion constraint matching the ON CONFLICT specification")
    elif keys:
        want = {by_name.get(k, -1) for k in keys}
        cands = ([table.primary_key] if table.primary_key else []) + [
            i.columns for i in cat.indexes_of(table.oid) if i.unique and i.space and not i.exprs]
        arbiters = [c for c in cands if set(c) == want]
        if not arbiters:
            raise InvalidColumnReference(
                "there is no unique or exclusion constraint matching the ON CONFLICT specification")
    else:
        if table.primary_key:
            arbiters.append(table.primary_key)
        arbiters += [i if i.exprs else i.columns for i in cat.indexes_of(table.oid)
                     if i.unique and i.space]
    # NB: PostgreSQL's executor refuses a deferrable arbiter once a row is to be inserted
    deferrable = next((c for c in cat.constraints_of(table.oid) if c.kind in ("p", "u")
                       and c.deferrable and any(a.oid == c.index_oid if isinstance(a, Index)
                                                else a == c.columns for a in arbiters)), None)
    arbiter_names = {i.name for i in cat.indexes_of(table.oid)
                     if i in arbiters or i.columns in arbiters}
    sets: list[tuple[int, ValueFn]] = []
    where_fn = None
    if "UPDATE" in action:
        q = alias or table.name
        scope = table_scope(table, q) + [
            ScopeColumn("excluded", sc.name, sc.type_oid, sc.typmod)
            for sc in table_scope(table, "excluded")]

        for pos, e in set_targets(node.expressions, table):
            sets.append((pos, compile_value(s, e, table.columns[pos], scope, params)))
        w = node.args.get("where")
        if w is not None:
            where_fn = COMPILER.compile_scalar(w.this, scope, cat, params, s.search_path(),
                                               16).fn
    do_update = "UPDATE" in action

    def apply(sess: SQLSession, writer: Any, rows: list[list[Any]], ctx: Any,
              out_rows: list[tuple[Any, ...]], returning: Any) -> int:
        n = 0
        txn = sess.txn
        if deferrable is not None and rows:
            raise ObjectNotInPrerequisiteState(
                "ON CONFLICT does not support deferrable unique constraints/exclusion "
                "constraints as arbiters", table=table.name, constraint=deferrable.name)
        rc = txn.isolation == "read committed"
        # NB: DO NOTHING at READ COMMITTED: the rows whose conflicting row may have a writer
        # still in progress (`place`), waited for together at the end of the batch (with
        # in-process conflict managers: cluster mode skips such a row at once, as before)
        waits: list[tuple[list[Any], tuple[Any, ...], bytes]] | None = \
            [] if rc and not do_update and txn.locks_first else None
        for r in rows:
            if writer.triggers is not None:  # NB: BEFORE INSERT sees the proposed row first
                fired = writer.triggers.before_insert(sess, [list(r)])
                if not fired:
                    continue
                r = fired[0]
            prepared = writer.prepare_rows(sess, [list(r)])[0]
            if not rc:
                n += place(sess, writer, r, prepared, ctx, out_rows, returning)
                continue
            n += tried(sess, writer, r, prepared, ctx, out_rows, returning, waits)
        if waits:
            # PostgreSQL's speculative insertion waits for a writer of the conflicting row
            # still in progress (a delete, an update) and looks again once it ended: a row
            # deleted meanwhile is inserted. A SHARE lock waits exactly for writers; it is
            # dropped at once, as DO NOTHING locks no row
            keys = list(dict.fromkeys(k for _, _, k in waits))
            newer = txn.lock_row(table.space, keys, SHARE)
            txn.unlock_row(table.space, keys)
            if newer > 0:  # NB: some row changed meanwhile: each is looked at again
                with txn.fresh_snapshot():
                    for r, prepared, _ in waits:
                        n += tried(sess, writer, r, prepared, ctx, out_rows, returning, None)
        return n

    def tried(sess: SQLSession, writer: Any, r: list[Any], prepared: tuple[Any, ...],
              ctx: Any, out_rows: list[tuple[Any, ...]], returning: Any,
              waits: list[tuple[list[Any], tuple[Any, ...], bytes]] | None) -> int:
        """`place` at READ COMMITTED, as PostgreSQL's ExecOnConflictUpdate / speculative
        insertion: an insert that meets a concurrent writer of the key waits for it, and
        if it committed, this row alone is tried again on a snapshot that sees that commit
        (the key locked in its newest version): updated, skipped or inserted. The
        statement keeps its snapshot for the other rows (and its source's rows)."""
        txn = sess.txn
        n = 0
        token = txn.savepoint()
        kept: list[tuple[int, bytes]] = []
        for tries in range(_ROW_TRIES):
            try:
                if tries == 0:
                    n += place(sess, writer, r, prepared, ctx, out_rows, returning, waits)
                else:
                    with txn.fresh_snapshot():
                        n += place(sess, writer, r, prepared, ctx, out_rows, returning)
                break
            except RetryStatement as e:
                if tries == _ROW_TRIES - 1:
                    raise  # NB: the session reruns the statement then
                txn.rollback_to(token, keep_locks=True)
                if e.locked and e.space is not None and e.key is not None:
                    kept.append((e.space, e.key))
        if not do_update:  # NB: DO NOTHING locks no row; a written key stays locked
            for space, key in kept:
                txn.unlock_row(space, [key])
        return n

    def place(sess: SQLSession, writer: Any, r: list[Any], prepared: tuple[Any, ...], ctx: Any,
              out_rows: list[tuple[Any, ...]], returning: Any,
              waits: list[tuple[list[Any], tuple[Any, ...], bytes]] | None = None) -> int:
        """One proposed row: inserted, skipped, or its conflicting row updated; 1 if written.
        DO NOTHING's skipped row goes to `waits`, if given, unless txn holds its row."""
        txn = sess.txn
        touched = ctx.on_conflict_touched
        hit = _find_conflict(txn, table, writer, arbiters, prepared)
        if hit is None:
            wkeys: list[bytes] = []  # NB: its key, for RETURNING ctid
            try:
                written = writer.insert_rows(sess, [list(r)], before_fired=True, keys_out=wkeys)
            except ExclusionViolation as e:
                if e.constraint not in exclusions:
                    raise
                return 0
            except UniqueViolation as e:  # NB: a row the snapshot cannot see holds the key
                if txn.isolation == "read committed" or e.constraint not in arbiter_names:
                    raise
                raise SerializationFailure(_CONCURRENT) from None  # PG's ExecCheckTIDVisible
            except SerializationFailure as e:
                # NB: SERIALIZABLE's read/write dependency on a key a rival that read it
                # inserted (`serial._hidden_insert`): ON CONFLICT reports what PG's
                # ExecCheckTIDVisible does once such a row holds an arbiter's key
                if txn.isolation == "read committed" or e.message != RW_MESSAGE:
                    raise
                with txn.fresh_snapshot(latest=True):
                    if _find_conflict(txn, table, writer, arbiters, prepared) is None:
                        raise
                raise SerializationFailure(_CONCURRENT) from None
            if not written:  # NB: a BEFORE INSERT trigger skipped it
                return 0
            if do_update:
                _touch(touched, arbiters, prepared, writer)
            if returning is not None:
                out_rows.append(returning.project(written[0], ctx, key=next(iter(wkeys), None)))
            return 1
        key, old = hit
        if not do_update:
            if waits is not None and not txn.holds((table.space, key)):
                waits.append((r, prepared, key))
            return 0
        if _touched(touched, arbiters, tuple(old), writer):
            raise CardinalityViolation(
                "ON CONFLICT DO UPDATE command cannot affect row a second time",
                hint="Ensure that no rows proposed for insertion within the same command "
                "have duplicate constrained values.")
        # PostgreSQL locks the conflicting row first and, if a concurrent commit changed it,
        # updates its newest version (WHERE and SET see that one; deleted meanwhile, the row
        # is inserted): the update's own write meets such a commit as `RetryStatement`, the
        # row locked in its newest version, and `apply` tries the row again from there. A
        # WHERE that refuses the snapshot's version would write nothing, so it locks first;
        # so do triggers, so that a BEFORE UPDATE one fires once, on the newest version
        if (where_fn is not None or writer.triggers is not None and txn.locks_first) \
                and txn.isolation == "read committed" \
                and txn.lock_row(table.space, [key], NO_KEY_UPDATE):
            with txn.fresh_snapshot():
                return place(sess, writer, r, prepared, ctx, out_rows, returning)
        both = tuple(old) + prepared
        if where_fn is not None and where_fn(both, ctx) is not True:
            return 0
        new = list(old)
        for pos, f in sets:
            new[pos] = f(both, ctx)
        updated = writer.update_rows(sess, [key], [old], [new])
        if not updated:  # NB: a BEFORE UPDATE trigger skipped it
            return 0
        stored = updated[0]
        _touch(touched, arbiters, stored, writer)
        if returning is not None:
            out_rows.append(returning.project(stored, ctx, xmax=sess.backend_pid or 1, key=key))
        return 1

    return apply


def _same_keys(idx: Index, targets: list[exp.Expression], by_name: dict[str, int]) -> bool:
    """Tells whether an ON CONFLICT target list names exactly an index's key expressions."""
    exprs = iter(idx.exprs)
    keys: set[tuple[str, Any]] = set()
    for a in idx.columns:
        keys.add(("col", a) if a else ("expr", next(exprs)))
    want: set[tuple[str, Any]] = set()
    for t in targets:
        if isinstance(t, exp.Column | exp.Identifier):
            want.add(("col", by_name.get(ident(t), -1)))
        else:
            want.add(("expr", t.sql("postgres")))
    return keys == want


def _arbiter_key(arbiter: tuple[int, ...] | Index, row: tuple[Any, ...], writer: Any
                 ) -> tuple[Any, tuple[Any, ...]]:
    """(arbiter identity, its key values in `row`): columns, or an expression index's keys."""
    if isinstance(arbiter, Index):
        return arbiter.oid, writer.index_key(arbiter)(row)
    return arbiter, tuple(row[a - 1] for a in arbiter)


def _touch(touched: set, arbiters: list[tuple[int, ...] | Index], row: tuple[Any, ...],
           writer: Any) -> None:
    """Remembers a row this INSERT ... ON CONFLICT DO UPDATE wrote, by its arbiter values."""
    for a in arbiters:
        touched.add(_arbiter_key(a, row, writer))


def _touched(touched: set, arbiters: list[tuple[int, ...] | Index], row: tuple[Any, ...],
             writer: Any) -> bool:
    return any(_arbiter_key(a, row, writer) in touched for a in arbiters)


def _find_conflict(txn: Any, table: Table, writer: Any, arbiters: list[tuple[int, ...] | Index],
                   row: tuple[Any, ...]) -> tuple[bytes, tuple[Any, ...]] | None:
    for cols in arbiters:
        _, vals = _arbiter_key(cols, row, writer)
        if None in vals:
            continue
        if isinstance(cols, Index):
            idx = cols
        elif cols == table.primary_key:
            key = encode_key(vals)
            old = txn.get(table.space, [key])[0]
            if old is not None:
                return key, old
            continue
        else:
            idx = next(i for i in writer.indexes if i.columns == cols)
        p = encode_key(vals)
        for batch in txn.scan(ScanSpec(idx.space, p, prefix_end(p), limit=1)):
            for entry in batch:
                key = encode_key(tuple(entry)) if table.primary_key else entry[0]
                old = txn.get(table.space, [key])[0]
                if old is not None:
                    return key, old
    return None
