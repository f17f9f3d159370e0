"""The geometric operators' functions, under PostgreSQL 15's names (pg_operator.oprcode).

`OPERATORS` maps (operator, left type, right type) to the function that
implements it, as pg_operator does (a prefix operator's left type is None);
`expr.extops` binds `box @> point`, `p <-> q`, `@-@ s`, `a ?# b` ... through
it. Each function is also callable by name (`point_distance(p, q)`), as in
PostgreSQL. The math is `geomath`'s (geo_ops.c's fuzzy comparisons).

>>> IMPLS["point_distance"]("(0,0)", "(3,4)"), IMPLS["dist_pb"]("(5,0)", "(2,2),(0,0)")
(5.0, 3.0)
>>> OPERATORS["<->", POINT, BOX]
'dist_pb'
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...pgtypes import geometry as G
from ...pgtypes import oids as T
from . import geomath as M
from .registry import register

POINT, LSEG, PATH, BOX, POLYGON, LINE, CIRCLE = G.POINT, G.LSEG, G.PATH, G.BOX, G.POLYGON, G.LINE, G.CIRCLE
GEO_TYPES = frozenset(G.NAMES)
F8, BOOL, INT4 = T.FLOAT8, T.BOOL, T.INT4
_READ: dict[int, Callable[[str], Any]] = {
    POINT: M.rd_point, LSEG: M.rd_lseg, LINE: M.rd_line, BOX: M.rd_box, PATH: M.rd_path,
    POLYGON: M.rd_poly, CIRCLE: M.rd_circle}
_WRITE: dict[int, Callable[[Any], str]] = {
    POINT: M.wr_point, LSEG: M.wr_lseg, LINE: M.wr_line, BOX: M.wr_box,
    PATH: lambda v: M.wr_path(*v), POLYGON: M.wr_poly, CIRCLE: lambda v: M.wr_circle(*v)}

OPERATORS: dict[tuple[str, int | None, int], str] = {}


def _same(v: Any) -> Any:
    return v


IMPLS: dict[str, Callable[..., Any]] = {}  # the SQL-level functions (texts in, text/value out)


def defop(name: str, left: int | None, right: int, returns: int, *ops: str,
          sql: bool = True) -> Callable[..., Any]:
    """Registers `fn` (over decoded values) as SQL function `name` (unless not `sql`: only
    in IMPLS, for a C name pg_proc does not list) and as the operators `ops`."""
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        readers = [_READ.get(t, _same) for t in ((right,) if left is None else (left, right))]
        out = _WRITE.get(returns)

        def impl(*texts: str) -> Any:
            r = fn(*(rd(s) for rd, s in zip(readers, texts, strict=True)))
            return r if r is None or out is None else out(r)

        impl.__name__ = impl.__qualname__ = name
        sig = ", ".join(G.NAMES.get(t, "n") for t in ((right,) if left is None else (left, right)))
        impl.__doc__ = f"{name}({sig}), as PostgreSQL 15's geo_ops.c computes it{' (' + ' '.join(ops) + ')' if ops else ''}."
        if sql:
            register(name, args=[right] if left is None else [left, right], returns=returns)(impl)
        for op in ops:
            OPERATORS[op, left, right] = name
        IMPLS[name] = impl
        return impl
    return wrap


# -- translation, scaling and rotation ------------------------------------------------------

defop("point_add", POINT, POINT, POINT, "+")(M.add)
defop("point_sub", POINT, POINT, POINT, "-")(M.sub)
defop("point_mul", POINT, POINT, POINT, "*")(M.cmul)
defop("point_div", POINT, POINT, POINT, "/")(M.cdiv)
defop("box_add", BOX, POINT, BOX, "+")(lambda b, p: (M.add(b[0], p), M.add(b[1], p)))
defop("box_sub", BOX, POINT, BOX, "-")(lambda b, p: (M.sub(b[0], p), M.sub(b[1], p)))
defop("box_mul", BOX, POINT, BOX, "*")(lambda b, p: M.box_construct(M.cmul(b[0], p), M.cmul(b[1], p)))
defop("box_div", BOX, POINT, BOX, "/")(lambda b, p: M.box_construct(M.cdiv(b[0], p), M.cdiv(b[1], p)))
defop("path_add_pt", PATH, POINT, PATH, "+")(lambda a, p: (a[0], [M.add(q, p) for q in a[1]]))
defop("path_sub_pt", PATH, POINT, PATH, "-")(lambda a, p: (a[0], [M.sub(q, p) for q in a[1]]))
defop("path_mul_pt", PATH, POINT, PATH, "*")(lambda a, p: (a[0], [M.cmul(q, p) for q in a[1]]))
defop("path_div_pt", PATH, POINT, PATH, "/")(lambda a, p: (a[0], [M.cdiv(q, p) for q in a[1]]))
defop("path_add", PATH, PATH, PATH, "+")(
    lambda a, b: None if a[0] or b[0] else (False, a[1] + b[1]))
defop("circle_add_pt", CIRCLE, POINT, CIRCLE, "+")(lambda c, p: (M.add(c[0], p), c[1]))
defop("circle_sub_pt", CIRCLE, POINT, CIRCLE, "-")(lambda c, p: (M.sub(c[0], p), c[1]))
defop("circle_mul_pt", CIRCLE, POINT, CIRCLE, "*")(
    lambda c, p: (M.cmul(c[0], p), M.mul(c[1], M.hypot(p[0], p[1]))))
defop("circle_div_pt", CIRCLE, POINT, CIRCLE, "/")(
    lambda c, p: (M.cdiv(c[0], p), M.div(c[1], M.hypot(p[0], p[1]))))


# -- measures and centers (prefix @-@, @@, #) -----------------------------------------------

def _path_length(a: tuple[bool, list[M.Pt]]) -> float:
    r = 0.0
    for s in M.path_segments(*a):
        r = M.pl(r, M.point_dt(*s))
    return r


defop("lseg_length", None, LSEG, F8, "@-@")(lambda s: M.point_dt(s[0], s[1]))
defop("path_length", None, PATH, F8, "@-@")(_path_length)
defop("lseg_center", None, LSEG, POINT, "@@")(
    lambda s: (M.div(M.pl(s[0][0], s[1][0]), 2.0), M.div(M.pl(s[0][1], s[1][1]), 2.0)))
defop("box_center", None, BOX, POINT, "@@")(M.box_cn)
defop("poly_center", None, POLYGON, POINT, "@@")(lambda g: M.poly_to_circle(g)[0])
defop("circle_center", None, CIRCLE, POINT, "@@")(lambda c: c[0])
defop("path_npoints", None, PATH, INT4, "#")(lambda a: len(a[1]))
defop("poly_npoints", None, POLYGON, INT4, "#")(len)


# -- intersection points (#) and closest points (##) ----------------------------------------

def _box_intersect(a: M.Box, b: M.Box) -> M.Box | None:
    if not M.box_ov(a, b):
        return None
    return ((M.fmin(a[0][0], b[0][0]), M.fmin(a[0][1], b[0][1])),
            (M.fmax(a[1][0], b[1][0]), M.fmax(a[1][1], b[1][1])))


def _nan_null(r: tuple[float, M.Pt]) -> M.Pt | None:
    return None if math.isnan(r[0]) else r[1]


defop("lseg_interpt", LSEG, LSEG, POINT, "#")(M.lseg_interpt_lseg)
defop("box_intersect", BOX, BOX, BOX, "#")(_box_intersect)
defop("line_interpt", LINE, LINE, POINT, "#")(M.line_interpt_line)
defop("close_ps", POINT, LSEG, POINT, "##")(lambda p, s: _nan_null(M.lseg_closept_point(s, p)))
defop("close_pb", POINT, BOX, POINT, "##")(lambda p, b: _nan_null(M.box_closept_point(b, p)))
defop("close_pl", POINT, LINE, POINT, "##")(lambda p, ln: _nan_null(M.line_closept_point(ln, p)))
defop("close_lseg", LSEG, LSEG, POINT, "##")(
    lambda a, b: None if M.lseg_sl(a) == M.lseg_sl(b) else _nan_null(M.lseg_closept_lseg(b, a)))
defop("close_sb", LSEG, BOX, POINT, "##")(lambda s, b: _nan_null(M.box_closept_lseg(b, s, True)))
defop("close_ls", LINE, LSEG, POINT, "##")(
    lambda ln, s: None if M.lseg_sl(s) == M.line_sl(ln) else _nan_null(M.lseg_closept_line(s, ln)))


# -- distances (<->) ------------------------------------------------------------------------

def _line_distance(a: M.Line, b: M.Line) -> float:
    if M.line_interpt_line(a, b) is not None:
        return 0.0
    if not M.FPzero(a[0]) and not math.isnan(a[0]) and not M.FPzero(b[0]) and not math.isnan(b[0]):
        ratio = M.div(a[0], b[0])
    elif not M.FPzero(a[1]) and not math.isnan(a[1]) and not M.FPzero(b[1]) and not math.isnan(b[1]):
        ratio = M.div(a[1], b[1])
    else:
        ratio = 1.0
    return M.div(abs(M.mi(a[2], M.mul(ratio, b[2]))), M.hypot(a[0], a[1]))


def _path_distance(a: tuple[bool, list[M.Pt]], b: tuple[bool, list[M.Pt]]) -> float | None:
    best = None
    for s1 in M.path_segments(*a):
        for s2 in M.path_segments(*b):
            d = M.lseg_closept_lseg(s1, s2)[0]
            if best is None or M.flt(d, best):
                best = d
    return best


def _dist_ppath(p: M.Pt, a: tuple[bool, list[M.Pt]]) -> float:
    best = 0.0
    for i, s in enumerate(M.path_segments(*a)):
        d = M.lseg_closept_point(s, p)[0]
        if i == 0 or M.flt(d, best):
            best = d
    return best


def _nonneg(x: float) -> float:
    return 0.0 if x < 0.0 else x


def _dist_cpoly(c: tuple[M.Pt, float], g: list[M.Pt]) -> float:
    return _nonneg(M.mi(M.dist_ppoly(c[0], g), c[1]))


def _poly_distance(a: list[M.Pt], b: list[M.Pt]) -> float | None:
    if M.poly_overlap(a, b):
        return 0.0
    return _path_distance((True, a), (True, b))


defop("point_distance", POINT, POINT, F8, "<->")(M.point_dt)
defop("dist_ps", POINT, LSEG, F8, "<->")(lambda p, s: M.lseg_closept_point(s, p)[0])
defop("dist_sp", LSEG, POINT, F8, "<->")(lambda s, p: M.lseg_closept_point(s, p)[0])
defop("dist_ppath", POINT, PATH, F8, "<->")(_dist_ppath)
defop("dist_pathp", PATH, POINT, F8, "<->")(lambda a, p: _dist_ppath(p, a))
defop("dist_pb", POINT, BOX, F8, "<->")(lambda p, b: M.box_closept_point(b, p)[0])
defop("dist_bp", BOX, POINT, F8, "<->")(lambda b, p: M.box_closept_point(b, p)[0])
defop("dist_ppoly", POINT, POLYGON, F8, "<->")(M.dist_ppoly)
defop("dist_polyp", POLYGON, POINT, F8, "<->")(lambda g, p: M.dist_ppoly(p, g))
defop("dist_pl", POINT, LINE, F8, "<->")(lambda p, ln: M.line_closept_point(ln, p)[0])
defop("dist_lp", LINE, POINT, F8, "<->")(lambda ln, p: M.line_closept_point(ln, p)[0])
defop("dist_pc", POINT, CIRCLE, F8, "<->")(lambda p, c: _nonneg(M.mi(M.point_dt(p, c[0]), c[1])))
defop("dist_cpoint", CIRCLE, POINT, F8, "<->")(lambda c, p: _nonneg(M.mi(M.point_dt(p, c[0]), c[1])))
defop("lseg_distance", LSEG, LSEG, F8, "<->")(lambda a, b: M.lseg_closept_lseg(a, b)[0])
defop("dist_sb", LSEG, BOX, F8, "<->")(lambda s, b: M.box_closept_lseg(b, s)[0])
defop("dist_bs", BOX, LSEG, F8, "<->")(lambda b, s: M.box_closept_lseg(b, s)[0])
defop("dist_sl", LSEG, LINE, F8, "<->")(lambda s, ln: M.lseg_closept_line(s, ln)[0])
defop("dist_ls", LINE, LSEG, F8, "<->")(lambda ln, s: M.lseg_closept_line(s, ln)[0])
defop("path_distance", PATH, PATH, F8, "<->")(_path_distance)
defop("box_distance", BOX, BOX, F8, "<->")(lambda a, b: M.point_dt(M.box_cn(a), M.box_cn(b)))
defop("poly_distance", POLYGON, POLYGON, F8, "<->")(_poly_distance)
defop("dist_polyc", POLYGON, CIRCLE, F8, "<->")(lambda g, c: _dist_cpoly(c, g))
defop("dist_cpoly", CIRCLE, POLYGON, F8, "<->")(_dist_cpoly)
defop("line_distance", LINE, LINE, F8, "<->")(_line_distance)
defop("circle_distance", CIRCLE, CIRCLE, F8, "<->")(
    lambda a, b: _nonneg(M.mi(M.point_dt(a[0], b[0]), M.pl(a[1], b[1]))))
