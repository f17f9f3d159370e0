"""PEP 249 module globals: API level, paramstyle, type objects and constructors.

Type objects compare equal to every type OID of their group, so
`cursor.description[i][1] == NUMBER` works with the OIDs the server sends.
"""

from __future__ import annotations

import time as _time
from datetime import date, datetime
from datetime import time as dtime

from cumulo.driver import types as t

apilevel = "2.0"
threadsafety = 1  # threads may share the module, not connections
paramstyle = "pyformat"  # %(name)s; %s is accepted too


class DBAPITypeObject:
    """A group of type OIDs that compares equal to each of them."""

    def __init__(self, name: str, *oids: int):
        self.name = name
        self.oids = frozenset(oids)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DBAPITypeObject):
            return self.oids == other.oids
        return other in self.oids

    def __hash__(self) -> int:
        return hash(self.oids)

    def __repr__(self) -> str:
        return f"<DBAPITypeObject {self.name}>"


STRING = DBAPITypeObject("STRING", t.TEXT, t.VARCHAR, t.BPCHAR, t.NAME, t.CHAR, t.UNKNOWN,
                         t.JSON, t.JSONB, t.XML, t.UUID)
BINARY = DBAPITypeObject("BINARY", t.BYTEA)
NUMBER = DBAPITypeObject("NUMBER", t.INT2, t.INT4, t.INT8, t.FLOAT4, t.FLOAT8, t.NUMERIC,
                         t.OID, t.BOOL)
DATETIME = DBAPITypeObject("DATETIME", t.DATE, t.TIME, t.TIMETZ, t.TIMESTAMP, t.TIMESTAMPTZ,
                           t.INTERVAL)
ROWID = DBAPITypeObject("ROWID", t.OID, 27)  # oid, tid

Date = date
Time = dtime
Timestamp = datetime
Binary = bytes


def DateFromTicks(ticks: float) -> date:  # noqa: N802 - the name is fixed by PEP 249
    """Returns the local date of a POSIX timestamp."""
    return date(*_time.localtime(ticks)[:3])


def TimeFromTicks(ticks: float) -> dtime:  # noqa: N802
    """Returns the local time of day of a POSIX timestamp."""
    return dtime(*_time.localtime(ticks)[3:6])


def TimestampFromTicks(ticks: float) -> datetime:  # noqa: N802
    """Returns the local date and time of a POSIX timestamp."""
    return datetime(*_time.localtime(ticks)[:6])
