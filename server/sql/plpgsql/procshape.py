"""A CREATE PROCEDURE's shape: its arguments and the row CALL returns (pg_proc's view of it).

A procedure returns nothing (`prorettype` void) unless it has OUT or INOUT
parameters; then CALL returns one row of them and `prorettype` is record, even
for a single one. Unnamed output parameters are CALL's `column1`, `column2`...
Since PostgreSQL 14 a CALL passes an argument for every parameter, OUT ones
included (proallargtypes), while `proargtypes` lists only the inputs.

>>> types = {"int": 23, "text": 25}.__getitem__
>>> shape = procedure_shape(["a int", "inout b int", "out c text"], types)
>>> shape.args, shape.returns, shape.out_names, shape.out_types
([('a', 23), ('b', 23)], 2249, ('b', 'c'), (23, 25))
>>> procedure_shape(["a int"], types).returns
2278
>>> atomic_body("LANGUAGE sql BEGIN ATOMIC select 1; select 2; END")
((13, 49), 'select 1; select 2;')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from ...errors import SQLError, SyntaxError_
from ...pgtypes import oids as T
from ..parse import parse_sql, split_statements
from .parser import Block
from .results import Shape, parameter

_DEFAULT = re.compile(r"\s(?:DEFAULT\b|=)", re.I)
_RETURN = re.compile(r"\bRETURN\s+(?P<expr>.+?)\s*;?\s*$", re.I | re.S)
_ATOMIC = re.compile(r"\bBEGIN\s+ATOMIC\b(?P<body>.*)\bEND\s*;?\s*$", re.I | re.S)


def procedure_shape(params: Sequence[str], type_of: Callable[[str], int]) -> Shape:
    """The arguments (IN, INOUT, VARIADIC) and the output row (INOUT, OUT) of a procedure."""
    decl = [parameter(p, type_of) for p in params]
    defaulted = [bool(_DEFAULT.search(p)) for p in params]
    for i, (mode, _, _) in enumerate(decl):
        if mode == "OUT" and any(defaulted[:i]):
            raise SQLError("procedure OUT parameters cannot appear after one with a default "
                           "value", sqlstate="42P13")
    args = [(n, t) for m, n, t in decl if m != "OUT"]
    outs = [(n, t) for m, n, t in decl if m in ("OUT", "INOUT")]
    if not outs:
        return Shape(args, T.VOID, False)
    names = tuple(n or f"column{i + 1}" for i, (n, _) in enumerate(outs))
    return Shape(args, T.RECORD, False, names, tuple(t for _, t in outs))


def atomic_body(text: str) -> tuple[tuple[int, int], str] | None:
    """The span and the statements of a `BEGIN ATOMIC ... END` body in what follows a
    routine's parameter list, or None when the body is a string."""
    m = _ATOMIC.search(text) or _RETURN.search(text)
    if m is None or re.search(r"\bAS\s*(?:\$|')", text[:m.start()], re.I):
        return None
    if m.re is _RETURN:  # NB: RETURN expression: one SELECT of it
        return (m.start(), m.end()), "RETURN " + m.group("expr").strip()
    return (m.start(), m.end()), m.group("body").strip()


def atomic_text(statements: str) -> str:
    """A BEGIN ATOMIC body's statements as PostgreSQL prints them back (pg_get_functiondef):
    each deparsed on its own line.

    >>> atomic_text("select 1, a + 1 as b; insert into t values (2);")
    ' SELECT 1, (a + 1) AS b;\\n INSERT INTO t VALUES (2);\\n'
    >>> atomic_text("RETURN a * 2")
    'RETURN (a * 2)'
    """
    if statements.startswith("RETURN "):  # NB: kept as written, `RETURN (a * 2)`
        select = _parenthesized(parse_sql("SELECT " + statements[len("RETURN "):]))
        return "RETURN " + select.expressions[0].sql("postgres")
    return "".join(f" {_kept_now(_parenthesized(parse_sql(_NOW.sub(_STANDIN, t))))};\n"
                   for t in split_statements(statements))


_NOW = re.compile(r"\bnow\s*\(\s*\)", re.I)
_STANDIN = "cumulo_pg_now__()"  # NB: sqlglot reads now() as CURRENT_TIMESTAMP; PG keeps both


def _kept_now(tree: exp.Expression) -> str:
    """The statement's text with now() spelled as written (not CURRENT_TIMESTAMP)."""
    return re.sub(r"\bcumulo_pg_now__\(\)", "now()", tree.sql("postgres"), flags=re.I)


def _parenthesized(tree: exp.Expression) -> exp.Expression:
    """A SELECT's operator expressions in parentheses, as ruleutils prints them."""
    if isinstance(tree, exp.Select):
        for e in tree.expressions:
            target = e.this if isinstance(e, exp.Alias) else e
            if isinstance(target, exp.Binary):
                target.replace(exp.Paren(this=target.copy()))
    return tree


def check_procedure_returns(node: Any) -> None:
    """PL/pgSQL's compile-time check of a procedure's body: RETURN takes no value (42601)."""
    body = node.body if isinstance(node, Block) else [node]
    handlers = [h for _, h in node.handlers] if isinstance(node, Block) else []
    for st in [*body, *(x for h in handlers for x in h)]:
        if isinstance(st, Block):
            check_procedure_returns(st)
            continue
        if st.kind == "return" and st.text:
            raise SyntaxError_("RETURN cannot have a parameter in a procedure")
        for sub in [st.body, *(b for _, b in st.branches)]:
            for x in sub:
                check_procedure_returns(x)
