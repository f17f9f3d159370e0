"""CALL: finding the procedure a call names and running it (CREATE PROCEDURE is `functions`').

`CALL p(1, b => 2)` is resolved as PostgreSQL resolves it: the procedures named
`p` on the search_path whose parameters take these arguments, positional then
named (`=>`), the missing ones from their defaults, the trailing ones of a
VARIADIC parameter packed into its array. Since PostgreSQL 14 every parameter,
OUT ones included, takes an argument. The arguments are then computed by one
SELECT of each one cast to its parameter's type (so `$n` parameters are typed by
it, as PostgreSQL's extended protocol expects), and the body runs with them.
A procedure with OUT or INOUT parameters answers one row of their values.

Transaction control: a CALL (or DO) run outside a transaction block and alone in
its Query message is non-atomic, so its body may COMMIT or ROLLBACK (`Interp`);
a nested CALL inherits that, a function never has it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...errors import (
    FeatureNotSupported,
    InsufficientPrivilege,
    SQLError,
    SyntaxError_,
    UndefinedFunction,
)
from ...pgtypes import oids as T
from ...pgwire.backend import Column, Result
from ..catalog.model import Function
from ..catalog.routineparams import parameters
from ..expr.commontype import PREFERRED, implicit
from ..expr.types import type_name
from ..parse import parse_sql, split_statements
from ..pgcatalog.typetext import format_type
from ..privileges.check import check_function
from ..stmt import AnalyseTree, Stmt
from . import routinectx
from .functions import compiled, context_name, run_sql_body
from .interp import Interp, Var, _Return, register_call, top_level_nonatomic
from .parser import Tok, tokenize

if TYPE_CHECKING:
    from ..session import SQLSession

Arg = tuple[str | None, str, bool]  # (name for `name => value`, expression, VARIADIC written)


def split_call(text: str) -> tuple[str | None, str, list[Arg], int]:
    """`CALL [schema.]name(args)` -> (schema, name, arguments, where the name starts).

    >>> split_call("CALL s.p(1, 'a,b', x => f(2, 3), VARIADIC ARRAY[1])")
    ('s', 'p', [(None, '1', False), (None, "'a,b'", False), ('x', 'f(2, 3)', False), (None, 'ARRAY[1]', True)], 5)
    """
    toks = tokenize(text.strip().rstrip(";"))
    if not toks or toks[0].up != "CALL":
        raise SyntaxError_('syntax error at or near "CALL"')
    i, names = 1, []
    while i < len(toks) and (toks[i].word or toks[i].text.startswith('"')):
        names.append(_ident(toks[i]))
        if i + 1 < len(toks) and toks[i + 1].text == ".":
            i += 2
            continue
        i += 1
        break
    if not names or i >= len(toks) or toks[i].text != "(" or toks[-1].text != ")":
        at = toks[i].text if i < len(toks) else ""
        raise SyntaxError_(f'syntax error at or near "{at}"' if at else
                           "syntax error at end of input")
    start = toks[1].start + len(text) - len(text.lstrip())
    body = toks[i + 1:-1]
    args: list[Arg] = []
    src = text.strip()
    for part in _split(body):
        if not part:
            raise SyntaxError_('syntax error at or near ")"')
        name = None
        if len(part) > 2 and (part[0].word or part[0].text.startswith('"')) and (
                part[1].text == ":=" or (part[1].text == "=" and part[2].text == ">"
                                        and part[2].start == part[1].end)):
            name = _ident(part[0])
            part = part[2:] if part[1].text == ":=" else part[3:]
        variadic = part[0].up == "VARIADIC" and len(part) > 1
        if variadic:
            part = part[1:]
        args.append((name, src[part[0].start:part[-1].end], variadic))
    named = [n for n, _, _ in args if n is not None]
    for n in named:
        if named.count(n) > 1:
            raise SyntaxError_(f'argument name "{n}" used more than once')
    schema = names[0] if len(names) == 2 else None
    return schema, names[-1], args, start


def _ident(t: Tok) -> str:
    return t.text[1:-1].replace('""', '"') if t.text.startswith('"') else t.text.lower()


def _split(toks: list[Tok]) -> list[list[Tok]]:
    out: list[list[Tok]] = [[]]
    depth = 0
    for t in toks:
        if t.text in ("(", "["):
            depth += 1
        elif t.text in (")", "]"):
            depth -= 1
        if t.text == "," and depth == 0:
            out.append([])
            continue
        out[-1].append(t)
    return out if toks else []


def unknown_literal(expr: str) -> bool:
    """A string constant or NULL: PostgreSQL's `unknown`, which any parameter type takes."""
    e = expr.strip()
    return e.upper() == "NULL" or re.fullmatch(r"'(?:[^']|'')*'", e) is not None


def bind_arguments(fn: Function, args: list[Arg]) -> list[str] | None:
    """One expression per parameter of `fn` (declaration order) from the call's arguments
    and the defaults, or None when the call does not fit `fn`."""
    params = parameters(fn)
    defaults = fn.param_defaults or ("",) * len(params)
    exprs: list[str | None] = [None] * len(params)
    positional = [a for a in args if a[0] is None]
    if any(a[0] is None for a in args[len(positional):]):
        return None  # NB: a positional argument after a named one: no match
    variadic = len(params) and params[-1][0] == "v"
    for i, (_, expr, spread) in enumerate(positional):
        if i >= len(params):
            return None
        if variadic and i == len(params) - 1 and not spread:  # NB: the rest, as one array
            exprs[i] = "ARRAY[" + ", ".join(e for _, e, _ in positional[i:]) + "]"
            break
        exprs[i] = expr
    for name, expr, _ in args[len(positional):]:
        at = next((j for j, p in enumerate(params) if p[1] == name), None)
        if at is None or exprs[at] is not None:
            return None
        exprs[at] = expr
    for j, e in enumerate(exprs):
        if e is None:
            if not defaults[j]:
                return None
            exprs[j] = defaults[j]
    return [e or "" for e in exprs]


def resolve(s: SQLSession, schema: str | None, name: str, args: list[Arg],
            types: list[int | None], position: int) -> tuple[Function, list[str]]:
    """The procedure `name(args)` calls and its parameters' expressions; PostgreSQL's 42883
    when none fits and 42809 when what fits is a function."""
    cat = s.catalog()
    path = [schema] if schema is not None else s.search_path()
    order = {sch.oid: path.index(sch.name) for sch in cat.schemas if sch.name in path}
    fits: list[tuple[int, Function, list[str]]] = []
    for fn in cat.functions:
        if fn.name == name and fn.schema_oid in order:
            exprs = bind_arguments(fn, args)
            if exprs is not None and _types_fit(fn, args, types):
                fits.append((order[fn.schema_oid], fn, exprs))
    fits.sort(key=lambda f: f[0])
    procs = [f for f in fits if f[1].kind == "p"]
    shown = ", ".join((f"{n} => " if n else "") + ("unknown" if t is None else type_name(t))
                      for (n, _, _), t in zip(args, types, strict=True))
    qualified = f"{schema}.{name}" if schema else name
    if len(procs) > 1:  # NB: overloads, in the nearest schema first
        nearest = [f for f in procs if f[0] == procs[0][0]]
        procs = best_candidates(nearest, args, types)
        if len(procs) > 1:
            raise SQLError(f"procedure {qualified}({shown}) is not unique", sqlstate="42725",
                           hint="Could not choose a best candidate procedure. You might need "
                           "to add explicit type casts.", position=position)
    if procs:
        return procs[0][1], procs[0][2]
    if fits:
        raise SQLError(f"{qualified}({shown}) is not a procedure", sqlstate="42809",
                       hint="To call a function, use SELECT.", position=position)
    raise UndefinedFunction(f"procedure {qualified}({shown}) does not exist", position=position,
                            hint="No procedure matches the given name and argument types. "
                            "You might need to add explicit type casts.")


def _targets(fn: Function, args: list[Arg]) -> list[tuple[str, int] | None]:
    """The (mode, type) of the parameter each argument goes to (None past the parameters)."""
    params = parameters(fn)
    out: list[tuple[str, int] | None] = []
    for i, (name, _, _) in enumerate(args):
        at = i if name is None else next((j for j, p in enumerate(params) if p[1] == name), i)
        out.append((params[at][0], params[at][2]) if at < len(params) else None)
    return out


def _param_types(fn: Function, args: list[Arg]) -> list[int | None]:
    """The type of the parameter each argument goes to (None past the parameters)."""
    return [t[1] if t is not None else None for t in _targets(fn, args)]


def _category(oid: int | None) -> str:
    info = T.TYPES.get(oid or 0)
    return info.category if info is not None else "U"


def best_candidates(fits: list[Any], args: list[Arg], types: list[int | None]) -> list[Any]:
    """PostgreSQL's choice among overloads (func_select_candidate), on `(order, routine,
    expressions)` entries: most exact matches of the known argument types, then most
    preferred parameter types where a conversion is needed, then, for each argument of
    unknown type, the string category if a candidate takes it, its preferred type first."""
    def keep(score: Any) -> None:
        nonlocal fits
        best = max(score(f) for f in fits)
        fits = [f for f in fits if score(f) == best]

    keep(lambda f: sum(1 for t, p in zip(types, _param_types(f[1], args), strict=True)
                       if t is not None and t == p))
    if len(fits) > 1:
        keep(lambda f: sum(1 for t, p in zip(types, _param_types(f[1], args), strict=True)
                           if t is not None and p in PREFERRED))
    for i, t in enumerate(types):
        if len(fits) <= 1 or t is not None:
            continue
        if any(_category(_param_types(f[1], args)[i]) == "S" for f in fits):
            fits = [f for f in fits if _category(_param_types(f[1], args)[i]) == "S"]
            if len(fits) > 1:
                keep(lambda f, i=i: _param_types(f[1], args)[i] in PREFERRED)
    return fits


def _types_fit(fn: Function, args: list[Arg], types: list[int | None]) -> bool:
    """Whether every argument of a known type converts implicitly to its parameter's."""
    for (_, _, spread), t, target in zip(args, types, _targets(fn, args), strict=True):
        if t is None or target is None:
            continue
        mode, want = target
        if mode == "v" and not spread:
            want = T.ELEMENT_OF.get(want, want)
        if t != want and not implicit(t, want):
            return False
    return True


def output_columns(fn: Function) -> list[Column]:
    """The row a CALL of `fn` answers: its INOUT and OUT parameters (none: no row)."""
    return [Column(n, t) for n, t in zip(fn.out_names, fn.out_types, strict=True)]


def analyse_call(session: SQLSession, sql: str, param_oids: list[int],
                 analyse_tree: AnalyseTree) -> Stmt:
    """CALL p(args) at top level (or from a client's prepared statement)."""
    schema, name, args, position = split_call(sql)
    types = _argument_types(session, args, param_oids, analyse_tree)
    fn, exprs = resolve(session, schema, name, args, types, position + 1)
    params = parameters(fn)
    doms = iter(fn.arg_domains)  # NB: a domain parameter casts to the domain: checked
    declared = [(next(doms, 0) if m in "ivb" else 0) or t for m, _, t in params]
    casts = ", ".join(f"CAST(({e}) AS {format_type(t, None)})" for e, t in
                      zip(exprs, declared, strict=True)) or "NULL"
    values_stmt = analyse_tree(session, f"SELECT {casts}", parse_sql(f"SELECT {casts}"),
                               list(param_oids))
    columns = output_columns(fn)

    def run(s: SQLSession, p: list[Any]) -> Result:
        rows = list(values_stmt.run(s, p).rows or [])
        values = list(rows[0])[:len(params)] if rows else []
        now = next((f for f in s.catalog().functions if f.oid == fn.oid), None)
        if now is None:  # NB: a prepared CALL of a procedure dropped since
            raise UndefinedFunction(f"procedure with OID {fn.oid} does not exist")
        out = invoke(s, now, values, analyse_tree, top_level_nonatomic(s))  # NB: its body now
        if not columns:
            return Result("CALL")
        return Result("CALL", columns=columns, rows=iter([out or ()]), done=False)

    return Stmt(sql, "utility", run, columns or None, list(values_stmt.param_oids or param_oids),
                session.catalog_version(), tag="CALL")


def _argument_types(session: SQLSession, args: list[Arg], param_oids: list[int],
                    analyse_tree: AnalyseTree) -> list[int | None]:
    """Each argument's type as written (None: unknown, a string constant, NULL or an untyped
    parameter), for choosing among overloads and for the error messages."""
    known: list[int | None] = []
    exprs = []
    for _, e, _ in args:
        p = re.fullmatch(r"\s*\$(\d+)\s*", e)
        untyped = p is not None and (int(p.group(1)) > len(param_oids)
                                     or not param_oids[int(p.group(1)) - 1])
        known.append(None if unknown_literal(e) or untyped else 0)
        exprs.append("NULL" if known[-1] is None else f"({e})")
    if not any(k == 0 for k in known):
        return known
    text = f"SELECT {', '.join(exprs)}"
    stmt = analyse_tree(session, text, parse_sql(text), list(param_oids))
    cols = stmt.columns or []
    return [None if k is None else cols[i].type_oid for i, k in enumerate(known)]


def invoke(s: SQLSession, fn: Function, values: list[Any], analyse_tree: AnalyseTree,
           nonatomic: bool, caller: Interp | None = None, text: str = ""
           ) -> tuple[Any, ...] | None:
    """Runs a procedure's body with one value per parameter (OUT ones ignored); returns its
    INOUT and OUT parameters' values, or None when it has none. `caller`: the PL/pgSQL
    that ran `CALL text`, for a nested call."""
    try:
        check_function(s, fn)
    except InsufficientPrivilege:
        raise InsufficientPrivilege(f"permission denied for procedure {fn.name}") from None
    with routinectx.entered(s, fn):
        return _run(s, fn, values, analyse_tree, nonatomic, caller, text)


def _run(s: SQLSession, fn: Function, values: list[Any], analyse_tree: AnalyseTree,
         nonatomic: bool, caller: Interp | None, text: str) -> tuple[Any, ...] | None:
    interp = Interp(s, analyse_tree)
    interp.name = context_name(s, fn)
    interp.routine = fn.name
    interp.nonatomic = nonatomic and not fn.secdef and not fn.config  # NB: PG: then atomic
    if caller is not None:
        interp.subxacts = caller.subxacts
    scope = interp.scopes[-1]
    outs: list[Var] = []
    positional: list[tuple[Any, int]] = []
    for (mode, name, typ), value in zip(parameters(fn), values, strict=True):
        var = Var(None if mode == "o" else value, typ)
        if mode != "o":
            positional.append((value, typ))
            scope[f"${len(positional)}"] = var
        if name:
            scope[name] = var
        if mode in ("o", "b"):
            outs.append(var)
    if fn.language == "plpgsql":
        block, cache = compiled(s, fn)
        interp.share_cache(cache)
        try:
            interp.run_body(lambda: interp.block(block))
        except _Return:
            pass
        return tuple(v.value for v in outs) if outs else None
    texts = split_statements(fn.body)
    for text in texts:  # NB: checked before any runs, as PostgreSQL's "during startup"
        word = text.split(None, 1)[0].upper() if text.strip() else ""
        if word in ("COMMIT", "ROLLBACK", "BEGIN", "START", "SAVEPOINT", "RELEASE", "END"):
            err = FeatureNotSupported(f"{word} is not allowed in an SQL function")
            err.where = f'SQL function "{fn.name}" during startup'
            raise err
    rows, _ = run_sql_body(interp, fn, texts, positional)
    if not outs:
        return None
    if not rows:
        raise SQLError("procedure returned null record", sqlstate="XX000")
    return tuple(rows[0])


def call_from_plpgsql(interp: Interp, text: str) -> None:
    """A CALL statement inside PL/pgSQL: arguments are expressions over the variables, and
    each INOUT / OUT parameter's value is assigned back to the variable passed for it."""
    schema, name, args, _ = split_call(text)
    typed = [(None, None) if unknown_literal(e) else interp.eval_typed(e) for _, e, _ in args]
    fn, exprs = resolve(interp.s, schema, name, args, [t for _, t in typed], 0)
    params = parameters(fn)
    targets: list[tuple[str, int]] = []
    for e, (mode, pname, t) in zip(exprs, params, strict=True):
        if mode in ("o", "b"):
            target = e.strip()
            target = target[1:-1] if target.startswith('"') else target.lower()
            if interp.lookup(target) is None:
                raise SQLError(f'procedure parameter "{pname}" is an output parameter but '
                               "corresponding argument is not writable", sqlstate="42601")
            targets.append((target, t))
    values = [None if mode == "o" else interp.eval(f"CAST(({e}) AS {format_type(t, None)})")
              for e, (mode, _, t) in zip(exprs, params, strict=True)]
    out = invoke(interp.s, fn, values, interp.analyse_tree, interp.nonatomic, interp, text)
    for (target, t), value in zip(targets, out or (), strict=True):
        interp.assign(target, value, t)


register_call(call_from_plpgsql)

__all__ = ["analyse_call", "call_from_plpgsql", "invoke", "split_call"]
