"""Plan-time folding of immutable function calls over constants, as PostgreSQL's planner
does (`eval_const_expressions` → `simplify_function`).

PostgreSQL evaluates an immutable function whose arguments are all constants once, while
planning, and puts the result in the plan. So `jsonb_array_length('{}')` fails with 22023
even under `WHERE false`, where no row would reach it; Cumulo folds the same calls when it
binds them, so the same statements fail the same way. Only immutable overloads are
folded (`volatility.function_volatility`): a stable one (`now()`, `to_char`, anything
that reads the session) or a volatile one (`random()`) must run at execution time, and a
set-returning one returns many rows. A failure that is not a SQL error leaves the call to
run time, where it fails as it always did.

A simple-protocol statement's literals become parameters so that one plan serves every
constant (`parse.normalize`); a call that would be folded cannot be shared so, since
PostgreSQL evaluates it with the statement's own constants. While such a statement is
analysed (`literal_parameters`), a foldable call of parameters raises `SharedPlanRefused`,
and the session analyses the text with its constants instead (and remembers to).

>>> from ..functions.registry import FUNCTIONS
>>> from ...pgtypes import oids as T
>>> (fd,) = [f for f in FUNCTIONS["upper"] if f.args == (T.TEXT,)]
>>> fold_call(E("call", fd, [E("const", "ab", [], T.TEXT)], T.TEXT)).data
'AB'
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from ...errors import SQLError
from .bound import E
from .codegen import row_function
from .volatility import function_volatility

if TYPE_CHECKING:
    from ..functions.registry import FunctionDef


_LITERALS: ContextVar[bool] = ContextVar("literal_parameters", default=False)


class SharedPlanRefused(SQLError):
    """A statement whose parameters are its own literals calls a function PostgreSQL folds."""


def refuse_literal_parameter() -> None:
    """Raises SharedPlanRefused while the statement's parameters stand for its literals: for a
    literal whose meaning needs the catalog at analysis (a name assigned to a reg* column)."""
    if _LITERALS.get():
        raise SharedPlanRefused("a literal is read through the catalog per statement")


@contextlib.contextmanager
def literal_parameters() -> Iterator[None]:
    """Marks the statement analysed inside as one whose parameters are its own literals."""
    token = _LITERALS.set(True)
    try:
        yield
    finally:
        _LITERALS.reset(token)


def _immutable(fd: FunctionDef, e: E) -> bool:
    return not (fd.set_returning or fd.needs_context) and function_volatility(
        fd, [a.type for a in e.args]) == "i"


# what PostgreSQL simplifies when every argument is a constant (eval_const_expressions)
_SIMPLIFIED = frozenset({"op", "neg", "subscript", "nullif", "pyfunc", "call"})  # NB: no casts


def _of_literals(e: E) -> bool:
    """True for an expression PostgreSQL would fold whose arguments include a parameter that
    stands for a literal (while `literal_parameters` is on)."""
    if e.kind not in _SIMPLIFIED or not e.args or not _LITERALS.get():
        return False
    if not all(a.kind in ("const", "param") for a in e.args) or all(
            a.kind == "const" for a in e.args):
        return False
    if e.kind == "call":
        return _immutable(e.data, e)
    return e.kind != "pyfunc" or e.data[0] not in ("now", "domain")


def fold_call(e: E) -> E:
    """`e` itself, or the constant it evaluates to when it is an immutable call of constants."""
    if _of_literals(e):
        raise SharedPlanRefused("an expression of literals is folded per statement")
    # NB: casts are not folded here: the binder already converts a constant's value, stable
    # conversions (date::text) included, so a chain of them would fail where PG's does not
    if e.kind != "call" or any(a.kind != "const" for a in e.args) or not _immutable(e.data, e):
        return e
    v = evaluate(e)
    if v is UNFOLDABLE:
        return e
    return E("const", v, [], e.type, e.typmod, e.name, e.fields, e.rowtype)


UNFOLDABLE = object()  # `evaluate`'s answer for an expression left to run time


def evaluate(e: E) -> object:
    """The value of `e`, whose operands are constants, computed now; `UNFOLDABLE` when it
    raises anything but an SQLError (PostgreSQL's error, which folding raises as it would).

    >>> evaluate(E("op", "+", [E("const", 1, [], 23), E("const", 2, [], 23)], 23))
    3
    """
    try:
        return row_function(e)((), None)
    except SQLError:
        raise
    except Exception:  # noqa: BLE001 - not foldable here: leave it to run time
        return UNFOLDABLE
