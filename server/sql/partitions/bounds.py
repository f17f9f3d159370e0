"""Partition keys and bounds: what `PARTITION BY` and `FOR VALUES` mean.

The catalog keeps both as the text PostgreSQL prints for them, so that
`pg_get_partkeydef` and `pg_get_expr(relpartbound, oid)` (psql's `\\d+`, pg_dump)
read it back as it is, and every query engine reads the same thing:

- a partitioned table's `Table.partkey`: `RANGE (d)`, `LIST (region)`, `HASH (a, b)`;
- a partition's `Table.partbound`: `FOR VALUES FROM ('2020-01-01') TO (MAXVALUE)`,
  `FOR VALUES IN (1, NULL)`, `FOR VALUES WITH (modulus 4, remainder 1)`, `DEFAULT`.

Values are printed as PostgreSQL's `get_const_expr` prints them (an int4 or a
numeric with a point bare, a negative one or any other type quoted) and read back
through the key column type's input function. A range bound is a tuple of
`(flag, value)` pairs, flag -1 MINVALUE, 0 a value, 1 MAXVALUE, so that Python's
tuple order is the bound order (a key `(0, v)` never meets a None).

>>> k = PartKey("range", (1,), (23,), ("a",))
>>> b = parse_bound("FOR VALUES FROM (1) TO ('-5')", k)
>>> b.lo, b.hi, b.text(k)
(((0, 1),), ((0, -5),), "FOR VALUES FROM (1) TO ('-5')")
>>> parse_bound("FOR VALUES IN ('x', NULL)", PartKey("list", (1,), (25,), ("t",))).values
('x', None)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...pgtypes import oids as T
from ...pgtypes.text import text_decoder
from ..expr.casts import to_text
from ..kwlist import quote_ident
from ..toplevel import split_top_level

MINVALUE, VALUE, MAXVALUE = -1, 0, 1
STRATEGIES = {"range": "r", "list": "l", "hash": "h"}
_TOKEN = re.compile(r"'(?:[^']|'')*'|[^\s,()]+|[(),]")


@dataclass(frozen=True)
class PartKey:
    """A partitioned table's key: its strategy and key items (attnums, types, names). An
    expression item has attnum 0 and its text, as pg_get_partkeydef prints it, for a name;
    `uses` lists the attnums the items read (an UPDATE of others never moves a row)."""

    strategy: str  # range | list | hash
    attnums: tuple[int, ...]
    types: tuple[int, ...]
    names: tuple[str, ...]
    uses: tuple[int, ...] = ()

    @property
    def exprs(self) -> tuple[str, ...]:
        """The expression items' texts, in key order."""
        return tuple(n for a, n in zip(self.attnums, self.names, strict=True) if not a)

    def items(self, bare: bool = True) -> list[str]:
        """Each item as PostgreSQL prints it: a column's name quoted if need be, an
        expression as deparsed (`(a + 1)`), or, not `bare`, as pg_get_partkeydef lists it
        (`((a + 1))`: anything but a function call in parentheses)."""
        return [quote_ident(n) if a else _unwrapped(n) if bare else n
                for a, n in zip(self.attnums, self.names, strict=True)]

    def text(self) -> str:
        """pg_get_partkeydef's text."""
        return f"{self.strategy.upper()} ({', '.join(self.items(bare=False))})"

    def values_text(self, values: tuple[Any, ...]) -> str:
        """`(a, b) = (1, x)`: a failing row's key, as the 23514's DETAIL shows it."""
        shown = ", ".join("null" if v is None else ("t" if v else "f") if t == T.BOOL
                          else to_text(v, t) for v, t in zip(values, self.types, strict=True))
        return f"({', '.join(self.items())}) = ({shown})"


def _unwrapped(item: str) -> str:
    """An expression item without the parentheses pg_get_partkeydef puts around it (a
    function call has none: it does not start with one).

    >>> _unwrapped("((a + 1))"), _unwrapped("lower(b)"), _unwrapped("(a)::text")
    ('(a + 1)', 'lower(b)', '(a)::text')
    """
    if not item.startswith("("):
        return item
    depth = 0
    for i, ch in enumerate(item):  # NB: quotes hold no parenthesis in these texts' keys
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return item[1:-1] if i == len(item) - 1 else item
    return item


def key_items(text: str) -> list[str]:
    """The items of a `Table.partkey` text: column names unquoted, expressions as written.

    >>> key_items('RANGE ("A b", lower(x), ((a + 1)))')
    ['A b', 'lower(x)', '((a + 1))']
    """
    out = split_top_level(text.partition(" ")[2].strip()[1:-1])
    return [n[1:-1].replace('""', '"') if _QUOTED.fullmatch(n) else n for n in out]


_QUOTED = re.compile(r'"(?:[^"]|"")*"')


def parse_key(text: str, table: Any,
              expressions: Callable[[Any, tuple[str, ...]], tuple[list[int], list[int]]]
              | None = None) -> PartKey:
    """The PartKey of a `Table.partkey` text over the table's columns; `expressions` gives
    expression items' (types, attnums read) (`partitions.keyexprs`)."""
    strategy = text.partition(" ")[0]
    cols = {c.name: c for c in table.live_columns}
    names = key_items(text)
    exprs = tuple(n for n in names if n not in cols)
    types, reads = expressions(table, exprs) if exprs and expressions is not None else (
        [0] * len(exprs), [])
    it = iter(types)
    return PartKey(strategy.lower(), tuple(cols[n].attnum if n in cols else 0 for n in names),
                   tuple(cols[n].type_oid if n in cols else next(it) for n in names),
                   tuple(names), tuple(sorted({cols[n].attnum for n in names if n in cols}
                                              | set(reads))))


def literal(v: Any, oid: int) -> str:
    """One bound value as get_const_expr prints it (no type label)."""
    if v is None:
        return "NULL"
    text = to_text(v, oid)
    if oid == T.INT4 and not text.startswith("-"):
        return text
    if oid == T.NUMERIC and text[:1].isdigit() and any(ch in text for ch in ".eE"):
        return text
    if oid == T.BOOL:
        return text
    return "'" + text.replace("'", "''") + "'"


@dataclass(frozen=True)
class Bound:
    """One partition's bound (kind range, list, hash or default)."""

    kind: str
    lo: tuple[tuple[int, Any], ...] = ()
    hi: tuple[tuple[int, Any], ...] = ()
    values: tuple[Any, ...] = ()
    modulus: int = 0
    remainder: int = 0

    def text(self, key: PartKey) -> str:
        """The relpartbound text (pg_get_expr's)."""
        if self.kind == "default":
            return "DEFAULT"
        if self.kind == "hash":
            return f"FOR VALUES WITH (modulus {self.modulus}, remainder {self.remainder})"
        if self.kind == "list":
            return f"FOR VALUES IN ({', '.join(literal(v, key.types[0]) for v in self.values)})"

        def side(pairs: tuple[tuple[int, Any], ...]) -> str:
            return ", ".join("MINVALUE" if f == MINVALUE else "MAXVALUE" if f == MAXVALUE
                             else literal(v, t) for (f, v), t in zip(pairs, key.types, strict=True))
        return f"FOR VALUES FROM ({side(self.lo)}) TO ({side(self.hi)})"

    def holds(self, key: tuple[Any, ...]) -> bool:
        """Whether a row with these key values belongs here (a default's is its parent's say)."""
        if self.kind == "range":
            if any(v is None for v in key):
                return False
            k = tuple((VALUE, v) for v in key)
            return self.lo <= k < self.hi
        if self.kind == "list":
            return key[0] in self.values
        return self.kind == "default"

    def order(self) -> tuple[Any, ...]:
        """Where PostgreSQL lists this partition among its siblings (the Append's order)."""
        if self.kind == "range":
            return (0, self.lo)
        if self.kind == "list":
            vals = [v for v in self.values if v is not None]
            return (0, min(vals)) if vals else (1,)
        if self.kind == "hash":
            return (0, self.modulus, self.remainder)
        return (2,)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


def _value(tok: str, oid: int) -> Any:
    if tok.upper() == "NULL":
        return None
    if tok.startswith("'"):
        tok = tok[1:-1].replace("''", "'")
    return text_decoder(oid)(tok)


def _group(toks: list[str], i: int) -> tuple[list[str], int]:
    """The items of the parenthesised list starting at toks[i] == '(' and where it ends."""
    items: list[str] = []
    i += 1
    while toks[i] != ")":
        if toks[i] != ",":
            items.append(toks[i])
        i += 1
    return items, i + 1


@functools.lru_cache(maxsize=4096)
def parse_bound(text: str, key: PartKey) -> Bound:
    """The Bound of a `Table.partbound` text (kept: every catalog change builds every
    partitioned table's Partitioned again, from the same texts)."""
    if text == "DEFAULT":
        return Bound("default")
    toks = _tokens(text)
    kind = toks[2].upper()  # FOR VALUES <FROM | IN | WITH>
    if kind == "WITH":
        items, _ = _group(toks, 3)
        return Bound("hash", modulus=int(items[1]), remainder=int(items[3]))
    if kind == "IN":
        items, _ = _group(toks, 3)
        return Bound("list", values=tuple(_value(t, key.types[0]) for t in items))
    lo, i = _group(toks, 3)
    hi, _ = _group(toks, i + 1)
    return Bound("range", lo=_pairs(lo, key), hi=_pairs(hi, key))


def _pairs(items: list[str], key: PartKey) -> tuple[tuple[int, Any], ...]:
    out = []
    for tok, oid in zip(items, key.types, strict=True):
        u = tok.upper()
        out.append((MINVALUE, None) if u == "MINVALUE" else (MAXVALUE, None) if u == "MAXVALUE"
                   else (VALUE, _value(tok, oid)))
    return tuple(out)
