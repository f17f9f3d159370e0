"""EXPLAIN's options, parsed and checked as PostgreSQL 15 does.

Both spellings: the parenthesised list `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)`
(each boolean option takes an optional TRUE/FALSE/ON/OFF/1/0) and the old
`EXPLAIN ANALYZE VERBOSE`. Errors carry PostgreSQL's wording and SQLSTATE:
an unknown option is 42601, a bad value 22023, TIMING without ANALYZE 22023.

Example:
    >>> o = parse("(analyze, buffers, format json)")
    >>> (o.analyze, o.buffers, o.format, o.costs, o.show_summary, o.show_timing)
    (True, True, 'json', True, True, True)
    >>> parse("ANALYZE VERBOSE").verbose
    True
    >>> parse("(costs off)").costs
    False
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InvalidParameterValue, SyntaxError_

_BOOLS = ("analyze", "verbose", "costs", "settings", "buffers", "wal", "timing", "summary")
_TRUE = ("true", "on", "1", "yes", "t", "y")
_FALSE = ("false", "off", "0", "no", "f", "n")
FORMATS = ("text", "json", "yaml", "xml")


@dataclass
class ExplainOptions:
    analyze: bool = False
    verbose: bool = False
    costs: bool = True
    buffers: bool = False
    timing: bool | None = None  # default: on with ANALYZE
    summary: bool | None = None  # default: on with ANALYZE
    format: str = "text"

    @property
    def show_timing(self) -> bool:
        return self.analyze and self.timing is not False

    @property
    def show_summary(self) -> bool:
        return self.summary if self.summary is not None else self.analyze


def parse(text: str) -> ExplainOptions:
    """Parses the text between EXPLAIN and the statement."""
    o = ExplainOptions()
    text = text.strip()
    if not text.startswith("("):
        for word in text.lower().split():
            if word in ("analyze", "analyse"):
                o.analyze = True
            elif word == "verbose":
                o.verbose = True
        return o
    body = text.strip("()").strip()
    for item in filter(None, (p.strip() for p in body.split(","))):
        words = item.split()
        name = words[0].lower()
        value = " ".join(words[1:]).strip("'\"").lower() if len(words) > 1 else None
        if name == "analyse":
            name = "analyze"
        if name == "format":
            if value not in FORMATS:
                raise InvalidParameterValue(
                    f'unrecognized value for EXPLAIN option "format": "{value or ""}"')
            o.format = value
            continue
        if name not in _BOOLS:
            raise SyntaxError_(f'unrecognized EXPLAIN option "{name}"')
        if value is None or value in _TRUE:
            flag = True
        elif value in _FALSE:
            flag = False
        else:
            raise InvalidParameterValue(f"{name} requires a Boolean value")
        setattr(o, name, flag)
    if o.timing and not o.analyze:
        raise InvalidParameterValue("EXPLAIN option TIMING requires ANALYZE")
    return o
