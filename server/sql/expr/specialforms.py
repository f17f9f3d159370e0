"""Binding of the SQL forms sqlglot rewrites into its own node types.

sqlglot normalises several PostgreSQL spellings into dialect-neutral nodes
whose arguments no longer look like PostgreSQL's: `date_trunc('day', x)`
becomes `TimestampTrunc(this=x, unit=Var(DAY))`, `date_part('year', x)` and
`extract(year from x)` become `Extract(this=Var(YEAR), ...)`, `x LIKE p
ESCAPE e` wraps the LIKE in an `Escape`. Read generically, the unit would be
bound as a column named `day`. Each method here maps one such node back to
the registry function PostgreSQL would call, with PostgreSQL's argument
order. `Binder` inherits these methods.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres

from ...errors import DatatypeMismatch, FeatureNotSupported, UndefinedFunction
from ...pgtypes import hstore, network
from ...pgtypes import oids as T
from ..functions import jsonfns
from ..functions.arrays import flatten
from ..functions.jsonfns import parse
from . import citextops, extops
from . import types as ty
from .bitops import BITS, bit_not, bit_operator, involves_bits
from .bound import E
from .functions import coerce, resolve, return_type
from .rangeops import involves_range, range_op
from .types import type_name


class SpecialForms:
    """Mixin of `Binder`: `b_<sqlglot node>` methods for normalised PostgreSQL forms."""

    params: Any

    def bind(self, node: exp.Expression) -> E:  # provided by Binder
        raise NotImplementedError

    def _to_text(self, e: E) -> E:  # provided by Binder
        raise NotImplementedError

    def _unit(self, node: exp.Expression) -> E:
        """A field/unit argument: a bare word (`day`, `EPOCH`) or any text expression."""
        if isinstance(node, exp.Var | exp.Identifier) or (
                isinstance(node, exp.Column) and not node.table):
            return E("const", node.name.lower(), [], T.UNKNOWN)
        return self.bind(node)

    def _call(self, name: str, args: list[E], label: str | None = None) -> E:
        fd, args = resolve(name, args, self.params)
        return E("call", fd, args, return_type(fd, args), -1, label or name)

    def b_TimestampTrunc(self, node: exp.Expression) -> E:
        args = [self._unit(node.args["unit"]), self.bind(node.this)]
        if node.args.get("zone") is not None:
            args.append(self.bind(node.args["zone"]))
        return self._call("date_trunc", args)

    b_DateTrunc = b_TimestampTrunc
    b_TimeTrunc = b_TimestampTrunc

    def b_Extract(self, node: exp.Extract) -> E:
        name = "date_part" if node.meta.get("date_part") else "extract"  # see parse.py
        return self._call(name, [self._unit(node.this), self.bind(node.expression)])

    def b_Escape(self, node: exp.Expression) -> E:
        inner = node.this
        if not isinstance(inner, exp.Like | exp.ILike):
            raise FeatureNotSupported(f"unsupported expression: {node.sql('postgres')}")
        a = self._to_text(self.bind(inner.this))
        p = self._to_text(self.bind(inner.expression))
        esc = self._to_text(self.bind(node.expression))
        ci = isinstance(inner, exp.ILike)
        return E("like", (ci, bool(inner.args.get("negate"))), [a, p, esc], T.BOOL)

    def b_SimilarTo(self, node: exp.Expression) -> E:
        a = self.bind(node.this)
        a, p = citextops.folded(a, self.bind(node.expression))  # citext: case-insensitive
        a, p = self._to_text(a), self._to_text(p)
        return E("similar", bool(node.args.get("negate")), [a, p], T.BOOL)

    def b_Initcap(self, node: exp.Expression) -> E:
        return self._call("initcap", [self.bind(node.this)])

    def b_ArrayPrepend(self, node: exp.Expression) -> E:  # sqlglot: this=array, expression=value
        return self._call("array_prepend", [self.bind(node.expression), self.bind(node.this)])

    def b_IntDiv(self, node: exp.Expression) -> E:  # div(a, b)
        return self._call("div", [self.bind(node.this), self.bind(node.expression)])

    # -- to_char / to_timestamp / to_date, AT TIME ZONE -----------------------------------------

    def _formatted(self, node: exp.Expression, name: str) -> E:
        """sqlglot rewrote the template into strftime; PostgreSQL's registry function wants the
        original (`'YYYY-MM'`), which sqlglot's own generator restores."""
        fmt = node.args.get("format")
        if isinstance(fmt, exp.Literal) and fmt.is_string:
            text = Postgres().generator().format_time(node) or fmt.this
            if len(text) >= 2 and text[0] == text[-1] == "'":
                text = text[1:-1].replace("''", "'")
            f = E("const", text, [], T.UNKNOWN)
        elif fmt is None:  # to_char(x): no such function, as PostgreSQL reports it
            return self._call(name, [self.bind(node.this)])
        else:
            f = self.bind(fmt)
        return self._call(name, [self.bind(node.this), f])

    def b_TimeToStr(self, node: exp.Expression) -> E:
        return self._formatted(node, "to_char")

    def b_StrToTime(self, node: exp.Expression) -> E:
        return self._formatted(node, "to_timestamp")

    def b_StrToDate(self, node: exp.Expression) -> E:
        return self._formatted(node, "to_date")

    def b_AtTimeZone(self, node: exp.Expression) -> E:
        v = self.bind(node.this)
        if v.type == T.UNKNOWN:
            v = coerce(v, T.TIMESTAMPTZ, params=self.params)
        return self._call("timezone", [self.bind(node.args["zone"]), v], "timezone")

    # -- bitwise operators on integers ----------------------------------------------------------

    def _bitwise(self, node: exp.Expression, op: str) -> E:
        a, b = self.bind(node.this), self.bind(node.expression)
        geo = extops.geo_operator(op, a, b, self.params)  # box # box, point << point ...
        if geo is not None:
            return geo
        if involves_range(a, b):
            return range_op(op, a, b, self.params)
        if a.type in BITS if op in ("<<", ">>") else involves_bits(a, b):
            return bit_operator(op, a, b, self.params)
        if a.type == T.UNKNOWN:
            a = coerce(a, b.type if b.type in ty.INTS else T.INT4, params=self.params)
        if b.type == T.UNKNOWN:
            b = coerce(b, a.type if a.type in ty.INTS and op not in ("<<", ">>") else T.INT4,
                       params=self.params)
        if a.type not in ty.INTS or b.type not in ty.INTS:
            raise UndefinedFunction(
                f"operator does not exist: {ty.type_name(a.type)} {op} {ty.type_name(b.type)}",
                hint="No operator matches the given name and argument types. "
                "You might need to add explicit type casts.")
        t = a.type if op in ("<<", ">>") else ty.numeric_result(a.type, b.type)
        return E("pyfunc", (op, _BITWISE[op](t), True), [a, b], t, -1, "?column?")

    def b_BitwiseAnd(self, node: exp.Expression) -> E:
        return self._bitwise(node, "&")

    def b_BitwiseOr(self, node: exp.Expression) -> E:
        return self._bitwise(node, "|")

    def b_BitwiseXor(self, node: exp.Expression) -> E:
        return self._bitwise(node, "#")

    def b_BitwiseLeftShift(self, node: exp.Expression) -> E:
        return self._bitwise(node, "<<")

    def b_BitwiseRightShift(self, node: exp.Expression) -> E:
        return self._bitwise(node, ">>")

    def b_BitwiseNot(self, node: exp.Expression) -> E:
        a = self.bind(node.this)
        if a.type in (T.INET, T.CIDR):
            return E("pyfunc", ("~", network.bit_not, True), [coerce(a, T.INET)], T.INET, -1,
                     "?column?")
        if involves_bits(a):
            return bit_not(a)
        if a.type == T.UNKNOWN:
            a = coerce(a, T.INT4, params=self.params)
        if a.type not in ty.INTS:
            raise UndefinedFunction(f"operator does not exist: ~ {ty.type_name(a.type)}")
        return E("pyfunc", ("~", lambda v: ~v, True), [a], a.type, -1, "?column?")

    # -- json and array operators ------------------------------------------------------------

    def _json_base(self, node: exp.Expression) -> E:
        base = self.bind(node)
        if base.type == T.UNKNOWN:
            base = coerce(base, T.JSONB, params=self.params)
        return base

    def _json_arrow(self, node: exp.Expression, text: bool) -> E:
        """`->` / `->>`: a field (text key) or an array element (integer)."""
        base = self._json_base(node.this)
        if base.type in hstore.OIDS and not text:  # hstore -> text / text[]
            key = extops.arrow_key(node.expression) or self.bind(node.expression)
            return extops.hstore_op("->", base, key, self.params)
        p = node.expression
        if isinstance(p, exp.JSONPath):
            parts = [x for x in p.expressions if not isinstance(x, exp.JSONPathRoot)]
            if len(parts) != 1 or not isinstance(parts[0], exp.JSONPathKey | exp.JSONPathSubscript):
                raise FeatureNotSupported(f"unsupported expression: {node.sql('postgres')}")
            v = parts[0].this
            if isinstance(parts[0], exp.JSONPathSubscript) or isinstance(v, int):
                arg = E("const", int(v), [], T.INT4)
            else:
                arg = E("const", str(v), [], T.TEXT)
        else:
            arg = self.bind(p)
            if arg.type == T.UNKNOWN:
                arg = coerce(arg, T.TEXT, params=self.params)
        kind = "array_element" if arg.type in (T.INT2, T.INT4, T.INT8) else "object_field"
        prefix = "jsonb" if base.type == T.JSONB else "json"
        return self._call(f"{prefix}_{kind}{'_text' if text else ''}", [base, arg], "?column?")

    def b_JSONExtract(self, node: exp.Expression) -> E:
        return self._json_arrow(node, False)

    def b_JSONExtractScalar(self, node: exp.Expression) -> E:
        return self._json_arrow(node, True)

    def _json_path(self, node: exp.Expression, text: bool) -> E:
        """`#>` / `#>>`: follows a text[] path of keys and array indexes."""
        base = self._json_base(node.this)
        path = coerce(self.bind(node.expression), T.ARRAY_OF[T.TEXT], params=self.params)
        binary = base.type == T.JSONB
        rt = T.TEXT if text else base.type
        return E("pyfunc", ("#>", _path_fn(binary, text), True), [base, path], rt, -1,
                 "?column?")

    def b_JSONBExtract(self, node: exp.Expression) -> E:
        return self._json_path(node, False)

    def jsonb_subscript(self, base: E, idx: E) -> E:
        """`j['a'][0]` (jsonb subscripting, PostgreSQL 14): each subscript one step of a #>
        path, its text a key or an array index; an integer or text subscript only (42804)."""
        if idx.type in (T.INT2, T.INT4, T.INT8):
            idx = coerce(idx, T.TEXT, params=self.params, explicit=True)
        elif idx.type in (T.UNKNOWN, T.TEXT, T.VARCHAR, T.BPCHAR, T.NAME):
            idx = coerce(idx, T.TEXT, params=self.params)
        else:
            raise DatatypeMismatch(
                f"subscript type {type_name(idx.type)} is not supported",
                hint="jsonb subscript must be coercible to only one type, integer or text.")
        follow = _path_fn(True, False)
        return E("pyfunc", ("jsonb_subscript", lambda j, k: follow(j, [k]), True), [base, idx],
                 T.JSONB, -1, base.name)

    def b_JSONBDeleteAtPath(self, node: exp.Expression) -> E:
        """`jsonb #- text[]`: PostgreSQL's jsonb_delete_path (functions.jsonmodify)."""
        base, path = self.bind(node.this), self.bind(node.expression)
        texts = (T.ARRAY_OF[T.TEXT], T.ARRAY_OF[T.VARCHAR], T.UNKNOWN)
        if base.type not in (T.JSONB, T.UNKNOWN) or path.type not in texts:
            raise UndefinedFunction(
                f"operator does not exist: {type_name(base.type)} #- {type_name(path.type)}",
                hint="No operator matches the given name and argument types. "
                "You might need to add explicit type casts.")
        base = coerce(base, T.JSONB, params=self.params)
        path = coerce(path, T.ARRAY_OF[T.TEXT], params=self.params)
        return self._call("jsonb_delete_path", [base, path], "?column?")

    def b_JSONBExtractScalar(self, node: exp.Expression) -> E:
        return self._json_path(node, True)

    def _contains(self, node: exp.Expression, swap: bool) -> E:
        a, b = self.bind(node.this), self.bind(node.expression)
        geo = extops.geo_operator("<@" if swap else "@>", a, b, self.params)
        if geo is not None:
            return geo
        if swap:
            a, b = b, a
        ext = extops.bind_operator("@>", a, b, self.params)
        if ext is not None:
            return ext
        if involves_range(a, b):
            return range_op("@>", a, b, self.params)
        if a.type in (T.JSON, T.JSONB) or b.type in (T.JSON, T.JSONB):
            a, b = coerce(a, T.JSONB, params=self.params), coerce(b, T.JSONB, params=self.params)
            return E("pyfunc", ("@>", _jsonb_contains, True), [a, b], T.BOOL, -1, "?column?")
        a, b = self._arrays(a, b, "@>")
        return E("pyfunc", ("@>", _array_contains, True), [a, b], T.BOOL, -1, "?column?")

    def _arrays(self, a: E, b: E, op: str) -> tuple[E, E]:
        if a.type == T.UNKNOWN and b.type in T.ELEMENT_OF:
            a = coerce(a, b.type, params=self.params)
        if b.type == T.UNKNOWN and a.type in T.ELEMENT_OF:
            b = coerce(b, a.type, params=self.params)
        if a.type not in T.ELEMENT_OF or b.type not in T.ELEMENT_OF:
            raise UndefinedFunction(
                f"operator does not exist: {type_name(a.type)} {op} {type_name(b.type)}",
                hint="No operator matches the given name and argument types. "
                "You might need to add explicit type casts.")
        return a, b

    def b_ArrayContainsAll(self, node: exp.Expression) -> E:
        return self._contains(node, False)

    def b_ArrayContains(self, node: exp.Expression) -> E:
        return self._contains(node, False)

    def b_ArrayContainedBy(self, node: exp.Expression) -> E:
        return self._contains(node, True)

    def b_ArrayOverlaps(self, node: exp.Expression) -> E:
        a, b = self.bind(node.this), self.bind(node.expression)
        ext = extops.bind_operator("&&", a, b, self.params)
        if ext is not None:
            return ext
        if involves_range(a, b):
            return range_op("&&", a, b, self.params)
        a, b = self._arrays(a, b, "&&")
        return E("pyfunc", ("&&", _array_overlaps, True), [a, b], T.BOOL, -1, "?column?")

    def b_Adjacent(self, node: exp.Expression) -> E:  # -|- (ranges)
        return range_op("-|-", self.bind(node.this), self.bind(node.expression), self.params)

    def b_ExtendsLeft(self, node: exp.Expression) -> E:  # &< (ranges, geometric types)
        a, b = self.bind(node.this), self.bind(node.expression)
        return extops.geo_operator("&<", a, b, self.params) or range_op("&<", a, b, self.params)

    def b_ExtendsRight(self, node: exp.Expression) -> E:  # &> (ranges, geometric types)
        a, b = self.bind(node.this), self.bind(node.expression)
        return extops.geo_operator("&>", a, b, self.params) or range_op("&>", a, b, self.params)

    def _jsonb_keys(self, node: exp.Expression, op: str, fn: Any) -> E:
        """`?|` / `?&`: any / all of a text[]'s strings are top-level keys (or elements)."""
        base = self._json_base(node.this)
        if base.type in hstore.OIDS:
            return extops.hstore_op(op, base, self.bind(node.expression), self.params)
        geo = extops.geo_operator(op, base, self.bind(node.expression), self.params)
        if geo is not None:  # point ?| point (vertical)
            return geo
        a = coerce(base, T.JSONB, params=self.params)
        k = coerce(self.bind(node.expression), T.ARRAY_OF[T.TEXT], params=self.params)
        return E("pyfunc", (op, fn, True), [a, k], T.BOOL, -1, "?column?")

    def b_JSONBContainsAnyTopKeys(self, node: exp.Expression) -> E:
        return self._jsonb_keys(node, "?|", _jsonb_has_any)

    def b_JSONBContainsAllTopKeys(self, node: exp.Expression) -> E:
        return self._jsonb_keys(node, "?&", _jsonb_has_all)

    def b_JSONBContainsTopKey(self, node: exp.Expression) -> E:
        base = self._json_base(node.this)
        if base.type in hstore.OIDS:
            return extops.hstore_op("?", base, self.bind(node.expression), self.params)
        a = coerce(base, T.JSONB, params=self.params)
        k = coerce(self.bind(node.expression), T.TEXT, params=self.params)
        return E("pyfunc", ("?", _jsonb_has_key, True), [a, k], T.BOOL, -1, "?column?")


    def b_MatchAgainst(self, node: exp.Expression) -> E:
        """`v @@ q` (sqlglot puts the right operand first): full-text match (extops)."""
        right, left = self.bind(node.this), self.bind(node.expressions[0])
        return extops.bind_operator("@@", left, right, self.params)  # type: ignore[return-value]

    def b_Distance(self, node: exp.Expression) -> E:
        """`q1 <-> q2`: tsquery's phrase operator."""
        a, b = self.bind(node.this), self.bind(node.expression)
        ext = extops.bind_operator("<->", a, b, self.params)
        if ext is None:
            raise FeatureNotSupported(f"operator <-> is not supported for {a.type} and {b.type}")
        return ext


def _jsonb_has_any(doc: Any, keys: list) -> bool:
    return any(k is not None and _jsonb_has_key(doc, k) for k in keys)


def _jsonb_has_all(doc: Any, keys: list) -> bool:
    return all(k is None or _jsonb_has_key(doc, k) for k in keys)


def _array_contains(a: list, b: list) -> bool:
    """`a @> b`: every element of b is in a (elements at any depth, as PostgreSQL's
    array_contain_compare reads a multidimensional array)."""
    have = [x for x in flatten(a) if x is not None]
    return all(x is not None and x in have for x in flatten(b))


def _array_overlaps(a: list, b: list) -> bool:
    """`a && b`: an element in both (elements at any depth)."""
    have = [x for x in flatten(a) if x is not None]
    return any(x is not None and x in have for x in flatten(b))


def _json(doc: Any) -> Any:
    return parse(doc) if isinstance(doc, str) else doc


def _jsonb_contains(a: Any, b: Any) -> bool:
    return _contained(_json(b), _json(a), True)


def _contained(sub: Any, sup: Any, top: bool) -> bool:
    """PostgreSQL's jsonb containment: objects by key, arrays as multisets of elements."""
    if isinstance(sub, dict):
        return isinstance(sup, dict) and all(
            k in sup and _contained(v, sup[k], False) for k, v in sub.items())
    if isinstance(sub, list):
        if not isinstance(sup, list):
            return False
        return all(any(_contained(x, y, False) for y in sup) for x in sub)
    if isinstance(sup, list) and top:  # a scalar is contained in an array holding it
        return any(not isinstance(y, dict | list) and y == sub for y in sup)
    return not isinstance(sup, dict | list) and type(sub) is type(sup) and sub == sup


def _jsonb_has_key(doc: Any, key: str) -> bool:
    v = _json(doc)
    if isinstance(v, dict):
        return key in v
    if isinstance(v, list):
        return key in [x for x in v if isinstance(x, str)]
    return isinstance(v, str) and v == key


def _path_fn(binary: bool, text: bool) -> Any:
    def follow(doc: Any, path: list) -> Any:
        v = _json(doc)
        for p in path:
            if p is None:
                return None
            if isinstance(v, dict):
                if p not in v:
                    return None
                v = v[p]
            elif isinstance(v, list) and p.lstrip("-").isdigit():
                i = int(p)
                if not -len(v) <= i < len(v):
                    return None
                v = v[i]
            else:
                return None
        if text:
            if v is None:
                return None
            return v if isinstance(v, str) else jsonfns._out(v, binary)
        return jsonfns._out(v, binary)

    return follow


def _rtrim(v: str) -> str:
    return v.rstrip(" ")


def bpchar_operands(a: E, b: E, params: Any) -> tuple[E, E]:
    """Operands of a comparison involving char(n): PostgreSQL ignores trailing blanks.

    Against text, char(n) is cast to text (padding dropped). Between two char(n)
    values, a constant is padded to the column's length so that the comparison
    stays pushable into KiVi scans; otherwise both sides lose their padding.
    """
    if a.type != b.type:
        if a.type == T.BPCHAR and b.type in (T.TEXT, T.VARCHAR, T.NAME):
            return coerce(a, T.TEXT, params=params), b
        if b.type == T.BPCHAR and a.type in (T.TEXT, T.VARCHAR, T.NAME):
            return a, coerce(b, T.TEXT, params=params)
        return a, b
    for x, y, swap in ((a, b, False), (b, a, True)):
        if y.kind == "const" and isinstance(y.data, str) and x.kind != "const":
            v = y.data.rstrip(" ")
            if x.typmod > 4 and len(v) <= x.typmod - 4:
                v = v.ljust(x.typmod - 4)
                y = E("const", v, [], T.BPCHAR, x.typmod, y.name)
                return (y, x) if swap else (x, y)
            y = E("const", v, [], T.TEXT, -1, y.name)
            x = E("pyfunc", ("rtrim", _rtrim, True), [x], T.TEXT, -1, x.name)
            return (y, x) if swap else (x, y)
    return (E("pyfunc", ("rtrim", _rtrim, True), [a], T.TEXT, -1, a.name),
            E("pyfunc", ("rtrim", _rtrim, True), [b], T.TEXT, -1, b.name))


def bpchar_subquery(left: E, q: exp.Expression, cols: list[Any]) -> exp.Expression | None:
    """`char(n) IN (SELECT char(m) ...)` compares without trailing blanks, as `=` does: the
    subquery again, its column cast to text (which drops them; the caller casts the left
    side too). None when the two sides are not both char(n).

    >>> left = E("col", 0, [], T.BPCHAR, 8)
    >>> q = exp.select("k").from_("t")
    >>> bpchar_subquery(left, q, [E("col", 0, [], T.BPCHAR, 10, "k")]).sql("postgres")
    'SELECT CAST("_bp"."k" AS TEXT) FROM (SELECT k FROM t) AS "_bp"'
    >>> bpchar_subquery(left, q, [E("col", 0, [], T.TEXT, -1, "k")]) is None
    True
    """
    if len(cols) != 1 or cols[0].type != T.BPCHAR or left.type != T.BPCHAR:
        return None
    col = exp.Cast(this=exp.column(exp.to_identifier(cols[0].name, quoted=True),
                                   table=exp.to_identifier("_bp", quoted=True)),
                   to=exp.DataType.build("text"))
    return exp.select(col).from_(exp.Subquery(this=q.copy(), alias=exp.TableAlias(
        this=exp.to_identifier("_bp", quoted=True))))


def bpchar_in_operands(left: E, items: list[E]) -> tuple[E, list[E]]:
    """Operands of `char(n) IN (...)`: PostgreSQL ignores trailing blanks, as for `=`.

    Constant labels are padded to the column's length, so the list stays pushable
    into KiVi scans and point gets (which match the stored, padded value); any
    other list loses the padding on both sides.
    """
    if left.kind != "const" and left.typmod > 4 and all(
            i.kind == "const" and (i.data is None or isinstance(i.data, str)) for i in items):
        n = left.typmod - 4
        return left, [i if i.data is None else
                      E("const", i.data.rstrip(" ").ljust(n), [], T.BPCHAR, left.typmod, i.name)
                      for i in items]
    trim = [E("pyfunc", ("rtrim", _rtrim, True), [x], T.TEXT, -1, x.name) for x in (left, *items)]
    return trim[0], trim[1:]


_BITS = {T.INT2: 16, T.INT4: 32, T.INT8: 64}


def _wrap(t: int) -> Any:
    bits = _BITS.get(t, 64)
    mask, sign = (1 << bits) - 1, 1 << (bits - 1)
    return lambda v: ((v & mask) ^ sign) - sign  # two's complement, as C shifts do


def _shift_left(t: int) -> Any:
    w = _wrap(t)
    return lambda a, b: w(a << (b % _BITS.get(t, 64)))


def _shift_right(t: int) -> Any:
    return lambda a, b: a >> (b % _BITS.get(t, 64))


_BITWISE = {
    "&": lambda t: lambda a, b: a & b,
    "|": lambda t: lambda a, b: a | b,
    "#": lambda t: lambda a, b: a ^ b,
    "<<": _shift_left,
    ">>": _shift_right,
}
