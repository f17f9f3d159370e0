"""Foreign keys seen from the referenced (parent) side: RESTRICT / NO ACTION, CASCADE, SET NULL / DEFAULT.

When parent rows are deleted, or their referenced columns change, the child
rows that point at them are found (through an index on the child's
foreign-key columns if there is one, else a filtered scan pushed into KiVi)
and the constraint's action is applied through the child's own writer, so
cascades recurse and maintain the child's indexes. Each action is a statement
on the child, as PostgreSQL's RI query: it fires the child's statement-level
triggers (`firetriggers.cascaded_statement`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...errors import ForeignKeyViolation
from ...txn.api import ScanSpec
from ..catalog.model import Constraint
from ..expr.casts import to_text
from ..partitions.members import leaves
from ..pgcatalog.partfks import error_name
from .deferstate import defer_parent_keys, is_deferred
from .firetriggers import cascaded_statement
from .partrouter import tag
from .values import compile_default

if TYPE_CHECKING:
    from ..session import SQLSession
    from .writer import TableWriter


def children_rows(s: SQLSession, fk: Constraint, vals: tuple[Any, ...]
                  ) -> list[tuple[bytes, tuple[Any, ...]]]:
    """The (key, row) pairs of fk's table that reference the parent key `vals`."""
    cat = s.catalog()
    child = cat.existing_table(fk.table_oid)
    parent = cat.existing_table(fk.ref_table_oid)
    # NB: typed leaves, as the optimizer's pushed filters (`expr.pushed` compiles them as SQL)
    conds = [("cmp", "=", ("col", a - 1, child.columns[a - 1].type_oid),
              ("const", v, parent.columns[r - 1].type_oid))
             for a, r, v in zip(fk.columns, fk.ref_columns, vals, strict=True)]
    out: list[tuple[bytes, tuple[Any, ...]]] = []
    # NB: the newest committed children, as PostgreSQL's RI triggers see them: an insert that
    # held the parent FOR KEY SHARE (and so made this delete wait) committed after our snapshot
    with s.txn.fresh_snapshot(latest=True):
        for leaf in leaves(cat, child):  # NB: a partitioned child's rows are its leaves'
            mark = tag(leaf.oid) if child.partkey else bytes  # keys as its router takes them
            for batch in s.txn.scan(ScanSpec(leaf.space, filter=("and", conds), with_keys=True)):
                out.extend((mark(r[0]), tuple(r[1:])) for r in batch)
    return out


def fk_violation(s: SQLSession, parent: TableWriter, fk: Constraint, vals: tuple[Any, ...],
                 verb: str) -> None:
    """Raises 23503: parent key `vals` is still referenced through fk."""
    child = s.catalog().existing_table(fk.table_oid)
    schema = s.catalog().schema_by_oid(child.schema_oid)
    names = ", ".join(parent.table.columns[a - 1].name for a in fk.ref_columns)
    shown = ", ".join(to_text(v) for v in vals)
    con = error_name(s.catalog(), fk, parent.table.oid, False)  # NB: the partition's copy
    raise ForeignKeyViolation(
        f'{verb} on table "{parent.table.name}" violates foreign key constraint "{con}" '
        f'on table "{child.name}"',
        detail=f'Key ({names})=({shown}) is still referenced from table "{child.name}".',
        table=child.name, constraint=con, schema=schema.name if schema else None)


def _as_statement(s: SQLSession, cw: TableWriter, op: str, action: Callable[[], Any]) -> None:
    """One cascaded action as PostgreSQL's RI query: a statement on the child table, whose
    statement-level triggers fire (`firetriggers.cascaded_statement`), even for no row."""
    cascaded_statement(s, cw.triggers, op, action)


def on_parent_delete(s: SQLSession, parent: TableWriter, rows: list[tuple[Any, ...]]) -> None:
    """Applies each referencing foreign key's ON DELETE action for deleted parent rows."""

    for fk in parent.children:
        pos = [a - 1 for a in fk.ref_columns]
        cw: TableWriter | None = None
        for r in rows:
            vals = tuple(r[i] for i in pos)
            if None in vals:
                continue
            hits = children_rows(s, fk, vals)
            if not hits:
                if fk.on_delete in ("c", "n", "d"):  # NB: the RI query runs, and its triggers
                    cw = cw or parent.child_writer(s, fk)
                    _as_statement(s, cw, "DELETE" if fk.on_delete == "c" else "UPDATE",
                                  lambda: None)
                continue
            if fk.on_delete == "a" and is_deferred(s, fk):
                defer_parent_keys(s, fk, vals)  # NO ACTION, deferred: checked at COMMIT
                continue
            if fk.on_delete in ("a", "r"):
                fk_violation(s, parent, fk, vals, "update or delete")
            cw = cw or parent.child_writer(s, fk)
            keys = [k for k, _ in hits]
            olds = [o for _, o in hits]
            if fk.on_delete == "c":
                _as_statement(s, cw, "DELETE", functools.partial(cw.delete, s, keys, olds))
            else:
                news = _set_null_or_default(s, cw, fk, olds, fk.on_delete)
                _as_statement(s, cw, "UPDATE", functools.partial(cw.update, s, keys, olds, news))


def _set_null_or_default(s: SQLSession, cw: TableWriter, fk: Constraint,
                         olds: list[tuple[Any, ...]], action: str) -> list[list[Any]]:
    """The child rows with their foreign-key columns NULL (SET NULL) or at their columns'
    defaults (SET DEFAULT, which must then reference a parent row: the update checks it)."""
    cols = [cw.table.columns[a - 1] for a in fk.columns]
    fns = [compile_default(s, c, cw.table) if action == "d" else None for c in cols]
    ctx = s.exec_context([])
    news = []
    for o in olds:
        n = list(o)
        for c, fn in zip(cols, fns, strict=True):
            n[c.attnum - 1] = fn(None, ctx) if fn is not None else None
        news.append(n)
    return news


def on_parent_update(s: SQLSession, parent: TableWriter, old: list[tuple[Any, ...]],
                     new: list[tuple[Any, ...]]) -> None:
    """Applies ON UPDATE actions when referenced columns of parent rows change."""

    for fk in parent.children:
        pos = [a - 1 for a in fk.ref_columns]
        for o, n in zip(old, new, strict=True):
            ov = tuple(o[i] for i in pos)
            nv = tuple(n[i] for i in pos)
            if ov == nv or None in ov:
                continue
            hits = children_rows(s, fk, ov)
            if not hits:
                if fk.on_update in ("c", "n", "d"):  # NB: the RI query runs, and its triggers
                    _as_statement(s, parent.child_writer(s, fk), "UPDATE", lambda: None)
                continue
            if fk.on_update == "a" and is_deferred(s, fk):
                defer_parent_keys(s, fk, ov)
                continue
            if fk.on_update in ("a", "r"):
                fk_violation(s, parent, fk, ov, "update or delete")
            cw = parent.child_writer(s, fk)
            if fk.on_update != "c":  # SET NULL / SET DEFAULT
                news = _set_null_or_default(s, cw, fk, [co for _, co in hits], fk.on_update)
            else:
                news = []
                for _, co in hits:
                    c = list(co)
                    for a, v in zip(fk.columns, nv, strict=True):
                        c[a - 1] = v
                    news.append(c)
            _as_statement(s, cw, "UPDATE", functools.partial(
                cw.update, s, [k for k, _ in hits], [co for _, co in hits], news))
