"""Key encoding for point gets and key ranges: `kivi.keycodec` when present, else a stand-in.

The stand-in only exists so the compiler can be tested before the KiVi
engineer's codec lands; it is order-preserving for the common key types
(ints, strings, bytes, NULLs last) and is never mixed with the real codec in
one process.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

try:  # pragma: no cover - depends on the kivi package's progress
    from ...kivi.keycodec import encode_key, prefix_upper_bound
except ImportError:  # pragma: no cover

    def _enc(v: Any) -> bytes:
        if v is None:
            return b"\xff"
        if isinstance(v, bool):
            return b"\x02" + (b"\x01" if v else b"\x00")
        if isinstance(v, int):
            return b"\x03" + struct.pack(">Q", (v + (1 << 63)) & ((1 << 64) - 1))
        if isinstance(v, float):
            bits = struct.unpack(">Q", struct.pack(">d", v))[0]
            bits = bits ^ ((1 << 64) - 1) if v < 0 else bits | (1 << 63)
            return b"\x04" + struct.pack(">Q", bits)
        if isinstance(v, str):
            v = v.encode()
        if isinstance(v, bytes):
            return b"\x05" + v.replace(b"\x00", b"\x00\x01") + b"\x00\x00"
        return b"\x06" + str(v).encode() + b"\x00\x00"

    def encode_key(values: Sequence[Any]) -> bytes:
        """Encodes a key tuple so that byte order equals SQL order (stand-in)."""
        return b"".join(_enc(v) for v in values)

    def prefix_upper_bound(key_prefix: bytes) -> bytes | None:
        """Returns the smallest key greater than every key starting with the prefix (stand-in)."""
        return key_prefix + b"\xff\xff\xff\xff"


__all__ = ["encode_key", "prefix_upper_bound"]
