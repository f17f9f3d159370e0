"""pg_timezone_names and pg_timezone_abbrevs: the zones and abbreviations Cumulo understands.

Clients list these to offer a choice of zone (DBeaver, pgAdmin) or to check a name
before `SET TIME ZONE`. Zone names come from the system's tzdata through
`zoneinfo`, each with its abbreviation and offset as of now, as PostgreSQL shows
them; abbreviations are PostgreSQL's `Default` set (`zones.abbreviations`), and
those defined by a zone (MSK) take that zone's offset now.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from zoneinfo import available_timezones

from ...pgtypes import oids as T
from ...pgtypes import zones
from .registry import virtual_table

# PostgreSQL 15's OIDs and columns for the two views.
_ABBREV = [("abbrev", T.TEXT), ("utc_offset", T.INTERVAL), ("is_dst", T.BOOL)]


@virtual_table("pg_catalog", "pg_timezone_names", [("name", T.TEXT), *_ABBREV], 12126, "v")
def pg_timezone_names(ctx: Any) -> list[tuple[Any, ...]]:
    """Every IANA zone: name, abbreviation now, UTC offset now, whether DST is in effect."""
    now = dt.datetime.now(dt.UTC)
    out = []
    for name in sorted(available_timezones()):
        hit = zones.zone_by_name(name)
        if hit is None:
            continue
        local = now.astimezone(hit[1])
        out.append((name, local.tzname() or "", local.utcoffset() or dt.timedelta(0),
                    bool(local.dst())))
    return out


@virtual_table("pg_catalog", "pg_timezone_abbrevs", _ABBREV, 12122, "v")
def pg_timezone_abbrevs(ctx: Any) -> list[tuple[Any, ...]]:
    """PostgreSQL's Default abbreviations: abbrev, UTC offset, is_dst."""
    now = dt.datetime.now(dt.UTC)
    rows = {ab: (dt.timedelta(seconds=off), dst)
            for ab, (off, dst) in zones.abbreviations().items()}
    for ab, zone_name in zones.dynamic_abbreviations().items():
        hit = zones.zone_by_name(zone_name)
        if hit is not None:
            local = now.astimezone(hit[1])
            rows[ab] = (local.utcoffset() or dt.timedelta(0), bool(local.dst()))
    return [(ab, off, dst) for ab, (off, dst) in sorted(rows.items())]
