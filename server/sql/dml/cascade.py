"""Foreign keys seen from the referenced (parent) side: RESTRICT / NO ACTION, CASCADE, SET NULL.

When parent rows are deleted, or their referenced columns change, the child
rows that point at them are found (through an index on the child's
foreign-key columns if there is one, else a filtered scan pushed into KiVi)
and the constraint's action is applied through the child's own writer, so
cascades recurse and maintain the child's indexes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import ForeignKeyViolation
from ...txn.api import ScanSpec
from ..catalog.model import Constraint
from ..expr.casts import to_text
from .deferstate import defer_parent_keys, is_deferred

if TYPE_CHECKING:
    from ..session import SQLSession
    from .writer import TableWriter


def children_rows(s: SQLSession, fk: Constraint, vals: tuple[Any, ...]
                  ) -> list[tuple[bytes, tuple[Any, ...]]]:
    """The (key, row) pairs of fk's table that reference the parent key `vals`."""
    child = s.catalog().existing_table(fk.table_oid)
    conds = [("cmp", "=", ("col", a - 1), ("const", v)) for a, v in zip(fk.columns, vals,
                                                                          strict=True)]
    spec = ScanSpec(child.space, filter=("and", conds), with_keys=True)
    out: list[tuple[bytes, tuple[Any, ...]]] = []
    # NB: the newest committed children, as PostgreSQL's RI triggers see them: an insert that
    # held the parent FOR KEY SHARE (and so made this delete wait) committed after our snapshot
    with s.txn.fresh_snapshot(latest=True):
        for batch in s.txn.scan(spec):
            out.extend((r[0], tuple(r[1:])) for r in batch)
    return out


def fk_violation(s: SQLSession, parent: TableWriter, fk: Constraint, vals: tuple[Any, ...],
                 verb: str) -> None:
    """Raises 23503: parent key `vals` is still referenced through fk."""
    child = s.catalog().existing_table(fk.table_oid)
    schema = s.catalog().schema_by_oid(child.schema_oid)
    names = ", ".join(parent.table.columns[a - 1].name for a in fk.ref_columns)
    shown = ", ".join(to_text(v) for v in vals)
    raise ForeignKeyViolation(
        f'{verb} on table "{parent.table.name}" violates foreign key constraint "{fk.name}" '
        f'on table "{child.name}"',
        detail=f'Key ({names})=({shown}) is still referenced from table "{child.name}".',
        table=child.name, constraint=fk.name, schema=schema.name if schema else None)


def on_parent_delete(s: SQLSession, parent: TableWriter, rows: list[tuple[Any, ...]]) -> None:
    """Applies each referencing foreign key's ON DELETE action for deleted parent rows."""

    for fk in parent.children:
        pos = [a - 1 for a in fk.ref_columns]
        for r in rows:
            vals = tuple(r[i] for i in pos)
            if None in vals:
                continue
            hits = children_rows(s, fk, vals)
            if not hits:
                continue
            if fk.on_delete == "a" and is_deferred(s, fk):
                defer_parent_keys(s, fk, vals)  # NO ACTION, deferred: checked at COMMIT
                continue
            if fk.on_delete in ("a", "r"):
                fk_violation(s, parent, fk, vals, "update or delete")
            cw = parent.child_writer(s, fk)
            keys = [k for k, _ in hits]
            olds = [o for _, o in hits]
            if fk.on_delete == "c":
                cw.delete(s, keys, olds)
            else:
                news = []
                for o in olds:
                    n = list(o)
                    for a in fk.columns:
                        n[a - 1] = None
                    news.append(n)
                cw.update(s, keys, olds, news)


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
                continue
            if fk.on_update == "a" and is_deferred(s, fk):
                defer_parent_keys(s, fk, ov)
                continue
            if fk.on_update != "c":
                fk_violation(s, parent, fk, ov, "update or delete")
            cw = parent.child_writer(s, fk)
            news = []
            for _, co in hits:
                c = list(co)
                for a, v in zip(fk.columns, nv, strict=True):
                    c[a - 1] = v
                news.append(c)
            cw.update(s, [k for k, _ in hits], [co for _, co in hits], news)
