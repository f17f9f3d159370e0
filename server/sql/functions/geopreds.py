"""The geometric predicates: containment, overlap, position, intersection, parallelism, sameness.

Registered like `geoops`' functions (PostgreSQL 15's oprcode names, and each
operator in `geoops.OPERATORS`). The ordering operators of box and circle
compare areas, lseg's lengths and path's point counts, within EPSILON, as
geo_ops.c does; point has `~=` and `<>` but no `=`.

>>> IMPLS["box_contain"]("(3,3),(0,0)", "(2,2),(1,1)"), IMPLS["point_above"]("(0,1)", "(0,0)")
(True, True)
"""

from __future__ import annotations

import math
from typing import Any

from . import geomath as M
from .geoops import BOOL, BOX, CIRCLE, IMPLS, LINE, LSEG, PATH, POINT, POLYGON, defop  # noqa: F401

FPeq, FPne, FPlt, FPle, FPgt, FPge, FPzero = M.FPeq, M.FPne, M.FPlt, M.FPle, M.FPgt, M.FPge, M.FPzero


def _ops(prefix: str, left: Any, right: Any, table: dict[str, tuple[Any, tuple[str, ...]]]) -> None:
    for suffix, (fn, ops) in table.items():
        defop(f"{prefix}_{suffix}", left, right, BOOL, *ops)(fn)


# -- points ---------------------------------------------------------------------------------

_ops("point", POINT, POINT, {
    "left": (lambda a, b: FPlt(a[0], b[0]), ("<<",)),
    "right": (lambda a, b: FPgt(a[0], b[0]), (">>",)),
    "above": (lambda a, b: FPgt(a[1], b[1]), ("|>>", ">^")),
    "below": (lambda a, b: FPlt(a[1], b[1]), ("<<|", "<^")),
    "vert": (lambda a, b: FPeq(a[0], b[0]), ("?|",)),
    "horiz": (lambda a, b: FPeq(a[1], b[1]), ("?-",)),
    "eq": (M.point_eq_point, ("~=",)),
    "ne": (lambda a, b: not M.point_eq_point(a, b), ("<>",)),
})


# -- boxes ----------------------------------------------------------------------------------

_ops("box", BOX, BOX, {
    "same": (lambda a, b: M.point_eq_point(a[0], b[0]) and M.point_eq_point(a[1], b[1]), ("~=",)),
    "overlap": (M.box_ov, ("&&", "?#")),
    "left": (lambda a, b: FPlt(a[0][0], b[1][0]), ("<<",)),
    "overleft": (lambda a, b: FPle(a[0][0], b[0][0]), ("&<",)),
    "right": (lambda a, b: FPgt(a[1][0], b[0][0]), (">>",)),
    "overright": (lambda a, b: FPge(a[1][0], b[1][0]), ("&>",)),
    "below": (lambda a, b: FPlt(a[0][1], b[1][1]), ("<<|",)),
    "overbelow": (lambda a, b: FPle(a[0][1], b[0][1]), ("&<|",)),
    "above": (lambda a, b: FPgt(a[1][1], b[0][1]), ("|>>",)),
    "overabove": (lambda a, b: FPge(a[1][1], b[1][1]), ("|&>",)),
    "contained": (lambda a, b: M.box_contain_box(b, a), ("<@",)),
    "contain": (M.box_contain_box, ("@>",)),
    "below_eq": (lambda a, b: FPle(a[0][1], b[1][1]), ("<^",)),
    "above_eq": (lambda a, b: FPge(a[1][1], b[0][1]), (">^",)),
    "lt": (lambda a, b: FPlt(M.box_ar(a), M.box_ar(b)), ("<",)),
    "gt": (lambda a, b: FPgt(M.box_ar(a), M.box_ar(b)), (">",)),
    "eq": (lambda a, b: FPeq(M.box_ar(a), M.box_ar(b)), ("=",)),
    "le": (lambda a, b: FPle(M.box_ar(a), M.box_ar(b)), ("<=",)),
    "ge": (lambda a, b: FPge(M.box_ar(a), M.box_ar(b)), (">=",)),
})
defop("box_contain_pt", BOX, POINT, BOOL, "@>")(M.box_contain_point)
defop("on_pb", POINT, BOX, BOOL, "<@")(lambda p, b: M.box_contain_point(b, p))


# -- circles --------------------------------------------------------------------------------

def _area(c: tuple[M.Pt, float]) -> float:
    return M.mul(M.mul(c[1], c[1]), math.pi)


def _cx(c: tuple[M.Pt, float], sign: int) -> float:
    return M.pl(c[0][0], c[1]) if sign > 0 else M.mi(c[0][0], c[1])


def _cy(c: tuple[M.Pt, float], sign: int) -> float:
    return M.pl(c[0][1], c[1]) if sign > 0 else M.mi(c[0][1], c[1])


_ops("circle", CIRCLE, CIRCLE, {
    "same": (lambda a, b: ((math.isnan(a[1]) and math.isnan(b[1])) or FPeq(a[1], b[1]))
             and M.point_eq_point(a[0], b[0]), ("~=",)),
    "overlap": (lambda a, b: FPle(M.point_dt(a[0], b[0]), M.pl(a[1], b[1])), ("&&",)),
    "overleft": (lambda a, b: FPle(_cx(a, 1), _cx(b, 1)), ("&<",)),
    "left": (lambda a, b: FPlt(_cx(a, 1), _cx(b, -1)), ("<<",)),
    "right": (lambda a, b: FPgt(_cx(a, -1), _cx(b, 1)), (">>",)),
    "overright": (lambda a, b: FPge(_cx(a, -1), _cx(b, -1)), ("&>",)),
    "contained": (lambda a, b: FPle(M.point_dt(a[0], b[0]), M.mi(b[1], a[1])), ("<@",)),
    "contain": (lambda a, b: FPle(M.point_dt(a[0], b[0]), M.mi(a[1], b[1])), ("@>",)),
    "below": (lambda a, b: FPlt(_cy(a, 1), _cy(b, -1)), ("<<|",)),
    "above": (lambda a, b: FPgt(_cy(a, -1), _cy(b, 1)), ("|>>",)),
    "overbelow": (lambda a, b: FPle(_cy(a, 1), _cy(b, 1)), ("&<|",)),
    "overabove": (lambda a, b: FPge(_cy(a, -1), _cy(b, -1)), ("|&>",)),
    "eq": (lambda a, b: FPeq(_area(a), _area(b)), ("=",)),
    "ne": (lambda a, b: FPne(_area(a), _area(b)), ("<>",)),
    "lt": (lambda a, b: FPlt(_area(a), _area(b)), ("<",)),
    "gt": (lambda a, b: FPgt(_area(a), _area(b)), (">",)),
    "le": (lambda a, b: FPle(_area(a), _area(b)), ("<=",)),
    "ge": (lambda a, b: FPge(_area(a), _area(b)), (">=",)),
})
defop("circle_contain_pt", CIRCLE, POINT, BOOL, "@>")(lambda c, p: M.point_dt(c[0], p) <= c[1])
defop("pt_contained_circle", POINT, CIRCLE, BOOL, "<@")(lambda p, c: M.point_dt(c[0], p) <= c[1])


# -- polygons -------------------------------------------------------------------------------

def _bb(g: list[M.Pt]) -> M.Box:
    return M.bound_box(g)


_ops("poly", POLYGON, POLYGON, {
    "left": (lambda a, b: _bb(a)[0][0] < _bb(b)[1][0], ("<<",)),
    "overleft": (lambda a, b: _bb(a)[0][0] <= _bb(b)[0][0], ("&<",)),
    "right": (lambda a, b: _bb(a)[1][0] > _bb(b)[0][0], (">>",)),
    "overright": (lambda a, b: _bb(a)[1][0] >= _bb(b)[1][0], ("&>",)),
    "below": (lambda a, b: _bb(a)[0][1] < _bb(b)[1][1], ("<<|",)),
    "overbelow": (lambda a, b: _bb(a)[0][1] <= _bb(b)[0][1], ("&<|",)),
    "above": (lambda a, b: _bb(a)[1][1] > _bb(b)[0][1], ("|>>",)),
    "overabove": (lambda a, b: _bb(a)[1][1] >= _bb(b)[1][1], ("|&>",)),
    "same": (lambda a, b: len(a) == len(b) and M.plist_same(a, b), ("~=",)),
    "overlap": (M.poly_overlap, ("&&",)),
    "contain": (M.poly_contain_poly, ("@>",)),
    "contained": (lambda a, b: M.poly_contain_poly(b, a), ("<@",)),
})
defop("poly_contain_pt", POLYGON, POINT, BOOL, "@>")(lambda g, p: M.point_inside(p, g) != 0)
defop("pt_contained_poly", POINT, POLYGON, BOOL, "<@")(lambda p, g: M.point_inside(p, g) != 0)


# -- paths ----------------------------------------------------------------------------------

def _on_ppath(p: M.Pt, a: tuple[bool, list[M.Pt]]) -> bool:
    closed, pts = a
    if closed:
        return M.point_inside(p, pts) != 0
    for q, r in zip(pts, pts[1:], strict=False):
        if FPeq(M.pl(M.point_dt(p, q), M.point_dt(p, r)), M.point_dt(q, r)):
            return True
    return False


def _path_inter(a: tuple[bool, list[M.Pt]], b: tuple[bool, list[M.Pt]]) -> bool:
    if not M.box_ov(M.bound_box(a[1]), M.bound_box(b[1])):
        return False
    return any(M.lseg_interpt_lseg(s1, s2) is not None
               for s1 in M.path_segments(*a) for s2 in M.path_segments(*b))


defop("path_contain_pt", PATH, POINT, BOOL, "@>")(lambda a, p: _on_ppath(p, a))
defop("on_ppath", POINT, PATH, BOOL, "<@")(_on_ppath)
defop("path_inter", PATH, PATH, BOOL, "?#")(_path_inter)
_ops("path_n", PATH, PATH, {
    "lt": (lambda a, b: len(a[1]) < len(b[1]), ("<",)),
    "gt": (lambda a, b: len(a[1]) > len(b[1]), (">",)),
    "eq": (lambda a, b: len(a[1]) == len(b[1]), ("=",)),
    "le": (lambda a, b: len(a[1]) <= len(b[1]), ("<=",)),
    "ge": (lambda a, b: len(a[1]) >= len(b[1]), (">=",)),
})


# -- segments and lines ---------------------------------------------------------------------

def _len(s: M.Seg) -> float:
    return M.point_dt(s[0], s[1])


_ops("lseg", LSEG, LSEG, {
    "intersect": (lambda a, b: M.lseg_interpt_lseg(a, b) is not None, ("?#",)),
    "parallel": (lambda a, b: FPeq(M.lseg_sl(a), M.lseg_sl(b)), ("?||",)),
    "perp": (lambda a, b: FPeq(M.lseg_sl(a), M.lseg_invsl(b)), ("?-|",)),
    "eq": (lambda a, b: M.point_eq_point(a[0], b[0]) and M.point_eq_point(a[1], b[1]), ("=",)),
    "ne": (lambda a, b: not M.point_eq_point(a[0], b[0]) or not M.point_eq_point(a[1], b[1]),
           ("<>",)),
    "lt": (lambda a, b: FPlt(_len(a), _len(b)), ("<",)),
    "le": (lambda a, b: FPle(_len(a), _len(b)), ("<=",)),
    "gt": (lambda a, b: FPgt(_len(a), _len(b)), (">",)),
    "ge": (lambda a, b: FPge(_len(a), _len(b)), (">=",)),
})
defop("lseg_vertical", None, LSEG, BOOL, "?|")(lambda s: FPeq(s[0][0], s[1][0]))
defop("lseg_horizontal", None, LSEG, BOOL, "?-")(lambda s: FPeq(s[0][1], s[1][1]))
defop("on_ps", POINT, LSEG, BOOL, "<@")(lambda p, s: M.lseg_contain_point(s, p))
defop("on_pl", POINT, LINE, BOOL, "<@")(lambda p, ln: M.line_contain_point(ln, p))
defop("on_sl", LSEG, LINE, BOOL, "<@")(
    lambda s, ln: M.line_contain_point(ln, s[0]) and M.line_contain_point(ln, s[1]))
defop("on_sb", LSEG, BOX, BOOL, "<@")(
    lambda s, b: M.box_contain_point(b, s[0]) and M.box_contain_point(b, s[1]))
defop("inter_sl", LSEG, LINE, BOOL, "?#")(lambda s, ln: M.lseg_interpt_line(s, ln) is not None)
defop("inter_sb", LSEG, BOX, BOOL, "?#")(lambda s, b: M.box_interpt_lseg(b, s) is not None)


def _inter_lb(ln: M.Line, b: M.Box) -> bool:
    (hx, hy), (lx, ly) = b
    sides = [((lx, ly), (lx, hy)), ((hx, hy), (lx, hy)), ((hx, hy), (hx, ly)), ((lx, ly), (hx, ly))]
    return any(M.lseg_interpt_line(s, ln) is not None for s in sides)


def _line_eq(a: M.Line, b: M.Line) -> bool:
    if any(math.isnan(v) for v in (*a, *b)):
        return all((math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a, b, strict=True))
    if not FPzero(b[0]):
        ratio = M.div(a[0], b[0])
    elif not FPzero(b[1]):
        ratio = M.div(a[1], b[1])
    elif not FPzero(b[2]):
        ratio = M.div(a[2], b[2])
    else:
        ratio = 1.0
    return all(FPeq(x, M.mul(ratio, y)) for x, y in zip(a, b, strict=True))


def _line_perp(a: M.Line, b: M.Line) -> bool:
    if FPzero(a[0]):
        return FPzero(b[1])
    if FPzero(b[0]):
        return FPzero(a[1])
    if FPzero(a[1]):
        return FPzero(b[0])
    if FPzero(b[1]):
        return FPzero(a[0])
    return FPeq(M.div(M.mul(a[0], b[0]), M.mul(a[1], b[1])), -1.0)


defop("inter_lb", LINE, BOX, BOOL, "?#")(_inter_lb)
_ops("line", LINE, LINE, {
    "intersect": (lambda a, b: M.line_interpt_line(a, b) is not None, ("?#",)),
    "parallel": (lambda a, b: M.line_interpt_line(a, b) is None, ("?||",)),
    "perp": (_line_perp, ("?-|",)),
    "eq": (_line_eq, ("=",)),
})
defop("line_vertical", None, LINE, BOOL, "?|")(lambda ln: FPzero(ln[1]))
defop("line_horizontal", None, LINE, BOOL, "?-")(lambda ln: FPzero(ln[0]))
