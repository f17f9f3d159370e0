"""An index's storage parameters (`CREATE INDEX ... WITH (...)`, `ALTER INDEX ... SET (...)`).

Every index here is an ordered KiVi space whatever its method, so the parameters tune
nothing; they are kept in pg_class.reloptions and pg_get_indexdef's `WITH (...)`, where
dumps and ORMs (Django's `Index(fillfactor=...)`, `GinIndex(fastupdate=...)`,
`BrinIndex(pages_per_range=...)`) read them back, after PostgreSQL 15's checks of each
access method's own list (22023: unknown name, bad value, out of bounds).

>>> index_options("btree", [("fillfactor", "70"), ("deduplicate_items", "off")])
('fillfactor=70', 'deduplicate_items=off')
>>> index_options("gin", [("fastupdate", None)])
('fastupdate=true',)
>>> try:
...     index_options("hash", [("deduplicate_items", "on")])
... except InvalidParameterValue as e:
...     print(e.sqlstate, e.message)
22023 unrecognized parameter "deduplicate_items"
>>> try:
...     index_options("gist", [("buffering", "maybe")])
... except InvalidParameterValue as e:
...     print(e.message, e.detail)
invalid value for enum option "buffering": maybe Valid values are "on", "off", and "auto".
"""

from __future__ import annotations

from ...errors import InvalidParameterValue
from .tableoptions import check_int_option
from .viewoptions import parse_bool

_FILLFACTOR = (10, 100)
_BOOL: tuple[int, int] = (0, -1)  # NB: a marker, not bounds
# access method -> name -> (min, max) for an integer, or _BOOL for a boolean
_OPTIONS: dict[str, dict[str, tuple[int, int]]] = {
    "btree": {"fillfactor": _FILLFACTOR, "deduplicate_items": _BOOL},
    "hash": {"fillfactor": _FILLFACTOR},
    "gist": {"fillfactor": _FILLFACTOR},
    "spgist": {"fillfactor": _FILLFACTOR},
    "gin": {"fastupdate": _BOOL, "gin_pending_list_limit": (64, 2097151)},
    "brin": {"pages_per_range": (1, 131072), "autosummarize": _BOOL},
    # bloom's signature length in bits and bits per column
    "bloom": {"length": (1, 4096), **{f"col{i}": (1, 4095) for i in range(1, 33)}},
}
_ENUMS = {("gist", "buffering"): ("on", "off", "auto")}  # method, name -> words


def index_options(method: str, items: list[tuple[str, str | None]]) -> tuple[str, ...]:
    """An index's option list as its reloptions, checked for access method `method`."""
    known = _OPTIONS.get(method, {})
    seen: set[str] = set()
    out: list[str] = []
    for name, value in items:
        shown = "true" if value is None else value
        space, _, base = name.rpartition(".")
        if space:
            raise InvalidParameterValue(f'unrecognized parameter namespace "{space}"')
        kind = known.get(base)
        words = _ENUMS.get((method, base))
        if kind is None and words is None:
            raise InvalidParameterValue(f'unrecognized parameter "{base}"')
        if words is not None:
            if shown.lower() not in words:
                listed = ", ".join(f'"{w}"' for w in words[:-1])
                raise InvalidParameterValue(f'invalid value for enum option "{base}": {shown}',
                                            detail=f'Valid values are {listed}, and "{words[-1]}".')
        elif kind == _BOOL:
            if parse_bool(shown) is None:
                raise InvalidParameterValue(f'invalid value for boolean option "{base}": {shown}')
        elif kind is not None:
            check_int_option(base, shown, *kind)
        if base in seen:
            raise InvalidParameterValue(f'parameter "{base}" specified more than once')
        seen.add(base)
        out.append(f"{base}={shown}")
    return tuple(out)
