"""The key codec the statement layer uses: KiVi's own, or a stand-in until that module exists.

`kivi.keycodec.encode_key` is the order-preserving encoding shared with
storage. While it is being written this module supplies a compatible
fallback (same contract: bytes whose order is the SQL order of the tuples),
so the statement layer can be developed and tested independently.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

try:  # pragma: no cover - depends on the kivi layer's progress
    from ...kivi.keycodec import encode_key
except ImportError:  # pragma: no cover

    def _enc(v: Any, out: bytearray) -> None:
        if v is None:
            out += b"\xff"  # NULLs sort last, as in PostgreSQL's default ordering
        elif isinstance(v, bool):
            out += b"\x02\x01" if v else b"\x02\x00"
        elif isinstance(v, int):
            out += b"\x03" + (v + (1 << 63)).to_bytes(8, "big")
        elif isinstance(v, float | Decimal):
            bits = struct.unpack(">Q", struct.pack(">d", float(v)))[0]
            bits = bits ^ 0xFFFFFFFFFFFFFFFF if bits >> 63 else bits | (1 << 63)
            out += b"\x04" + bits.to_bytes(8, "big")
        elif isinstance(v, str | bytes):
            raw = v.encode() if isinstance(v, str) else v
            out += b"\x05" + raw.replace(b"\x00", b"\x00\x01") + b"\x00\x00"
        else:
            _enc(str(v), out)

    def encode_key(values: Sequence[Any]) -> bytes:
        """Encodes a tuple into bytes whose order is the tuples' SQL order."""
        out = bytearray()
        for v in values:
            _enc(v, out)
        return bytes(out)


__all__ = ["encode_key"]
