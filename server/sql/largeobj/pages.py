"""Large objects' storage: PostgreSQL's pg_largeobject_metadata and pg_largeobject, as rows of
two KiVi system spaces.

Why rows in KiVi, cut into 2 KB pages as PostgreSQL cuts them: a large object's
bytes then commit, roll back (to a savepoint too) and survive a restart or a
kill -9 with the transaction that wrote them, conflict like any other write,
and a write to one part of a big object rewrites only the pages it touches.

Layout (both per database, as PostgreSQL's catalogs are):

- space 5 (`META_SPACE`): key `(database oid, loid)`, row
  `(database oid, loid, owner oid, acl)`: pg_largeobject_metadata. The acl is
  None (the owner's default) or a tuple of `privileges.acl` items.
- space 6 (`PAGE_SPACE`): key `(database oid, loid, pageno)`, row
  `(database oid, loid, pageno, data)`: pg_largeobject. Every page but the last
  holds `LOBLKSIZE` bytes; a missing page is a hole that reads as zeros; the
  size is the last page's start plus its length (a last page may be empty: it
  marks the end after a truncation into a hole, as in PostgreSQL).

    >>> class Txn:
    ...     def __init__(self): self.rows = {}
    ...     def get(self, space, keys): return [self.rows.get((space, k)) for k in keys]
    ...     def put(self, space, items): self.rows.update(((space, k), r) for k, r in items)
    ...     def delete(self, space, keys):
    ...         for k in keys: self.rows.pop((space, k), None)
    ...     def scan(self, spec):
    ...         rows = sorted((k, r) for (s, k), r in self.rows.items() if s == spec.space
    ...                       and spec.lo <= k and (spec.hi is None or k < spec.hi))
    ...         rows = [r for _, r in (rows[::-1] if spec.reverse else rows)][:spec.limit]
    ...         yield rows
    >>> t = Txn()
    >>> write(t, 1, 77, 2046, b"abcd")
    >>> size(t, 1, 77), read(t, 1, 77, 2044, 10)
    (2050, b'\\x00\\x00abcd')
    >>> [(r[2], len(r[3])) for r in pages(t, 1, 77)]
    [(0, 2048), (1, 2)]
    >>> truncate(t, 1, 77, 4096); size(t, 1, 77), [(r[2], len(r[3])) for r in pages(t, 1, 77)]
    (4096, [(0, 2048), (1, 2), (2, 0)])
    >>> truncate(t, 1, 77, 1); size(t, 1, 77), read(t, 1, 77, 0, 100)
    (1, b'\\x00')
    >>> write(t, 1, 78, 5000, b"z"); read(t, 1, 78, 4998, 5), read(t, 1, 78, 0, 3)
    (b'\\x00\\x00z', b'\\x00\\x00\\x00')
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ...kivi.keycodec import encode_key, prefix_upper_bound
from ...txn.api import READ_ONLY_EXEMPT, ScanSpec

META_SPACE = 5
PAGE_SPACE = 6
READ_ONLY_EXEMPT.update((META_SPACE, PAGE_SPACE))  # writable in READ ONLY, as in PG 15
LOBLKSIZE = 2048  # PostgreSQL's BLCKSZ / 4
MAX_SIZE = LOBLKSIZE * (2**31 - 1)  # MAX_LARGE_OBJECT_SIZE: 4 TB

Meta = tuple[int, int, int, tuple[str, ...] | None]  # (database oid, loid, owner, acl)


def meta(txn: Any, db: int, loid: int) -> Meta | None:
    """The pg_largeobject_metadata row of `loid`, or None if no such object exists."""
    row = txn.get(META_SPACE, [encode_key((db, loid))])[0]
    return None if row is None else (row[0], row[1], row[2],
                                     None if row[3] is None else tuple(row[3]))


def put_meta(txn: Any, db: int, loid: int, owner: int, acl: tuple[str, ...] | None) -> None:
    """Writes `loid`'s metadata row (creation, ALTER LARGE OBJECT, GRANT)."""
    txn.put(META_SPACE, [(encode_key((db, loid)), (db, loid, owner, acl))])


def all_meta(txn: Any, db: int) -> list[Meta]:
    """Every large object of database `db`, by OID."""
    lo = encode_key((db,))
    out: list[Meta] = []
    for batch in txn.scan(ScanSpec(META_SPACE, lo=lo, hi=prefix_upper_bound(lo))):
        out.extend((r[0], r[1], r[2], None if r[3] is None else tuple(r[3])) for r in batch)
    return out


def pages(txn: Any, db: int, loid: int | None = None) -> Iterator[tuple[Any, ...]]:
    """The pg_largeobject rows of one object (None: of the whole database), in page order."""
    lo = encode_key((db,) if loid is None else (db, loid))
    for batch in txn.scan(ScanSpec(PAGE_SPACE, lo=lo, hi=prefix_upper_bound(lo))):
        yield from batch


def drop(txn: Any, db: int, loid: int) -> None:
    """Deletes an object's metadata and every page."""
    keys = [encode_key((db, loid, r[2])) for r in pages(txn, db, loid)]
    if keys:
        txn.delete(PAGE_SPACE, keys)
    txn.delete(META_SPACE, [encode_key((db, loid))])


def size(txn: Any, db: int, loid: int) -> int:
    """The object's size in bytes: where its last page ends (PostgreSQL's inv_getsize)."""
    lo = encode_key((db, loid))
    for batch in txn.scan(ScanSpec(PAGE_SPACE, lo=lo, hi=prefix_upper_bound(lo), reverse=True,
                                   limit=1)):
        for r in batch:
            return r[2] * LOBLKSIZE + len(r[3])
    return 0


def _page_keys(db: int, loid: int, first: int, last: int) -> list[bytes]:
    return [encode_key((db, loid, p)) for p in range(first, last + 1)]


def read(txn: Any, db: int, loid: int, offset: int, n: int) -> bytes:
    """Up to `n` bytes from `offset`, stopping at the end of the object; holes read as zeros."""
    if n <= 0:
        return b""
    end = offset + n
    first, last = offset // LOBLKSIZE, (end - 1) // LOBLKSIZE
    rows = txn.get(PAGE_SPACE, _page_keys(db, loid, first, last))
    if any(r is None or len(r[3]) < LOBLKSIZE for r in rows):
        # NB: a missing or short page is a hole or the end: only the size tells which (a
        # sequential reader pays this once, at the end)
        end = min(end, size(txn, db, loid))
        if end <= offset:
            return b""
        last = (end - 1) // LOBLKSIZE
        rows = rows[:last - first + 1]
    out = bytearray()
    for row in rows:  # NB: `end` is within the size, so zeros past a page's data are a hole's
        data = b"" if row is None else row[3]
        out += data
        out += bytes(LOBLKSIZE - len(data))
    start = offset - first * LOBLKSIZE
    return bytes(out[start:start + end - offset])


def write(txn: Any, db: int, loid: int, offset: int, data: bytes) -> None:
    """Writes `data` at `offset`: touched pages are rewritten whole, a gap before the data in a
    page is zero-filled (as PostgreSQL's inv_write), untouched pages stay as they are."""
    if not data:
        return
    end = offset + len(data)
    first, last = offset // LOBLKSIZE, (end - 1) // LOBLKSIZE
    keys = _page_keys(db, loid, first, last)
    items = []
    for p, key, row in zip(range(first, last + 1), keys, txn.get(PAGE_SPACE, keys), strict=True):
        base = p * LOBLKSIZE
        page = bytearray(b"" if row is None else row[3])
        lo, hi = max(offset, base) - base, min(end, base + LOBLKSIZE) - base
        if len(page) < lo:
            page += bytes(lo - len(page))
        page[lo:hi] = data[base + lo - offset:base + hi - offset]
        items.append((key, (db, loid, p, bytes(page))))
    txn.put(PAGE_SPACE, items)


def truncate(txn: Any, db: int, loid: int, length: int) -> None:
    """Cuts or extends the object to `length` bytes (PostgreSQL's inv_truncate): the page holding
    the new end is cut or zero-padded (created when it is a hole), every later page deleted."""
    pageno, off = divmod(length, LOBLKSIZE)
    key = encode_key((db, loid, pageno))
    row = txn.get(PAGE_SPACE, [key])[0]
    if row is None or len(row[3]) != off:
        data = b"" if row is None else row[3]
        data = data[:off] + bytes(max(0, off - len(data)))
        txn.put(PAGE_SPACE, [(key, (db, loid, pageno, data))])
    later = [encode_key((db, loid, r[2])) for r in pages(txn, db, loid) if r[2] > pageno]
    if later:
        txn.delete(PAGE_SPACE, later)
