"""The `cumulo://` SQLAlchemy dialect: PostgreSQL's dialect over the `cumulo.driver` DBAPI.

Cumulo speaks PostgreSQL's SQL and catalogs, so everything SQL-level (the
compiler, DDL, reflection queries) is inherited from SQLAlchemy's PGDialect.
What is ours is the DBAPI glue, modelled on the psycopg 3 dialect because
our driver behaves like it: strings are sent as untyped (`unknown`) binds,
so every typed bind is rendered with an explicit `::TYPE` cast
(`render_bind_cast`) and the server never has to guess. Results come back
already decoded (Decimal for numeric, dict/list for json), so the result
processors that would decode them a second time are switched off.

`stream_results` uses the driver's own streaming: inside a transaction a
driver cursor reads its rows through a named portal, `arraysize` at a time,
which is a server-side cursor without a DECLARE.
"""

from __future__ import annotations

import decimal
from typing import Any

from sqlalchemy import util
from sqlalchemy.dialects.postgresql.base import (
    _DECIMAL_TYPES,
    _FLOAT_TYPES,
    _INT_TYPES,
    INTERVAL,
    PGCompiler,
    PGDialect,
    PGExecutionContext,
    PGIdentifierPreparer,
)
from sqlalchemy.dialects.postgresql.json import JSON, JSONB, JSONPathType
from sqlalchemy.dialects.postgresql.pg_catalog import INT2VECTOR, OIDVECTOR
from sqlalchemy.engine import processors
from sqlalchemy.engine.interfaces import IsolationLevel
from sqlalchemy.sql import sqltypes

from cumulo.dialect import options

ISOLATION_LEVELS: tuple[IsolationLevel, ...] = (
    "READ COMMITTED", "READ UNCOMMITTED", "REPEATABLE READ", "SERIALIZABLE")


class _String(sqltypes.String):
    render_bind_cast = True


class _NumericCommon(sqltypes.NumericCommon):
    render_bind_cast = True

    def bind_processor(self, dialect: Any) -> Any:
        return None

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        """Returns a converter only where the driver's native type differs from asdecimal."""
        if self.asdecimal:
            if coltype in _FLOAT_TYPES:
                return processors.to_decimal_processor_factory(
                    decimal.Decimal, self._effective_decimal_return_scale
                )
            return None
        if coltype in _DECIMAL_TYPES or coltype in _INT_TYPES:
            return processors.to_float
        return None


class _Numeric(_NumericCommon, sqltypes.Numeric):
    pass


class _Float(_NumericCommon, sqltypes.Float):
    pass


class _JSON(JSON):
    render_bind_cast = True

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        return None  # the driver decodes json, with json_deserializer when one is set


class _JSONB(JSONB):
    render_bind_cast = True

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        return None


class _JSONIntIndexType(sqltypes.JSON.JSONIntIndexType):
    __visit_name__ = "json_int_index"
    render_bind_cast = True


class _JSONStrIndexType(sqltypes.JSON.JSONStrIndexType):
    __visit_name__ = "json_str_index"
    render_bind_cast = True


class _JSONPathType(JSONPathType):
    pass


class _Interval(INTERVAL):
    render_bind_cast = True

    # NB: SQLAlchemy's two bases name the first parameter differently (interval, impl)
    @classmethod
    def adapt_emulated_to_native(  # type: ignore[override]
            cls, interval: Any, **kw: Any) -> _Interval:
        return _Interval(precision=interval.second_precision)


class _DateTime(sqltypes.DateTime):
    render_bind_cast = True


class _Date(sqltypes.Date):
    render_bind_cast = True


class _Time(sqltypes.Time):
    render_bind_cast = True


class _Integer(sqltypes.Integer):
    render_bind_cast = True


class _SmallInteger(sqltypes.SmallInteger):
    render_bind_cast = True


class _BigInteger(sqltypes.BigInteger):
    render_bind_cast = True


class _Boolean(sqltypes.Boolean):
    render_bind_cast = True


def _split_vector(value: Any) -> Any:
    """Turns an int2vector/oidvector in text form ('3 0') into a list of ints."""
    if isinstance(value, str):
        return [int(p) for p in value.split()]
    return value


class _Int2Vector(INT2VECTOR):
    cache_ok = True

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        return _split_vector


class _OidVector(OIDVECTOR):
    cache_ok = True

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        return _split_vector


class CumuloExecutionContext(PGExecutionContext):
    """Execution context whose server-side cursors are the driver's portal-streaming cursors."""

    def create_server_side_cursor(self) -> Any:
        size = self.execution_options.get("max_row_buffer", 1000)
        if self.dialect.is_async:
            cursor: Any = self._dbapi_connection.cursor(server_side=True)  # the driver's
            cursor.arraysize = size
            return cursor
        cursor = self._dbapi_connection.cursor()
        cursor.arraysize = cursor.fetch_size = size
        cursor.server_side = True  # what the suite's ServerSideCursorsTest override checks
        return cursor


class CumuloCompiler(PGCompiler):
    """PostgreSQL's compiler; `%` is doubled because the driver uses pyformat."""


class CumuloIdentifierPreparer(PGIdentifierPreparer):
    """PostgreSQL's identifier quoting."""


class CumuloDialect(PGDialect):
    """SQLAlchemy dialect for Cumulo through the pure-Python `cumulo.driver`."""

    name = "cumulo"
    driver = "cumulo"
    supports_statement_cache = True
    supports_server_side_cursors = True
    default_paramstyle = "pyformat"
    supports_sane_multi_rowcount = True
    supports_native_decimal = True
    # Cumulo has no CREATE TYPE: Enum becomes VARCHAR with a CHECK constraint.
    supports_native_enum = False
    render_bind_cast = True
    execution_ctx_cls = CumuloExecutionContext
    statement_compiler = CumuloCompiler
    ddl_compiler = options.CumuloDDLCompiler
    preparer = CumuloIdentifierPreparer
    # executemany is one pipelined round trip in the driver; RETURNING batches
    # go through "insertmanyvalues", one multi-row INSERT per page.
    use_insertmanyvalues = True
    use_insertmanyvalues_wo_returning = True

    colspecs = util.update_copy(
        PGDialect.colspecs,
        {
            sqltypes.String: _String,
            sqltypes.Numeric: _Numeric,
            sqltypes.Float: _Float,
            JSON: _JSON,
            sqltypes.JSON: _JSON,
            JSONB: _JSONB,
            sqltypes.JSON.JSONPathType: _JSONPathType,
            sqltypes.JSON.JSONIntIndexType: _JSONIntIndexType,
            sqltypes.JSON.JSONStrIndexType: _JSONStrIndexType,
            sqltypes.Interval: _Interval,
            INTERVAL: _Interval,
            sqltypes.Date: _Date,
            sqltypes.DateTime: _DateTime,
            sqltypes.Time: _Time,
            sqltypes.Integer: _Integer,
            sqltypes.SmallInteger: _SmallInteger,
            sqltypes.BigInteger: _BigInteger,
            sqltypes.Boolean: _Boolean,
            INT2VECTOR: _Int2Vector,
            OIDVECTOR: _OidVector,
        },
    )

    @classmethod
    def import_dbapi(cls) -> Any:
        """Returns the `cumulo.driver` module, the PEP 249 DBAPI."""
        import cumulo.driver

        return cumulo.driver

    @classmethod
    def get_async_dialect_cls(cls, url: Any) -> Any:
        from cumulo.dialect.asyncio import CumuloAsyncDialect

        return CumuloAsyncDialect

    def create_connect_args(self, url: Any) -> tuple[list, dict]:
        """Turns the URL into `cumulo.driver.connect` keywords."""
        opts = url.translate_connect_args(username="user", database="database")
        if "port" in opts:
            opts["port"] = int(opts["port"])
        opts.update(url.query)
        return [], opts

    def on_connect(self) -> Any:
        """Hands a custom `json_deserializer` to the driver, which decodes json results."""
        inherited = super().on_connect()
        loads = self._json_deserializer
        if loads is None:
            return inherited

        def connect(dbapi_connection: Any) -> None:
            if inherited is not None:
                inherited(dbapi_connection)
            dbapi_connection.json_loads = loads

        return connect

    def is_disconnect(self, e: Exception, connection: Any, cursor: Any) -> bool:
        """Tells whether an error means the connection is gone."""
        dbapi = self.loaded_dbapi
        if isinstance(e, dbapi.OperationalError | dbapi.InterfaceError):
            msg = str(e)
            return "connection" in msg and ("closed" in msg or "lost" in msg)
        return getattr(e, "sqlstate", None) in ("57P01", "57P02", "57P03", "08006", "08003")

    def get_isolation_level_values(self, dbapi_connection: Any) -> tuple[IsolationLevel, ...]:
        return ("AUTOCOMMIT", *ISOLATION_LEVELS)

    def set_isolation_level(self, dbapi_connection: Any, level: str) -> None:
        """Sets autocommit, or the level the driver's pipelined BEGIN carries."""
        level = level.replace("_", " ")
        autocommit = level == "AUTOCOMMIT"
        # NB: the driver refuses any autocommit assignment inside a transaction
        if bool(dbapi_connection.autocommit) != autocommit:
            dbapi_connection.autocommit = autocommit
        if not autocommit:
            dbapi_connection.isolation_level = level

    def get_isolation_level(self, dbapi_connection: Any) -> IsolationLevel:
        if dbapi_connection.autocommit:
            return "AUTOCOMMIT"
        if dbapi_connection.isolation_level:
            return dbapi_connection.isolation_level
        return self.get_default_isolation_level(dbapi_connection)

    def get_default_isolation_level(self, dbapi_conn: Any) -> IsolationLevel:
        """The level transactions get: the driver's when one was set on connect, else the server's.

        SQLAlchemy reads this after applying `create_engine(isolation_level=...)`
        and expects that level back, as psycopg's session-level setting gives it.
        """
        if dbapi_conn.isolation_level:
            return dbapi_conn.isolation_level
        cursor = dbapi_conn.cursor()
        try:
            cursor.execute("SELECT current_setting('transaction_isolation')")
            return cursor.fetchone()[0].upper()
        finally:
            cursor.close()

    def detect_autocommit_setting(self, dbapi_conn: Any) -> bool:
        return bool(dbapi_conn.autocommit)

    def set_readonly(self, connection: Any, value: bool) -> None:
        connection.readonly = value

    def get_readonly(self, connection: Any) -> bool:
        return bool(connection.readonly)

    def set_deferrable(self, connection: Any, value: bool) -> None:
        self._deferrable = value

    def get_deferrable(self, connection: Any) -> bool:
        return bool(getattr(self, "_deferrable", False))

    def _set_backslash_escapes(self, connection: Any) -> None:
        value = connection.exec_driver_sql(
            "SELECT current_setting('standard_conforming_strings')").scalar()
        self._backslash_escapes = value == "off"

    # Reflection answers with `cumulo_*` dialect options in place of `postgresql_*`.
    def get_multi_indexes(self, *args: Any, **kw: Any) -> Any:
        return options.alias_reflected(super().get_multi_indexes(*args, **kw))

    def get_multi_unique_constraints(self, *args: Any, **kw: Any) -> Any:
        return options.alias_reflected(super().get_multi_unique_constraints(*args, **kw))

    def get_multi_pk_constraint(self, *args: Any, **kw: Any) -> Any:
        return options.alias_reflected(super().get_multi_pk_constraint(*args, **kw))

    def get_multi_table_options(self, *args: Any, **kw: Any) -> Any:
        return [(key, options.alias_keys(dict(opts)))
                for key, opts in super().get_multi_table_options(*args, **kw)]

    def do_ping(self, dbapi_connection: Any) -> bool:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("SELECT 1")
        finally:
            cursor.close()
        return True


dialect = CumuloDialect

try:  # Alembic is optional: register our migration implementation when it is there
    from cumulo.dialect import alembic as _alembic  # noqa: F401
except ImportError:
    pass
