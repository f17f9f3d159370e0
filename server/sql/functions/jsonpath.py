"""SQL/JSON path: jsonb_path_query, _query_array, _query_first, _exists, _match (lax mode subset).

A path is compiled once per text into a list of steps: `$`, `.key`, `."key"`,
`.*`, `[n]`, `[n to m]`, `[last]`, `[*]`, and filters `? (predicate)` whose
predicates compare `@`-relative paths (or `$`) with literals using == != <>
< <= > >=, combine with && || !, and test `exists (...)`, `like_regex` and
`starts with`, and the item methods .type(), .size(), .abs(), .floor(), .ceiling() and
.double() (other methods are 0A000; arithmetic is not read). Evaluation is PostgreSQL's
lax mode: member access on an array applies to its elements, a missing key or index yields nothing, and a
comparison with an array compares its elements. A path whose first word is
`strict` is evaluated the same way (strict-mode errors are not raised).

>>> query('{"a": [1, 2, 3]}', "$.a[*] ? (@ > 1)")
['2', '3']
>>> query('{"a": {"b": [{"c": 1}, {"c": 5}]}}', '$.a.b.c'), exists('{"a": 1}', "$.b")
(['1', '5'], False)
"""

from __future__ import annotations

import operator
import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ...errors import FeatureNotSupported, SQLError
from ...pgtypes import oids as T
from ...pgtypes.jsonbtext import loads
from .jsonfns import jsonb_text
from .registry import register

JB = T.JSONB
_TOKEN = re.compile(r"""\s*(?:(?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?P<str>"(?:[^"\\]|\\.)*")|
    (?P<op>==|!=|<>|<=|>=|&&|\|\||[<>!()\[\]{},.*?@$:])|(?P<word>[A-Za-z_][A-Za-z_0-9]*))""", re.X)


def _syntax(near: Any) -> SQLError:
    """PostgreSQL's jsonpath syntax error: at the offending token, or at the end."""
    if near is None:
        return SQLError("syntax error at end of jsonpath input", sqlstate="42601")
    return SQLError(f'syntax error at or near "{near}" of jsonpath input', sqlstate="42601")


def _tokens(path: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(path):
        if path[pos:].strip() == "":
            break
        m = _TOKEN.match(path, pos)
        if not m or m.end() == pos:
            raise _syntax(path[pos:].split()[0])
        pos = m.end()
        kind = m.lastgroup
        v = m.group(kind)  # type: ignore[arg-type]
        if kind == "num":
            out.append(("lit", Decimal(v)))
        elif kind == "str":
            out.append(("lit", loads(v)))
        elif kind == "word" and v in ("true", "false", "null"):
            out.append(("lit", {"true": True, "false": False, "null": None}[v]))
        else:
            out.append((kind or "op", v))
    return out


class _Parser:
    """Recursive descent over the tokens: path := root step*; predicates inside filters."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.toks = _tokens(path)
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, Any] | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def at(self, *values: str) -> bool:
        """Is the next token one of these operators or words?"""
        t = self.peek()
        return t is not None and t[0] != "lit" and t[1] in values

    def take(self, value: str | None = None) -> tuple[str, Any]:
        t = self.peek()
        if t is None or (value is not None and t[1] != value):
            raise _syntax(None if t is None else t[1])
        self.i += 1
        return t

    def parse(self) -> list[Any]:
        if self.at("lax", "strict"):
            self.take()
        p = self.predicate()
        nxt = self.peek()
        if nxt is not None:
            raise _syntax(nxt[1])
        return p[1] if p[0] == "exists" and p[1][0][0] in ("root", "lit") else [p]

    def path_expr(self) -> list[Any]:
        t = self.take()
        if t[1] not in ("$", "@"):
            if t[0] == "lit":
                return [("lit", t[1])]
            raise _syntax(t[1])
        steps: list[Any] = [("root", t[1])]
        while self.at(".", "[", "?"):
            op = self.take()[1]
            if op == ".":
                k = self.take()
                if k[0] == "word" and self.at("("):  # an item method: .size(), .type() ...
                    self.take("(")
                    self.take(")")
                    if k[1] not in _METHODS:
                        raise FeatureNotSupported(
                            f"jsonpath item method .{k[1]}() is not supported")
                    steps.append(("method", k[1]))
                else:
                    steps.append(("any",) if k[1] == "*" else ("key", k[1]))
            elif op == "[":
                steps.append(self.subscript())
            else:
                self.take("(")
                steps.append(("filter", self.predicate()))
                self.take(")")
        return steps

    def subscript(self) -> Any:
        if self.at("*"):
            self.take()
            self.take("]")
            return ("all",)
        items = []
        while True:
            lo = self.index_value()
            hi = lo
            if self.at("to"):
                self.take()
                hi = self.index_value()
            items.append((lo, hi))
            if self.take()[1] == "]":
                return ("idx", items)

    def index_value(self) -> Any:
        t = self.take()
        if t[1] == "last":
            return "last"
        if t[0] != "lit" or not isinstance(t[1], Decimal):
            raise _syntax(t[1])
        return int(t[1])

    def predicate(self) -> Any:
        left = self.conjunction()
        while self.at("||"):
            self.take()
            left = ("or", left, self.conjunction())
        return left

    def conjunction(self) -> Any:
        left = self.unary()
        while self.at("&&"):
            self.take()
            left = ("and", left, self.unary())
        return left

    def unary(self) -> Any:
        t = self.peek()
        if t and t[1] == "!":
            self.take()
            return ("not", self.unary())
        if t and t[1] == "(":
            self.take()
            p = self.predicate()
            self.take(")")
            return p
        if t and t[1] == "exists":
            self.take()
            self.take("(")
            p = self.path_expr()
            self.take(")")
            return ("exists", p)
        left = self.path_expr()
        t = self.peek()
        if t and t[1] in ("==", "!=", "<>", "<", "<=", ">", ">="):
            self.take()
            return ("cmp", t[1], left, self.path_expr())
        if t and t[1] == "like_regex":
            self.take()
            return ("regex", left, self.take()[1])
        if t and t[1] == "starts":
            self.take()
            self.take("with")
            return ("starts", left, self.path_expr())
        return ("exists", left)


@lru_cache(maxsize=256)
def compile_path(path: str) -> list[Any]:
    return _Parser(path).parse()


def _unwrap(vals: list[Any]) -> list[Any]:
    out = []
    for v in vals:
        out.extend(v if isinstance(v, list) else [v])
    return out


def _eval(steps: list[Any], root: Any, current: Any) -> list[Any]:
    kind = steps[0][0]
    if kind == "lit":
        return [steps[0][1]]
    vals = [root if steps[0][1] == "$" else current]
    for st in steps[1:]:
        k = st[0]
        if k == "key":
            vals = [v[st[1]] for v in _unwrap(vals) if isinstance(v, dict) and st[1] in v]
        elif k == "any":
            vals = [x for v in _unwrap(vals) if isinstance(v, dict) for x in v.values()]
        elif k == "all":
            vals = _unwrap(vals)
        elif k == "idx":
            out = []
            for v in vals:
                arr = v if isinstance(v, list) else [v]
                for lo, hi in st[1]:
                    a = len(arr) - 1 if lo == "last" else lo
                    b = len(arr) - 1 if hi == "last" else hi
                    out += [arr[j] for j in range(max(a, 0), min(b, len(arr) - 1) + 1)]
            vals = out
        elif k == "filter":
            vals = [v for v in _unwrap(vals) if _pred(st[1], root, v) is True]
        elif k == "method":  # NB: lax mode: .type() and .size() see arrays whole
            vals = [_METHODS[st[1]](v) for v in (vals if st[1] in ("type", "size")
                                                 else _unwrap(vals))]
    return vals


def _type(v: Any) -> str:
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if isinstance(v, str):
        return "string"
    if isinstance(v, bool):
        return "boolean"
    return "null" if v is None else "number"


def _numeric(name: str, fn: Any) -> Any:
    def method(v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, int | float | Decimal):
            raise SQLError(f"jsonpath item method .{name}() can only be applied to a numeric value",
                           sqlstate="22036")
        return fn(v)
    return method


def _double(v: Any) -> Any:
    """float8 of a number or numeric string, back as numeric (float8_numeric's digits)."""
    if isinstance(v, str) or (isinstance(v, int | float | Decimal) and not isinstance(v, bool)):
        try:
            f = float(v)
        except ValueError:
            raise SQLError('string argument of jsonpath item method .double() is not a valid '
                           'representation of a double precision number', sqlstate="22036") from None
        if f != f or f in (float("inf"), float("-inf")):
            raise SQLError("numeric argument of jsonpath item method .double() is out of range "
                           "for type double precision", sqlstate="22036")
        if not isinstance(v, str):
            return v  # NB: a number stays the numeric it was (1.10 keeps its scale)
        d = Decimal(repr(f))
        return d.to_integral_value() if d == d.to_integral_value() else d
    raise SQLError("jsonpath item method .double() can only be applied to a string or numeric "
                   "value", sqlstate="22036")


_METHODS: dict[str, Any] = {
    "double": _double,
    "type": _type, "size": lambda v: len(v) if isinstance(v, list) else 1,
    "abs": _numeric("abs", abs),
    "floor": _numeric("floor", lambda v: Decimal(v).to_integral_value(rounding="ROUND_FLOOR")),
    "ceiling": _numeric("ceiling",
                        lambda v: Decimal(v).to_integral_value(rounding="ROUND_CEILING"))}


_CMP = {"==": operator.eq, "!=": operator.ne, "<>": operator.ne, "<": operator.lt,
        "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _compare(op: str, a: Any, b: Any) -> bool | None:
    if isinstance(a, bool) != isinstance(b, bool):
        return None
    num = (int, float, Decimal)
    if isinstance(a, num) and isinstance(b, num) or isinstance(a, str) and isinstance(b, str) \
            or isinstance(a, bool) and isinstance(b, bool):
        return bool(_CMP[op](a, b))
    if a is None or b is None:
        return (a is None and b is None) if op == "==" else \
            (not (a is None and b is None)) if op in ("!=", "<>") else None
    return None


def _pred(p: Any, root: Any, cur: Any) -> bool | None:
    k = p[0]
    if k == "and":
        x, y = _pred(p[1], root, cur), _pred(p[2], root, cur)
        return False if x is False or y is False else None if x is None or y is None else True
    if k == "or":
        x, y = _pred(p[1], root, cur), _pred(p[2], root, cur)
        return True if x is True or y is True else None if x is None or y is None else False
    if k == "not":
        x = _pred(p[1], root, cur)
        return None if x is None else not x
    if k == "exists":
        return bool(_eval(p[1], root, cur))
    left = _unwrap(_eval(p[2] if k == "cmp" else p[1], root, cur))
    if k == "regex":
        return any(isinstance(v, str) and re.search(p[2], v) is not None for v in left)
    right = _unwrap(_eval(p[3] if k == "cmp" else p[2], root, cur))
    if k == "starts":
        return any(isinstance(a, str) and isinstance(b, str) and a.startswith(b)
                   for a in left for b in right)
    results = [_compare(p[1], a, b) for a in left for b in right]
    return True if True in results else None if None in results else False


_PREDICATES = ("cmp", "and", "or", "not", "exists", "regex", "starts")


def _run(doc: str, path: str) -> list[Any]:
    v = loads(doc)
    steps = compile_path(path)
    if steps[0][0] in _PREDICATES:  # a predicate path ('$.a == 1') yields its truth value
        return [_pred(steps[0], v, v)]
    return _eval(steps, v, v)


def query(doc: str, path: str) -> list[str]:
    return [jsonb_text(x) for x in _run(doc, path)]


def exists(doc: str, path: str) -> bool:
    return bool(_run(doc, path))


@register("jsonb_path_query", args=[JB, T.TEXT], returns=JB, set_returning=True)
def jsonb_path_query(doc: str, path: str) -> list[str]:
    """Returns every item the path selects, one row each."""
    return query(doc, path)


@register("jsonb_path_query_array", args=[JB, T.TEXT], returns=JB)
def jsonb_path_query_array(doc: str, path: str) -> str:
    """Returns the items the path selects as a jsonb array."""
    return jsonb_text(_run(doc, path))


@register("jsonb_path_query_first", args=[JB, T.TEXT], returns=JB)
def jsonb_path_query_first(doc: str, path: str) -> str | None:
    """Returns the first item the path selects (NULL if none)."""
    items = _run(doc, path)
    return jsonb_text(items[0]) if items else None


@register("jsonb_path_exists", args=[JB, T.TEXT], returns=T.BOOL)
def jsonb_path_exists(doc: str, path: str) -> bool:
    """Does the path select any item?"""
    return exists(doc, path)


@register("jsonb_path_match", args=[JB, T.TEXT], returns=T.BOOL, strict=True)
def jsonb_path_match(doc: str, path: str) -> bool | None:
    """Returns the result of a predicate path ('$.a == 1'); NULL when it is unknown."""
    items = _run(doc, path)
    if len(items) == 1 and isinstance(items[0], bool | type(None)):
        return items[0]
    raise SQLError("single boolean result is expected", sqlstate="22038")
