"""cumulo.driver.aio: the asyncio API (asyncpg style) on the driver's sans-I/O core."""

from cumulo.driver.aio.connection import Connection, PreparedStatement, Transaction, connect
from cumulo.driver.aio.cursor import Cursor, CursorFactory
from cumulo.driver.aio.pool import Pool, create_pool
from cumulo.driver.aio.record import Record

__all__ = ["Connection", "Cursor", "CursorFactory", "Pool", "PreparedStatement", "Record",
           "Transaction", "connect", "create_pool"]
