"""Geometric conversions and tests by name: line(p, p), lseg(box), polygon(n, circle), slope ...

The pg_proc entries that are not operators' functions and that `geomfns`
does not have, computed as geo_ops.c does (`geomath`), with its errors:
`line(p, p)` of one point, `polygon(path)` of an open path, `polygon(n, c)`
with fewer than 2 points or radius zero.

>>> IMPLS["box_circle"]("(2,2),(0,0)"), IMPLS["circle_poly"](4, "<(0,0),1>")[:9]
('<(1,1),1.4142135623730951>', '((-1,0),(')
"""

from __future__ import annotations

import math

from ...errors import FeatureNotSupported, InvalidParameterValue
from . import geomath as M
from .geoops import BOOL, BOX, CIRCLE, F8, IMPLS, INT4, LINE, LSEG, PATH, POINT, POLYGON, defop


def _line_pp(a: M.Pt, b: M.Pt) -> M.Line:
    if M.point_eq_point(a, b):
        raise InvalidParameterValue("invalid line specification: must be two distinct points")
    return M.line_construct(a, M.point_sl(a, b))


def _circle_poly(n: int, c: tuple[M.Pt, float]) -> list[M.Pt]:
    (cx, cy), r = c
    if M.FPzero(r):
        raise FeatureNotSupported("cannot convert circle with radius zero to polygon")
    if n < 2:
        raise InvalidParameterValue("must request at least 2 points")
    step = M.div(2.0 * math.pi, n)
    pts = []
    for i in range(n):
        angle = M.mul(step, float(i))
        pts.append((M.mi(cx, M.mul(r, math.cos(angle))), M.pl(cy, M.mul(r, math.sin(angle)))))
    return pts


def _circle_box(c: tuple[M.Pt, float]) -> M.Box:
    (cx, cy), r = c
    d = M.div(r, math.sqrt(2.0))
    return ((M.pl(cx, d), M.pl(cy, d)), (M.mi(cx, d), M.mi(cy, d)))


def _box_circle(b: M.Box) -> tuple[M.Pt, float]:
    c = M.box_cn(b)
    return c, M.point_dt(c, b[0])


def _path_poly(a: tuple[bool, list[M.Pt]]) -> list[M.Pt]:
    if not a[0]:
        raise InvalidParameterValue("open path cannot be converted to polygon")
    return a[1]


def _path_area(a: tuple[bool, list[M.Pt]]) -> float | None:
    closed, pts = a
    if not closed:
        return None
    area = 0.0
    for i, p in enumerate(pts):
        q = pts[(i + 1) % len(pts)]
        area = M.mi(M.pl(area, M.mul(p[0], q[1])), M.mul(p[1], q[0]))
    return M.div(abs(area), 2.0)


def _path_length(a: tuple[bool, list[M.Pt]]) -> float:
    r = 0.0
    for s in M.path_segments(*a):
        r = M.pl(r, M.point_dt(*s))
    return r


def _bound(a: M.Box, b: M.Box) -> M.Box:
    return ((M.fmax(a[0][0], b[0][0]), M.fmax(a[0][1], b[0][1])),
            (M.fmin(a[1][0], b[1][0]), M.fmin(a[1][1], b[1][1])))


def _named(fn_name: str, sql_name: str, args: list[int], returns: int, fn: object) -> None:
    """Registers the SQL name users call; the C name (not in pg_proc) only in IMPLS."""
    left, right = (None, args[0]) if len(args) == 1 else (args[0], args[1])
    defop(fn_name, left, right, returns, sql=False)(fn)
    defop(sql_name, left, right, returns)(fn)


_named("line_construct_pp", "line", [POINT, POINT], LINE, _line_pp)
_named("box_diagonal", "lseg", [BOX], LSEG, lambda b: (b[0], b[1]))
_named("circle_box", "box", [CIRCLE], BOX, _circle_box)
_named("box_circle", "circle", [BOX], CIRCLE, _box_circle)
_named("circle_poly", "polygon", [INT4, CIRCLE], POLYGON, _circle_poly)
defop("polygon", None, CIRCLE, POLYGON)(lambda c: _circle_poly(12, c))
_named("poly_path", "path", [POLYGON], PATH, lambda g: (True, g))
_named("path_poly", "polygon", [PATH], POLYGON, _path_poly)
defop("point", None, BOX, POINT)(M.box_cn)
defop("point", None, CIRCLE, POINT)(lambda c: c[0])
defop("point", None, LSEG, POINT)(
    lambda s: (M.div(M.pl(s[0][0], s[1][0]), 2.0), M.div(M.pl(s[0][1], s[1][1]), 2.0)))
defop("point", None, POLYGON, POINT)(lambda g: M.poly_to_circle(g)[0])
_named("point_box", "box", [POINT], BOX, lambda p: (p, p))
_named("poly_box", "box", [POLYGON], BOX, M.bound_box)
_named("poly_circle", "circle", [POLYGON], CIRCLE, M.poly_to_circle)
_named("boxes_bound_box", "bound_box", [BOX, BOX], BOX, _bound)
_named("path_area", "area", [PATH], F8, _path_area)
defop("length", None, PATH, F8)(_path_length)
_named("point_slope", "slope", [POINT, POINT], F8, M.point_sl)
defop("ishorizontal", None, LSEG, BOOL)(lambda s: M.FPeq(s[0][1], s[1][1]))
defop("ishorizontal", None, LINE, BOOL)(lambda ln: M.FPzero(ln[0]))
defop("ishorizontal", POINT, POINT, BOOL)(lambda a, b: M.FPeq(a[1], b[1]))
defop("isvertical", None, LSEG, BOOL)(lambda s: M.FPeq(s[0][0], s[1][0]))
defop("isvertical", None, LINE, BOOL)(lambda ln: M.FPzero(ln[1]))
defop("isvertical", POINT, POINT, BOOL)(lambda a, b: M.FPeq(a[0], b[0]))
defop("isparallel", LSEG, LSEG, BOOL)(lambda a, b: M.FPeq(M.lseg_sl(a), M.lseg_sl(b)))
defop("isparallel", LINE, LINE, BOOL)(lambda a, b: M.line_interpt_line(a, b) is None)
defop("isperp", LSEG, LSEG, BOOL)(lambda a, b: M.FPeq(M.lseg_sl(a), M.lseg_invsl(b)))
defop("isperp", LINE, LINE, BOOL)(lambda a, b: IMPLS["line_perp"](*(M.wr_line(x) for x in (a, b))))
