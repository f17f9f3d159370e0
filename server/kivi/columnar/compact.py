"""A sorted pack's keys and rows without a Python object per row.

A pack built from a store's sorted base (`ColumnarCopy.build`) used to keep its
keys and rows as arrays of pointers to the row store's own `bytes` and tuples:
16 bytes a row, but every row's key (48 B), tuple (64 B) and values (32 B an int)
stayed alive as long as the pack did, whatever the row store did with them. Here:

- `KeyBlob`: the keys as one `bytes` (fixed width when every key has one length,
  else with int64 offsets), a `Sequence[bytes]` that `bisect` searches: ~17 item
  reads for a 65,536-row pack, 2-4 us (a list bisect: 0.5 us). It keeps no sample
  of keys as objects: small objects made while the row store's own were alive sit
  in the allocator's pools between them, and one live object keeps a whole pool,
  and with it its arena, from going back to the system when the row store frees
  its rows. (numpy's `searchsorted` on an 'S' array is no substitute: it releases
  the GIL under the node lock, and 'S' items drop trailing NULs, which keys have.)
- `RowView`: the rows decoded on demand from the pack's own encoded columns
  (`encode.Column`), a slice at a time (`take`), lossless for every column kind.

    >>> kb = KeyBlob.of([b"a\\x00", b"b\\x00", b"c\\x01"])
    >>> kb.width, len(kb), kb[1], kb[-1], kb.tolist()[0]
    (2, 3, b'b\\x00', b'c\\x01', b'a\\x00')
    >>> kb.find(b"b\\x00"), kb.find(b"b"), kb.find(b"bb")
    (1, None, None)
    >>> v = KeyBlob.of([b"a", b"bb", b"ccc"])
    >>> v.width, v.take(np.array([2, 0])).tolist(), v.bisect_left(b"b")
    (0, [b'ccc', b'a'], 1)
"""

from __future__ import annotations

from bisect import bisect_left as _bl
from collections.abc import Iterator, Sequence
from typing import Any, overload

import numpy as np

from .encode import Column

Row = tuple[Any, ...]


class KeyBlob(Sequence[bytes]):
    """Sorted keys in one bytes object (see the module doc)."""

    __slots__ = ("blob", "width", "offs", "_o", "n")

    def __init__(self, blob: bytes, width: int, offs: np.ndarray | None, n: int) -> None:
        self.blob = blob
        self.width = width  # 0: variable, see offs (n + 1 int64 offsets)
        self.offs = offs
        self._o = offs.data if offs is not None else None  # a memoryview: Python-int reads
        self.n = n

    @classmethod
    def of(cls, keys: Sequence[bytes]) -> KeyBlob:
        """The keys (sorted, as a pack built from a store's base holds them) as a blob."""
        blob = b"".join(keys)
        n = len(keys)
        widths = set(map(len, keys))
        if len(widths) == 1 and n:
            return cls(blob, widths.pop(), None, n)
        offs = np.zeros(n + 1, np.int64)
        np.cumsum(np.fromiter(map(len, keys), np.int64, count=n), out=offs[1:])
        return cls(blob, 0, offs, n)

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, i: int) -> bytes: ...

    @overload
    def __getitem__(self, i: slice) -> list[bytes]: ...

    def __getitem__(self, i: int | slice) -> bytes | list[bytes]:
        if isinstance(i, slice):
            return self.take(np.arange(self.n)[i]).tolist()
        if i < 0:
            i += self.n
            if i < 0:
                raise IndexError(i)
        elif i >= self.n:
            raise IndexError(i)
        w = self.width
        if w:
            i *= w
            return self.blob[i:i + w]
        o = self._o
        assert o is not None
        return self.blob[o[i]:o[i + 1]]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.tolist())

    def bisect_left(self, k: bytes) -> int:
        """The leftmost position where k would go (as `bisect.bisect_left` on a list)."""
        if self.width:
            return _bl(_Fixed(self.blob, self.width, self.n), k)
        assert self._o is not None
        return _bl(_Varied(self.blob, self._o, self.n), k)

    def find(self, k: bytes) -> int | None:
        """The position of k, or None."""
        if self.width and len(k) != self.width:
            return None
        i = self.bisect_left(k)
        return i if i < self.n and self[i] == k else None

    def tolist(self) -> list[bytes]:
        """Every key as a bytes object (for rebuilding a pack)."""
        w = self.width
        if w:  # NB: 'V' items come back as bytes, trailing NULs kept ('S' would drop them)
            return np.frombuffer(self.blob, f"V{w}").tolist()
        o, b = self.offs, self.blob
        assert o is not None
        lo = o.tolist()
        return [b[i:j] for i, j in zip(lo[:-1], lo[1:], strict=True)]

    def take(self, idx: np.ndarray) -> KeyBlob:
        """The keys at positions idx (ascending: the result stays sorted), as a new blob."""
        w = self.width
        if w:
            return KeyBlob(np.frombuffer(self.blob, f"V{w}")[idx].tobytes(), w, None, len(idx))
        o = self.offs
        assert o is not None
        starts, ends = o[idx], o[np.asarray(idx) + 1]
        lens = ends - starts
        offs = np.zeros(len(idx) + 1, np.int64)
        np.cumsum(lens, out=offs[1:])
        # every byte's source position: its key's start plus its place inside the key
        src = np.repeat(starts - offs[:-1], lens) + np.arange(int(offs[-1]))
        raw = np.frombuffer(self.blob, np.uint8)[src].tobytes()
        return KeyBlob(raw, 0, offs, len(idx))

    @property
    def nbytes(self) -> int:
        return len(self.blob) + (0 if self.offs is None else self.offs.nbytes)


class _Fixed:
    """Fixed-width keys as the bare sequence `bisect` probes (no checks: ~3x quicker)."""

    __slots__ = ("b", "w", "n")

    def __init__(self, b: bytes, w: int, n: int) -> None:
        self.b, self.w, self.n = b, w, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> bytes:
        w = self.w
        i *= w
        return self.b[i:i + w]


class _Varied:
    """Keys at offsets as the bare sequence `bisect` probes."""

    __slots__ = ("b", "o", "n")

    def __init__(self, b: bytes, o: memoryview, n: int) -> None:
        self.b, self.o, self.n = b, o, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> bytes:
        o = self.o
        return self.b[o[i]:o[i + 1]]


class RowView(Sequence[Row]):
    """A pack's rows as tuples decoded from its columns, on demand.

    Every column kind decodes to the values the row store held (`Column.to_pylist`):
    NULLs, numerics at their scale, strings, dates, naive timestamps, floats with NaN
    and -0.0, booleans; other values (aware timestamps, bytes, mixed types) sit in
    "obj" columns as the objects themselves.

    >>> from .encode import encode
    >>> rv = RowView([encode([1, None]), encode(["x", "y"])], 2)
    >>> len(rv), rv[1], rv.take(np.array([1, 0]))
    (2, (None, 'y'), [(None, 'y'), (1, 'x')])
    """

    __slots__ = ("cols", "n")

    def __init__(self, cols: Sequence[Column], n: int) -> None:
        self.cols = list(cols)
        self.n = n

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, i: int) -> Row: ...

    @overload
    def __getitem__(self, i: slice) -> list[Row]: ...

    def __getitem__(self, i: int | slice) -> Row | list[Row]:
        if isinstance(i, slice):
            return self.take(np.arange(self.n)[i])
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        return tuple(c.value(i) for c in self.cols)

    def __iter__(self) -> Iterator[Row]:
        return iter(self.tolist())

    def take(self, idx: np.ndarray | list[int]) -> list[Row]:
        """The rows at positions idx as tuples (one decode per column)."""
        idx = np.asarray(idx, np.int64)
        if not self.cols:
            return [()] * len(idx)
        return list(zip(*(c.to_pylist(idx) for c in self.cols), strict=True))

    def tolist(self) -> list[Row]:
        if not self.cols:
            return [()] * self.n
        return list(zip(*(c.to_pylist() for c in self.cols), strict=True))


__all__ = ["KeyBlob", "RowView"]
