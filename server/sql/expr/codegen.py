"""Code generation: a bound expression becomes Python source, compiled once per plan.

Every plan node calls one generated function per batch, e.g.

    def _f(rows, ctx):
        _P = ctx.params
        return [row for row in rows if (row[3] == _P[0]) is True]

so a batch costs one Python call and the per-row work is a list
comprehension over inlined operations. NULL checks bind operands once with
`:=`. Constants that are not plain literals (Decimals, compiled regexes,
converters, sub-plans) live in the function's globals as `_kN`.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

from ...pgtypes import oids as T
from ...pgtypes.records import MARKED, OuterRowTypes, Record, outer_row
from . import runtime as rt
from .bound import E

_NANABLE = (T.FLOAT4, T.FLOAT8, T.NUMERIC)  # types with a NaN that Python orders wrongly
_CMP = {"=": "==", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
PY_OPS = {"=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le,
          ">": operator.gt, ">=": operator.ge}
_SIMPLE = re.compile(r"^(row\[\d+\]|_P\[\d+\]|-?\d+|None|True|False|'[^'\\]*')$")
_LITERAL = re.compile(r"^(-?\d+|True|False|'[^'\\]*')$")
_INT_CHECK = {T.INT2: "_rt.c2", T.INT4: "_rt.c4", T.INT8: "_rt.c8"}
_FLOATS = (T.FLOAT4, T.FLOAT8)

MAX_DEPTH = 24  # bound expressions nested deeper go to a function of their own
MAX_CHAIN = 16  # longer AND / OR / CASE chains become statements

# Set by exec.subquery at import: functions that run sub-plans for one outer row.
SUBQUERY_RUNTIME: dict[str, Callable[..., Any]] = {}


class Gen:
    """Accumulates the globals of one generated function while rendering expressions."""

    def __init__(self) -> None:
        self.env: dict[str, Any] = {"_rt": rt}
        self.n = 0
        self.uses_params = False
        self.uses_outer = False
        self.depth = 0

    def k(self, value: Any) -> str:
        """Stores a value in the function's globals and returns its name."""
        name = f"_k{len(self.env)}"
        self.env[name] = value
        return name

    def tmp(self) -> str:
        self.n += 1
        return f"_t{self.n}"

    def bind(self, src: str) -> tuple[str, str]:
        """Returns (first use, later uses) for an operand evaluated once."""
        if _SIMPLE.match(src):
            return src, src
        t = self.tmp()
        return f"({t} := {src})", t

    def expr(self, e: E) -> str:
        """Returns Python source evaluating `e` over `row`."""
        if self.depth >= MAX_DEPTH:  # NB: Python's parser allows 200 nested parentheses
            return f"{self.k(row_function(e))}(row, ctx)"
        self.depth += 1
        try:
            return getattr(self, "g_" + e.kind)(e)
        finally:
            self.depth -= 1

    def hoisted(self, lines: list[str], last: str, g: Gen) -> str:
        """A call of a function made of statements: long chains (a CASE with 1,000 WHENs from
        Django's bulk_update, an OR of hundreds of terms) nest nothing as `if`s."""
        src = f"def _f(row, ctx):\n{_prologue(g)}{''.join(lines)}    return {last}\n"
        return f"{self.k(_build(src, g))}(row, ctx)"

    # leaves
    def g_col(self, e: E) -> str:
        return f"row[{e.data}]"

    def g_outer(self, e: E) -> str:
        self.uses_outer = True
        depth, idx = e.data
        return f"_O[-{depth}][{idx}]"

    def g_const(self, e: E) -> str:
        v = e.data
        if v is None or isinstance(v, bool) or (type(v) is int and abs(v) < 2**62):
            return repr(v)
        if type(v) is str and "\\" not in v and "'" not in v and "\n" not in v:
            return repr(v)
        return self.k(v)

    def g_param(self, e: E) -> str:
        self.uses_params = True
        return f"_P[{e.data - 1}]"

    # operators
    def strict(self, args: list[E], body: Callable[[list[str]], str]) -> str:
        """Renders `body` over the operands, NULL if any operand is NULL."""
        firsts, laters = [], []
        for a in args:
            src = self.expr(a)
            if (a.kind == "const" and a.data is not None) or _LITERAL.match(src):
                laters.append(src)
                continue
            f, later = self.bind(src)
            firsts.append(f)
            laters.append(later)
        if not firsts:
            return body(laters)
        cond = " or ".join(f"{f} is None" for f in firsts)
        return f"(None if {cond} else {body(laters)})"

    def g_op(self, e: E) -> str:
        op = e.data
        a, b = e.args
        if op in _CMP:
            if a.type in _NANABLE or b.type in _NANABLE:  # NaN = NaN and NaN > all, as in PG
                return self.strict(e.args, lambda s: (
                    f"(_rt.nan_cmp({op!r}, {s[0]}, {s[1]}) if {s[0]} != {s[0]} or "
                    f"{s[1]} != {s[1]} else ({s[0]} {_CMP[op]} {s[1]}))"))
            if (op in ("<", "<=", ">", ">=") and a.type in T.ELEMENT_OF) or T.RECORD in (
                    a.type, b.type):  # NB: two ROW(...)s are a rowcmp; records: record_cmp
                return self.strict(e.args, lambda s: (  # NULL items: array_cmp/record_cmp
                    f"(_rt.nested_sort_key({s[0]}) {_CMP[op]} _rt.nested_sort_key({s[1]}))"))
            return self.strict(e.args, lambda s: f"({s[0]} {_CMP[op]} {s[1]})")
        t = e.type
        if op in ("+", "-", "*"):
            if op == "-" and a.type in (T.DATE, T.TIMESTAMP, T.TIMESTAMPTZ):
                return self.strict(e.args, lambda s: f"_rt.nsub({s[0]}, {s[1]})")
            chk = _INT_CHECK.get(t)
            if chk:
                return self.strict(e.args, lambda s: f"{chk}({s[0]} {op} {s[1]})")
            if t in _FLOATS:
                return self.strict(e.args, lambda s: f"_rt.cf({s[0]} {op} {s[1]}, {s[0]}, {s[1]})")
            if t == T.NUMERIC:  # Infinity * 0, Infinity - Infinity: NaN, where Decimal raises
                return self.strict(e.args, lambda s: f"_rt.narith({op!r}, {s[0]}, {s[1]})")
            return self.strict(e.args, lambda s: f"({s[0]} {op} {s[1]})")
        if op == "/":
            fn = "_rt.idiv" if t in _INT_CHECK else "_rt.ndiv" if t == T.NUMERIC else "_rt.fdiv"
            if t == T.INTERVAL:
                fn = "_rt.fdiv"
            if t in _INT_CHECK:  # NB: the minimum divided by -1 overflows (22003), as in PG
                return self.strict(e.args, lambda s: f"{_INT_CHECK[t]}({fn}({s[0]}, {s[1]}))")
            return self.strict(e.args, lambda s: f"{fn}({s[0]}, {s[1]})")
        if op == "%":
            fn = "_rt.imod" if t in _INT_CHECK else "_rt.nmod"
            return self.strict(e.args, lambda s: f"{fn}({s[0]}, {s[1]})")
        if op == "^":
            return self.strict(e.args, lambda s: f"_rt.power({s[0]}, {s[1]})")
        if op == "||":
            return self.strict(e.args, lambda s: f"_rt.concat({s[0]}, {s[1]})")
        raise AssertionError(op)

    def g_neg(self, e: E) -> str:
        return self.strict(e.args, lambda s: f"_rt.neg({s[0]}, {e.args[0].type})")

    def g_not(self, e: E) -> str:
        return self.strict(e.args, lambda s: f"(not {s[0]})")

    def g_and(self, e: E) -> str:
        return self._logic(e.args, "False")

    def g_or(self, e: E) -> str:
        return self._logic(e.args, "True")

    def _logic(self, args: list[E], short: str) -> str:
        other = "True" if short == "False" else "False"
        kind = "or" if short == "True" else "and"
        flat: list[E] = []
        stack = list(reversed(args))
        while stack:  # NB: (a OR b) OR c is a OR b OR c, in the same order, NULLs included
            a = stack.pop()
            if a.kind == kind:
                stack.extend(reversed(a.args))
            else:
                flat.append(a)
        args = flat
        if len(args) > MAX_CHAIN:
            g = Gen()
            lines = ["    _n = False\n"]
            for a in args:
                lines.append(f"    _v = {g.expr(a)}\n    if _v is {short}:\n"
                             f"        return {short}\n    if _v is None:\n        _n = True\n")
            return self.hoisted(lines, f"None if _n else {other}", g)
        temps = []
        out = None
        parts = []
        for a in args:
            t = self.tmp()
            temps.append(t)
            parts.append(f"({t} := {self.expr(a)}) is {short}")
        nulls = " or ".join(f"{t} is None" for t in temps)
        out = f"(None if {nulls} else {other})"
        for p in reversed(parts):
            out = f"({short} if {p} else {out})"
        return out

    def _is(self, e: E, what: str, negate: bool) -> str:
        a = e.args[0]
        if a.kind == "const":  # fold: `1 is None` would be a SyntaxWarning
            hit = a.data is None if what == "None" else a.data is (what == "True")
            return repr(hit != negate)
        return f"({self.expr(a)} is {'not ' if negate else ''}{what})"

    def g_isnull(self, e: E) -> str:
        return self._is(e, "None", False)

    def g_notnull(self, e: E) -> str:
        return self._is(e, "None", True)

    def g_istrue(self, e: E) -> str:
        return self._is(e, "True", bool(e.data))

    def g_isfalse(self, e: E) -> str:
        return self._is(e, "False", bool(e.data))

    def g_distinct(self, e: E) -> str:
        neg = "not " if e.data else ""
        return f"({neg}_rt.distinct({self.expr(e.args[0])}, {self.expr(e.args[1])}))"

    def g_cast(self, e: E) -> str:
        if e.data is None:
            return self.expr(e.args[0])
        fn = self.k(e.data)
        return self.strict(e.args, lambda s: f"{fn}({s[0]})")

    def g_call(self, e: E) -> str:
        fd = e.data
        fn = self.k(fd.impl)
        pre = ["ctx.functions"] if fd.needs_context else []
        if fd.strict:
            return self.strict(e.args, lambda s: f"{fn}({', '.join(pre + s)})")
        return f"{fn}({', '.join(pre + [self.expr(a) for a in e.args])})"

    def g_pyfunc(self, e: E) -> str:
        _name, impl, strict = e.data
        fn = self.k(impl)
        if strict:
            return self.strict(e.args, lambda s: f"{fn}({', '.join(s)})")
        return f"{fn}({', '.join(self.expr(a) for a in e.args)})"

    def g_case(self, e: E) -> str:
        args = list(e.args)
        out = self.expr(args.pop()) if e.data else "None"
        pairs = [(args[i], args[i + 1]) for i in range(0, len(args), 2)]
        if len(pairs) > MAX_CHAIN:
            g = Gen()
            lines = [f"    if ({g.expr(c)}) is True:\n        return {g.expr(r)}\n"
                     for c, r in pairs]
            return self.hoisted(lines, g.expr(e.args[-1]) if e.data else "None", g)
        for cond, res in reversed(pairs):
            out = f"({self.expr(res)} if ({self.expr(cond)}) is True else {out})"
        return out

    def g_coalesce(self, e: E) -> str:
        out = "None"
        for a in reversed(e.args):
            t = self.tmp()
            out = f"({t} if ({t} := {self.expr(a)}) is not None else {out})"
        return out

    def g_nullif(self, e: E) -> str:
        t = self.tmp()
        b = self.expr(e.args[1])
        eq = f"_rt.nan_eq({t}, {b})" if e.args[0].type in _NANABLE else f"{t} == {b}"
        return f"(None if ({t} := {self.expr(e.args[0])}) is not None and {eq} else {t})"

    def g_greatest(self, e: E) -> str:
        return f"_rt.greatest([{', '.join(self.expr(a) for a in e.args)}])"

    def g_least(self, e: E) -> str:
        return f"_rt.greatest([{', '.join(self.expr(a) for a in e.args)}], True)"

    def g_array(self, e: E) -> str:
        return f"[{', '.join(self.expr(a) for a in e.args)}]"

    def g_row(self, e: E) -> str:
        values = f"({''.join(self.expr(a) + ', ' for a in e.args)})"
        if e.data is None:
            return values
        if isinstance(e.data, OuterRowTypes):  # a null-extended whole row is NULL
            if e.data.guard == MARKED:  # NB: the marks ride in the first field (wholerow)
                marks = f"({''.join(self.expr(m) + ', ' for m in e.args[0].args[1:])})"
                return f"{self.k(outer_row)}({values}, {self.k(e.data)}, {marks})"
            return f"{self.k(outer_row)}({values}, {self.k(e.data)})"
        return f"{self.k(Record)}({values}, {self.k(e.data)})"  # ROW(...): record_out knows types

    def g_nullext(self, e: E) -> str:  # a field carrying its row's markers: the field
        return self.expr(e.args[0])

    def g_subscript(self, e: E) -> str:
        return f"_rt.subscript({', '.join(self.expr(a) for a in e.args)})"

    def g_like(self, e: E) -> str:
        ci, negate = e.data
        neg = "not " if negate else ""
        pat = e.args[1]
        esc = e.args[2] if len(e.args) > 2 else None
        what = "ILIKE" if ci else "LIKE"  # NB: a nondeterministic collation's 0A000 says
        if (pat.kind == "const" and isinstance(pat.data, str)
                and (esc is None or (esc.kind == "const" and isinstance(esc.data, str)))):
            rx = self.k(rt.like_regex(pat.data, ci, rt.like_escape(esc.data) if esc else "\\"))
            return self.strict(e.args[:1], lambda s: f"({neg}{rx}.fullmatch("
                               f"_rt.matchable({s[0]}, {what!r})) is not None)")
        if esc is not None:
            return self.strict(e.args, lambda s: f"({neg}_rt.like(_rt.matchable({s[0]}, "
                               f"{what!r}), {s[1]}, {ci}, {s[2]}))")
        return self.strict(e.args, lambda s: f"({neg}_rt.like(_rt.matchable({s[0]}, {what!r}), "
                           f"{s[1]}, {ci}))")

    def g_similar(self, e: E) -> str:
        neg = "not " if e.data else ""
        return self.strict(e.args, lambda s: f"({neg}_rt.similar(_rt.matchable({s[0]}, "
                           f"'regular expressions'), {s[1]}))")

    def g_regex(self, e: E) -> str:
        ci, negate = e.data
        neg = "not " if negate else ""
        pat = e.args[1]
        if pat.kind == "const" and isinstance(pat.data, str):
            rx = self.k(rt.pg_regex(pat.data, ci))
            return self.strict(e.args[:1], lambda s: f"({neg}{rx}.search(_rt.matchable("
                               f"{s[0]}, 'regular expressions')) is not None)")
        return self.strict(e.args, lambda s: f"({neg}_rt.regex(_rt.matchable({s[0]}, "
                           f"'regular expressions'), {s[1]}, {ci}))")

    def g_in_list(self, e: E) -> str:
        v, items = e.args[0], e.args[1:]
        neg = e.data
        if all(i.kind == "const" for i in items):
            vals = [i.data for i in items if i.data is not None]
            try:
                values: Any = frozenset(vals)
            except TypeError:
                values = vals
            has_null = any(i.data is None for i in items)
            src = f"_rt.in_values({self.expr(v)}, {self.k(values)}, {has_null})"
        elif len(items) >= 16 and all(i.kind == "param" for i in items):
            # NB: a long list of parameters (sql.paramlists): a set made once per execution
            self.uses_params = True
            key = self.k(rt.ParamSet([i.data - 1 for i in items]))
            src = f"{key}.probe({self.expr(v)}, ctx)"
        else:
            arr = f"[{', '.join(self.expr(i) for i in items)}]"
            src = f"_rt.any_op({self.expr(v)}, {arr}, {self.k(operator.eq)}, False)"
        return self._negate(src) if neg else src

    def _negate(self, src: str) -> str:
        t = self.tmp()
        return f"(None if ({t} := {src}) is None else not {t})"

    def g_any(self, e: E) -> str:
        op, is_all = e.data
        arr = e.args[1]
        if (op, is_all) in (("=", False), ("<>", True)) and arr.kind == "const" \
                and isinstance(arr.data, list) and len(arr.data) >= 16:
            pad = e.args[0].type == T.BPCHAR  # NB: char(n) compares without trailing blanks
            try:  # NB: a long constant array (a long IN list, parse.inlists) is a hash probe
                values = frozenset((x.rstrip(" ") if pad else x) for x in arr.data
                                   if x is not None)
            except (TypeError, AttributeError):
                values = None
            if values is not None:
                has_null, kv = None in arr.data, self.k(values)
                src = (self.strict(e.args[:1], lambda s: (
                    f"_rt.in_values({s[0]}.rstrip(' '), {kv}, {has_null})")) if pad
                       else f"_rt.in_values({self.expr(e.args[0])}, {kv}, {has_null})")
                return self._negate(src) if is_all else src
        return (f"_rt.any_op({self.expr(e.args[0])}, {self.expr(e.args[1])}, "
                f"{self.k(PY_OPS[op])}, {is_all})")

    def g_rowcmp(self, e: E) -> str:
        a, b = e.args
        return f"_rt.row_cmp({self.expr(a)}, {self.expr(b)}, {e.data!r})"

    def g_subquery(self, e: E) -> str:
        self.uses_outer = True
        fn = self.k(SUBQUERY_RUNTIME["scalar"])
        return f"{fn}({self.k(e.data)}, row, ctx)"

    def g_exists(self, e: E) -> str:
        self.uses_outer = True
        fn = self.k(SUBQUERY_RUNTIME["exists"])
        return f"{fn}({self.k(e.data)}, row, ctx)"

    def g_in_sub(self, e: E) -> str:
        self.uses_outer = True
        fn = self.k(SUBQUERY_RUNTIME["in"])
        plan, op, is_all = e.data
        src = f"{fn}({self.expr(e.args[0])}, {self.k(plan)}, row, ctx, {self.k(PY_OPS[op])}, {is_all})"
        return src

    def g_array_sub(self, e: E) -> str:
        self.uses_outer = True
        fn = self.k(SUBQUERY_RUNTIME["array"])
        return f"{fn}({self.k(e.data)}, row, ctx)"

    def g_ctxfn(self, e: E) -> str:
        return "ctx.functions"


def _prologue(g: Gen) -> str:
    lines = ""
    if g.uses_params:
        lines += "    _P = ctx.params\n"
    if g.uses_outer:
        lines += "    _O = ctx.outer\n"
    return lines


def _build(src: str, g: Gen, name: str = "_f") -> Callable[..., Any]:
    code = compile(src, f"<sql:{name}>", "exec")
    ns = dict(g.env)
    exec(code, ns)  # noqa: S102 - the source is generated from a bound expression tree
    fn = ns[name]
    fn.__sql_source__ = src
    return fn


def row_function(e: E) -> Callable[[tuple, Any], Any]:
    """Compiles `e` into `fn(row, ctx) -> value`."""
    g = Gen()
    body = g.expr(e)
    return _build(f"def _f(row, ctx):\n{_prologue(g)}    return {body}\n", g)


def project_function(exprs: list[E]) -> Callable[[list, Any], list]:
    """Compiles a projection into `fn(rows, ctx) -> rows` (one list comprehension)."""
    g = Gen()
    if all(e.kind == "col" for e in exprs) and exprs:
        idx = [e.data for e in exprs]
        if len(idx) == 1:
            body = f"[(row[{idx[0]}],) for row in rows]"
        else:
            getter = g.k(operator.itemgetter(*idx))
            body = f"list(map({getter}, rows))"
    elif len(exprs) >= 16 and all(e.kind == "param" for e in exprs):
        # NB: a long IN list of parameters (sql.paramlists): one getter, not 60,000 terms
        g.uses_params = True
        getter = g.k(operator.itemgetter(*[e.data - 1 for e in exprs]))
        body = f"[{getter}(_P) for row in rows]"
    else:
        items = "".join(g.expr(e) + ", " for e in exprs)
        body = f"[({items}) for row in rows]"
    return _build(f"def _f(rows, ctx):\n{_prologue(g)}    return {body}\n", g)


def conjuncts(e: E | None) -> list[E]:
    """Splits an AND tree into its conjuncts."""
    if e is None:
        return []
    if e.kind == "and":
        out: list[E] = []
        for a in e.args:
            out.extend(conjuncts(a))
        return out
    return [e]


def values_function(e: E) -> Callable[[list, Any], list]:
    """Compiles `e` into `fn(rows, ctx) -> [non-NULL values]` (an aggregate's input)."""
    g = Gen()
    body = f"[_v for row in rows if (_v := {g.expr(e)}) is not None]"
    return _build(f"def _f(rows, ctx):\n{_prologue(g)}    return {body}\n", g)


# Types whose values Python compares as PostgreSQL does, with no NaN (see `Gen.g_op`).
_TRUTH_TYPES = frozenset((T.INT2, T.INT4, T.INT8, T.BOOL, T.TEXT, T.VARCHAR, T.NAME, T.DATE,
                          T.TIMESTAMP, T.TIMESTAMPTZ))
_TRUTH_DEPTH = 16  # deeper AND / OR / NOT nests fall back to value mode


def truth(g: Gen, e: E, want: bool = True, depth: int = 0) -> str:
    """A filter's predicate in *truth mode*: Python source that is True iff e is SQL TRUE
    (`want`) or SQL FALSE (not `want`). A filter keeps a row only when its predicate is
    TRUE, and NULL is neither, so three-valued logic needs no NULL values here:
    T(a AND b) = T(a) and T(b), F(a AND b) = F(a) or F(b), T(NOT e) = F(e), and
    T(x < y) = x is not None and y is not None and x < y. That saves the value mode's
    temporaries and NULL checks per row (about a fifth of a pushed filter's time). What
    this does not know (NaN-ordered types, calls, casts) is value mode's `(...) is True`.

    >>> from cumulo.server.sql.expr.bound import col
    >>> g = Gen()
    >>> lt = E("op", "<", [col(0, T.INT4), E("param", 1, [], T.INT4)], T.BOOL)
    >>> truth(g, E("not", None, [lt], T.BOOL))
    '(row[0] is not None and _P[0] is not None and not (row[0] < _P[0]))'
    """
    k = e.kind
    if depth < _TRUTH_DEPTH:
        if k == "and" or k == "or":
            parts = [truth(g, a, want, depth + 1) for a in e.args]
            if not parts:
                return "True" if (k == "and") == want else "False"
            return "(" + (" and " if (k == "and") == want else " or ").join(parts) + ")"
        if k == "not":
            return truth(g, e.args[0], not want, depth + 1)
        if k == "op" and e.data in _CMP and all(
                a.type in _TRUTH_TYPES and a.kind in ("col", "param", "const") for a in e.args):
            if any(a.kind == "const" and a.data is None for a in e.args):
                return "False"  # NULL compares to nothing
            a, b = (g.expr(x) for x in e.args)
            conds = [f"{src} is not None" for x, src in zip(e.args, (a, b), strict=True)
                     if x.kind != "const"]
            test = f"({a} {_CMP[e.data]} {b})"
            conds.append(test if want else f"not {test}")
            return "(" + " and ".join(conds) + ")"
        if k == "isnull" or k == "notnull":  # never NULL
            src = g.expr(e)
            return src if want else f"(not {src})"
    return f"({g.expr(e)}) is {want}"


def filter_function(pred: E) -> Callable[[list, Any], list]:
    """Compiles a predicate into `fn(rows, ctx) -> rows` keeping rows where it is TRUE."""
    g = Gen()
    cond = " and ".join(truth(g, c) for c in conjuncts(pred))
    body = f"[row for row in rows if {cond}]"
    return _build(f"def _f(rows, ctx):\n{_prologue(g)}    return {body}\n", g)


def select_function(pred: E) -> Callable[[list, Any], list[int]]:
    """Compiles a predicate into `fn(rows, ctx) -> positions` of the rows where it is TRUE
    (a scan's pushed filter over rows the SQL layer holds itself: a bind join's gets, a
    column batch the vector kernels could not decide).

    >>> from cumulo.server.sql.expr.bound import col
    >>> f = select_function(E("op", "<", [col(0, T.INT4), E("param", 1, [], T.INT4)], T.BOOL))
    >>> class Ctx: params = [3]
    >>> f([(1,), (5,), (None,), (2,)], Ctx)
    [0, 3]
    """
    g = Gen()
    cond = " and ".join(truth(g, c) for c in conjuncts(pred))
    body = f"[_i for _i, row in enumerate(rows) if {cond}]"
    return _build(f"def _f(rows, ctx):\n{_prologue(g)}    return {body}\n", g)


_NAN_KEY = float("nan")  # the one NaN object every NaN key becomes (see `_key_expr`)


def _key_expr(g: Gen, e: E) -> str:
    """A grouping or join key: NaN is one value to PostgreSQL (NaN = NaN, one group), but
    two NaN objects are different dict keys to Python, so each NaN maps to `_NAN_KEY`."""
    src = g.expr(e)
    if e.type not in _NANABLE:
        return src
    first, later = g.bind(src)
    return f"({later} if {first} == {later} else {g.k(_NAN_KEY)})"


def key_function(exprs: list[E]) -> Callable[[tuple, Any], Any]:
    """Compiles a tuple of expressions into `fn(row, ctx) -> tuple` (grouping and join keys)."""
    g = Gen()
    items = "".join(_key_expr(g, e) + ", " for e in exprs)
    return _build(f"def _f(row, ctx):\n{_prologue(g)}    return ({items})\n", g)


def _join_key_expr(g: Gen, e: E) -> str:
    """A hash-join key: an array value (a list) as a tuple, which a dict can hash."""
    src = _key_expr(g, e)
    return f"_rt.array_key({src})" if e.type in T.ELEMENT_OF else src


def join_key_function(exprs: list[E]) -> Callable[[tuple, Any], Any]:
    """`key_function` for matching only (a NOT IN's set): arrays as tuples."""
    g = Gen()
    items = "".join(_join_key_expr(g, e) + ", " for e in exprs)
    return _build(f"def _f(row, ctx):\n{_prologue(g)}    return ({items})\n", g)


def keys_function(exprs: list[E]) -> Callable[[list, Any], list]:
    """Compiles join keys into `fn(rows, ctx) -> [key]`, one list comprehension per batch: a
    bare value for a single expression (cheaper to hash than a 1-tuple), else a tuple."""
    g = Gen()
    if len(exprs) == 1:
        item = _join_key_expr(g, exprs[0])
    else:
        item = "(" + "".join(_join_key_expr(g, e) + ", " for e in exprs) + ")"
    return _build(f"def _f(rows, ctx):\n{_prologue(g)}    return [{item} for row in rows]\n", g)


def sort_key_function(e: E, nulls_high: bool) -> Callable[[tuple, Any], Any]:
    """Compiles a sort key that places NULLs above (nulls_high) or below every value."""
    g = Gen()
    f, later = g.bind(g.expr(e))
    if e.type in _NANABLE:  # NaN sorts above every number; Python would order it by position
        later = f"((1,) if {later} != {later} else (0, {later}))"
    elif e.type == T.RECORD or e.type in T.ELEMENT_OF or e.type not in T.TYPES:
        later = f"(_rt.nested_sort_key({later}) if isinstance({later}, (tuple, list)) else {later})"
    if nulls_high:
        body = f"((0, {later}) if {f} is not None else (1,))"
    else:
        body = f"((1, {later}) if {f} is not None else (0,))"
    return _build(f"def _f(row, ctx):\n{_prologue(g)}    return {body}\n", g)
