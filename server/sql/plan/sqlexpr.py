"""Bound expressions printed as SQL, the way PostgreSQL's EXPLAIN deparses them.

EXPLAIN users compare plans with PostgreSQL's, and tools parse the text, so
a filter reads `(ts >= '2023-06-01 00:00:00'::timestamp without time zone)`,
never a Python repr. The conventions copied from PostgreSQL's ruleutils.c:

- an operator or boolean test is parenthesised: `(a = 1)`, `(b IS NULL)`;
- AND / OR are flattened into one parenthesised list: `((a = 1) AND (b > 2))`;
- a constant is its text form quoted, then `::type`, except non-negative
  integers and numerics (bare) and booleans (`true`);
- LIKE is `~~` (ILIKE `~~*`, NOT LIKE `!~~`), an IN list is `= ANY ('{...}'::type[])`;
- a cast is `(expr)::type`;
- a column is unqualified inside a scan and `table.column` above one when
  the query reads several relations (`Names.qualify`).

A sub-plan inside an expression prints as `(SubPlan n)`, numbered in the order
the printer meets them (`Names.subplan`).

Example:
    >>> from cumulo.server.sql.expr.bound import E, col, const
    >>> import datetime
    >>> ts = col(0, 1114, "ts")
    >>> sql(E("op", ">=", [ts, const(datetime.datetime(2023, 6, 1), 1114)], 16))
    "(ts >= '2023-06-01 00:00:00'::timestamp without time zone)"
    >>> sql(E("and", None, [E("op", "=", [col(1, 23, "a"), const(1, 23)], 16),
    ...                    E("isnull", None, [col(2, 25, "b")], 16)], 16))
    '((a = 1) AND (b IS NULL))'

A parameter prints as `$n`, or as its value in a custom plan (`Names.params`):
    >>> p = E("op", "=", [col(1, 23, "a"), E("param", 1, [], 25)], 16)
    >>> sql(p), sql(p, Names(params=["x"]))
    ('(a = $1)', "(a = 'x'::text)")
    >>> [const_literal(v, t) for v, t in ((5, 23), (-5, 23), (5, 21), (5, 20), (1, 1700))]
    ['5', "'-5'::integer", "'5'::smallint", "'5'::bigint", "'1'::numeric"]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from ...pgtypes import oids as T
from ...pgtypes.text import format_text
from ..expr.bound import E
from ..expr.casts import cast_function
from ..expr.types import type_name

_BARE = (T.INT2, T.INT4, T.INT8, T.NUMERIC)
_SUBPLANS = ("subquery", "exists", "array_sub", "in_sub")


class Names:
    """How column references and sub-plans print in one node's expressions."""

    def __init__(self, cols: list[Any] | None = None, qualify: bool = False,
                 subplan: Callable[[Any], int] | None = None,
                 params: Sequence[Any] | None = None) -> None:
        self.cols = cols or []  # PCol of the input row, for qualifiers
        self.qualify = qualify
        self.subplan = subplan or (lambda plan: 0)
        # the values of $1, $2 ... when the plan shown is PostgreSQL's custom plan, which
        # has them as constants (`(id = 5)`); None for the generic plan (`(id = $1)`)
        self.params = params

    def column(self, e: E) -> str:
        name = e.name if e.name != "?column?" else f"${e.data}"
        if self.qualify and isinstance(e.data, int) and e.data < len(self.cols):
            q = self.cols[e.data].qualifier
            if q:
                return f"{q}.{name}"
        return name


def literal(value: Any, oid: int) -> str:
    """A constant as PostgreSQL prints it in a plan: `1`, `'x'::text`, `NULL::integer`."""
    if value is None:
        return f"NULL::{type_name(oid)}"
    if oid == T.BOOL or isinstance(value, bool):
        return "true" if value else "false"
    try:
        text = format_text(oid, value)
    except Exception:  # a value of a type with no text encoder here: print it plainly
        text = str(value)
    if oid in _BARE and isinstance(value, int | Decimal) and not str(text).startswith("-") \
            and (oid != T.NUMERIC or "NaN" not in text and "Infinity" not in text):
        return text
    if oid == T.UNKNOWN:
        return "'" + text.replace("'", "''") + "'"
    return "'" + text.replace("'", "''") + "'::" + type_name(oid)


def const_literal(value: Any, oid: int) -> str:
    """A constant of exactly type `oid` as ruleutils.c's get_const_expr prints it: only an
    integer (non-negative), a numeric with a point or exponent, a boolean and NULL's
    keyword go bare or unlabelled; `'5'::smallint`, `'7'::bigint`, `'5'::numeric`. A custom
    plan's parameter is such a constant (`literal` is looser: the planner's constants here
    are not always typed as PostgreSQL's)."""
    if value is None or oid == T.BOOL or isinstance(value, bool):
        return literal(value, oid)
    if oid == T.INT4 and isinstance(value, int) and value >= 0:
        return str(value)
    try:
        text = format_text(oid, value)
    except Exception:  # a value of a type with no text encoder here: print it plainly
        text = str(value)
    if oid == T.NUMERIC and text[:1].isdigit() and any(ch in text for ch in ".eE"):
        return text
    return "'" + str(text).replace("'", "''") + "'::" + type_name(oid)


_NUMERIC_ORDER = (T.INT2, T.INT4, T.INT8, T.NUMERIC, T.FLOAT4, T.FLOAT8)


def _common_type(types: list[int]) -> int:
    """PostgreSQL's select_common_type for numbers (the widest, as implicit casts reach it);
    the one type when all agree; 0 otherwise."""
    if all(t in _NUMERIC_ORDER for t in types):
        return max(types, key=_NUMERIC_ORDER.index)
    return types[0] if len(set(types)) == 1 else 0


def _as_type(value: Any, oid: int) -> Any:
    if oid in (T.FLOAT4, T.FLOAT8) and isinstance(value, int | Decimal):
        return float(value)
    if oid == T.NUMERIC and isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    return value


# the datetime niladics (`expr.binder._niladic`), as PostgreSQL's deparser prints them
_NILADIC = {"current_timestamp": "CURRENT_TIMESTAMP", "current_date": "CURRENT_DATE",
            "current_time": "CURRENT_TIME", "localtimestamp": "LOCALTIMESTAMP",
            "localtime": "LOCALTIME"}
_OPERATOR = frozenset("+-*/<>=~!@#%^&|`?")


def sql(e: E, names: Names | None = None) -> str:
    """Returns `e` as PostgreSQL's EXPLAIN would print it."""
    return _Printer(names or Names()).expr(e)


def array_const(items: list[E], typ: int, names: Names | None = None) -> str | None:
    """`items` (constants, or a custom plan's parameters) as the array constant of element
    type `typ` PostgreSQL prints for `x = ANY (...)`; None if one is neither."""
    return _Printer(names or Names()).array_const(items, typ)


class _Printer:
    def __init__(self, names: Names) -> None:
        self.names = names

    def expr(self, e: E) -> str:
        k = e.kind
        fn = getattr(self, "k_" + k, None)
        if fn is not None:
            return fn(e)
        if k in _SUBPLANS:
            n = self.names.subplan(e.data[0] if k == "in_sub" else e.data)
            sub = f"(SubPlan {n})"
            if k == "in_sub":
                op, is_all = e.data[1], e.data[2]
                return f"({self.expr(e.args[0])} {op} {'ALL' if is_all else 'ANY'} {sub})"
            return sub
        args = ", ".join(self.expr(a) for a in e.args)
        return f"{k}({args})"

    def k_col(self, e: E) -> str:
        return self.names.column(e)

    def k_outer(self, e: E) -> str:
        return e.name

    def k_const(self, e: E) -> str:
        return literal(e.data, e.type)

    def k_param(self, e: E) -> str:
        vals = self.names.params
        if vals is not None and isinstance(e.data, int) and 0 < e.data <= len(vals):
            return const_literal(vals[e.data - 1], e.type)
        return f"${e.data}"

    def k_op(self, e: E) -> str:
        if len(e.args) == 1:
            return f"({e.data} {self.expr(e.args[0])})"
        if e.data in ("=", "<>") and all(a.type == T.BOOL for a in e.args):
            for a, b in (e.args, e.args[::-1]):  # NB: the planner's `b = true` is `b`
                known, value = self._value(b)
                if known and isinstance(value, bool) and a.kind in ("col", "outer"):
                    return self.expr(a) if value == (e.data == "=") else \
                        f"(NOT {self.expr(a)})"
        return f"({self.expr(e.args[0])} {e.data} {self.expr(e.args[1])})"

    def _flat(self, e: E, kind: str) -> list[str]:
        out: list[str] = []
        for a in e.args:
            if a.kind == kind:
                out += self._flat(a, kind)
            else:
                out.append(self.expr(a))
        return out

    def k_and(self, e: E) -> str:
        return "(" + " AND ".join(self._flat(e, "and")) + ")"

    def k_or(self, e: E) -> str:
        return "(" + " OR ".join(self._flat(e, "or")) + ")"

    def k_not(self, e: E) -> str:
        return f"(NOT {self.expr(e.args[0])})"

    def k_neg(self, e: E) -> str:
        return f"(- {self.expr(e.args[0])})"

    def k_isnull(self, e: E) -> str:
        return f"({self.expr(e.args[0])} IS NULL)"

    def k_notnull(self, e: E) -> str:
        return f"({self.expr(e.args[0])} IS NOT NULL)"

    def k_istrue(self, e: E) -> str:
        return f"({self.expr(e.args[0])} IS TRUE)"

    def k_isfalse(self, e: E) -> str:
        return f"({self.expr(e.args[0])} IS FALSE)"

    def k_distinct(self, e: E) -> str:
        word = "IS NOT DISTINCT FROM" if e.data else "IS DISTINCT FROM"
        return f"({self.expr(e.args[0])} {word} {self.expr(e.args[1])})"

    def _value(self, e: E) -> tuple[bool, Any]:
        """(True, value) for a constant, or a parameter of a custom plan, else (False, None)."""
        if e.kind == "const":
            return True, e.data
        vals = self.names.params
        if e.kind == "param" and vals is not None and isinstance(e.data, int) \
                and 0 < e.data <= len(vals):
            return True, vals[e.data - 1]
        return False, None

    def array_const(self, items: list[E], typ: int) -> str | None:
        """`'{1,2}'::integer[]`, the array PostgreSQL folds a list of constants (or a
        custom plan's parameters) into; None if an item is neither."""
        known = [self._value(i) for i in items]
        if not items or not all(k for k, _ in known):
            return None
        body = ",".join("NULL" if x is None else _array_item(_as_type(x, typ), typ)
                        for _, x in known)
        return f"'{{{body}}}'::{type_name(typ)}[]"

    def k_cast(self, e: E) -> str:
        inner = e.args[0]
        if e.data is None or inner.type == e.type:
            return self.expr(inner)
        if inner.kind == "param":  # NB: a custom plan folds a parameter's cast (`3`)
            known, value = self._value(inner)
            if known:
                try:
                    conv = cast_function(inner.type, e.type)
                    return const_literal(conv(value) if conv and value is not None else value,
                                         e.type)
                except Exception:  # noqa: BLE001 - EXPLAIN prints it unfolded then
                    pass
        if inner.kind == "const":
            return literal(inner.data, e.type) if inner.data is not None else f"NULL::{type_name(e.type)}"
        text = self.expr(inner)
        if not text.startswith("("):
            text = f"({text})"
        return f"{text}::{type_name(e.type)}"

    def k_call(self, e: E) -> str:
        return f"{e.data.name}({', '.join(self.expr(a) for a in e.args)})"

    def k_pyfunc(self, e: E) -> str:
        if e.data[0] in _NILADIC and [a.kind for a in e.args] == ["ctxfn"]:  # CURRENT_DATE
            return "now()" if e.name == "now" else _NILADIC[e.data[0]]
        name = e.data[0]
        if len(e.args) == 2 and name and all(ch in _OPERATOR for ch in name):  # ts - interval
            return f"({self.expr(e.args[0])} {name} {self.expr(e.args[1])})"
        return f"{name}({', '.join(self.expr(a) for a in e.args)})"

    def k_case(self, e: E) -> str:
        args = e.args
        has_default = bool(e.data)
        pairs = args[:-1] if has_default else args
        parts = ["CASE"]
        for i in range(0, len(pairs) - 1, 2):
            parts.append(f"WHEN {self.expr(pairs[i])} THEN {self.expr(pairs[i + 1])}")
        if has_default:
            parts.append(f"ELSE {self.expr(args[-1])}")
        parts.append("END")
        return " ".join(parts)

    def k_coalesce(self, e: E) -> str:
        return f"COALESCE({', '.join(self.expr(a) for a in e.args)})"

    def k_nullif(self, e: E) -> str:
        return f"NULLIF({', '.join(self.expr(a) for a in e.args)})"

    def k_greatest(self, e: E) -> str:
        return f"GREATEST({', '.join(self.expr(a) for a in e.args)})"

    def k_least(self, e: E) -> str:
        return f"LEAST({', '.join(self.expr(a) for a in e.args)})"

    def k_array(self, e: E) -> str:
        return f"ARRAY[{', '.join(self.expr(a) for a in e.args)}]"

    def k_row(self, e: E) -> str:
        return f"ROW({', '.join(self.expr(a) for a in e.args)})"

    def k_like(self, e: E) -> str:
        ci, negate = e.data
        op = ("!" if negate else "") + ("~~*" if ci else "~~")
        return f"({self.expr(e.args[0])} {op} {self.expr(e.args[1])})"

    def k_similar(self, e: E) -> str:
        op = "!~" if e.data else "~"
        return f"({self.expr(e.args[0])} {op} similar_to_escape({self.expr(e.args[1])}))"

    def k_regex(self, e: E) -> str:
        ci, negate = e.data
        op = ("!" if negate else "") + ("~*" if ci else "~")
        return f"({self.expr(e.args[0])} {op} {self.expr(e.args[1])})"

    def k_in_list(self, e: E) -> str:
        v, items = e.args[0], e.args[1:]
        op, word = ("<>", "ALL") if e.data else ("=", "ANY")
        if all(i.kind == "const" for i in items):
            body = ",".join("NULL" if i.data is None else _array_item(i.data, i.type)
                            for i in items)
            arr = "'{" + body + "}'::" + type_name(items[0].type if items else v.type) + "[]"
            return f"({self.expr(v)} {op} {word} ({arr}))"
        typ = _common_type([v.type, *(i.type for i in items)]) or items[0].type
        folded = self.array_const(items, typ)  # NB: a custom plan's parameters: one array
        if folded is not None:
            return f"({self.expr(v)} {op} {word} ({folded}))"
        return f"({self.expr(v)} {op} {word} (ARRAY[{', '.join(self.expr(i) for i in items)}]))"

    def k_any(self, e: E) -> str:
        op, is_all = e.data
        return f"({self.expr(e.args[0])} {op} {'ALL' if is_all else 'ANY'} ({self.expr(e.args[1])}))"

    def k_rowcmp(self, e: E) -> str:
        return f"({self.expr(e.args[0])} {e.data} {self.expr(e.args[1])})"

    def k_subscript(self, e: E) -> str:
        return f"({self.expr(e.args[0])})[{']['.join(self.expr(a) for a in e.args[1:])}]"


def _array_item(value: Any, oid: int) -> str:
    try:
        text = format_text(oid, value)
    except Exception:
        text = str(value)
    if any(ch in text for ch in ' ,{}"\\') or text == "":
        text = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text.replace("'", "''")
