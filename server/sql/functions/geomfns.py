"""Geometric constructors and measures: point(x, y), box(p, p), circle(p, r), area, center, ...

Values are the types' canonical text (see `pgtypes.geometry`); each function
reads the coordinates back as float8 and builds its result through the type's
own input function, so the output is what PostgreSQL 15's geo_ops.c prints.
The operators (`<->`, `@>`, `&&` on these types) are not here.

>>> point(1, 2), box("(1,1)", "(0,3)"), area_box("(2,3),(0,0)"), center_circle("<(1,1),2>")
('(1,2)', '(1,3),(0,1)', 6.0, '(1,1)')
"""

from __future__ import annotations

import math
import re

from ...pgtypes import geometry as G
from ...pgtypes import oids as T
from .registry import register

F8 = T.FLOAT8
POINT, LSEG, PATH, BOX, POLYGON, CIRCLE = G.POINT, G.LSEG, G.PATH, G.BOX, G.POLYGON, G.CIRCLE
_NUM = re.compile(r"[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|inf(?:inity)?|nan)", re.I)


def _nums(text: str) -> list[float]:
    """The coordinates of a canonical geometric value, in order."""
    return [float(m) for m in _NUM.findall(text)]


def _point_text(x: float, y: float) -> str:
    return G.parse(POINT, f"({x!r},{y!r})")


@register("point", args=[F8, F8], returns=POINT)
def point(x: float, y: float) -> str:
    """The point (x, y)."""
    return _point_text(float(x), float(y))


@register("box", args=[POINT, POINT], returns=BOX)
def box(a: str, b: str) -> str:
    """The box with corners a and b (stored high corner first)."""
    return G.parse(BOX, f"{a},{b}")


@register("lseg", args=[POINT, POINT], returns=LSEG)
def lseg(a: str, b: str) -> str:
    """The line segment from a to b."""
    return G.parse(LSEG, f"[{a},{b}]")


@register("circle", args=[POINT, F8], returns=CIRCLE)
def circle(center: str, radius: float) -> str:
    """The circle of the given center and radius (a negative radius is kept, as PostgreSQL's)."""
    x, y = _nums(center)
    r = _point_text(float(radius), 0.0)  # NB: float8's output, through the point's
    return f"<{_point_text(x, y)},{r[1:r.rindex(',')]}>"


@register("area", args=[BOX], returns=F8)
def area_box(b: str) -> float:
    """width * height."""
    hx, hy, lx, ly = _nums(b)
    return (hx - lx) * (hy - ly)


@register("area", args=[CIRCLE], returns=F8)
def area_circle(c: str) -> float:
    """pi * r * r (PostgreSQL's M_PI * radius * radius)."""
    r = _nums(c)[2]
    return math.pi * r * r


@register("center", args=[BOX], returns=POINT)
def center_box(b: str) -> str:
    """The middle of the box."""
    hx, hy, lx, ly = _nums(b)
    return _point_text((hx + lx) / 2.0, (hy + ly) / 2.0)


@register("center", args=[CIRCLE], returns=POINT)
def center_circle(c: str) -> str:
    """The circle's center."""
    x, y, _ = _nums(c)
    return _point_text(x, y)


@register("radius", args=[CIRCLE], returns=F8)
def radius(c: str) -> float:
    """The circle's radius."""
    return _nums(c)[2]


@register("diameter", args=[CIRCLE], returns=F8)
def diameter(c: str) -> float:
    """Twice the radius."""
    return 2.0 * _nums(c)[2]


@register("width", args=[BOX], returns=F8)
def width(b: str) -> float:
    """high.x - low.x."""
    hx, _, lx, _ = _nums(b)
    return hx - lx


@register("height", args=[BOX], returns=F8)
def height(b: str) -> float:
    """high.y - low.y."""
    _, hy, _, ly = _nums(b)
    return hy - ly


@register("diagonal", args=[BOX], returns=LSEG)
def diagonal(b: str) -> str:
    """The segment from the high corner to the low one."""
    hx, hy, lx, ly = _nums(b)
    return G.parse(LSEG, f"[({hx!r},{hy!r}),({lx!r},{ly!r})]")


@register("npoints", args=[PATH], returns=T.INT4)
def npoints_path(p: str) -> int:
    """The number of points of the path."""
    return len(_nums(p)) // 2


@register("npoints", args=[POLYGON], returns=T.INT4)
def npoints_polygon(p: str) -> int:
    """The number of points of the polygon."""
    return len(_nums(p)) // 2


@register("isclosed", args=[PATH], returns=T.BOOL)
def isclosed(p: str) -> bool:
    """A closed path prints in parentheses, an open one in brackets."""
    return p.startswith("(")


@register("isopen", args=[PATH], returns=T.BOOL)
def isopen(p: str) -> bool:
    """The opposite of isclosed."""
    return p.startswith("[")


@register("pclose", args=[PATH], returns=PATH)
def pclose(p: str) -> str:
    """The same points as a closed path."""
    return "(" + p[1:-1] + ")"


@register("popen", args=[PATH], returns=PATH)
def popen(p: str) -> str:
    """The same points as an open path."""
    return "[" + p[1:-1] + "]"


@register("length", args=[LSEG], returns=F8)
def length_lseg(s: str) -> float:
    """The Euclidean length of the segment."""
    x1, y1, x2, y2 = _nums(s)
    return math.hypot(x1 - x2, y1 - y2)


@register("polygon", args=[BOX], returns=POLYGON)
def polygon_box(b: str) -> str:
    """The box's four corners, from the low one, as PostgreSQL's box_poly orders them."""
    hx, hy, lx, ly = _nums(b)
    pts = [(lx, ly), (lx, hy), (hx, hy), (hx, ly)]
    return G.parse(POLYGON, ",".join(f"({x!r},{y!r})" for x, y in pts))
