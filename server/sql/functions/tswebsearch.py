"""websearch_to_tsquery's syntax, read as PostgreSQL 15's gettoken_query_websearch reads it.

Why a state machine and not a pattern: what a character means depends on whether an operand
or an operator is awaited. Awaiting an operand, `-` is NOT, `"` opens a phrase (to the next
quote or the end), the tsquery operator characters `! & | ( ) <` are skipped, and anything
else starts a word, which ends at blank space, one of those characters, `"` or `:`.
Awaiting an operator, `or` (any case) is OR when no letter, digit, `-` or `_` follows it and
some operand comes later; the operator characters are skipped; anything else means an
implicit AND before the next operand. An operator left without an operand gets a stop word
in its place. The tokens are then put together as makepol does (NOT binds tightest and to
the right, then AND, then OR), and stop words drop out with the operator next to them
(clean_stopwords): `!stop` is gone, `x & stop` and `x | stop` are `x`.

>>> words = lambda t: ("v", t, 0, False) if t not in ("", "the") else None
>>> parse('a or -b "c d" the', words)
('|', ('v', 'a', 0, False), ('&', ('!', ('v', 'b', 0, False)), ('v', 'c d', 0, False)))
>>> parse("x or", words), parse("-", words)
(('&', ('v', 'x', 0, False), ('v', 'or', 0, False)), None)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_SKIPPED = frozenset("!&|()<")
_WORD_END = frozenset('!&|()<":')
_PRIORITY = {"!": 4, "&": 2, "|": 1}
_STOP = object()  # an operand that is nothing (pushStop)


def _is_or(text: str, i: int) -> bool:
    """parse_or_operator: `or` here, not part of a word, with an operand somewhere after."""
    if text[i:i + 2].lower() != "or" or i + 2 >= len(text):
        return False
    nxt = text[i + 2]
    if nxt in "-_" or nxt.isalnum():
        return False
    return text[i + 3:].strip() != ""


def _tokens(text: str) -> list[Any]:
    """("op", "!" | "&" | "|") and ("val", text) tokens, and _STOP."""
    out: list[Any] = []
    i, n, state = 0, len(text), "first"
    while True:
        if state != "operator":
            if i >= n:
                if state == "operand":
                    out.append(_STOP)
                return out
            c = text[i]
            if c == "-":
                out.append(("op", "!"))
                i, state = i + 1, "operand"
            elif c == '"':
                close = text.find('"', i + 1)
                close = n if close < 0 else close
                out.append(("val", text[i + 1:close]))
                i, state = min(close + 1, n), "operator"
            elif c in _SKIPPED:
                i, state = i + 1, "operand"
            elif c.isspace():
                i += 1
            else:
                j = i + 1
                while j < n and not text[j].isspace() and text[j] not in _WORD_END:
                    j += 1
                out.append(("val", text[i:j]))
                i, state = j, "operator"
        else:
            if i >= n:
                return out
            c = text[i]
            if _is_or(text, i):
                out.append(("op", "|"))
                i, state = i + 2, "operand"
            elif c in _SKIPPED or c.isspace():
                i += 1
            else:
                out.append(("op", "&"))
                state = "operand"


def _apply(op: str, operands: list[Any]) -> None:
    if op == "!":
        x = operands.pop()
        operands.append(None if x is None else ("!", x))
        return
    right, left = operands.pop(), operands.pop()
    operands.append(left if right is None else right if left is None else (op, left, right))


def parse(text: str, operand: Callable[[str], Any]) -> Any:
    """The query tree of `text` (None: nothing left); `operand` turns a word or a phrase's
    text into its tree (None when it is only stop words)."""
    operands: list[Any] = []
    stack: list[str] = []
    for tok in _tokens(text):
        if tok is _STOP:
            operands.append(None)
        elif tok[0] == "val":
            operands.append(operand(tok[1]))
        else:
            op = tok[1]
            while stack and (_PRIORITY[op] <= _PRIORITY[stack[-1]] if op != "!"
                             else _PRIORITY[op] < _PRIORITY[stack[-1]]):
                _apply(stack.pop(), operands)
            stack.append(op)
    while stack:
        _apply(stack.pop(), operands)
    return operands[-1] if operands else None
