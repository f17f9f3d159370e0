"""The jsonpath type's input function: PostgreSQL 15's grammar, printed back as jsonpath_out does.

`normalize` parses a path (jsonpath_gram.y: lax/strict, accessors `.key`
`."key"` `.*` `[*]` `[i, j to k, last]` `.**{m to n}`, methods, filters,
arithmetic, comparisons, `&&` `||` `!`, `exists`, `is unknown`, `starts with`,
`like_regex ... flag`) and prints it the way PostgreSQL stores and shows it:
keys quoted, numbers as numeric_out prints them, a binary expression in
parentheses when its priority does not exceed its parent's (the whole path's
top too), `<>` as `!=`. Errors are PostgreSQL's 42601 messages.

>>> normalize("$.a[*] ? (@ > 1)"), normalize("lax $.a + 1 * 2"), normalize("strict $.a[1,2 to last]")
('$."a"[*]?(@ > 1)', '($."a" + 1 * 2)', 'strict $."a"[1,2 to last]')
>>> normalize("$ ? (@.b == 1 && @.c == 2 && @.d <> 3)")
'$?((@."b" == 1 && @."c" == 2) && @."d" != 3)'
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ..errors import FeatureNotSupported, SQLError

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<var>\$(?:"(?:[^"\\]|\\.)*"|[A-Za-z_]\w*)?)
  | (?P<op>\*\*|==|!=|<>|<=|>=|&&|\|\||[<>!()\[\]{},.*?@+\-/%])
  | (?P<word>[A-Za-z_]\w*)
""", re.X)
_METHODS = ("type", "size", "abs", "floor", "ceiling", "double", "keyvalue")
_PRIORITY = {"||": 0, "&&": 1, "==": 2, "!=": 2, "<": 2, ">": 2, "<=": 2, ">=": 2,
             "starts with": 2, "+": 3, "-": 3, "*": 4, "/": 4, "%": 4}
_UNARY_PRIORITY = 5
_CMP = ("==", "!=", "<>", "<", ">", "<=", ">=")


def _error(msg: str) -> SQLError:
    return SQLError(msg, sqlstate="42601")


def _syntax(tok: tuple[str, str] | None) -> SQLError:
    if tok is None or tok[0] == "word":
        return _error("syntax error at end of jsonpath input")
    return _error(f'syntax error at or near "{tok[1]}" of jsonpath input')


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _syntax(("op", text[pos]))
        kind = m.lastgroup or ""
        if kind == "num" and m.end() < len(text) and (text[m.end()].isalnum() or text[m.end()] == "_"):
            junk = re.match(r"[\w.]*", text[m.start():]).group(0)  # type: ignore[union-attr]
            raise _error(f'trailing junk after numeric literal at or near "{junk}" of jsonpath input')
        if kind != "ws":
            out.append((kind, m.group(0)))
        pos = m.end()
    return out


def _numeric(text: str) -> str:
    """numeric_out of numeric_in(text): the scale the literal's digits and exponent give."""
    d = Decimal(text)
    mant, _, exp = text.lower().partition("e")
    frac = len(mant.split(".")[1]) if "." in mant else 0
    scale = max(0, frac - (int(exp) if exp else 0))
    return f"{d:.{scale}f}"


def _string(tok: str) -> str:
    return str(json.loads(tok, strict=False))


class _Parser:
    """Recursive descent over jsonpath_gram.y; nodes are tuples (see `_print`)."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str] | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, *values: str) -> bool:
        t = self.peek()
        return t is not None and t[1] in values and t[0] in ("op", "word")

    def take(self, value: str | None = None) -> tuple[str, str]:
        t = self.peek()
        if t is None or (value is not None and t[1] != value):
            raise _syntax(t)
        self.i += 1
        return t

    def parse(self) -> tuple[bool, Any]:
        strict = False
        if self.at("strict", "lax") and self.peek(1) is not None:
            strict = self.take()[1] == "strict"
        if self.peek() is None:
            raise _syntax(None)
        node = self.predicate()
        if self.peek() is not None:
            raise _syntax(self.peek())
        return strict, node

    # predicate := and ('||' and)*
    def predicate(self) -> Any:
        node = self.conjunction()
        while self.at("||"):
            self.take()
            node = ("bin", "||", node, self.conjunction())
        return node

    def conjunction(self) -> Any:
        node = self.negation()
        while self.at("&&"):
            self.take()
            node = ("bin", "&&", node, self.negation())
        return node

    def negation(self) -> Any:
        if self.at("!"):
            self.take()
            self.take("(")
            inner = self.predicate()
            self.take(")")
            return ("not", inner)
        if self.at("exists") and self.peek(1) == ("op", "("):
            self.take()
            self.take("(")
            inner = self.expr()
            self.take(")")
            return ("exists", inner)
        left = self.expr()
        t = self.peek()
        if t is not None and t[1] in _CMP and t[0] == "op":
            self.take()
            return ("bin", "!=" if t[1] == "<>" else t[1], left, self.expr())
        if self.at("starts") and self.peek(1) == ("word", "with"):
            self.i += 2
            t = self.take()
            if t[0] not in ("str", "var"):
                raise _syntax(t)
            return ("bin", "starts with", left, self._primary_token(t))
        if self.at("like_regex"):
            self.take()
            pat = self.take()
            if pat[0] != "str":
                raise _syntax(pat)
            flags = ""
            if self.at("flag"):
                self.take()
                f = self.take()
                if f[0] != "str":
                    raise _syntax(f)
                flags = _string(f[1])
                if any(c not in "ismxq" for c in flags):
                    raise _error("invalid input syntax for type jsonpath")
                if "x" in flags:
                    raise FeatureNotSupported(
                        'XQuery "x" flag (expanded regular expressions) is not implemented')
                flags = "".join(c for c in "ismxq" if c in flags)
            return ("like", left, _string(pat[1]), flags)
        if self.at("is") and left[0] == "paren":
            self.take()
            self.take("unknown")
            return ("unknown", left[1])
        return left

    # expr := term (('+'|'-') term)*
    def expr(self) -> Any:
        node = self.term()
        while self.at("+", "-"):
            op = self.take()[1]
            node = ("bin", op, node, self.term())
        return node

    def term(self) -> Any:
        node = self.unary()
        while self.at("*", "/", "%"):
            op = self.take()[1]
            node = ("bin", op, node, self.unary())
        return node

    def unary(self) -> Any:
        if self.at("+", "-"):
            op = self.take()[1]
            arg = self.unary()
            if arg[0] == "num" and not arg[2]:
                if op == "+":
                    return arg
                v = arg[1][1:] if arg[1].startswith("-") else "-" + arg[1]
                return ("num", v, [])
            return ("neg" if op == "-" else "pos", arg)
        return self.accessor_expr()

    def accessor_expr(self) -> Any:
        t = self.peek()
        if t == ("op", "("):
            self.take()
            inner = self.predicate()
            self.take(")")
            head: Any = ("paren", inner)
        else:
            head = self.primary()
        steps = self.accessors()
        if head[0] == "paren":
            if not steps:
                return head if self.at("is") else head[1]
            head = head[1]
        if head[0] in ("num", "str", "var", "root", "cur", "last", "null", "bool"):
            return (*head[:-1], head[-1] + steps) if steps else head
        return ("path", head, steps) if steps else head

    def primary(self) -> Any:
        return self._primary_token(self.take())

    def _primary_token(self, t: tuple[str, str]) -> Any:
        kind, v = t
        if kind == "num":
            return ("num", _numeric(v), [])
        if kind == "str":
            return ("str", _string(v), [])
        if kind == "var":
            if v == "$":
                return ("root", [])
            name = _string(v[1:]) if v[1:2] == '"' else v[1:]
            return ("var", name, [])
        if kind == "op" and v == "@":
            return ("cur", [])
        if kind == "word":
            low = v
            if low == "null":
                return ("null", [])
            if low in ("true", "false"):
                return ("bool", low == "true", [])
            if low == "last":
                return ("last", [])
        raise _syntax(t)

    def accessors(self) -> list[Any]:
        steps: list[Any] = []
        while True:
            if self.at("["):
                steps.append(self.subscript())
            elif self.at("?"):
                self.take()
                self.take("(")
                steps.append(("filter", self.predicate()))
                self.take(")")
            elif self.at("."):
                self.take()
                steps.append(self.member())
            elif self.peek() is not None and self.peek()[0] == "num" and self.peek()[1].startswith("."):  # type: ignore[index]
                raise _syntax(self.peek())
            else:
                return steps

    def member(self) -> Any:
        t = self.take()
        kind, v = t
        if kind == "op" and v == "*":
            return ("anykey",)
        if kind == "op" and v == "**":
            first: int | None = 0
            last: int | None = None
            if self.at("{"):
                self.take()
                first = self.level()
                last = first
                if self.at("to"):
                    self.take()
                    last = self.level()
                self.take("}")
            return ("any", first, last)
        if kind == "str":
            return ("key", _string(v))
        if kind == "word":
            if self.at("(") and (v in _METHODS or v == "datetime"):
                self.take("(")
                arg = None
                if v == "datetime" and not self.at(")"):
                    a = self.take()
                    if a[0] != "str":
                        raise _syntax(a)
                    arg = _string(a[1])
                self.take(")")
                return ("method", v, arg)
            return ("key", v)
        raise _syntax(t)

    def level(self) -> int | None:
        t = self.take()
        if t == ("word", "last"):
            return None
        if t[0] == "num" and t[1].isdigit():
            return int(t[1])
        raise _syntax(t)

    def subscript(self) -> Any:
        self.take("[")
        if self.at("*") and self.peek(1) == ("op", "]"):
            self.i += 2
            return ("anyarray",)
        items = []
        while True:
            lo = self.expr()
            hi = None
            if self.at("to"):
                self.take()
                hi = self.expr()
            items.append((lo, hi))
            if self.at(","):
                self.take()
                continue
            self.take("]")
            return ("index", items)


def _check(node: Any, in_filter: bool, in_subscript: bool) -> None:
    """`@` only inside filters, `last` only inside subscripts (flattenJsonPathParseItem)."""
    if isinstance(node, list):
        for x in node:
            _check(x, in_filter, in_subscript)
        return
    if not isinstance(node, tuple) or not node:
        return
    kind = node[0]
    if kind == "cur" and not in_filter:
        raise _error("@ is not allowed in root expressions")
    if kind == "last" and not in_subscript:
        raise _error("LAST is allowed only in array subscripts")
    if kind == "filter":
        _check(node[1], True, in_subscript)
        return
    if kind == "index":
        for lo, hi in node[1]:
            _check(lo, in_filter, True)
            _check(hi, in_filter, True)
        return
    for x in node[1:]:
        _check(x, in_filter, in_subscript)


def _priority(node: Any) -> int:
    kind = node[0]
    if kind == "path":
        return _priority(node[1])
    if kind == "bin":
        return _PRIORITY[node[1]]
    if kind in ("neg", "pos"):
        return _UNARY_PRIORITY
    return 6


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _print(node: Any, brackets: bool) -> str:
    kind = node[0]
    if kind == "path":
        return _print(node[1], brackets) + "".join(_step(s) for s in node[2])
    steps = node[-1] if kind in ("num", "str", "var", "root", "cur", "last", "null", "bool") else []
    if kind == "num":
        head = f"({node[1]})" if steps else node[1]
    elif kind == "str":
        head = _q(node[1])
    elif kind == "var":
        head = "$" + _q(node[1])
    elif kind in ("root", "cur", "last", "null"):
        head = {"root": "$", "cur": "@", "last": "last", "null": "null"}[kind]
    elif kind == "bool":
        head = "true" if node[1] else "false"
    elif kind == "bin":
        p = _PRIORITY[node[1]]
        body = (f"{_print(node[2], _priority(node[2]) <= p)} {node[1]} "
                f"{_print(node[3], _priority(node[3]) <= p)}")
        head = f"({body})" if brackets else body
    elif kind in ("neg", "pos"):
        body = ("-" if kind == "neg" else "+") + _print(node[1], _priority(node[1]) <= _UNARY_PRIORITY)
        head = f"({body})" if brackets else body
    elif kind == "not":
        head = f"!({_print(node[1], False)})"
    elif kind == "unknown":
        head = f"({_print(node[1], False)}) is unknown"
    elif kind == "exists":
        head = f"exists ({_print(node[1], False)})"
    elif kind == "like":
        body = f"{_print(node[1], _priority(node[1]) <= 6)} like_regex {_q(node[2])}"
        if node[3]:
            body += f' flag "{node[3]}"'
        head = f"({body})" if brackets else body
    else:  # pragma: no cover - every node kind is printed above
        raise AssertionError(kind)
    return head + "".join(_step(s) for s in steps)


def _step(s: Any) -> str:
    kind = s[0]
    if kind == "key":
        return "." + _q(s[1])
    if kind == "anykey":
        return ".*"
    if kind == "anyarray":
        return "[*]"
    if kind == "index":
        parts = [_print(lo, False) + ("" if hi is None else " to " + _print(hi, False))
                 for lo, hi in s[1]]
        return "[" + ",".join(parts) + "]"
    if kind == "any":
        first, last = s[1], s[2]
        if first == 0 and last is None:
            return ".**"
        if first == last:
            return ".**{" + ("last" if first is None else str(first)) + "}"
        lo = "last" if first is None else str(first)
        hi = "last" if last is None else str(last)
        return ".**{" + f"{lo} to {hi}" + "}"
    if kind == "method":
        if s[1] == "datetime":
            return ".datetime(" + ("" if s[2] is None else _q(s[2])) + ")"
        return f".{s[1]}()"
    if kind == "filter":
        return f"?({_print(s[1], False)})"
    raise AssertionError(kind)  # pragma: no cover


@lru_cache(maxsize=1024)
def normalize(text: str) -> str:
    """jsonpath_in then jsonpath_out: the path as PostgreSQL stores and prints it."""
    strict, node = _Parser(text).parse()
    _check(node, False, False)
    return ("strict " if strict else "") + _print(node, True)
