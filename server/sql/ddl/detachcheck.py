"""DETACH PARTITION of a partition whose rows a foreign key still references: 23503.

A foreign key referencing a partitioned table holds for the rows of each of its
partitions (PostgreSQL keeps a copy of it per partition, `pgcatalog.partfks`). A
detached partition is an ordinary table that no key references, so PostgreSQL refuses
the DETACH while a referencing row points into it (tablecmds.c's
ATDetachCheckNoForeignKeyRefs): 'removing partition "p2" violates foreign key constraint
"rf_r_fkey2"', naming the copy for that partition, with the first referencing key in
DETAIL. Cumulo let it through and left the references dangling.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import ForeignKeyViolation
from ...txn.api import ScanSpec
from ..catalog.model import Constraint, Table
from ..expr.casts import to_text
from ..partitions.members import ancestors, leaves
from ..pgcatalog.partfks import referenced_copy

if TYPE_CHECKING:
    from ..session import SQLSession


def check_no_references(s: SQLSession, table: Table) -> None:
    """Raises 23503 if a foreign key referencing an ancestor of `table` (about to be
    detached) has a row whose key is one of `table`'s rows."""
    cat = s.catalog()
    above = set(ancestors(cat, table))
    for fk in cat.constraints:
        if fk.kind != "f" or fk.ref_table_oid not in above:
            continue
        ref = cat.existing_table(fk.ref_table_oid)
        keys = _values(s, [(leaf, _positions(ref, leaf, fk.ref_columns))
                           for leaf in leaves(cat, table)])
        if not keys:
            continue
        child = cat.existing_table(fk.table_oid)
        for leaf in leaves(cat, child):
            pos = _positions(child, leaf, fk.columns)
            for batch in s.ensure_txn().scan(ScanSpec(leaf.space, batch_size=4096)):
                for row in batch:
                    vals = tuple(row[p] for p in pos)
                    if None not in vals and vals in keys:
                        _raise(s, table, child, fk, vals)


def _positions(table: Table, leaf: Table, attnums: tuple[int, ...]) -> list[int]:
    """The row positions in `leaf` of `table`'s columns `attnums` (matched by name)."""
    names = {c.attnum: c.name for c in table.columns}
    own = {c.name: c.attnum for c in leaf.columns if not c.dropped}
    return [own[names[a]] - 1 for a in attnums]


def _values(s: SQLSession, parts: list[tuple[Table, list[int]]]) -> set[tuple[Any, ...]]:
    out: set[tuple[Any, ...]] = set()
    for leaf, pos in parts:
        for batch in s.ensure_txn().scan(ScanSpec(leaf.space, batch_size=4096)):
            out.update(tuple(row[p] for p in pos) for row in batch)
    return out


def _raise(s: SQLSession, table: Table, child: Table, fk: Constraint,
           vals: tuple[Any, ...]) -> None:
    copy = referenced_copy(s.catalog(), fk, table.oid)
    name = copy.name if copy is not None else fk.name
    cols = {c.attnum: c.name for c in child.columns}
    schema = s.catalog().schema_by_oid(child.schema_oid)
    raise ForeignKeyViolation(
        f'removing partition "{table.name}" violates foreign key constraint "{name}"',
        detail=f"Key ({', '.join(cols[a] for a in fk.columns)})="
               f"({', '.join(to_text(v) for v in vals)}) is still referenced from table "
               f'"{child.name}".',
        table=child.name, constraint=name, schema=schema.name if schema else None)
