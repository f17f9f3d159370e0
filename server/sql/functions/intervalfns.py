"""Interval-only functions: justify_hours, justify_days, justify_interval.

The arithmetic lives in `pgtypes.interval` (PostgreSQL 15's rules, C's
truncating division and all); this module only registers it. make_interval,
age, extract and date_trunc on intervals sit with their timestamp siblings in
`timefns.py`.
"""

from __future__ import annotations

from ...pgtypes import interval as ivl
from ...pgtypes import oids as T
from .registry import register

register("justify_hours", args=[T.INTERVAL], returns=T.INTERVAL)(ivl.justify_hours)
register("justify_days", args=[T.INTERVAL], returns=T.INTERVAL)(ivl.justify_days)
register("justify_interval", args=[T.INTERVAL], returns=T.INTERVAL)(ivl.justify_interval)
