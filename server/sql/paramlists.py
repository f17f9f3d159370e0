"""Long IN lists of parameters reach the binder without sqlglot parsing each item.

ORMs send `WHERE id IN ($1, $2, ..., $60000)` (SQLAlchemy's expanding parameters
through asyncpg, psycopg's server-side binding): sqlglot builds and walks a node per
item and the binder types each on its own, seconds for 60,000 items where
PostgreSQL takes milliseconds. Here such a list is cut to its first parameter before
sqlglot sees the text, `IN ($1)`, and `attach` then marks that IN node with every
parameter number (`meta["params"]`); the binder (`b_In`) makes the same `in_list` of
parameters as the written list would give, typing each as PostgreSQL does (the
IN's left side decides an untyped parameter's type), and the code generator
probes a set built once per execution (`codegen.g_in_list`).

Only lists of plain `$n` (no casts, no expressions), at least `MIN_ITEMS` long, whose
parameters appear nowhere else in the text, are cut; a text with a dollar-quoted
string is left alone.

>>> sql = "SELECT 1 WHERE x IN (" + ", ".join(f"${i}" for i in range(1, 71)) + ")"
>>> cut = split(sql)
>>> cut.text, cut.lists[1][:3], len(cut.lists[1])
('SELECT 1 WHERE x IN ($1 )', [1, 2, 3], 70)
>>> split("SELECT 1 WHERE x IN ($1, $2)") is None
True
>>> split(sql + " AND y = $5") is None  # $5 appears twice: left as written
True
"""

from __future__ import annotations

import re
from collections import Counter

from sqlglot import exp

MIN_ITEMS = 64
_LONG_IN = re.compile(
    r"(?P<skip>(?<!\w)[eE]'(?:[^'\\]|\\.|'')*'|'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\""
    r"|--[^\n]*|/\*.*?\*/)"
    r"|\bIN\s*\(\s*(?P<items>\$\d+(?:\s*,\s*\$\d+){" + str(MIN_ITEMS - 1) + r",})\s*\)",
    re.I | re.S)
_PARAM = re.compile(r"\$(\d+)")
_DOLLAR_QUOTE = re.compile(r"\$(?:[A-Za-z_\x80-\uffff][\w\x80-\uffff]*)?\$")


def might_have(sql: str) -> bool:
    """A cheap test that lets most statements skip `split`."""
    return "$" in sql and sql.count("$") >= MIN_ITEMS and sql.count(",") >= MIN_ITEMS - 1


class Cut:
    """A text with its long parameter IN lists cut (`split`): the lists by their first
    parameter, and where text was taken out, so that positions still point into the text
    as the client wrote it."""

    __slots__ = ("text", "lists", "holes")

    def __init__(self, text: str, lists: dict[int, list[int]],
                 holes: list[tuple[int, int]]) -> None:
        self.text = text
        self.lists = lists
        self.holes = holes  # (position in `text` after which chars were taken out, how many)

    def position(self, pos: int) -> int:
        """A 0-based position in `text` as a position in the written text.

        >>> Cut("", {}, [(10, 100), (20, 5)]).position(15), Cut("", {}, [(10, 100)]).position(3)
        (115, 3)
        """
        return pos + sum(n for at, n in self.holes if pos > at)

    def attach(self, tree: exp.Expression) -> None:
        """Marks each IN node that was cut with its parameter numbers (`meta["params"]`), and
        moves the nodes' text positions (`meta["start"]`, `meta["end"]`) back to the written
        text's."""
        lists = dict(self.lists)
        for node in tree.walk():
            meta = node._meta  # NB: most nodes have none; `meta` would make one each
            if meta:
                for key in ("start", "end"):
                    at = meta.get(key)
                    if isinstance(at, int):
                        meta[key] = self.position(at)
            if isinstance(node, exp.In):
                items = node.expressions
                if len(items) == 1 and isinstance(items[0], exp.Parameter):
                    p = items[0].this
                    got = lists.pop(int(p.this if isinstance(p, exp.Expression) else p), None)
                    if got is not None:
                        node.meta["params"] = got


def split(sql: str) -> Cut | None:
    """The text with each long parameter IN list cut to `IN ($first)`; None when there is
    no such list."""
    if not might_have(sql) or _DOLLAR_QUOTE.search(sql):
        return None
    uses: Counter[str] | None = None
    lists: dict[int, list[int]] = {}
    holes: list[tuple[int, int]] = []
    out: list[str] = []
    pos = size = 0
    for m in _LONG_IN.finditer(sql):
        items = m.group("items")
        if items is None:
            continue
        numbers = _PARAM.findall(items)
        if uses is None:
            uses = Counter(_PARAM.findall(sql))
        if any(uses[n] != 1 for n in numbers):
            continue  # NB: a parameter used elsewhere too: the list as written
        first = int(numbers[0])
        lists[first] = [int(n) for n in numbers]
        kept = sql[pos:m.start("items")] + f"${first} "  # NB: `$1)` would be a dollar quote
        out.append(kept)
        size += len(kept)
        holes.append((size - 1, len(items) - len(f"${first} ")))
        pos = m.end("items")
    if not lists:
        return None
    out.append(sql[pos:])
    return Cut("".join(out), lists, holes)
