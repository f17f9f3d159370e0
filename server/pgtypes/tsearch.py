"""The full-text search types tsvector and tsquery: input, output, binary formats and matching.

A value is its canonical text (`str`), as tsvectorout / tsqueryout print it,
so equality, hashing, GROUP BY and DISTINCT work on the strings. A tsvector's
text lists its lexemes in byte order, each once, quoted (`'` doubled, `\\`
doubled), with its positions ascending and their weights (A, B, C; D is not
printed): `'cat':2,6A 'sat':3`. A tsquery's text is the infix form with
PostgreSQL's parentheses: `'a' & ( 'b' | !'c' ) <-> 'd':*AB`.

Functions read values back through `vector` and `query` (memoised); ranking
lives in `tsrank`. A query is
a tree of tuples: ("v", lexeme, weight mask, prefix), ("!", q), ("&", l, r),
("|", l, r), ("<>", l, r, distance). The weight mask has bit 3 for A down to
bit 0 for D, as in PostgreSQL's binary form.

>>> parse_tsvector("b:3 a:1,2B 'x y':4C z c:5A,1")
"'a':1,2B 'b':3 'c':1,5A 'x y':4C 'z'"
>>> parse_tsquery("(a | b) & !c <2> d:*A")
"( 'a' | 'b' ) & !'c' <2> 'd':*A"
>>> matches(parse_tsvector("a:1 b:2 c:3"), parse_tsquery("a <-> b & !d"))
True
"""

from __future__ import annotations

import functools
import struct
from typing import Any

from ..errors import InvalidBinaryRepresentation, SQLError, SyntaxError_

TSVECTOR, TSQUERY = 3614, 3615
MAXPOS = 16383
Vector = tuple[tuple[str, tuple[tuple[int, int], ...]], ...]  # (lexeme, ((pos, weight), ...))
Query = tuple[Any, ...] | None
_WEIGHT_OF = {"a": 3, "b": 2, "c": 1, "d": 0}
_LETTER = {3: "A", 2: "B", 1: "C", 0: ""}
PRIORITY = {"|": 1, "&": 2, "<>": 3, "!": 4}


# -- tsvector ---------------------------------------------------------------------------------


def _vec_error(s: str) -> SQLError:
    return SyntaxError_(f'syntax error in tsvector: "{s}"')


def _quote(lex: str) -> str:
    return "'" + lex.replace("\\", "\\\\").replace("'", "''") + "'"


def format_vector(entries: dict[str, set[tuple[int, int]]] | Vector) -> str:
    """The canonical text of lexemes with their (position, weight)s."""
    items = entries.items() if isinstance(entries, dict) else entries
    out = []
    for lex, poss in sorted(items, key=lambda p: p[0].encode()):
        best: dict[int, int] = {}
        for p, w in poss:
            best[p] = max(w, best.get(p, 0))
        text = _quote(lex)
        if best:
            text += ":" + ",".join(f"{p}{_LETTER[best[p]]}" for p in sorted(best))
        out.append(text)
    return " ".join(out)


def make_vector(entries: Any) -> str:
    """The canonical tsvector of (lexeme, position or 0, weight) triples; duplicates merge."""
    acc: dict[str, set[tuple[int, int]]] = {}
    for lex, pos, w in entries:
        s = acc.setdefault(lex, set())
        if pos:
            s.add((min(pos, MAXPOS), w))
    return format_vector(acc)


def _lexeme(s: str, i: int, stop: str) -> tuple[str, int]:
    """A quoted or bare lexeme at i (bare ones end at whitespace or a char of `stop`)."""
    out: list[str] = []
    n = len(s)
    if s[i] == "'":
        i += 1
        while True:
            if i >= n:
                raise _vec_error(s)
            c = s[i]
            if c == "\\" and i + 1 < n:
                out.append(s[i + 1])
                i += 2
            elif c == "'":
                if i + 1 < n and s[i + 1] == "'":
                    out.append("'")
                    i += 2
                else:
                    return "".join(out), i + 1
            else:
                out.append(c)
                i += 1
    while i < n and not s[i].isspace() and s[i] not in stop:
        if s[i] == "\\" and i + 1 < n:
            out.append(s[i + 1])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out), i


def parse_tsvector(text: str) -> str:
    """tsvectorin: text -> the canonical text (42601 on bad input)."""
    s = str(text)
    acc: dict[str, set[tuple[int, int]]] = {}
    n, i = len(s), 0
    while True:
        while i < n and s[i].isspace():
            i += 1
        if i >= n:
            return format_vector(acc)
        lex, i = _lexeme(s, i, ":")
        poss = acc.setdefault(lex, set())
        if i < n and s[i] == ":":
            i += 1
            while True:
                j = i
                while i < n and s[i].isdigit():
                    i += 1
                if i == j:
                    raise _vec_error(s)
                pos = int(s[j:i])
                if pos == 0:
                    raise SyntaxError_(f'wrong position info in tsvector: "{s}"')
                w = 0
                if i < n and s[i].lower() in _WEIGHT_OF:
                    w = _WEIGHT_OF[s[i].lower()]
                    i += 1
                elif i < n and s[i] == "*":  # NB: PostgreSQL also reads `*` as weight A
                    w = 3
                    i += 1
                poss.add((min(pos, MAXPOS), w))
                if i < n and s[i] == ",":
                    i += 1
                    continue
                if i < n and not s[i].isspace():
                    raise _vec_error(s)
                break


@functools.lru_cache(maxsize=4096)
def vector(v: str) -> Vector:
    """The (lexeme, ((position, weight), ...)) entries of a canonical tsvector."""
    out = []
    s, n, i = v, len(v), 0
    while i < n:
        if s[i].isspace():
            i += 1
            continue
        lex, i = _lexeme(s, i, ":")
        poss: list[tuple[int, int]] = []
        if i < n and s[i] == ":":
            i += 1
            while True:
                j = i
                while i < n and s[i].isdigit():
                    i += 1
                w = _WEIGHT_OF.get(s[i].lower(), 0) if i < n and s[i].isalpha() else 0
                poss.append((int(s[j:i]), w))
                i += 1 if i < n and s[i].isalpha() else 0
                if i < n and s[i] == ",":
                    i += 1
                    continue
                break
        out.append((lex, tuple(poss)))
    return tuple(out)


def sort_key(v: str) -> bytes:
    """The order of tsvector's btree operator class (silly_cmp_tsvector), as bytes that compare
    alike: the stored size, the lexeme count, then per lexeme: with positions first, the lexeme
    bytewise, more positions first, higher positions and weights first."""
    entries = vector(v)
    stroff = 0
    tail = []
    for lex, poss in entries:
        b = lex.encode()
        stroff += len(b)
        tail.append((b"\x00" if poss else b"\x01") + b.replace(b"\x00", b"\x00\x01") + b"\x00\x00")
        if poss:
            stroff = ((stroff + 1) & ~1) + 2 + 2 * len(poss)
            tail.append(struct.pack("!H", 0xFFFF - len(poss)) + b"".join(
                struct.pack("!HB", MAXPOS - p, 3 - w) for p, w in poss))
    return struct.pack("!ii", 8 + 4 * len(entries) + stroff, len(entries)) + b"".join(tail)


def encode_tsvector(v: str) -> bytes:
    """tsvectorsend: the lexeme count, then each lexeme's bytes, NUL, position count and
    positions (uint16: the weight in the top two bits)."""
    entries = vector(v)
    out = [struct.pack("!i", len(entries))]
    for lex, poss in entries:
        out.append(lex.encode() + b"\0" + struct.pack("!H", len(poss)))
        out += [struct.pack("!H", (w << 14) | p) for p, w in poss]
    return b"".join(out)


def decode_tsvector(data: bytes) -> str:
    """tsvectorrecv."""
    try:
        (n,) = struct.unpack_from("!i", data, 0)
        pos = 4
        acc: dict[str, set[tuple[int, int]]] = {}
        for _ in range(n):
            end = data.index(b"\0", pos)
            lex = data[pos:end].decode()
            (k,) = struct.unpack_from("!H", data, end + 1)
            pos = end + 3
            poss = set()
            for _ in range(k):
                (x,) = struct.unpack_from("!H", data, pos)
                pos += 2
                poss.add((x & 0x3FFF, x >> 14))
            acc[lex] = acc.get(lex, set()) | poss
    except (struct.error, ValueError, UnicodeDecodeError) as e:
        raise InvalidBinaryRepresentation("invalid tsvector in binary input") from e
    return format_vector(acc)


# -- tsquery ----------------------------------------------------------------------------------


def _q_error(s: str) -> SQLError:
    return SyntaxError_(f'syntax error in tsquery: "{s}"')


class _QueryParser:
    """tsquery's grammar: | below & below <-> (<N>) below ! ; parentheses; operands with
    optional `:*` (prefix) and weight letters. `operand` maps an operand's text to a subtree
    (to_tsquery runs it through a configuration; tsquery_in keeps it as it is)."""

    def __init__(self, s: str, operand: Any) -> None:
        self.s, self.i, self.operand = s, 0, operand

    def _skip(self) -> None:
        while self.i < len(self.s) and self.s[self.i].isspace():
            self.i += 1

    def _peek(self) -> str:
        self._skip()
        return self.s[self.i] if self.i < len(self.s) else ""

    def parse(self) -> Query:
        if not self._peek():
            return None
        q = self._or()
        if self._peek():
            raise _q_error(self.s)
        return q

    def _or(self) -> Query:
        left = self._and()
        while self._peek() == "|":
            self.i += 1
            left = _combine("|", left, self._and())
        return left

    def _and(self) -> Query:
        left = self._phrase()
        while self._peek() == "&":
            self.i += 1
            left = _combine("&", left, self._phrase())
        return left

    def _phrase(self) -> Query:
        left = self._unary()
        while self._peek() == "<":
            s, j = self.s, self.i + 1
            k = s.find(">", j)
            inner = s[j:k].strip() if k > 0 else ""
            if inner == "-":
                dist = 1
            elif inner.isdigit():
                dist = int(inner)
            else:
                raise _q_error(s)
            self.i = k + 1
            left = _combine("<>", left, self._unary(), dist)
        return left

    def _unary(self) -> Query:
        c = self._peek()
        if c == "!":
            self.i += 1
            q = self._unary()
            return None if q is None else ("!", q)
        if c == "(":
            self.i += 1
            q = self._or()
            if self._peek() != ")":
                raise _q_error(self.s)
            self.i += 1
            return q
        if not c or c in ")&|<":
            raise SyntaxError_(f'no operand in tsquery: "{self.s}"')
        return self._operand()

    def _operand(self) -> Query:
        s = self.s
        if s[self.i] == "'":
            text, self.i = _lexeme(s, self.i, "")
        else:
            j = self.i
            text, self.i = _lexeme(s, self.i, ":()!&|<")
            if self.i == j:
                raise _q_error(s)
        mask, prefix = 0, False
        if self.i < len(s) and s[self.i] == ":":
            self.i += 1
            while self.i < len(s) and (s[self.i] == "*" or s[self.i].lower() in _WEIGHT_OF):
                if s[self.i] == "*":
                    prefix = True
                else:
                    mask |= 1 << _WEIGHT_OF[s[self.i].lower()]
                self.i += 1
        return self.operand(text, mask, prefix)


def _combine(op: str, a: Query, b: Query, dist: int = 1) -> Query:
    """An operator node; an operand that vanished (a stop word) leaves the other one."""
    if a is None:
        return b
    if b is None:
        return a
    return (op, a, b, dist) if op == "<>" else (op, a, b)


def parse_query(s: str, operand: Any = None) -> Query:
    """A tsquery text as a tree (operands kept as written unless `operand` maps them)."""
    return _QueryParser(str(s), operand or (lambda t, m, p: ("v", t, m, p))).parse()


def format_query(q: Query, parent: int = 0, right_phrase: bool = False) -> str:
    """tsqueryout's infix text (PostgreSQL's parentheses and spacing)."""
    if q is None:
        return ""
    if q[0] == "v":
        _, lex, mask, prefix = q
        tail = ("*" if prefix else "") + "".join(
            ch for bit, ch in ((3, "A"), (2, "B"), (1, "C"), (0, "D")) if mask & (1 << bit))
        return _quote(lex) + (":" + tail if tail else "")
    if q[0] == "!":
        inner = q[1]
        text = format_query(inner, PRIORITY["!"])
        if inner[0] != "v" and inner[0] != "!":
            return f"!( {format_query(inner, 0)} )"
        return "!" + text
    op = q[0]
    prio = PRIORITY[op]
    sym = {"|": "|", "&": "&"}.get(op) or ("<->" if q[3] == 1 else f"<{q[3]}>")
    text = f"{format_query(q[1], prio)} {sym} {format_query(q[2], prio, op == '<>')}"
    if prio < parent or (op == "<>" and right_phrase):
        return f"( {text} )"
    return text


def parse_tsquery(text: str) -> str:
    """tsqueryin: text -> the canonical text (42601 on bad input)."""
    return format_query(parse_query(text))


@functools.lru_cache(maxsize=4096)
def query(v: str) -> Query:
    """The tree of a canonical tsquery."""
    return parse_query(v)


_OPCODE = {"!": 1, "&": 2, "|": 3, "<>": 4}


def encode_tsquery(v: str) -> bytes:
    """tsquerysend: the item count, then the items in PostgreSQL's order (an operator, its
    right operand, its left operand)."""
    items: list[bytes] = []

    def walk(q: Any) -> None:
        if q[0] == "v":
            items.append(bytes([1, q[2], int(q[3])]) + q[1].encode() + b"\0")
        elif q[0] == "!":
            items.append(bytes([2, 1]))
            walk(q[1])
        else:
            items.append(bytes([2, _OPCODE[q[0]]]) + (struct.pack("!h", q[3]) if q[0] == "<>"
                                                        else b""))
            walk(q[2])
            walk(q[1])

    tree = query(v)
    if tree is not None:
        walk(tree)
    return struct.pack("!i", len(items)) + b"".join(items)


def decode_tsquery(data: bytes) -> str:
    """tsqueryrecv."""
    pos = 4

    def item() -> Any:
        nonlocal pos
        kind = data[pos]
        if kind == 1:
            mask, prefix = data[pos + 1], bool(data[pos + 2])
            end = data.index(b"\0", pos + 3)
            lex = data[pos + 3:end].decode()
            pos = end + 1
            return ("v", lex, mask, prefix)
        op = {v: k for k, v in _OPCODE.items()}[data[pos + 1]]
        pos += 2
        if op == "!":
            return ("!", item())
        dist = 1
        if op == "<>":
            (dist,) = struct.unpack_from("!h", data, pos)
            pos += 2
        right = item()
        left = item()
        return (op, left, right, dist) if op == "<>" else (op, left, right)

    try:
        (n,) = struct.unpack_from("!i", data, 0)
        return format_query(item() if n else None)
    except (struct.error, ValueError, KeyError, IndexError, UnicodeDecodeError) as e:
        raise InvalidBinaryRepresentation("invalid tsquery in binary input") from e


# -- matching ----------------------------------------------------------------------------------


def _positions(vec: Vector, q: tuple[Any, ...]) -> list[tuple[int, int]] | None:
    """The (position, weight)s of an operand in a vector ([] when absent; None: present
    without positions)."""
    _, lex, mask, prefix = q
    found: list[tuple[int, int]] = []
    any_bare = False
    for word, poss in vec:
        if word == lex or (prefix and word.startswith(lex)):
            if not poss:
                any_bare = True
            found += [p for p in poss if not mask or mask & (1 << p[1])]
    if not found and any_bare and not mask:
        return None
    return found


def _eval(vec: Vector, q: Any) -> tuple[bool, set[int] | None]:
    """(matches, the positions where the match ends: None when unknown)."""
    kind = q[0]
    if kind == "v":
        ps = _positions(vec, q)
        if ps is None:
            return True, None
        return bool(ps), {p for p, _ in ps}
    if kind == "!":
        ok, _ = _eval(vec, q[1])
        return not ok, None
    lok, lpos = _eval(vec, q[1])
    if kind == "&" and not lok:
        return False, set()
    rok, rpos = _eval(vec, q[2])
    if kind == "|":
        return lok or rok, None if lpos is None or rpos is None else (lpos | rpos)
    if kind == "&":
        return rok, None if lpos is None or rpos is None else (lpos | rpos)
    if not (lok and rok):  # <N>: a right position N after a left one
        return False, set()
    if lpos is None or rpos is None:  # NB: without positions no phrase matches, as in PG
        return False, set()
    hit = {p for p in rpos if p - q[3] in lpos}
    return bool(hit), hit


def matches(v: str, q: str) -> bool:
    """tsvector @@ tsquery."""
    tree = query(q)
    return tree is not None and _eval(vector(v), tree)[0]
