"""Large objects as the session sees them: lookup, creation, privileges, and open descriptors.

The lo_* functions, GRANT/REVOKE ON LARGE OBJECT, ALTER LARGE OBJECT and COMMENT ON
LARGE OBJECT meet here, so each PostgreSQL rule is written once:

- an object is found in the transaction's snapshot (42704 "large object N does not
  exist");
- its privileges are SELECT (`r`) and UPDATE (`w`): the owner and superusers hold both;
  others what `lomacl` grants them or PUBLIC (42501 "permission denied for large
  object N"); lo_unlink and ALTER need the owner (42501 "must be owner of large object N");
- descriptors (`lo_open`'s integers) number from 0 in each transaction, per session,
  and die with the transaction (`Descriptors.tid`): a later transaction sees none,
  as PostgreSQL's AtEOXact_LargeObject closes them all.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from ...errors import (
    InsufficientPrivilege,
    NumericValueOutOfRange,
    SQLError,
    SyntaxError_,
    UndefinedObject,
)
from ..privileges.acl import privileges_of, with_new_owner
from ..privileges.check import current_role, is_owner, privilege_roles
from . import pages

INV_WRITE = 0x20000
INV_READ = 0x40000


@dataclass(frozen=True)
class LargeObject:
    """One pg_largeobject_metadata row (what GRANT and ALTER edit)."""

    oid: int
    owner: int
    acl: tuple[str, ...] | None = None

    @property
    def name(self) -> str:
        """How GRANT's messages name it: its OID."""
        return str(self.oid)


def txn_of(s: Any) -> Any:
    """The session's transaction (the statement calling a function has one)."""
    return s.txn if s.txn is not None else s.ensure_txn()


def get(s: Any, loid: int) -> LargeObject | None:
    """The large object `loid` as the transaction sees it, None if there is none."""
    row = pages.meta(txn_of(s), s.db.oid, loid)
    return None if row is None else LargeObject(row[1], row[2], row[3])


def find(s: Any, loid: int) -> LargeObject:
    """The large object `loid` as the transaction sees it; 42704 if there is none."""
    lo = get(s, loid)
    if lo is None:
        raise UndefinedObject(f"large object {loid} does not exist")
    return lo


def lookup(s: Any, raw: str) -> LargeObject | None:
    """The large object a statement names by its OID (`ALTER LARGE OBJECT 16385 ...`), None if
    there is none; 42601 if `raw` is not an OID."""
    try:
        loid = int(raw)
    except ValueError:
        raise SyntaxError_(f'syntax error at or near "{raw.split()[0]}"') from None
    if not 0 <= loid < 2**32:
        raise NumericValueOutOfRange("OID out of range")
    return get(s, loid)


def all_objects(s: Any) -> list[LargeObject]:
    """Every large object of the session's database, by OID (DROP ROLE's dependents)."""
    return [LargeObject(r[1], r[2], r[3]) for r in pages.all_meta(txn_of(s), s.db.oid)]


def reassign_owned(s: Any, olds: set[int], new: int) -> None:
    """REASSIGN OWNED: the objects of roles `olds` go to `new`, ACL included, as ALTER LARGE
    OBJECT ... OWNER TO would give them."""
    for lo in all_objects(s):
        if lo.owner in olds:
            save(s, LargeObject(lo.oid, new, with_new_owner(lo.acl, lo.owner, new)))


def drop_owned(s: Any, olds: set[int]) -> None:
    """DROP OWNED's share: unlinks the objects of roles `olds`, revokes what they were granted."""
    for lo in all_objects(s):
        if lo.owner in olds:
            unlink(s, lo.oid)
        elif lo.acl is not None:
            kept = tuple(i for i in lo.acl if int(i.split("=", 1)[0]) not in olds)
            if kept != lo.acl:
                save(s, dataclasses.replace(lo, acl=kept))


def unlink(s: Any, loid: int) -> None:
    """Drops an object: its pages, metadata and comment; closes the session's descriptors of
    it (as PostgreSQL's lo_unlink does)."""
    slots = descriptors(s).slots
    for i, d in enumerate(slots):
        if d is not None and d.loid == loid:
            slots[i] = None
    pages.drop(txn_of(s), s.db.oid, loid)
    set_comment(s, loid, None)


def set_comment(s: Any, loid: int, text: str | None) -> None:
    """Sets or (None) removes a large object's comment in the session's transaction."""
    if text is None and (loid, 0) not in s.catalog().comments:
        return
    s.store.set_comment(txn_of(s), s.db.oid, loid, 0, text)
    s.catalog_changed()


def save(s: Any, lo: LargeObject) -> None:
    """Writes a (new or changed) object's metadata row in the transaction."""
    pages.put_meta(txn_of(s), s.db.oid, lo.oid, lo.owner, lo.acl)


def create(s: Any, loid: int, owner: int) -> int:
    """inv_create: a new empty object, `loid` or (0) a fresh OID; 23505 if `loid` is taken."""
    if loid == 0:
        loid = s.store.allocate_oid()
        while get(s, loid) is not None:
            loid = s.store.allocate_oid()
    elif get(s, loid) is not None:
        raise SQLError('duplicate key value violates unique constraint '
                       '"pg_largeobject_metadata_oid_index"',
                       detail=f"Key (oid)=({loid}) already exists.", sqlstate="23505",
                       schema="pg_catalog", table="pg_largeobject_metadata",
                       constraint="pg_largeobject_metadata_oid_index")
    save(s, LargeObject(loid, owner))
    return loid


def privileges(s: Any, lo: LargeObject) -> str:
    """The letters (r, w) the current role holds on `lo`."""
    cat = s.catalog()
    role = current_role(s, cat)
    if role is None:
        return ""
    if is_owner(cat, role, lo.owner):
        return "rw"
    return privileges_of(lo.acl or (), privilege_roles(cat, role))


def check(s: Any, lo: LargeObject, letter: str) -> None:
    """42501 unless the current role holds SELECT (`r`) or UPDATE (`w`) on `lo`."""
    if letter not in privileges(s, lo):
        raise InsufficientPrivilege(f"permission denied for large object {lo.oid}")


def must_own(s: Any, lo: LargeObject) -> None:
    """42501 unless the current role may act as `lo`'s owner."""
    cat = s.catalog()
    role = current_role(s, cat)
    if role is None or not is_owner(cat, role, lo.owner):
        raise InsufficientPrivilege(f"must be owner of large object {lo.oid}")


# -- descriptors ------------------------------------------------------------------


@dataclass
class Descriptor:
    """One lo_open: the object, whether it was opened for writing, the position, and how many
    savepoints were open then (ROLLBACK TO one of them closes it, as PostgreSQL closes the
    descriptors of an aborted subtransaction)."""

    loid: int
    writable: bool
    offset: int = 0
    depth: int = 0


class Descriptors:
    """A session's open descriptors in one transaction (slot index = descriptor)."""

    __slots__ = ("tid", "slots")

    def __init__(self, tid: int) -> None:
        self.tid = tid
        self.slots: list[Descriptor | None] = []

    def open(self, d: Descriptor) -> int:
        """Takes the lowest free slot, as PostgreSQL's newLOfd does."""
        for i, slot in enumerate(self.slots):
            if slot is None:
                self.slots[i] = d
                return i
        self.slots.append(d)
        return len(self.slots) - 1


_TABLES: weakref.WeakKeyDictionary[Any, Descriptors] = weakref.WeakKeyDictionary()
_LOCK = threading.Lock()


def descriptors(s: Any) -> Descriptors:
    """The session's descriptors of its current transaction (a fresh table in a new one)."""
    tid = txn_of(s).tid
    with _LOCK:
        table = _TABLES.get(s)
        if table is None or table.tid != tid:
            table = _TABLES[s] = Descriptors(tid)
    return table


def open_descriptor(s: Any, loid: int, writable: bool) -> int:
    """A new descriptor of `loid` in the current (sub)transaction."""
    return descriptors(s).open(Descriptor(loid, writable, depth=len(s.savepoints)))


def savepoint_ended(s: Any, i: int, rolled_back: bool) -> None:
    """ROLLBACK TO (closes) or RELEASE (hands to the enclosing level) of savepoint `i` (its
    index in the session's stack): what it means for the descriptors opened since."""
    table = _TABLES.get(s)
    if table is None or s.txn is None or table.tid != s.txn.tid:
        return
    for n, d in enumerate(table.slots):
        if d is not None and d.depth > i:
            if rolled_back:
                table.slots[n] = None
            else:
                d.depth = i


def descriptor(s: Any, fd: int) -> Descriptor:
    """An open descriptor; 42704 "invalid large-object descriptor" otherwise."""
    slots = descriptors(s).slots
    d = slots[fd] if 0 <= fd < len(slots) else None
    if d is None:
        raise UndefinedObject(f"invalid large-object descriptor: {fd}")
    return d
