"""PostgreSQL 15's large-object functions, with its pg_proc OIDs (libpq and pgJDBC look them up
by name and call them by OID through the FunctionCall message).

| function | what |
|---|---|
| `lo_creat(mode)`, `lo_create(oid)` | a new empty object (0: a fresh OID) |
| `lo_open(oid, mode)` | a descriptor: INV_READ 0x40000, INV_WRITE 0x20000 (write implies read) |
| `loread`, `lowrite`, `lo_lseek[64]`, `lo_tell[64]`, `lo_truncate[64]`, `lo_close` | on a descriptor |
| `lo_unlink(oid)` | drops the object (its owner only) |
| `lo_get`, `lo_put`, `lo_from_bytea` | whole-object and fragment access without descriptors |
| `lo_import(path[, oid])`, `lo_export(oid, path)` | server files (superusers only) |

Errors are PostgreSQL's, checked in its order (see `objects` for the shared rules).
"""

from __future__ import annotations

import errno
import os
from typing import Any

from ...errors import (
    InsufficientPrivilege,
    InvalidParameterValue,
    NumericValueOutOfRange,
    ObjectNotInPrerequisiteState,
    SQLError,
)
from ...pgtypes import oids as T
from ..functions.registry import register
from ..privileges.check import current_role, current_role_oid
from . import objects as O
from . import pages

_INT4_MAX = 2**31 - 1
_IO_CHUNK = 1 << 20  # lo_import/lo_export move a file this much at a time (512 pages)
_FILE_ERRORS = {errno.ENOENT: "58P01", errno.EACCES: "42501", errno.EEXIST: "58P02"}


def _lo(name: str, args: list[int], returns: int, oid: int) -> Any:
    return register(name, args=args, returns=returns, needs_context=True, volatile=True, oid=oid)


def _db(s: Any) -> int:
    return int(s.db.oid)


@_lo("lo_creat", [T.INT4], T.OID, 957)
def lo_creat(ctx: Any, mode: int) -> int:
    """Creates an empty large object with a fresh OID (the mode is ignored, as in PostgreSQL)."""
    s = ctx.session
    return O.create(s, 0, current_role_oid(s))


@_lo("lo_create", [T.OID], T.OID, 715)
def lo_create(ctx: Any, loid: int) -> int:
    """Creates an empty large object `loid` (0: a fresh OID)."""
    s = ctx.session
    return O.create(s, loid, current_role_oid(s))


@_lo("lo_open", [T.OID, T.INT4], T.INT4, 952)
def lo_open(ctx: Any, loid: int, mode: int) -> int:
    """Opens a large object for reading and/or writing; returns a descriptor."""
    s = ctx.session
    writable = bool(mode & O.INV_WRITE)
    if not writable and not mode & O.INV_READ:
        raise InvalidParameterValue(f"invalid flags for opening a large object: {mode}")
    lo = O.find(s, loid)
    O.check(s, lo, "r")
    if writable:
        O.check(s, lo, "w")
    return O.open_descriptor(s, loid, writable)


@_lo("lo_close", [T.INT4], T.INT4, 953)
def lo_close(ctx: Any, fd: int) -> int:
    """Closes a descriptor."""
    s = ctx.session
    O.descriptor(s, fd)
    O.descriptors(s).slots[fd] = None
    return 0


@_lo("loread", [T.INT4, T.INT4], T.BYTEA, 954)
def loread(ctx: Any, fd: int, n: int) -> bytes:
    """Reads up to `n` bytes at the descriptor's position and advances it."""
    s = ctx.session
    d = O.descriptor(s, fd)
    data = pages.read(O.txn_of(s), _db(s), d.loid, d.offset, max(n, 0))
    d.offset += len(data)
    return data


def _writable(s: Any, fd: int) -> O.Descriptor:
    d = O.descriptor(s, fd)
    if not d.writable:
        raise ObjectNotInPrerequisiteState(
            f"large object descriptor {fd} was not opened for writing")
    return d


@_lo("lowrite", [T.INT4, T.BYTEA], T.INT4, 955)
def lowrite(ctx: Any, fd: int, data: bytes) -> int:
    """Writes at the descriptor's position and advances it; returns the bytes written."""
    s = ctx.session
    d = _writable(s, fd)
    data = bytes(data)
    if d.offset + len(data) > pages.MAX_SIZE:
        raise InvalidParameterValue(f"invalid large object write request size: {len(data)}")
    pages.write(O.txn_of(s), _db(s), d.loid, d.offset, data)
    d.offset += len(data)
    return len(data)


def _seek(s: Any, fd: int, offset: int, whence: int) -> int:
    d = O.descriptor(s, fd)
    if whence == 0:
        target = offset
    elif whence == 1:
        target = d.offset + offset
    elif whence == 2:
        target = pages.size(O.txn_of(s), _db(s), d.loid) + offset
    else:
        raise InvalidParameterValue(f"invalid whence setting: {whence}")
    if target < 0 or target > pages.MAX_SIZE:
        raise InvalidParameterValue(f"invalid large object seek target: {target}")
    d.offset = target
    return target


@_lo("lo_lseek", [T.INT4, T.INT4, T.INT4], T.INT4, 956)
def lo_lseek(ctx: Any, fd: int, offset: int, whence: int) -> int:
    """Moves the position (whence: 0 SEEK_SET, 1 SEEK_CUR, 2 SEEK_END); returns it."""
    pos = _seek(ctx.session, fd, offset, whence)
    if pos > _INT4_MAX:
        raise NumericValueOutOfRange(
            f"lo_lseek result out of range for large-object descriptor {fd}")
    return pos


@_lo("lo_lseek64", [T.INT4, T.INT8, T.INT4], T.INT8, 3170)
def lo_lseek64(ctx: Any, fd: int, offset: int, whence: int) -> int:
    """lo_lseek with 64-bit positions."""
    return _seek(ctx.session, fd, offset, whence)


@_lo("lo_tell", [T.INT4], T.INT4, 958)
def lo_tell(ctx: Any, fd: int) -> int:
    """The descriptor's position."""
    pos = O.descriptor(ctx.session, fd).offset
    if pos > _INT4_MAX:
        raise NumericValueOutOfRange(
            f"lo_tell result out of range for large-object descriptor {fd}")
    return pos


@_lo("lo_tell64", [T.INT4], T.INT8, 3171)
def lo_tell64(ctx: Any, fd: int) -> int:
    """lo_tell with a 64-bit position."""
    return O.descriptor(ctx.session, fd).offset


def _truncate(s: Any, fd: int, length: int) -> int:
    d = _writable(s, fd)
    if length < 0 or length > pages.MAX_SIZE:
        raise InvalidParameterValue(f"invalid large object truncation target: {length}")
    pages.truncate(O.txn_of(s), _db(s), d.loid, length)
    return 0


@_lo("lo_truncate", [T.INT4, T.INT4], T.INT4, 1004)
def lo_truncate(ctx: Any, fd: int, length: int) -> int:
    """Cuts or zero-extends the object to `length` bytes."""
    return _truncate(ctx.session, fd, length)


@_lo("lo_truncate64", [T.INT4, T.INT8], T.INT4, 3172)
def lo_truncate64(ctx: Any, fd: int, length: int) -> int:
    """lo_truncate with a 64-bit length."""
    return _truncate(ctx.session, fd, length)


@_lo("lo_unlink", [T.OID], T.INT4, 964)
def lo_unlink(ctx: Any, loid: int) -> int:
    """Drops a large object (its owner or a superuser); closes this session's descriptors of it."""
    s = ctx.session
    lo = O.find(s, loid)
    O.must_own(s, lo)
    O.unlink(s, loid)
    return 1


def _read_all(s: Any, loid: int, offset: int, n: int | None) -> bytes:
    if n is not None and n < 0:
        raise InvalidParameterValue("requested length cannot be negative")
    lo = O.find(s, loid)
    O.check(s, lo, "r")
    if offset < 0 or offset > pages.MAX_SIZE:
        raise InvalidParameterValue(f"invalid large object seek target: {offset}")
    txn = O.txn_of(s)
    if n is None:
        n = max(0, pages.size(txn, _db(s), loid) - offset)
        if n > (1 << 30) - 1 - 4:
            raise SQLError("large object read request is too large", sqlstate="54000")
    return pages.read(txn, _db(s), loid, offset, n)


@_lo("lo_get", [T.OID], T.BYTEA, 3458)
def lo_get(ctx: Any, loid: int) -> bytes:
    """The whole object as bytea."""
    return _read_all(ctx.session, loid, 0, None)


@_lo("lo_get", [T.OID, T.INT8, T.INT4], T.BYTEA, 3459)
def lo_get_fragment(ctx: Any, loid: int, offset: int, n: int) -> bytes:
    """Up to `n` bytes from `offset`."""
    return _read_all(ctx.session, loid, offset, n)


def _put(s: Any, loid: int, offset: int, data: bytes) -> None:
    lo = O.find(s, loid)
    O.check(s, lo, "r")
    O.check(s, lo, "w")
    if offset < 0 or offset > pages.MAX_SIZE:
        raise InvalidParameterValue(f"invalid large object seek target: {offset}")
    if offset + len(data) > pages.MAX_SIZE:
        raise InvalidParameterValue(f"invalid large object write request size: {len(data)}")
    pages.write(O.txn_of(s), _db(s), loid, offset, bytes(data))


@_lo("lo_put", [T.OID, T.INT8, T.BYTEA], T.VOID, 3460)
def lo_put(ctx: Any, loid: int, offset: int, data: bytes) -> str:
    """Writes `data` at `offset` of the object; void, which prints as '' (not NULL)."""
    _put(ctx.session, loid, offset, data)
    return ""


@_lo("lo_from_bytea", [T.OID, T.BYTEA], T.OID, 3457)
def lo_from_bytea(ctx: Any, loid: int, data: bytes) -> int:
    """Creates an object (0: a fresh OID) holding `data`."""
    s = ctx.session
    loid = O.create(s, loid, current_role_oid(s))
    _put(s, loid, 0, data)
    return loid


def _superuser_only(s: Any, name: str) -> None:
    """lo_import/lo_export: PostgreSQL revokes EXECUTE on them from PUBLIC."""
    role = current_role(s)
    if role is None or not role.superuser:
        raise InsufficientPrivilege(f"permission denied for function {name}")


def _file_error(what: str, path: str, e: OSError) -> SQLError:
    reason = os.strerror(e.errno) if e.errno else str(e)
    return SQLError(f'could not {what} server file "{path}": {reason}',
                    sqlstate=_FILE_ERRORS.get(e.errno or 0, "58030"))


def _import(s: Any, path: str, loid: int) -> int:
    _superuser_only(s, "lo_import")
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below, after the errors PostgreSQL reports
    except OSError as e:
        raise _file_error("open", path, e) from None
    with f:
        loid = O.create(s, loid, current_role_oid(s))
        txn, db, pos = O.txn_of(s), _db(s), 0
        while True:  # NB: in pieces, so a big file is never all in memory at once
            try:
                chunk = f.read(_IO_CHUNK)
            except OSError as e:
                raise _file_error("read", path, e) from None
            if not chunk:
                return loid
            pages.write(txn, db, loid, pos, chunk)
            pos += len(chunk)


@_lo("lo_import", [T.TEXT], T.OID, 764)
def lo_import(ctx: Any, path: str) -> int:
    """Creates an object from a file on the server."""
    return _import(ctx.session, path, 0)


@_lo("lo_import", [T.TEXT, T.OID], T.OID, 767)
def lo_import_with_oid(ctx: Any, path: str, loid: int) -> int:
    """lo_import into object `loid`."""
    return _import(ctx.session, path, loid)


@_lo("lo_export", [T.OID, T.TEXT], T.INT4, 765)
def lo_export(ctx: Any, loid: int, path: str) -> int:
    """Writes an object to a file on the server."""
    s = ctx.session
    _superuser_only(s, "lo_export")
    lo = O.find(s, loid)
    O.check(s, lo, "r")
    txn, db = O.txn_of(s), _db(s)
    try:  # NB: 0644, what PostgreSQL's 0666 under its umask 022 gives (umask is per process)
        fd = os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
    except OSError as e:
        raise _file_error("create", path, e) from None
    with os.fdopen(fd, "wb") as f:
        total, pos = pages.size(txn, db, loid), 0
        while pos < total:
            chunk = pages.read(txn, db, loid, pos, _IO_CHUNK)
            f.write(chunk)
            pos += len(chunk)
    return 1
