"""A plan that is nothing but primary-key gets, run as one call instead of the executor.

`SELECT abalance FROM pgbench_accounts WHERE aid = $1` plans as
Project(PointGet): the executor would build an `ExecContext`, two generators,
a compiled key function and a compiled projection to end up doing one
`Txn.get`. For OLTP that pipeline costs more than the read itself, so a plan of
exactly that shape (keys that are parameters or constants, a select list of
plain columns, no hidden columns) also gets a `PointRead`, which does the
same read with no per-statement setup. Anything else (an expression in the
select list or in a key, `ctid`, a filter on top) keeps the general path, so
every semantic subtlety (casts, functions, errors) stays where it is.

    >>> from ..expr.bound import E, col
    >>> from . import nodes as N
    >>> class Table:
    ...     space = 7
    >>> get = N.PointGet([], table=Table(), keys=[[E("param", 1)]])
    >>> pr = PointRead.of(N.Project([], child=get, exprs=[col(2, 23)]))
    >>> class Txn:
    ...     def get(self, space, keys):
    ...         return [(1, 10, 99) if k else None for k in keys]
    >>> pr.read(Txn(), [5])
    [(99,)]
    >>> pr.read(Txn(), [None])  # a NULL key matches nothing
    []
    >>> PointRead.of(N.Project([], child=get, exprs=[E("func", "now")])) is None
    True

A FROM-less SELECT of constants and parameters (`SELECT 1`, a pool's liveness
check) reads nothing at all: `tableless` says so, and the session runs it
without a transaction.

    >>> tableless(N.Project([], child=N.Values([], rows=[[]]), exprs=[E("param", 1)]))
    True
    >>> tableless(N.Project([], child=N.Values([], rows=[[]]), exprs=[E("func", "now")]))
    False
    >>> tableless(N.Project([], child=get, exprs=[col(2, 23)]))
    False
    >>> constant_row(N.Project([], child=N.Values([], rows=[[]]),
    ...                        exprs=[E("param", 2), E("const", "x")]), [1, 2])
    (2, 'x')
"""

from __future__ import annotations

from typing import Any

from ...kivi.keycodec import element_encoder, encode_element
from ..exec.keys import encode_key
from . import nodes as N

KeyParts = list[list[tuple[bool, Any]]]  # per key, per column: (is a parameter, $n or value)


def key_parts(get: N.PointGet) -> KeyParts | None:
    """A PointGet's keys as (is a parameter, $n or constant) per column; None when a key
    column is any other expression."""
    keys: KeyParts = []
    for key in get.keys:
        parts: list[tuple[bool, Any]] = []
        for e in key:
            if e.kind == "param":
                parts.append((True, e.data))
            elif e.kind == "const":
                parts.append((False, e.data))
            else:
                return None
        keys.append(parts)
    return keys


def single_param(keys: KeyParts) -> int:
    """`WHERE pk = $n`, the usual lookup: n - 1, so that a reader indexes the parameters
    directly; -1 for any other keys.

    >>> single_param([[(True, 2)]]), single_param([[(False, 7)]]), single_param([[(True, 1)], [(True, 2)]])
    (1, -1, -1)
    """
    return keys[0][0][1] - 1 if len(keys) == 1 and len(keys[0]) == 1 and keys[0][0][0] else -1


def encoded_keys(keys: KeyParts, params: list[Any]) -> list[bytes]:
    """The keys with the statement's parameters in, encoded; a key with a NULL in it
    matches nothing and is left out."""
    encoded = []
    for key in keys:
        values = [params[v - 1] if is_param else v for is_param, v in key]
        if None not in values:
            encoded.append(encode_key(values))
    return encoded


class PointRead:
    """The keys and output columns of a Project(PointGet) plan; `read` runs it."""

    __slots__ = ("space", "keys", "picks", "param")

    def __init__(self, space: int, keys: KeyParts, picks: list[int]) -> None:
        self.space = space
        self.keys = keys  # per lookup, per key column: (is a parameter, $n or the constant)
        self.picks = picks  # the row slots the select list returns, in order
        self.param = single_param(keys)  # `keys_of`'s shortcut, or -1

    @classmethod
    def of(cls, root: N.Node) -> PointRead | None:
        """The PointRead of a plan root, or None when the plan is any other shape."""
        if type(root) is not N.Project or type(root.child) is not N.PointGet:
            return None
        get = root.child
        if get.with_keys or not get.keys or any(e.kind != "col" for e in root.exprs):
            return None
        keys = key_parts(get)
        return None if keys is None else cls(get.table.space, keys, [e.data for e in root.exprs])

    def read(self, txn: Any, params: list[Any]) -> list[tuple[Any, ...]]:
        """Reads the rows at the transaction's snapshot (own writes included), as the
        Project(PointGet) executors would return them."""
        encoded = self.keys_of(params)
        return self.pick(txn.get(self.space, encoded)) if encoded else []

    def keys_of(self, params: list[Any]) -> list[bytes]:
        """The encoded keys to read (none for a NULL key: it matches nothing)."""
        if self.param >= 0:
            v = params[self.param]
            if v is None:
                return []
            enc = element_encoder(type(v))  # NB: `encode_key((v,))` in one call
            return [enc(v) if enc is not None else encode_element(v)]
        return encoded_keys(self.keys, params)

    def pick(self, rows: list[Any]) -> list[tuple[Any, ...]]:
        """The output rows of the stored rows read (None: a key not found)."""
        picks = self.picks
        if len(picks) == 1:
            i = picks[0]
            if len(rows) == 1:  # NB: one key (WHERE pk = $1): no comprehension
                r = rows[0]
                return [] if r is None else [(r[i],)]
            return [(r[i],) for r in rows if r is not None]
        return [tuple([r[i] for i in picks]) for r in rows if r is not None]


_INERT = frozenset(("const", "param"))


def tableless(root: N.Node) -> bool:
    """Whether a plan is one row of constants and parameters (a FROM-less SELECT of
    nothing else): it reads no table and calls no function, so it needs no transaction
    and no snapshot. Anything else (a function, an operator, a cast left to run time)
    says False and keeps the general path."""
    if type(root) is not N.Project:
        return False
    child = root.child
    if type(child) is not N.Values or child.cols or len(child.rows) != 1 or child.rows[0]:
        return False
    return all(e.kind in _INERT for e in root.exprs)


def constant_row(root: N.Node, params: list[Any]) -> tuple[Any, ...]:
    """The one row of a `tableless` plan: what its compiled projection computes (a
    constant is its value, $n is params[n - 1]), without building the executor."""
    assert type(root) is N.Project
    return tuple([params[e.data - 1] if e.kind == "param" else e.data for e in root.exprs])
