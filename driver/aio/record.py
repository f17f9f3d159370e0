"""Rows of the asyncio API: read by position or by column name, as asyncpg's Record.

A Record is a tuple (so positional access, slicing, equality with tuples and
hashing run at C speed) whose class carries the column-name index. One such
class exists per distinct list of column names, cached, so wrapping a
result is `list(map(cls, rows))` with no per-row Python code.
"""

from __future__ import annotations

from collections.abc import Iterator

from cumulo.driver import core


class Record(tuple):
    """One result row; `r[0]`, `r["name"]`, `r.get("name")`, `dict(r.items())`."""

    __slots__ = ()
    _index: dict[str, int] = {}
    _names: tuple[str, ...] = ()

    @staticmethod
    def wrap(res: core.Result) -> list[Record]:
        """Turns a Result's rows into Records of the class for its column names."""
        cls = record_class(tuple(c[0] for c in res.columns or ()))
        return list(map(cls, res.rows))

    def __getitem__(self, key: int | str | slice) -> object:  # type: ignore[override]
        if type(key) is str:
            try:
                return tuple.__getitem__(self, self._index[key])
            except KeyError:
                raise KeyError(key) from None
        return tuple.__getitem__(self, key)  # type: ignore[index]  # int or slice here

    def get(self, key: str, default: object = None) -> object:
        """Returns the named column's value, or `default`."""
        i = self._index.get(key)
        return default if i is None else tuple.__getitem__(self, i)

    def keys(self) -> Iterator[str]:
        return iter(self._names)

    def values(self) -> Iterator[object]:
        return tuple.__iter__(self)

    def items(self) -> Iterator[tuple[str, object]]:
        return zip(self._names, tuple.__iter__(self), strict=False)

    def __repr__(self) -> str:
        return "<Record " + " ".join(f"{k}={v!r}" for k, v in self.items()) + ">"


_classes: dict[tuple[str, ...], type[Record]] = {}


def record_class(names: tuple[str, ...]) -> type[Record]:
    """Returns the Record class for these column names (the first of duplicates wins)."""
    cls = _classes.get(names)
    if cls is None:
        index = {n: i for i, n in reversed(list(enumerate(names)))}
        cls = type("Record", (Record,), {"__slots__": (), "_index": index, "_names": names})
        if len(_classes) < 1024:
            _classes[names] = cls
    return cls
