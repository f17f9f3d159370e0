"""CHECK constraints printed the way `pg_get_constraintdef(oid [, pretty])` prints them.

PostgreSQL deparses the stored expression tree. Plain mode wraps every
operator in parentheses (`CHECK (((x > 0) AND (x < 10)))`); pretty mode, which
psql's `\\d` uses, keeps only the parentheses precedence needs
(`CHECK (x > 0 AND x < 10)`, but `(x + 1) > 2`). Literals show the type they
were coerced to (`'a'::text`, `'-5'::integer`), `IN (...)` becomes
`= ANY (ARRAY[...])`, BETWEEN becomes two comparisons, LIKE is `~~`, and a
varchar column compared with text is cast (`(v)::text`). SQLAlchemy's
reflection and psql show this text, so Cumulo rebuilds it from the stored SQL
and the table's column types. Shapes it does not know fall back to the
stored text, parenthesised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import sqlglot
from sqlglot import exp

from ...pgtypes import oids as T
from ..expr.types import datatype_oid
from .typetext import cast_name, format_type, number_type, quote_literal

_CMP: dict[type, str] = {
    exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<=",
    exp.Like: "~~", exp.ILike: "~~*", exp.RegexpLike: "~"}
_NEGATED = {"~~": "!~~", "~~*": "!~~*", "~": "!~"}
_ARITH: dict[type, tuple[str, int]] = {
    exp.Add: ("+", 1), exp.Sub: ("-", 1), exp.Mul: ("*", 2), exp.Div: ("/", 2),
    exp.Mod: ("%", 2), exp.DPipe: ("||", 0)}
_VARCHARISH = (T.VARCHAR, T.NAME)
_INTS = (T.INT2, T.INT4, T.INT8)
_KEYWORDS: dict[type, str] = {
    exp.CurrentTimestamp: "CURRENT_TIMESTAMP", exp.CurrentDate: "CURRENT_DATE",
    exp.CurrentTime: "CURRENT_TIME", exp.Localtimestamp: "LOCALTIMESTAMP",
    exp.CurrentUser: "CURRENT_USER", exp.Uuid: "gen_random_uuid()"}
NOW_STANDIN = "cumulo_pg_now__"
# Text-search functions whose first argument is a regconfig when they get this many arguments
_REGCONFIG_FIRST = {**dict.fromkeys(("to_tsvector", "to_tsquery", "plainto_tsquery",
                                     "phraseto_tsquery", "websearch_to_tsquery"), 2),
                    "json_to_tsvector": 3, "jsonb_to_tsvector": 3, "ts_headline": 4}


def _numeric_target(types: list[int | None]) -> int | None:
    """The type mixed numeric operands are coerced to (None: operators exist as they are)."""
    known = {t for t in types if t is not None}
    if not known or not known <= {*_INTS, T.NUMERIC, T.FLOAT4, T.FLOAT8}:
        return None
    for t in (T.FLOAT8, T.FLOAT4, T.NUMERIC):
        if t in known:
            return t if len(known) > 1 else None
    return None


@dataclass(frozen=True)
class _Out:
    text: str
    kind: str  # atom | arith | cmp | and | or | not | test
    prec: int = 9
    type: int | None = None


class _Deparser:
    def __init__(self, types: dict[str, int], pretty: bool) -> None:
        self.types = types
        self.pretty = pretty

    def wrap(self, text: str) -> str:
        return text if self.pretty else f"({text})"

    def child(self, o: _Out, parent: str, prec: int = 0, right: bool = False) -> str:
        """A sub-expression's text, parenthesised in pretty mode where precedence needs it."""
        if not self.pretty or o.kind in ("atom", "test") and parent != "not":
            return o.text
        if parent == "and":
            return f"({o.text})" if o.kind == "or" else o.text
        if parent == "or":
            return o.text
        if parent == "not":
            return o.text if o.kind in ("atom", "cmp", "test") else f"({o.text})"
        if parent == "cmp":
            return o.text if o.kind == "atom" else f"({o.text})"
        if parent == "arith":
            if o.kind == "atom":
                return o.text
            if o.kind == "arith" and (o.prec > prec or o.prec == prec and not right):
                return o.text
            return f"({o.text})"
        return f"({o.text})"

    def literal(self, node: exp.Expression, want: int | None) -> _Out | None:
        if isinstance(node, exp.Literal) and node.is_string:
            t = want if want not in (None, *_VARCHARISH) else T.TEXT
            return _Out(f"{quote_literal(node.this)}::{cast_name(t)}", "atom", type=t)
        if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) \
                and not node.this.is_string:
            num = "-" + str(node.this.this)
            t = number_type(num)
            return _Out(f"{quote_literal(num)}::{cast_name(t)}", "atom", type=t)
        return None

    def operand(self, node: exp.Expression, other: exp.Expression) -> _Out:
        """One side of a comparison: a string literal takes the other side's type."""
        lit = self.literal(node, self.static_type(other))
        return lit if lit is not None else self.dep(node)

    def static_type(self, node: exp.Expression) -> int | None:
        if isinstance(node, exp.Paren):
            return self.static_type(node.this)
        if isinstance(node, exp.Column):
            return self.types.get(node.name)
        if isinstance(node, exp.Cast):
            return datatype_oid(node.args["to"])[0]
        if isinstance(node, exp.Literal):
            return None if node.is_string else number_type(str(node.this))
        return None

    def column(self, node: exp.Column, versus_text: bool) -> _Out:
        name = node.sql("postgres")
        t = self.types.get(node.name)
        if versus_text and t in _VARCHARISH:
            return _Out(f"{name}::text" if self.pretty else f"({name})::text", "atom", type=T.TEXT)
        return _Out(name, "atom", type=t)

    def coerce(self, o: _Out, target: int | None) -> _Out:
        """Adds the implicit cast PostgreSQL shows, `(x)::numeric` (`x::numeric` when pretty)."""
        if target is None or o.type is None or o.type == target:
            return o
        text = o.text if self.pretty or o.text.startswith("(") else f"({o.text})"
        return _Out(f"{text}::{format_type(target, -1)}", "atom", type=target)

    def compare(self, op: str, left: exp.Expression, right: exp.Expression) -> _Out:
        lt, rt = self.static_type(left), self.static_type(right)
        target = _numeric_target([lt, rt])
        if target is not None:
            a, b = (self.child(self.coerce(self.dep(n), target), "cmp") for n in (left, right))
            return _Out(self.wrap(f"{a} {op} {b}"), "cmp")
        texty = (lt in _VARCHARISH and (rt is None or rt == T.TEXT)) or \
            (rt in _VARCHARISH and (lt is None or lt == T.TEXT))
        sides = []
        for node, other in ((left, right), (right, left)):
            if texty and isinstance(node, exp.Column):
                sides.append(self.column(node, True))
            else:
                sides.append(self.operand(node, other))
        a, b = (self.child(s, "cmp") for s in sides)
        return _Out(self.wrap(f"{a} {op} {b}"), "cmp")

    def any_all(self, node: exp.In, negate: bool) -> _Out:
        want = self.static_type(node.this)
        target = _numeric_target([want, *(self.static_type(e) for e in node.expressions)])
        items = [self.coerce(self.literal(e, want) or self.dep(e), target)
                 for e in node.expressions]
        op = "<> ALL" if negate else "= ANY"
        lhs = self.child(self.coerce(self.dep(node.this), target), "cmp")
        arr = ", ".join(i.text for i in items)
        return _Out(self.wrap(f"{lhs} {op} (ARRAY[{arr}])"), "cmp")

    def boolean(self, kind: str, node: exp.Expression) -> _Out:
        parts: list[exp.Expression] = []
        cls = exp.And if kind == "and" else exp.Or

        def flatten(n: exp.Expression) -> None:
            while isinstance(n, exp.Paren):
                n = n.this
            if isinstance(n, cls):
                flatten(n.this)
                flatten(n.expression)
            else:
                parts.append(n)

        flatten(node)
        word = f" {kind.upper()} "
        return _Out(self.wrap(word.join(self.child(self.dep(p), kind) for p in parts)), kind)

    def dep(self, node: exp.Expression) -> _Out:
        if isinstance(node, exp.Paren):
            return self.dep(node.this)
        lit = self.literal(node, None)
        if lit is not None:
            return lit
        if isinstance(node, exp.Column):
            return self.column(node, False)
        if isinstance(node, exp.Literal):
            return _Out(str(node.this), "atom", type=number_type(str(node.this)))
        if isinstance(node, exp.Boolean):
            return _Out("true" if node.this else "false", "atom", type=T.BOOL)
        if isinstance(node, exp.Null):
            return _Out("NULL", "atom")
        if isinstance(node, exp.And):
            return self.boolean("and", node)
        if isinstance(node, exp.Or):
            return self.boolean("or", node)
        if isinstance(node, exp.Not):
            inner = node.this
            while isinstance(inner, exp.Paren):
                inner = inner.this
            if isinstance(inner, exp.In):
                return self.any_all(inner, True)
            if isinstance(inner, exp.Is):
                return self.dep(exp.Is(this=inner.this, expression=inner.expression,
                                       negate=not inner.args.get("negate")))
            body = self.child(self.dep(inner), "not")
            return _Out(self.wrap(f"NOT {body}"), "not")
        if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null | exp.Boolean):
            value = "NULL" if isinstance(node.expression, exp.Null) else \
                ("TRUE" if node.expression.this else "FALSE")
            what = f"IS NOT {value}" if node.args.get("negate") else f"IS {value}"
            return _Out(self.wrap(f"{self.child(self.dep(node.this), 'cmp')} {what}"), "test")
        if isinstance(node, exp.In) and node.expressions:
            return self.any_all(node, False)
        if isinstance(node, exp.Between):
            both = exp.And(this=exp.GTE(this=node.this, expression=node.args["low"]),
                           expression=exp.LTE(this=node.this, expression=node.args["high"]))
            return self.dep(both)
        if type(node) in _CMP:
            op = _CMP[type(node)]
            if node.args.get("negate"):
                op = _NEGATED.get(op, op)
            return self.compare(op, node.this, node.expression)
        if type(node) in _ARITH:
            op, prec = _ARITH[type(node)]
            target = _numeric_target([self.static_type(node.this),
                                      self.static_type(node.expression)])
            left = self.coerce(self.operand(node.this, node.expression), target)
            right = self.coerce(self.operand(node.expression, node.this), target)
            a = self.child(left, "arith", prec)
            b = self.child(right, "arith", prec, right=True)
            return _Out(self.wrap(f"{a} {op} {b}"), "arith", prec)
        if type(node) in _KEYWORDS:
            return _Out(_KEYWORDS[type(node)], "atom")
        if isinstance(node, exp.Anonymous) and node.name.lower() == NOW_STANDIN:
            return _Out("now()", "atom", type=T.TIMESTAMPTZ)
        if isinstance(node, exp.Interval) and isinstance(node.this, exp.Literal):
            unit = node.args.get("unit")
            text = f"{node.this.this} {unit.name.lower()}" if unit is not None else node.this.this
            return _Out(f"{quote_literal(text)}::interval", "atom", type=T.INTERVAL)
        if isinstance(node, exp.Cast):
            oid, typmod = datatype_oid(node.args["to"])
            inner = node.this
            name = format_type(oid, typmod)
            if isinstance(inner, exp.Literal) and inner.is_string:
                return _Out(f"{quote_literal(inner.this)}::{name}", "atom", type=oid)
            o = self.dep(inner)
            body = o.text if self.pretty and o.kind == "atom" else f"({o.text})"
            return _Out(f"{body}::{name}", "atom", type=oid)
        if isinstance(node, exp.Coalesce):
            args = [node.this, *node.expressions]
            return _Out(f"COALESCE({', '.join(self.dep(a).text for a in args)})", "atom")
        unit = node.args.get("unit") if isinstance(node, exp.TimestampTrunc | exp.DateTrunc) \
            else None
        if isinstance(unit, exp.Cast):  # date_trunc('month'::text, x), as PostgreSQL prints it
            unit = unit.this
        if isinstance(unit, exp.Var | exp.Literal):  # sqlglot's DATE_TRUNC('MONTH', x)
            args = [f"{quote_literal(unit.name.lower())}::text", self.dep(node.this).text]
            zone = node.args.get("zone")
            if zone is not None:
                args.append((self.literal(zone, T.TEXT) or self.dep(zone)).text)
            return _Out(f"date_trunc({', '.join(args)})", "atom")
        if isinstance(node, exp.Func):
            return self.function(node)
        raise ValueError(f"no deparse rule for {type(node).__name__}")

    def function(self, node: exp.Func) -> _Out:
        if isinstance(node, exp.Anonymous):
            name, args = node.name.lower(), list(node.expressions)
        else:
            name = node.sql("postgres", normalize_functions="lower").split("(", 1)[0].strip()
            args = []
            for key in node.arg_types:
                v = node.args.get(key)
                if isinstance(v, list):
                    args.extend(v)
                elif isinstance(v, exp.Expression):
                    args.append(v)
        config = _REGCONFIG_FIRST.get(name) == len(args)  # to_tsvector('english', ...)
        rendered = [(self.literal(a, T.REGCONFIG if config and i == 0 else T.TEXT)
                     or self.dep(a)).text for i, a in enumerate(args)]
        return _Out(f"{name}({', '.join(rendered)})", "atom")


def expr_text(tree: exp.Expression, types: dict[str, int], pretty: bool) -> str:
    """Deparses a parsed expression (raises ValueError for shapes it does not know)."""
    return _Deparser(types, pretty).dep(tree).text


def check_text(sql: str, types: dict[str, int], pretty: bool) -> str | None:
    """Returns the expression inside `CHECK (...)` as PostgreSQL prints it, None if unknown."""
    try:
        tree = cast(exp.Expression, sqlglot.parse_one(sql, read="postgres"))
        return _Deparser(types, pretty).dep(tree).text
    except Exception:  # noqa: BLE001 - an unknown shape falls back to the stored text
        return None
