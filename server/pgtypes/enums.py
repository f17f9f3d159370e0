"""enum_in and enum_recv: an enum value must be one of its type's labels.

A bound parameter of an enum type (`%s` a client sent typed `mood`) is checked as
PostgreSQL's input and receive functions check it: a label the type does not have is
22P02, not a value that a later cast to text would pass on. The labels of each enum
type CREATE TYPE made are entered here by `sql.expr.usertypes` when a session uses
its catalog, as ranges and composites are (`ranges.SUBTYPE`, `records.COMPOSITES`).

>>> LABELS[90001] = ("mood", frozenset({"sad", "ok"}))
>>> input_function(90001)("ok")
'ok'
>>> input_function(90001)("happy")
Traceback (most recent call last):
...
cumulo.server.errors.InvalidTextRepresentation: invalid input value for enum mood: "happy"
>>> del LABELS[90001]
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import InvalidTextRepresentation

# an enum type's OID -> (its name, its labels)
LABELS: dict[int, tuple[str, frozenset[str]]] = {}


def input_function(oid: int) -> Callable[[str], str]:
    """The label itself, or 22P02 for one the type does not have."""
    name, labels = LABELS[oid]

    def enum_in(s: str) -> str:
        if s not in labels:
            raise InvalidTextRepresentation(f'invalid input value for enum {name}: "{s}"')
        return s

    return enum_in
