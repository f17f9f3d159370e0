"""The copies of a partitioned table's foreign keys that PostgreSQL lists per partition.

PostgreSQL clones a partitioned table's foreign key onto each of its partitions
(tablecmds.c's CloneFkReferencing): one pg_constraint row per partition, whose
`conparentid` is the row it was cloned from (a sub-partition's comes from its own
parent's copy), `conislocal` false and `coninhcount` 1, named as the original unless
the partition already has a constraint of that name. Cumulo checks a partition's rows
against its ancestors' keys (`dml.writer`) and keeps no copy, so the rows are made up
here: clients reflecting a partition read pg_constraint for it (SQLAlchemy's
`get_foreign_keys('partition')` found none, Django's introspection too).

Likewise a foreign key referencing a partitioned table has a copy per partition of it
(addFkRecurseReferenced): on the referencing table, `confrelid` the partition, named
afresh (`rf_r_fkey1`, ...).

A copy's OID is derived from the pair (original, partition), in a range the OID
counter (from 16384 up) would take a billion objects to reach, so it is the same in
every snapshot while both exist, and pg_get_constraintdef finds it (`copy_by_oid`).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

from ..catalog import model as M
from ..partitions.members import partitioned

_BASE = 1 << 30


@dataclass(frozen=True)
class FkCopy:
    con: M.Constraint  # the copy: its own OID, name, table and referenced table
    parent: int  # conparentid: the constraint it was cloned from
    referencing: bool  # a partition's copy (else one per partition of a referenced table)


def _copy_oid(con_oid: int, table_oid: int, referencing: bool) -> int:
    side = "r" if referencing else "f"  # NB: a self-referencing key has both on one partition
    return _BASE + zlib.crc32(f"{con_oid}:{table_oid}:{side}".encode()) % (_BASE - 1)


def fk_copies(cat: M.CatalogSnapshot) -> list[FkCopy]:
    """Every partition's copies of its ancestors' foreign keys, parents before children."""
    cache = cat.derived.setdefault("fk_copies", {})
    got = cache.get(None)
    if got is None:
        got = cache[None] = _build(cat)
    return got


def with_copies(cat: M.CatalogSnapshot) -> list[M.Constraint]:
    """The catalog's constraints and the partitions' copies (information_schema lists both)."""
    copies = fk_copies(cat)
    return [*cat.constraints, *(c.con for c in copies)] if copies else list(cat.constraints)


def referenced_copy(cat: M.CatalogSnapshot, fk: M.Constraint, part: int) -> M.Constraint | None:
    """The copy of foreign key `fk` for partition `part` of the table it references."""
    return _copy_at(cat, fk, part, False)


def error_name(cat: M.CatalogSnapshot, fk: M.Constraint, table: int, referencing: bool) -> str:
    """The constraint PostgreSQL's 23503 names when `fk` fails at partition `table`: the copy
    checked there (on it when `referencing`, else for it as the referenced side)."""
    copy = _copy_at(cat, fk, table, referencing)
    return copy.name if copy is not None else fk.name


def _copy_at(cat: M.CatalogSnapshot, fk: M.Constraint, table: int, referencing: bool
             ) -> M.Constraint | None:
    if table in (fk.table_oid, fk.ref_table_oid):
        return None
    copies = fk_copies(cat)
    parent = {c.con.oid: c.parent for c in copies}
    for c in copies:
        at = c.con.table_oid if referencing else c.con.ref_table_oid
        if c.referencing == referencing and at == table:
            root = c.con.oid
            while root in parent:
                root = parent[root]
            if root == fk.oid:
                return c.con
    return None


def copy_by_oid(cat: M.CatalogSnapshot, oid: int) -> FkCopy | None:
    """The copy whose OID is `oid`, if there is one."""
    if oid < _BASE:
        return None
    return next((c for c in fk_copies(cat) if c.con.oid == oid), None)


def _build(cat: M.CatalogSnapshot) -> list[FkCopy]:
    # each partitioned table's partitions, in bound order (PostgreSQL's PartitionDesc)
    parts = {t.oid: [m.table for m in partitioned(cat, t).members]
             for t in cat.tables if t.partkey}
    if not any(parts.values()):
        return []
    by_oid = {t.oid: t for t in cat.tables}
    on_table: dict[int, set[str]] = {}  # a relation's constraint names
    in_schema: dict[int, set[str]] = {}  # a schema's (ChooseConstraintName's uniqueness)
    for c in cat.constraints:
        on_table.setdefault(c.table_oid, set()).add(c.name)
        t = by_oid.get(c.table_oid)
        in_schema.setdefault(t.schema_oid if t else 0, set()).add(c.name)
    out: list[FkCopy] = []

    def add(copy: M.Constraint, parent: M.Constraint, table: M.Table, at: int,
            referencing: bool) -> M.Constraint:
        """Records `copy` of `parent` (on `table`, for partition `at`) under its own OID."""
        on_table.setdefault(table.oid, set()).add(copy.name)
        in_schema.setdefault(table.schema_oid, set()).add(copy.name)
        copy = replace(copy, oid=_copy_oid(parent.oid, at, referencing))
        out.append(FkCopy(copy, parent.oid, referencing))
        return copy

    def referenced(con: M.Constraint, ref: M.Table, owner: M.Table) -> None:
        """addFkRecurseReferenced: a copy per partition of the referenced table, named
        afresh since the referencing table has the name already."""
        for part in parts.get(ref.oid, ()):
            cols = _mapped(ref, part, con.ref_columns)
            if cols is None:
                continue
            name = _fresh_name(owner, con.columns, in_schema.get(owner.schema_oid, set()))
            copy = add(replace(con, name=name, ref_table_oid=part.oid, ref_columns=cols), con,
                       owner, part.oid, False)
            referenced(copy, part, owner)

    def referencing(con: M.Constraint, table: M.Table) -> None:
        """CloneFkReferencing: a copy on each partition, the original's name if it is free."""
        for part in parts.get(table.oid, ()):
            cols = _mapped(table, part, con.columns)
            if cols is None:
                continue
            name = con.name if con.name not in on_table.get(part.oid, set()) else \
                _fresh_name(part, cols, in_schema.get(part.schema_oid, set()))
            copy = add(replace(con, name=name, table_oid=part.oid, columns=cols), con, part,
                       part.oid, True)
            referencing(copy, part)

    for con in sorted(cat.constraints, key=lambda c: c.oid):
        owner = by_oid.get(con.table_oid)
        ref = by_oid.get(con.ref_table_oid)
        if con.kind != "f" or owner is None:
            continue
        if ref is not None and ref.oid in parts:
            referenced(con, ref, owner)
        if owner.oid in parts:
            referencing(con, owner)
    return out


def _mapped(parent: M.Table, part: M.Table, attnums: tuple[int, ...]) -> tuple[int, ...] | None:
    """The partition's attnums of the parent's columns `attnums` (matched by name)."""
    pnames = {c.attnum: c.name for c in parent.columns}
    own = {c.name: c.attnum for c in part.columns if not c.dropped}
    out = [own.get(pnames.get(a, "")) for a in attnums]
    return None if any(a is None for a in out) else tuple(a for a in out if a is not None)


def _fresh_name(part: M.Table, cols: tuple[int, ...], taken: set[str]) -> str:
    """PostgreSQL's ChooseConstraintName for a clone whose name the partition has:
    `<table>_<columns>_fkey`, then with 1, 2 ... appended."""
    names = {c.attnum: c.name for c in part.columns}
    base = f"{part.name}_{'_'.join(names[a] for a in cols)}_fkey"
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}{n}"
    return name
