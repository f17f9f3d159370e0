"""Text and binary I/O of the types the full-text search and extension modules add.

`pgtypes.text` and `pgtypes.binary` ask here for types they have no codec of
their own for: hstore (whose OID CREATE EXTENSION assigns, `hstore.OIDS`),
tsvector and tsquery (fixed OIDs, `tsearch`), and the system types of `xidsnap`, `tid` and
`lsn`. Values of all of them but xid8 are their canonical text, so their text output is the
value itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidBinaryRepresentation
from . import citext, hstore, jsonpathtext, lsn, tid, tsearch, xidsnap

Codec = tuple[Callable[[Any], bytes], Callable[[bytes], Any]]
JSONPATH = 4072


def _jsonpath_send(v: Any) -> bytes:
    """jsonpath_send: a version byte (1), then the path's text."""
    return b"\x01" + str(v).encode()


def _jsonpath_recv(b: bytes) -> str:
    if not b or b[0] != 1:
        raise InvalidBinaryRepresentation(f"unsupported jsonpath version number: {b[0] if b else 0}")
    return jsonpathtext.normalize(b[1:].decode())


_FIXED_TEXT: dict[int, Callable[[str], Any]] = {
    tsearch.TSVECTOR: tsearch.parse_tsvector, tsearch.TSQUERY: tsearch.parse_tsquery,
    JSONPATH: jsonpathtext.normalize, xidsnap.XID8: xidsnap.parse_xid8,
    xidsnap.PG_SNAPSHOT: xidsnap.parse_snapshot, xidsnap.TXID_SNAPSHOT: xidsnap.parse_snapshot,
    tid.TID: tid.parse_tid, lsn.PG_LSN: lsn.parse_lsn}
_FIXED_BINARY: dict[int, Codec] = {
    tsearch.TSVECTOR: (tsearch.encode_tsvector, tsearch.decode_tsvector),
    tsearch.TSQUERY: (tsearch.encode_tsquery, tsearch.decode_tsquery),
    JSONPATH: (_jsonpath_send, _jsonpath_recv),
    xidsnap.XID8: (xidsnap.send_xid8, xidsnap.recv_xid8),
    xidsnap.PG_SNAPSHOT: (xidsnap.send_snapshot, xidsnap.recv_snapshot),
    xidsnap.TXID_SNAPSHOT: (xidsnap.send_snapshot, xidsnap.recv_snapshot),
    tid.TID: (tid.send_tid, tid.recv_tid), lsn.PG_LSN: (lsn.send_lsn, lsn.recv_lsn)}


def text_input(oid: int) -> Callable[[str], Any] | None:
    """The input function of `oid` when it is one of these types (else None)."""
    if oid in hstore.OIDS:
        return hstore.parse
    if oid in citext.OIDS:
        return citext.parse
    return _FIXED_TEXT.get(oid)


def binary_codec(oid: int) -> Codec | None:
    """(send, receive) of `oid` when it is one of these types (else None)."""
    if oid in hstore.OIDS:
        return hstore.encode, hstore.decode
    if oid in citext.OIDS:
        return citext.encode, citext.decode
    return _FIXED_BINARY.get(oid)
