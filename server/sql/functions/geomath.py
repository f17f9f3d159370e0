"""Plane geometry as PostgreSQL 15's geo_ops.c computes it: fuzzy comparisons, closest points.

Values travel as their canonical text (`pgtypes.geometry`); this module reads
them into tuples (a point `(x, y)`, a segment `(p, q)`, a line `(A, B, C)`, a
box `(high, low)`, a path `(closed, points)`, a polygon `points`, a circle
`(center, r)`), computes, and prints results back. Comparisons are PostgreSQL's
EPSILON-fuzzy ones (FPeq and friends, 1e-6), and float arithmetic raises
22003/22012 where float8_pl/mi/mul/div do, so answers and errors agree with
PostgreSQL's own, not only with the textbook formula.

>>> FPeq(1.0, 1.0000001), FPlt(1.0, 1.0000001)
(True, False)
>>> lseg_interpt_lseg(((0.0, 0.0), (2.0, 2.0)), ((0.0, 2.0), (2.0, 0.0)))
(1.0, 1.0)
>>> point_inside((0.5, 0.5), [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)])
1
"""

from __future__ import annotations

import math
import re

from ...errors import DivisionByZero, NumericValueOutOfRange, SQLError
from ...pgtypes import geometry as G

Pt = tuple[float, float]
Seg = tuple[Pt, Pt]
Line = tuple[float, float, float]
Box = tuple[Pt, Pt]
EPSILON = 1.0e-06
INF = math.inf
_NUM = re.compile(r"[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan)", re.I)


# -- fuzzy comparisons (geo_decls.h) --------------------------------------------------------

def FPzero(a: float) -> bool:
    return abs(a) <= EPSILON


def FPeq(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= EPSILON


def FPne(a: float, b: float) -> bool:
    return a != b and abs(a - b) > EPSILON


def FPlt(a: float, b: float) -> bool:
    return a + EPSILON < b


def FPle(a: float, b: float) -> bool:
    return a <= b + EPSILON


def FPgt(a: float, b: float) -> bool:
    return a > b + EPSILON


def FPge(a: float, b: float) -> bool:
    return a + EPSILON >= b


# float8_lt / _gt / _min / _max: NaN sorts above every number, as in float8's btree order
def flt(a: float, b: float) -> bool:
    if math.isnan(a):
        return False
    return math.isnan(b) or a < b


def fgt(a: float, b: float) -> bool:
    if math.isnan(a):
        return not math.isnan(b)
    return not math.isnan(b) and a > b


def fmin(a: float, b: float) -> float:
    return a if flt(a, b) else b


def fmax(a: float, b: float) -> float:
    return a if fgt(a, b) else b


# -- float8 arithmetic with PostgreSQL's overflow / division checks -------------------------

def _overflow() -> SQLError:
    return NumericValueOutOfRange("value out of range: overflow")


def pl(a: float, b: float) -> float:
    r = a + b
    if math.isinf(r) and not math.isinf(a) and not math.isinf(b):
        raise _overflow()
    return r


def mi(a: float, b: float) -> float:
    r = a - b
    if math.isinf(r) and not math.isinf(a) and not math.isinf(b):
        raise _overflow()
    return r


def mul(a: float, b: float) -> float:
    r = a * b
    if math.isinf(r) and not math.isinf(a) and not math.isinf(b):
        raise _overflow()
    if r == 0.0 and a != 0.0 and b != 0.0:
        raise NumericValueOutOfRange("value out of range: underflow")
    return r


def div(a: float, b: float) -> float:
    if b == 0.0 and not math.isnan(a):
        raise DivisionByZero("division by zero")
    if b == 0.0:
        return math.nan
    r = a / b
    if math.isinf(r) and not math.isinf(a):
        raise _overflow()
    if r == 0.0 and a != 0.0 and not math.isinf(b):
        raise NumericValueOutOfRange("value out of range: underflow")
    return r


def hypot(x: float, y: float) -> float:
    """pg_hypot: inf wins over NaN."""
    if math.isinf(x) or math.isinf(y):
        return INF
    if math.isnan(x) or math.isnan(y):
        return math.nan
    x, y = abs(x), abs(y)
    if x < y:
        x, y = y, x
    if y == 0.0:
        return x
    yx = y / x
    r = x * math.sqrt(1.0 + yx * yx)
    if math.isinf(r):
        raise _overflow()
    return r


# -- reading and printing the canonical texts -----------------------------------------------

def nums(text: str) -> list[float]:
    return [float(m) for m in _NUM.findall(text)]


def pairs(v: list[float]) -> list[Pt]:
    return [(v[i], v[i + 1]) for i in range(0, len(v), 2)]


def rd_point(s: str) -> Pt:
    x, y = nums(s)
    return (x, y)


def rd_lseg(s: str) -> Seg:
    x1, y1, x2, y2 = nums(s)
    return ((x1, y1), (x2, y2))


def rd_line(s: str) -> Line:
    a, b, c = nums(s)
    return (a, b, c)


def rd_box(s: str) -> Box:
    hx, hy, lx, ly = nums(s)
    return ((hx, hy), (lx, ly))


def rd_path(s: str) -> tuple[bool, list[Pt]]:
    return (s.lstrip().startswith("("), pairs(nums(s)))


def rd_poly(s: str) -> list[Pt]:
    return pairs(nums(s))


def rd_circle(s: str) -> tuple[Pt, float]:
    x, y, r = nums(s)
    return ((x, y), r)


def _f(x: float) -> str:
    return G.float8_text(x)


def _p(p: Pt) -> str:
    return f"({_f(p[0])},{_f(p[1])})"


def wr_point(p: Pt) -> str:
    return _p(p)


def wr_lseg(s: Seg) -> str:
    return f"[{_p(s[0])},{_p(s[1])}]"


def wr_line(ln: Line) -> str:
    return "{" + ",".join(_f(x) for x in ln) + "}"


def wr_box(b: Box) -> str:
    return f"{_p(b[0])},{_p(b[1])}"


def wr_path(closed: bool, pts: list[Pt]) -> str:
    body = ",".join(_p(p) for p in pts)
    return f"({body})" if closed else f"[{body}]"


def wr_poly(pts: list[Pt]) -> str:
    return "(" + ",".join(_p(p) for p in pts) + ")"


def wr_circle(c: Pt, r: float) -> str:
    return f"<{_p(c)},{_f(r)}>"


# -- points ---------------------------------------------------------------------------------

def point_eq_point(a: Pt, b: Pt) -> bool:
    if any(math.isnan(v) for v in (*a, *b)):
        return _nan_eq(a, b)
    return FPeq(a[0], b[0]) and FPeq(a[1], b[1])


def _nan_eq(a: Pt, b: Pt) -> bool:
    """float8_eq treats NaN as equal to NaN."""
    def eq(x: float, y: float) -> bool:
        return (math.isnan(x) and math.isnan(y)) or x == y
    return eq(a[0], b[0]) and eq(a[1], b[1])


def point_dt(a: Pt, b: Pt) -> float:
    return hypot(mi(a[0], b[0]), mi(a[1], b[1]))


def point_sl(a: Pt, b: Pt) -> float:
    if FPeq(a[0], b[0]):
        return INF
    if FPeq(a[1], b[1]):
        return 0.0
    return div(mi(a[1], b[1]), mi(a[0], b[0]))


def point_invsl(a: Pt, b: Pt) -> float:
    if FPeq(a[0], b[0]):
        return 0.0
    if FPeq(a[1], b[1]):
        return INF
    return div(mi(a[0], b[0]), mi(b[1], a[1]))


def add(a: Pt, b: Pt) -> Pt:
    return (pl(a[0], b[0]), pl(a[1], b[1]))


def sub(a: Pt, b: Pt) -> Pt:
    return (mi(a[0], b[0]), mi(a[1], b[1]))


# NB: PostgreSQL's compiled C evaluates a call's arguments right to left, which decides
# whether overflow or underflow is reported when both happen: so do these.

def cmul(a: Pt, b: Pt) -> Pt:
    """Complex multiplication: scaling and rotation."""
    y = pl(*reversed((mul(a[1], b[0]), mul(a[0], b[1]))))
    x = mi(*reversed((mul(a[1], b[1]), mul(a[0], b[0]))))
    return (x, y)


def cdiv(a: Pt, b: Pt) -> Pt:
    yy = mul(b[1], b[1])
    d = pl(mul(b[0], b[0]), yy)
    ry = mul(a[0], b[1])
    y = div(mi(mul(a[1], b[0]), ry), d)
    rx = mul(a[1], b[1])
    x = div(pl(mul(a[0], b[0]), rx), d)
    return (x, y)


# -- lines ----------------------------------------------------------------------------------

def line_construct(p: Pt, m: float) -> Line:
    if math.isinf(m):
        return (-1.0, 0.0, p[0])
    if m == 0:
        return (0.0, -1.0, p[1])
    c = mi(p[1], mul(m, p[0]))
    return (m, -1.0, 0.0 if c == 0.0 else c)


def line_sl(ln: Line) -> float:
    if FPzero(ln[0]):
        return 0.0
    if FPzero(ln[1]):
        return INF
    return div(ln[0], -ln[1])


def line_invsl(ln: Line) -> float:
    if FPzero(ln[0]):
        return INF
    if FPzero(ln[1]):
        return 0.0
    return div(ln[1], ln[0])


def line_interpt_line(l1: Line, l2: Line) -> Pt | None:
    a1, b1, c1 = l1
    a2, b2, c2 = l2
    if not FPzero(b1):
        if FPeq(a2, mul(a1, div(b2, b1))):
            return None
        x = div(mi(mul(b1, c2), mul(b2, c1)), mi(mul(a1, b2), mul(a2, b1)))
        y = div(-pl(mul(a1, x), c1), b1)
    elif not FPzero(b2):
        if FPeq(a1, mul(a2, div(b1, b2))):
            return None
        x = div(mi(mul(b2, c1), mul(b1, c2)), mi(mul(a2, b1), mul(a1, b2)))
        y = div(-pl(mul(a2, x), c2), b2)
    else:
        return None
    return (0.0 if x == 0.0 else x, 0.0 if y == 0.0 else y)


def line_contain_point(ln: Line, p: Pt) -> bool:
    return FPzero(pl(pl(mul(ln[0], p[0]), mul(ln[1], p[1])), ln[2]))


def line_closept_point(ln: Line, p: Pt) -> tuple[float, Pt]:
    cp = line_interpt_line(line_construct(p, line_invsl(ln)), ln)
    if cp is None:
        return math.nan, p
    return point_dt(cp, p), cp


# -- segments -------------------------------------------------------------------------------

def lseg_sl(s: Seg) -> float:
    return point_sl(s[0], s[1])


def lseg_invsl(s: Seg) -> float:
    return point_invsl(s[0], s[1])


def lseg_contain_point(s: Seg, p: Pt) -> bool:
    return FPeq(point_dt(p, s[0]) + point_dt(p, s[1]), point_dt(s[0], s[1]))


def lseg_interpt_line(s: Seg, ln: Line) -> Pt | None:
    ip = line_interpt_line(line_construct(s[0], lseg_sl(s)), ln)
    if ip is None or not lseg_contain_point(s, ip):
        return None
    if point_eq_point(s[0], ip):
        return s[0]
    if point_eq_point(s[1], ip):
        return s[1]
    return ip


def lseg_interpt_lseg(s1: Seg, s2: Seg) -> Pt | None:
    ip = lseg_interpt_line(s1, line_construct(s2[0], lseg_sl(s2)))
    if ip is None or not lseg_contain_point(s2, ip):
        return None
    return ip


def lseg_closept_line(s: Seg, ln: Line) -> tuple[float, Pt]:
    ip = lseg_interpt_line(s, ln)
    if ip is not None:
        return 0.0, ip
    d1 = line_closept_point(ln, s[0])[0]
    d2 = line_closept_point(ln, s[1])[0]
    return (d1, s[0]) if d1 < d2 else (d2, s[1])


def lseg_closept_point(s: Seg, p: Pt) -> tuple[float, Pt]:
    cp = lseg_closept_line(s, line_construct(p, point_invsl(s[0], s[1])))[1]
    return point_dt(cp, p), cp


def lseg_closept_lseg(on: Seg, to: Seg) -> tuple[float, Pt]:
    ip = lseg_interpt_lseg(on, to)
    if ip is not None:
        return 0.0, ip
    dist, res = lseg_closept_point(on, to[0])
    d, pt = lseg_closept_point(on, to[1])
    if flt(d, dist):
        dist, res = d, pt
    d = lseg_closept_point(to, on[0])[0]
    if flt(d, dist):
        dist, res = d, on[0]
    d = lseg_closept_point(to, on[1])[0]
    if flt(d, dist):
        dist, res = d, on[1]
    return dist, res


# -- boxes ----------------------------------------------------------------------------------

def box_construct(p1: Pt, p2: Pt) -> Box:
    hx, lx = (p1[0], p2[0]) if fgt(p1[0], p2[0]) else (p2[0], p1[0])
    hy, ly = (p1[1], p2[1]) if fgt(p1[1], p2[1]) else (p2[1], p1[1])
    return ((hx, hy), (lx, ly))


def box_ov(a: Box, b: Box) -> bool:
    return (FPle(a[1][0], b[0][0]) and FPle(b[1][0], a[0][0])
            and FPle(a[1][1], b[0][1]) and FPle(b[1][1], a[0][1]))


def box_cn(b: Box) -> Pt:
    return (div(pl(b[0][0], b[1][0]), 2.0), div(pl(b[0][1], b[1][1]), 2.0))


def box_ar(b: Box) -> float:
    return mul(mi(b[0][0], b[1][0]), mi(b[0][1], b[1][1]))


def box_contain_point(b: Box, p: Pt) -> bool:
    return b[0][0] >= p[0] and b[1][0] <= p[0] and b[0][1] >= p[1] and b[1][1] <= p[1]


def box_contain_box(a: Box, b: Box) -> bool:
    return (FPge(a[0][0], b[0][0]) and FPle(a[1][0], b[1][0])
            and FPge(a[0][1], b[0][1]) and FPle(a[1][1], b[1][1]))


def box_sides(b: Box) -> list[Seg]:
    """The four sides in geo_ops.c's order (low-left up, high across, low across, high down)."""
    (hx, hy), (lx, ly) = b
    ul, lr = (lx, hy), (hx, ly)
    return [((lx, ly), ul), ((hx, hy), ul), ((lx, ly), lr), ((hx, hy), lr)]


def box_closept_point(b: Box, p: Pt) -> tuple[float, Pt]:
    if box_contain_point(b, p):
        return 0.0, p
    best: tuple[float, Pt] | None = None
    for side in box_sides(b):
        d, cp = lseg_closept_point(side, p)
        if best is None or flt(d, best[0]):
            best = (d, cp)
    assert best is not None
    return best


def box_interpt_lseg(b: Box, s: Seg, want_point: bool = False) -> Pt | bool | None:
    """Do they meet? With want_point, the point of s closest to the box's center (else None);
    PostgreSQL computes that point only when asked, and it can overflow."""
    lbox = ((fmax(s[0][0], s[1][0]), fmax(s[0][1], s[1][1])),
            (fmin(s[0][0], s[1][0]), fmin(s[0][1], s[1][1])))
    if not box_ov(lbox, b):
        return None
    res: Pt | bool = lseg_closept_point(s, box_cn(b))[1] if want_point else True
    if box_contain_point(b, s[0]) or box_contain_point(b, s[1]):
        return res
    for side in box_sides(b):
        if lseg_interpt_lseg(side, s) is not None:
            return res
    return None


def box_closept_lseg(b: Box, s: Seg, want_point: bool = False) -> tuple[float, Pt]:
    ip = box_interpt_lseg(b, s, want_point)
    if ip is not None:
        return 0.0, ip if isinstance(ip, tuple) else s[0]
    best: tuple[float, Pt] | None = None
    for side in box_sides(b):
        d, cp = lseg_closept_lseg(side, s)
        if best is None or flt(d, best[0]):
            best = (d, cp)
    assert best is not None
    return best


# -- polygons and paths ---------------------------------------------------------------------

def bound_box(pts: list[Pt]) -> Box:
    """make_bound_box: float8_lt / _gt from the first point on (NaN-aware)."""
    x1 = x2 = pts[0][0]
    y1 = y2 = pts[0][1]
    for x, y in pts[1:]:
        if flt(x, x1):
            x1 = x
        if fgt(x, x2):
            x2 = x
        if flt(y, y1):
            y1 = y
        if fgt(y, y2):
            y2 = y
    return ((x2, y2), (x1, y1))


_ON = 1 << 31


def lseg_crossing(x: float, y: float, px: float, py: float) -> int:
    if FPzero(y):
        if FPzero(x):
            return _ON
        if FPgt(x, 0):
            if FPzero(py):
                return 0 if FPgt(px, 0.0) else _ON
            return 1 if FPlt(py, 0.0) else -1
        if FPzero(py):
            return 0 if FPlt(px, 0.0) else _ON
        return 0
    ys = 1 if FPgt(y, 0.0) else -1
    if FPzero(py):
        return 0 if FPlt(px, 0.0) else ys
    if (ys < 0 and FPlt(py, 0.0)) or (ys > 0 and FPgt(py, 0.0)):
        return 0
    if FPge(x, 0.0) and FPgt(px, 0.0):
        return 2 * ys
    if FPlt(x, 0.0) and FPle(px, 0.0):
        return 0
    z = mi(mul(mi(x, px), y), mul(mi(y, py), x))
    if FPzero(z):
        return _ON
    if (ys < 0 and FPlt(z, 0.0)) or (ys > 0 and FPgt(z, 0.0)):
        return 0
    return 2 * ys


def point_inside(p: Pt, pts: list[Pt]) -> int:
    """1 inside, 2 on the boundary, 0 outside (the ray-crossing count)."""
    x0, y0 = mi(pts[0][0], p[0]), mi(pts[0][1], p[1])
    px, py = x0, y0
    total = 0
    for q in pts[1:]:
        x, y = mi(q[0], p[0]), mi(q[1], p[1])
        c = lseg_crossing(x, y, px, py)
        if c == _ON:
            return 2
        total += c
        px, py = x, y
    c = lseg_crossing(x0, y0, px, py)
    if c == _ON:
        return 2
    total += c
    return 1 if total != 0 else 0


def path_segments(closed: bool, pts: list[Pt]) -> list[Seg]:
    segs = [(pts[i - 1], pts[i]) for i in range(1, len(pts))]
    if closed:
        segs.insert(0, (pts[-1], pts[0]))
    return segs


def plist_same(a: list[Pt], b: list[Pt]) -> bool:
    n = len(a)
    for i in range(n):
        if not point_eq_point(b[i], a[0]):
            continue
        if all(point_eq_point(b[(i + k) % n], a[k]) for k in range(1, n)):
            return True
        if all(point_eq_point(b[(i - k) % n], a[k]) for k in range(1, n)):
            return True
    return False


def poly_overlap(a: list[Pt], b: list[Pt]) -> bool:
    if not box_ov(bound_box(a), bound_box(b)):
        return False
    for sa in path_segments(True, a):
        for sb in path_segments(True, b):
            if lseg_interpt_lseg(sa, sb) is not None:
                return True
    return bool(point_inside(a[0], b) or point_inside(b[0], a))


def _touched_lseg_inside_poly(a: Pt, b: Pt, s: Seg, poly: list[Pt], start: int) -> bool:
    t = (a, b)
    if point_eq_point(a, s[0]):
        if lseg_contain_point(t, s[1]):
            return lseg_inside_poly(b, s[1], poly, start)
    elif point_eq_point(a, s[1]):
        if lseg_contain_point(t, s[0]):
            return lseg_inside_poly(b, s[0], poly, start)
    elif lseg_contain_point(t, s[0]):
        return lseg_inside_poly(b, s[0], poly, start)
    elif lseg_contain_point(t, s[1]):
        return lseg_inside_poly(b, s[1], poly, start)
    return True


def lseg_inside_poly(a: Pt, b: Pt, poly: list[Pt], start: int) -> bool:
    t = (a, b)
    s0 = poly[-1] if start == 0 else poly[start - 1]
    res, crossed = True, False
    i = start
    while i < len(poly) and res:
        s = (s0, poly[i])
        if lseg_contain_point(s, a):
            if lseg_contain_point(s, b):
                return True
            res = _touched_lseg_inside_poly(a, b, s, poly, i + 1)
        elif lseg_contain_point(s, b):
            res = _touched_lseg_inside_poly(b, a, s, poly, i + 1)
        else:
            ip = lseg_interpt_lseg(t, s)
            if ip is not None:
                crossed = True
                res = lseg_inside_poly(a, ip, poly, i + 1)
                if res:
                    res = lseg_inside_poly(b, ip, poly, i + 1)
        s0 = poly[i]
        i += 1
    if res and not crossed:
        mid = (div(pl(a[0], b[0]), 2.0), div(pl(a[1], b[1]), 2.0))
        res = bool(point_inside(mid, poly))
    return res


def poly_contain_poly(outer: list[Pt], inner: list[Pt]) -> bool:
    if not box_contain_box(bound_box(outer), bound_box(inner)):
        return False
    prev = inner[-1]
    for p in inner:
        if not lseg_inside_poly(prev, p, outer, 0):
            return False
        prev = p
    return True


def dist_ppoly(p: Pt, poly: list[Pt]) -> float:
    if point_inside(p, poly) != 0:
        return 0.0
    result = lseg_closept_point((poly[0], poly[-1]), p)[0]
    for i in range(len(poly) - 1):
        d = lseg_closept_point((poly[i], poly[i + 1]), p)[0]
        if flt(d, result):
            result = d
    return result


def poly_to_circle(pts: list[Pt]) -> tuple[Pt, float]:
    cx, cy = 0.0, 0.0
    for p in pts:
        cx, cy = pl(cx, p[0]), pl(cy, p[1])
    c = (div(cx, len(pts)), div(cy, len(pts)))
    r = 0.0
    for p in pts:
        r = pl(r, point_dt(p, c))
    return c, div(r, len(pts))
