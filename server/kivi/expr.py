"""Compiles filter/scalar IR (see `kivi.api`) into Python functions, once per distinct tree.

Walking an IR tree for every row would cost several Python calls per row and
operator. Instead each tree becomes Python source, e.g. for
`("and", [("cmp", ">", ("col", 0), ("const", 5)), ("like", ("col", 1), "a%", False)])`:

    def _filter(rows):
        return [r for r in rows if ((r[0] is not None and r[0] > _c0)
                                    and (r[1] is not None and _re0(r[1]) is not None))]

which is compiled once per *shape*: the tree with its constants as slots (`_shape`),
so the same filter with other constants reuses the code, its constants passed in.

Parameters. A prepared statement's pushed filter keeps its parameter slots,
`("param", n)`, and the execution's values travel beside the tree (`Scan.params`):
the compiled function reads them as `_P[n - 1]`, so a statement compiles once
for all its executions, whatever the values:

    >>> sel = compile_selector(("cmp", "<", ("col", 0), ("param", 1)))
    >>> sel([(1,), (5,), (None,)], [3]), sel([(1,), (5,), (None,)], [9])
    ([0], [0, 1])
    >>> sel([(1,)], [None])
    []

Three-valued logic. A filter keeps a row only when its predicate is TRUE, so
predicates compile in one of two *truth modes*: `T(e)` is a Python boolean
that holds iff e is SQL TRUE, `F(e)` iff e is SQL FALSE (NULL fails both).
Then `T(a AND b) = T(a) and T(b)`, `F(a AND b) = F(a) or F(b)`, `T(NOT e) =
F(e)`, and `T(x < y) = x is not None and y is not None and x < y`, all using
Python's short-circuiting and no helper calls. Scalars (and predicates used
as values) compile in *value mode*, where NULL is None and propagates; they
bind sub-results to temporaries with `:=` so nothing is evaluated twice.

NaN. PostgreSQL orders NaN above every number and equal to itself; Python
does neither, and refuses to order a Decimal NaN at all. Each tree therefore
also gets a *safe* variant comparing through `sql_compare`: it runs when the
tree has a NaN constant or is given a NaN parameter, or when the fast variant
meets a Decimal NaN (`InvalidOperation`). NB: a float NaN in a column, compared in fast mode,
still compares false with everything, so the SQL layer does not push float
comparisons (nor numeric column-to-column equality) down here: see
`optimizer/pushdown_filters._nan_safe`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import DivisionByZero, FeatureNotSupported

Row = tuple[Any, ...]

_CMP = {"=": "==", "<>": "!=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_NEG = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_ARITH = {"+", "-", "*", "/", "%"}
_CACHE_MAX = 4096
_filters: dict[str, Callable[[list[Row]], list[Row]]] = {}
_selectors: dict[str, Callable[[list[Row]], list[int]]] = {}
_scalars: dict[str, Callable[[Row], Any]] = {}


def like_regex(pattern: str, ci: bool) -> re.Pattern[str]:
    """Translates a SQL LIKE pattern (escape `\\`) into a regex matching whole strings."""
    out = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "%":
            out.append(".*")
        elif ch == "_":
            out.append(".")
        else:
            out.append(re.escape(ch))
        i += 1
    flags = re.DOTALL | (re.IGNORECASE if ci else 0)
    return re.compile("".join(out) + r"\Z", flags)


def sql_div(a: Any, b: Any) -> Any:
    """Divides as SQL does: integers truncate toward zero; division by zero is an error."""
    if b == 0:
        raise DivisionByZero("division by zero")
    if type(a) is int and type(b) is int:
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b >= 0) else -q
    return a / b


def sql_mod(a: Any, b: Any) -> Any:
    """Takes the remainder as SQL does: its sign is the dividend's."""
    if b == 0:
        raise DivisionByZero("division by zero")
    if type(a) is int and type(b) is int:
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    if isinstance(a, Decimal) or isinstance(b, Decimal):
        return Decimal(a) % Decimal(b)  # Decimal's % already keeps the dividend's sign
    return math.fmod(a, b)


def sql_compare(a: Any, b: Any) -> int:
    """Compares two non-NULL values as PostgreSQL does: NaN equals NaN and is above all numbers."""
    an, bn = a != a, b != b
    if an or bn:
        return int(an) - int(bn)
    return (a > b) - (a < b)


def _and3(*vals: Any) -> bool | None:
    """SQL AND over already computed values."""
    if any(v is False for v in vals):
        return False
    return None if any(v is None for v in vals) else True


def _or3(*vals: Any) -> bool | None:
    """SQL OR over already computed values."""
    if any(v is True for v in vals):
        return True
    return None if any(v is None for v in vals) else False


class _Gen:
    """Generates Python source for one IR tree; constants become names in `ns`."""

    def __init__(self, safe: bool = False) -> None:
        # Safe mode compares through sql_compare (NaN-aware, and no InvalidOperation on a
        # Decimal NaN); fast mode uses Python's operators directly.
        self.safe = safe
        self.ns: dict[str, Any] = {
            "_sc": sql_compare,
            "_div": sql_div,
            "_mod": sql_mod,
            "_and3": _and3,
            "_or3": _or3,
        }
        self.n = 0

    def name(self, prefix: str, value: Any) -> str:
        """Binds a value to a fresh global name of the generated code."""
        self.n += 1
        nm = f"_{prefix}{self.n}"
        self.ns[nm] = value
        return nm

    def tmp(self) -> str:
        """Returns a fresh temporary name (for `:=`)."""
        self.n += 1
        return f"_t{self.n}"

    def operand(self, e: Any) -> tuple[str, bool, bool]:
        """Returns (source, may be NULL, simple); simple operands are cheap to repeat."""
        kind = e[0]
        if kind == "col":
            return f"r[{int(e[1])}]", True, True
        if kind == "const":
            v = e[1]
            if v is None:
                return "None", True, True
            # NB: constants are names, never literals: `5 is None` would be a SyntaxWarning.
            return self.name("c", v), False, True
        if kind == "slot":  # a constant supplied per use (see `_shape`): never NULL
            return f"_slot{int(e[1])}", False, True
        if kind == "param":  # the execution's value, passed beside the rows: may be NULL
            return f"_P[{int(e[1]) - 1}]", True, True
        return self.value(e), True, False

    def value(self, e: Any) -> str:
        """Value mode: an expression giving the SQL value, None for NULL."""
        kind = e[0]
        if kind in ("col", "const", "slot", "param"):
            return self.operand(e)[0]
        if kind == "arith":
            op = e[1]
            if op not in _ARITH:
                raise FeatureNotSupported(f"arithmetic operator {op!r} cannot be pushed down")
            a, b, guard = self._pair(e[2], e[3])
            if op == "/":
                expr = f"_div({a}, {b})"
            elif op == "%":
                expr = f"_mod({a}, {b})"
            else:
                expr = f"({a} {op} {b})"
            return f"(None if {guard} else {expr})" if guard != "False" else expr
        if kind == "cmp":
            op = _cmp_op(e[1])
            a, b, guard = self._pair(e[2], e[3])
            expr = self._cmp(a, op, b)
            return f"(None if {guard} else {expr})" if guard != "False" else expr
        if kind == "and":
            return "_and3(" + ", ".join(self.value(x) for x in e[1]) + ")"
        if kind == "or":
            return "_or3(" + ", ".join(self.value(x) for x in e[1]) + ")"
        if kind == "not":
            t = self.tmp()
            return f"(None if ({t} := {self.value(e[1])}) is None else not {t})"
        if kind in ("is_null", "is_not_null", "in", "like"):
            # These are never NULL except `in`/`like` on NULL input: build from truth modes.
            t, f = self.true(e), self.false(e)
            return f"(True if {t} else False if {f} else None)"
        raise FeatureNotSupported(f"expression {kind!r} cannot be pushed down")

    def _cmp(self, a: str, op: str, b: str) -> str:
        return f"(_sc({a}, {b}) {op} 0)" if self.safe else f"({a} {op} {b})"

    def _pair(self, ea: Any, eb: Any) -> tuple[str, str, str]:
        """Both operands, binding complex ones to temporaries; plus the 'either is NULL' guard."""
        a, an, asimple = self.operand(ea)
        b, bn, bsimple = self.operand(eb)
        guards = []
        if an:
            if asimple:
                guards.append(f"{a} is None")
            else:
                t = self.tmp()
                guards.append(f"({t} := {a}) is None")
                a = t
        if bn:
            if bsimple:
                guards.append(f"{b} is None")
            else:
                t = self.tmp()
                guards.append(f"({t} := {b}) is None")
                b = t
        return a, b, " or ".join(guards) if guards else "False"

    def _notnull(self, e: Any) -> tuple[str, list[str]]:
        """An operand plus the conditions that it is not NULL (binding it if complex)."""
        a, an, simple = self.operand(e)
        if not an:
            return a, []
        if simple:
            return a, [f"{a} is not None"]
        t = self.tmp()
        return t, [f"({t} := {a}) is not None"]

    def true(self, e: Any) -> str:
        """Truth mode: a Python bool that holds iff e is SQL TRUE."""
        return self._truth(e, True)

    def false(self, e: Any) -> str:
        """Truth mode: a Python bool that holds iff e is SQL FALSE."""
        return self._truth(e, False)

    def _truth(self, e: Any, want: bool) -> str:
        kind = e[0]
        if kind == "and" or kind == "or":
            parts = [self._truth(x, want) for x in e[1]]
            if not parts:
                return "True" if (kind == "and") == want else "False"
            joiner = " and " if (kind == "and") == want else " or "
            return "(" + joiner.join(parts) + ")"
        if kind == "not":
            return self._truth(e[1], not want)
        if kind == "cmp":
            op = _cmp_op(e[1])
            if not want:
                op = _NEG[op]
            a, conds_a = self._notnull(e[2])
            b, conds_b = self._notnull(e[3])
            if a == "None" or b == "None":
                return "False"
            return "(" + " and ".join([*conds_a, *conds_b, self._cmp(a, op, b)]) + ")"
        if kind == "is_null" or kind == "is_not_null":
            v = self.value(e[1])
            is_null = (kind == "is_null") == want
            return f"({v} is {'' if is_null else 'not '}None)"
        if kind == "in":
            a, conds = self._notnull(e[1])
            vals = list(e[2])
            has_null = any(v is None for v in vals)
            vals = [v for v in vals if v is not None]
            try:
                coll: Any = frozenset(vals)
            except TypeError:
                coll = tuple(vals)
            nm = self.name("s", coll)
            if want:
                return "(" + " and ".join([*conds, f"{a} in {nm}"]) + ")"
            if has_null:
                return "False"  # x NOT IN (..., NULL) is never TRUE
            return "(" + " and ".join([*conds, f"{a} not in {nm}"]) + ")"
        if kind == "like":
            pattern, ci = e[2], bool(e[3]) if len(e) > 3 else False
            if pattern is None:
                return "False"
            a, conds = self._notnull(e[1])
            rx = self.name("re", like_regex(pattern, ci).match)
            test = f"{rx}({a}) is {'not ' if want else ''}None"
            return "(" + " and ".join([*conds, test]) + ")"
        if kind == "const":
            return "True" if e[1] is want else "False"
        return f"({self.value(e)} is {want})"


def _cmp_op(op: str) -> str:
    try:
        return _CMP[op]
    except KeyError:
        raise FeatureNotSupported(f"comparison {op!r} cannot be pushed down") from None


def _compile(src: str, ns: dict[str, Any], name: str) -> Any:
    code = compile(src, f"<kivi.expr {name}>", "exec")
    exec(code, ns)  # noqa: S102 - the source is generated from a validated IR tree
    return ns[name]


def _remember(cache: dict[str, Any], key: str, fn: Any) -> Any:
    if len(cache) >= _CACHE_MAX:
        cache.clear()
    cache[key] = fn
    return fn


def _has_nan(ir: Any) -> bool:
    """Tells whether the tree holds a NaN constant (which needs the NaN-aware comparisons)."""
    if isinstance(ir, tuple | list):
        if len(ir) == 2 and ir[0] == "const":
            v = ir[1]
            return isinstance(v, float | Decimal) and v != v
        return any(_has_nan(x) for x in ir)
    return False


def _shape(ir: Any, consts: list[Any]) -> Any:
    """The tree with each plain constant replaced by a slot `("slot", i)`; values go to `consts`.

    The SQL layer binds a statement's parameters into the tree as constants before it is
    sent (the tree may travel to another node), so `id = $1` arrives as a new tree for every
    value. The code generated for a constant does not depend on its value, except for NULL,
    booleans (folded in truth mode) and NaN (which needs the safe variant): those stay in
    the shape, and everything else is compiled once per shape.
    """
    if not isinstance(ir, tuple | list) or not ir:
        return ir
    kind = ir[0]
    if kind == "const" and len(ir) == 2:  # NB: trees from msgpack are lists
        v = ir[1]
        if v is None or isinstance(v, bool) or (isinstance(v, float | Decimal) and v != v):
            return ir
        consts.append(v)
        return ("slot", len(consts) - 1)
    if kind in ("in", "like"):  # NB: their values and patterns are raw, not trees
        return (kind, _shape(ir[1], consts), *ir[2:])
    if kind in ("and", "or"):
        return (kind, [_shape(x, consts) for x in ir[1]])
    if kind in ("cmp", "arith"):
        return (kind, ir[1], _shape(ir[2], consts), _shape(ir[3], consts))
    if kind in ("not", "is_null", "is_not_null"):
        return (kind, _shape(ir[1], consts))
    return ir  # "col", or a kind the generator rejects


def _params_of(ir: Any) -> set[int]:
    """The parameter positions (0-based) a tree reads.

    >>> sorted(_params_of(("and", [("cmp", "<", ("col", 0), ("param", 2)), ("param", 1)])))
    [0, 1]
    """
    if not isinstance(ir, tuple | list) or not ir:
        return set()
    if ir[0] == "param" and len(ir) == 2:
        return {int(ir[1]) - 1}
    return set().union(*map(_params_of, ir))


def _nan_at(params: Any, slots: tuple[int, ...]) -> bool:
    """Whether one of the parameters a tree reads is a float or Decimal NaN."""
    for i in slots:
        v = params[i]
        if type(v) in _NANABLE and v != v:
            return True
    return False


_NANABLE = (float, Decimal)


def _build(ir: Any, template: str, name: str, value_mode: bool, slots: int) -> Any:
    """Compiles the fast and the safe variant as factories taking the slots' values.

    Returns `make(consts) -> fn(arg, params)`; the fast variant hands over to the safe
    one on a NaN parameter and on a Decimal NaN met in the rows.
    """
    variants = []
    unpack = "".join(f"    _slot{i} = _consts[{i}]\n" for i in range(slots))
    for safe in (False, True) if not _has_nan(ir) else (True,):
        g = _Gen(safe)
        body = g.value(ir) if value_mode else g.true(ir)
        inner = "".join("    " + line + "\n" for line in template.format(body).splitlines())
        src = f"def _make(_consts):\n{unpack}{inner}    return {name}\n"
        variants.append(_compile(src, g.ns, "_make"))
    if len(variants) == 1:
        return variants[0]
    make_fast, make_safe = variants
    read = tuple(sorted(_params_of(ir)))

    def make(consts: list[Any]) -> Any:
        fast, safe_fn = make_fast(consts), make_safe(consts)

        def run(arg: Any, params: Any = ()) -> Any:
            """Runs the fast variant, or the safe one for a NaN parameter or when a Decimal
            NaN got in the fast one's way."""
            if read and _nan_at(params, read):
                return safe_fn(arg, params)
            try:
                return fast(arg, params)
            except InvalidOperation:  # NB: Python refuses to order a Decimal NaN; SQL does not
                return safe_fn(arg, params)

        return run

    return make


# The function last compiled for a tree object, by (cache, tree) identity: in process the
# SQL layer sends its plan node's tree itself, parameter slots and all, with every
# execution, so a repeated statement skips the shape walk, its repr and the closure (the
# entry holds the tree, so its id is not reused while it is here).
_by_tree: dict[tuple[int, int], tuple[Any, Any]] = {}


def _compiled(cache: dict[str, Any], ir: Any, template: str, name: str,
              value_mode: bool) -> Any:
    seen = _by_tree.get((id(cache), id(ir)))
    if seen is not None and seen[0] is ir:
        return seen[1]
    consts: list[Any] = []
    shape = _shape(ir, consts)
    key = repr(shape)
    make = cache.get(key)
    if make is None:
        make = _remember(cache, key, _build(shape, template, name, value_mode, len(consts)))
    fn = make(consts)
    if len(_by_tree) >= _CACHE_MAX:
        _by_tree.clear()
    _by_tree[(id(cache), id(ir))] = (ir, fn)
    return fn


Params = Sequence[Any]  # the execution's parameter values: `("param", n)` reads [n - 1]


def compile_filter(ir: Any) -> Callable[[list[Row], Params], list[Row]]:
    """Returns a function of (rows, params) keeping the rows for which the IR predicate is TRUE."""
    return _compiled(_filters, ir,
                     "def _filter(rows, _P=()):\n    return [r for r in rows if {}]\n",
                     "_filter", False)


def compile_selector(ir: Any) -> Callable[[list[Row], Params], list[int]]:
    """Returns a function of (rows, params) giving the positions of the rows for which the IR
    is TRUE."""
    return _compiled(_selectors, ir,
                     "def _select(rows, _P=()):\n"
                     "    return [i for i, r in enumerate(rows) if {}]\n",
                     "_select", False)


def compile_scalar(ir: Any) -> Callable[[Row, Params], Any]:
    """Returns a function of (row, params) computing the IR's SQL value (None for NULL)."""
    return _compiled(_scalars, ir, "def _scalar(r, _P=()):\n    return {}\n", "_scalar", True)


def source_of(ir: Any) -> str:
    """Returns the generated predicate source of a filter (for tests and EXPLAIN-style dumps)."""
    return _Gen().true(ir)
