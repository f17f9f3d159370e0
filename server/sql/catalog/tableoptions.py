"""A table's storage parameters (`CREATE TABLE ... WITH (...)`, `ALTER TABLE ... SET (...)`).

Cumulo keeps them in `pg_class.reloptions` for clients and dumps; what they tune
is PostgreSQL's heap and autovacuum, which Cumulo does not have. They are
checked as PostgreSQL 15's `heap_reloptions` checks them: the names it knows,
booleans as `parse_bool` reads them, integers and reals within its bounds
(22023 with the bounds in the DETAIL), `vacuum_index_cleanup` one of its
words. `toast.` options are checked against the TOAST table's list and kept
off the table's own reloptions, as PostgreSQL keeps them on the TOAST table.

>>> table_options([("fillfactor", "50"), ("toast.autovacuum_enabled", "false"),
...                ("autovacuum_enabled", "off")])
('fillfactor=50', 'autovacuum_enabled=off')
>>> table_options([("fillfactor", "5")])
Traceback (most recent call last):
...
cumulo.server.errors.InvalidParameterValue: value 5 out of bounds for option "fillfactor"
"""

from __future__ import annotations

from sqlglot import exp

from ...errors import InvalidParameterValue
from .viewoptions import parse_bool

_MAXINT = 2147483647
# name: (min, max, also a TOAST table's), as PostgreSQL 15's reloptions.c
_INTS = {
    "fillfactor": (10, 100, False), "toast_tuple_target": (128, 8160, False),
    "parallel_workers": (0, 1024, False),
    "autovacuum_vacuum_threshold": (0, _MAXINT, True),
    "autovacuum_vacuum_insert_threshold": (-1, _MAXINT, True),
    "autovacuum_analyze_threshold": (0, _MAXINT, False),
    "autovacuum_vacuum_cost_limit": (1, 10000, True),
    "autovacuum_freeze_min_age": (0, 1000000000, True),
    "autovacuum_multixact_freeze_min_age": (0, 1000000000, True),
    "autovacuum_freeze_max_age": (100000, 2000000000, True),
    "autovacuum_multixact_freeze_max_age": (10000, 2000000000, True),
    "autovacuum_freeze_table_age": (0, 2000000000, True),
    "autovacuum_multixact_freeze_table_age": (0, 2000000000, True),
    "log_autovacuum_min_duration": (-1, _MAXINT, True),
}
_REALS = {
    "autovacuum_vacuum_cost_delay": (0.0, 100.0, True),
    "autovacuum_vacuum_scale_factor": (0.0, 100.0, True),
    "autovacuum_vacuum_insert_scale_factor": (0.0, 100.0, True),
    "autovacuum_analyze_scale_factor": (0.0, 100.0, False),
}
_BOOLS = {"autovacuum_enabled": True, "user_catalog_table": False, "vacuum_truncate": True}
_INDEX_CLEANUP = ("auto", "on", "off", "true", "false", "yes", "no", "1", "0")


def parse_number(text: str) -> float | None:
    """PostgreSQL's parse_int / parse_real input: a decimal, hex or float literal."""
    t = text.strip()
    try:
        return float(int(t, 0))
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return None


def check_int_option(name: str, shown: str, lo: int, hi: int) -> None:
    """22023 unless `shown` is a number that rounds into lo..hi, in PostgreSQL's words for
    an integer storage parameter (of a table or of an index)."""
    n = parse_number(shown)
    if n is None:
        raise InvalidParameterValue(f'invalid value for integer option "{name}": {shown}')
    if not lo <= round(n) <= hi:
        raise InvalidParameterValue(f'value {shown} out of bounds for option "{name}"',
                                    detail=f'Valid values are between "{lo}" and "{hi}".')


def _check(name: str, shown: str, toast: bool) -> None:
    """22023 unless `name=shown` is a valid heap (or TOAST, with `toast`) option."""
    if name in _BOOLS and (not toast or name != "user_catalog_table"):
        if parse_bool(shown) is None:
            raise InvalidParameterValue(f'invalid value for boolean option "{name}": {shown}')
    elif name in _INTS and (not toast or _INTS[name][2]):
        check_int_option(name, shown, *_INTS[name][:2])
    elif name in _REALS and (not toast or _REALS[name][2]):
        flo, fhi, _ = _REALS[name]
        x = parse_number(shown)
        if x is None:
            raise InvalidParameterValue(
                f'invalid value for floating point option "{name}": {shown}')
        if not flo <= x <= fhi:
            raise InvalidParameterValue(f'value {shown} out of bounds for option "{name}"',
                                        detail=f'Valid values are between "{flo:f}" and '
                                               f'"{fhi:f}".')
    elif name == "vacuum_index_cleanup":
        if shown.lower() not in _INDEX_CLEANUP:
            raise InvalidParameterValue(f'invalid value for enum option "{name}": {shown}',
                                        detail='Valid values are "on", "off", and "auto".')
    else:
        raise InvalidParameterValue(f'unrecognized parameter "{name}"')


def table_options(items: list[tuple[str, str | None]]) -> tuple[str, ...]:
    """A table's option list as its reloptions, checked (`toast.` ones checked, not kept)."""
    seen: set[str] = set()
    out: list[str] = []
    for name, value in items:
        shown = "true" if value is None else value
        space, _, base = name.rpartition(".")
        if space and space != "toast":
            raise InvalidParameterValue(f'unrecognized parameter namespace "{space}"')
        _check(base, shown, bool(space))
        if name in seen:
            raise InvalidParameterValue(f'parameter "{base}" specified more than once')
        seen.add(name)
        if not space:
            out.append(f"{name}={shown}")
    return tuple(out)


def option_item(e: exp.Expression) -> tuple[str, str | None]:
    """One `name [= value]` of SET (...) or WITH (...) as sqlglot read it, folded as
    PostgreSQL folds it (TRUE is 'true', a number as written)."""
    if isinstance(e, exp.Property):
        target, value = e.this, e.args.get("value")
    elif isinstance(e, exp.EQ):
        target, value = e.this, e.expression
    else:
        target, value = e, None
    if isinstance(target, exp.Dot):
        name = f"{_folded(target.this)}.{_folded(target.expression)}"
    elif isinstance(target, exp.Column) and target.table:
        name = f"{_folded(target.args['table'])}.{_folded(target.this)}"
    else:
        name = _folded(target)
    if value is None:
        return name, None
    if isinstance(value, exp.Boolean):
        return name, "true" if value.this else "false"
    if isinstance(value, exp.Literal):
        return name, str(value.this)
    if isinstance(value, exp.Neg) and isinstance(value.this, exp.Literal):
        return name, f"-{value.this.this}"
    return name, _folded(value)


def _folded(node: exp.Expression) -> str:
    """An identifier as PostgreSQL folds it (quoted kept, unquoted in lower case)."""
    if isinstance(node, exp.Identifier):
        return str(node.this) if node.quoted else str(node.this).lower()
    inner = node.this if isinstance(node.this, exp.Expression) else None
    if isinstance(inner, exp.Identifier):
        return _folded(inner)
    return str(node.name).lower()
