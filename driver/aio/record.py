"""Rows of the asyncio API: read by position or by column name, as asyncpg's Record."""

from __future__ import annotations

from collections.abc import Iterator

from cumulo.driver import core


class Record:
    """One result row; `r[0]`, `r["name"]`, `r.get("name")`, `dict(r.items())`."""

    __slots__ = ("_values", "_index")

    def __init__(self, values: tuple, index: dict[str, int]):
        self._values = values
        self._index = index

    @staticmethod
    def wrap(res: core.Result) -> list[Record]:
        """Turns a Result's rows into Records sharing one name index."""
        index = {c[0]: i for i, c in reversed(list(enumerate(res.columns or ())))}
        return [Record(row, index) for row in res.rows]

    def __getitem__(self, key: int | str | slice) -> object:
        if isinstance(key, str):
            try:
                return self._values[self._index[key]]
            except KeyError:
                raise KeyError(key) from None
        return self._values[key]

    def get(self, key: str, default: object = None) -> object:
        """Returns the named column's value, or `default`."""
        i = self._index.get(key)
        return default if i is None else self._values[i]

    def keys(self) -> Iterator[str]:
        return iter(sorted(self._index, key=self._index.__getitem__))

    def values(self) -> Iterator[object]:
        return iter(self._values)

    def items(self) -> Iterator[tuple[str, object]]:
        return zip(self.keys(), self._values, strict=False)

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[object]:
        return iter(self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Record):
            return self._values == other._values
        return self._values == other

    def __hash__(self) -> int:
        return hash(self._values)

    def __repr__(self) -> str:
        return "<Record " + " ".join(f"{k}={v!r}" for k, v in self.items()) + ">"
