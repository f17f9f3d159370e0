"""Named (`name => value`, `name := value`) and defaulted arguments of built-in functions.

The function registry resolves overloads by position only, so a call is put
into positional form before it is resolved: the leading positional
arguments stay, each named one goes to its parameter's slot, and missing
trailing parameters take their defaults. The parameter names and defaults
are PostgreSQL 15's (`pg_get_function_arguments`) for the built-ins Cumulo
registers. A name a function does not have, or named notation on a function
without parameter names, is 42883 with PostgreSQL's `f(name => type)` text.

sqlglot parses `=>` as `Kwarg` and `:=` as `PropertyEQ`; for functions it
knows (make_interval, make_timestamp) it files arguments under its own slot
names, in written order, so the written order is recovered from `func_args`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlglot import exp

from ...errors import SyntaxError_, UndefinedFunction

_TS = ("year", "month", "mday", "hour", "min", "sec")

# name -> ((parameter, default SQL or None), ...): PostgreSQL 15's pg_proc
PARAMS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "make_interval": (("years", "0"), ("months", "0"), ("weeks", "0"), ("days", "0"),
                      ("hours", "0"), ("mins", "0"), ("secs", "0.0::float8")),
    "make_date": (("year", None), ("month", None), ("day", None)),
    "make_time": (("hour", None), ("min", None), ("sec", None)),
    "make_timestamp": tuple((p, None) for p in _TS),
    "make_timestamptz": (*((p, None) for p in _TS), ("timezone", "")),  # "": an overload
    "pg_terminate_backend": (("pid", None), ("timeout", "0::int8")),
    "jsonb_set": (("jsonb_in", None), ("path", None), ("replacement", None),
                  ("create_if_missing", "true")),
    "jsonb_insert": (("jsonb_in", None), ("path", None), ("replacement", None),
                     ("insert_after", "false")),
    "jsonb_set_lax": (("jsonb_in", None), ("path", None), ("replacement", None),
                      ("create_if_missing", "true"), ("null_value_treatment", "'use_json_null'")),
    "json_populate_record": (("base", None), ("from_json", None), ("use_json_as_text", "false")),
    "parse_ident": (("str", None), ("strict", "true")),
    "normalize": (("", None), ("", "'NFC'")),
}
NAMED = (exp.Kwarg, exp.PropertyEQ)


def needs_arranging(name: str, args: list[exp.Expression]) -> bool:
    """Tells whether a call uses named notation or leaves defaulted parameters out."""
    if any(isinstance(a, NAMED) for a in args):
        return True
    params = PARAMS.get(name)
    return params is not None and len(args) < len(params) and params[len(args)][1] is not None


def arrange(name: str, args: list[exp.Expression],
            type_name: Callable[[exp.Expression], str],
            declared: tuple[tuple[str, str | None], ...] | None = None) -> list[exp.Expression]:
    """Returns a call's arguments in positional form (defaults filled in); `type_name` names
    an argument's type for the 42883 message; `declared`: a user function's parameters
    (name, DEFAULT), else the built-in's in PARAMS."""
    positional: list[exp.Expression] = []
    named: dict[str, exp.Expression] = {}
    for a in args:
        if isinstance(a, NAMED):
            key = a.this.name.lower()
            if key in named:
                raise SyntaxError_(f'argument name "{key}" used more than once')
            named[key] = a.expression
        elif named:
            raise SyntaxError_("positional argument cannot follow named argument")
        else:
            positional.append(a)
    params = declared if declared is not None else PARAMS.get(name, ())
    slots: list[Any] = [*positional, *[None] * max(0, len(params) - len(positional))]
    names = [p for p, _ in params]
    ok = all(k in names and names.index(k) >= len(positional) for k in named)
    if ok:
        for k, v in named.items():
            slots[names.index(k)] = v
        while slots and slots[-1] is None and params[len(slots) - 1][1] == "":
            slots.pop()
        for i, v in enumerate(slots):
            if v is None:
                default = params[i][1]
                if default is None or default == "":
                    ok = False
                    break
                slots[i] = exp.maybe_parse(default, dialect="postgres")
    if not ok:
        shown = [type_name(a) for a in positional]
        shown += [f"{k} => {type_name(v)}" for k, v in named.items()]
        raise UndefinedFunction(
            f"function {name}({', '.join(shown)}) does not exist",
            hint="No function matches the given name and argument types. "
            "You might need to add explicit type casts.")
    return slots
