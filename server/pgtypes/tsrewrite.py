"""ts_rewrite(query, target, substitute), as PostgreSQL's tsquery_rewrite does it.

Why a module of its own: the result's shape is PostgreSQL's, not just "some equivalent
query". The query and the target are flattened (`a & (b & c)` has three children),
each operator's children sorted in tsquery's btree order (`tsqorder`), the target found
either as a whole node or as a subset of an AND's or OR's children, and the result
turned back into a binary tree the way QTNBinary does (which decides where each operand
is printed). A part replaced by an empty substitute disappears, and an operator left
with one child is replaced by it.

>>> from cumulo.server.pgtypes.tsearch import format_query, query
>>> def rw(q, t, s): return format_query(rewrite(query(q), query(t), query(s)))
>>> rw("a & b", "a", "c"), rw("a & b & c", "a & c", "z"), rw("a | b", "b", "x & y")
("'b' & 'c'", "'b' & 'z'", "'x' & 'y' | 'a'")
"""

from __future__ import annotations

import struct
from functools import cmp_to_key
from typing import Any

from .tsqorder import legacy_crc32

_OPER = {"!": 1, "&": 2, "|": 3, "<>": 4}


class _Node:
    """An n-ary query node (PostgreSQL's QTNode): an operand, or an operator and children
    in QT2QTN's order (a binary operator's right operand first)."""

    __slots__ = ("op", "value", "children", "dist", "fixed")

    def __init__(self, op: str, value: Any = None, children: list[_Node] | None = None,
                 dist: int = 0) -> None:
        self.op, self.value, self.children, self.dist = op, value, children or [], dist
        self.fixed = False  # QTN_NOCHANGE: a substitute, never searched again

    def key(self) -> bytes:
        """QTNodeCompare as bytes (equal keys: equal nodes)."""
        if self.op == "v":
            word = self.value[1].encode()
            return (b"\x01" + struct.pack("!I", 0x7FFFFFFF - legacy_crc32(word))
                    + word.replace(b"\x00", b"\x00\x01") + b"\x00\x00")
        head = bytes((0, 255 - _OPER[self.op])) + struct.pack("!H", 0xFFFF - len(self.children))
        tail = struct.pack("!H", 0xFFFF - self.dist) if self.op == "<>" else b""
        return head + b"".join(c.key() for c in self.children) + tail

    def copy(self) -> _Node:
        out = _Node(self.op, self.value, [c.copy() for c in self.children], self.dist)
        out.fixed = self.fixed
        return out


def _nary(q: Any) -> _Node:
    if q[0] == "v":
        return _Node("v", q)
    if q[0] == "!":
        return _Node("!", children=[_nary(q[1])])
    return _Node(q[0], children=[_nary(q[2]), _nary(q[1])], dist=q[3] if q[0] == "<>" else 0)


def _ternary(n: _Node) -> None:
    """QTNTernary: an AND (OR) child of an AND (OR) lends it its children."""
    for c in n.children:
        _ternary(c)
    if n.op not in ("&", "|"):
        return
    flat: list[_Node] = []
    for c in n.children:
        flat.extend(c.children if c.op == n.op else [c])
    n.children = flat


def _sort(n: _Node) -> None:
    """QTNSort: every operator's children in btree order."""
    for c in n.children:
        _sort(c)
    if len(n.children) > 1:
        n.children.sort(key=cmp_to_key(lambda a, b: (a.key() > b.key()) - (a.key() < b.key())))


def _findeq(n: _Node, ex: _Node, subs: _Node | None) -> _Node | None:
    if n.fixed or (n.op == "v") != (ex.op == "v") or n.op != ex.op:
        return n
    if n.op == "v" or len(n.children) == len(ex.children):
        if n.key() != ex.key():
            return n
        return _fixed(subs)
    if len(n.children) > len(ex.children) > 0:  # a subset of an AND's or OR's children
        matched, i, j = [False] * len(n.children), 0, 0
        while i < len(n.children) and j < len(ex.children):
            a, b = n.children[i].key(), ex.children[j].key()
            if a == b:
                matched[i], i, j = True, i + 1, j + 1
            elif a < b:
                i += 1
            else:
                break
        if sum(matched) == len(ex.children):
            n.children = [c for c, m in zip(n.children, matched, strict=True) if not m]
            if subs is not None:
                n.children.append(_fixed(subs))  # type: ignore[arg-type]
            _sort(n)
    return n


def _fixed(subs: _Node | None) -> _Node | None:
    if subs is None:
        return None
    out = subs.copy()
    out.fixed = True
    return out


def _find(n: _Node, ex: _Node, subs: _Node | None) -> _Node | None:
    """dofindsubquery: the node itself first, then (unless replaced) its children."""
    found = _findeq(n, ex, subs)
    if found is None or found.fixed or found.op == "v":
        return found
    kids = [k for k in (_find(c, ex, subs) for c in found.children) if k is not None]
    found.children = kids
    if not kids:
        return None
    if len(kids) == 1 and found.op != "!":
        return kids[0]
    return found


def _binary(n: _Node) -> Any:
    """QTNBinary, then back to `tsearch`'s tuples (child 0 is the right operand)."""
    if n.op == "v":
        return n.value
    kids = list(n.children)
    if n.op == "!":
        return ("!", _binary(kids[0]))
    while len(kids) > 2:
        pair = _Node(n.op, children=[kids[0], kids[1]], dist=n.dist)
        kids = [pair, kids[-1], *kids[2:-1]]
    right, left = _binary(kids[0]), _binary(kids[1])
    return (n.op, left, right, n.dist) if n.op == "<>" else (n.op, left, right)


def rewrite(q: Any, target: Any, subst: Any) -> Any:
    """ts_rewrite over parsed queries (`tsearch.query`; None is the empty query)."""
    if q is None or target is None:
        return q
    tree, ex = _nary(q), _nary(target)
    for t in (tree, ex):
        _ternary(t)
        _sort(t)
    subs = None if subst is None else _nary(subst)
    out = _find(tree, ex, subs)
    return None if out is None else _binary(out)
