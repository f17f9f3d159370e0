"""cumulo.driver: a PEP 249 driver for Cumulo and PostgreSQL, written in pure Python.

The sync API lives here; `cumulo.driver.aio` is the asyncio one. Both run
the same sans-I/O protocol core (`core.py`, `protocol.py`, `types.py`).
"""

from cumulo.driver.connection import Connection, connect
from cumulo.driver.cursor import Cursor
from cumulo.driver.errors import (
    DatabaseError,
    DataError,
    Error,
    IntegrityError,
    InterfaceError,
    InternalError,
    NotSupportedError,
    OperationalError,
    ProgrammingError,
    Warning,
)
from cumulo.driver.pep249 import (
    BINARY,
    DATETIME,
    NUMBER,
    ROWID,
    STRING,
    Binary,
    Date,
    DateFromTicks,
    Time,
    TimeFromTicks,
    Timestamp,
    TimestampFromTicks,
    apilevel,
    paramstyle,
    threadsafety,
)
from cumulo.driver.types import Json

__all__ = [
    "BINARY", "DATETIME", "NUMBER", "ROWID", "STRING", "Binary", "Connection", "Cursor",
    "DataError", "DatabaseError", "Date", "DateFromTicks", "Error", "IntegrityError",
    "InterfaceError", "InternalError", "Json", "NotSupportedError", "OperationalError",
    "ProgrammingError", "Time", "TimeFromTicks", "Timestamp", "TimestampFromTicks", "Warning",
    "apilevel", "connect", "paramstyle", "threadsafety",
]
