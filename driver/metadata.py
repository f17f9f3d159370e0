"""`conn.metadata`: the catalog as lists of dicts, like JDBC's DatabaseMetaData.

The queries use only pg_catalog and information_schema features that
PostgreSQL 15 has and that Cumulo's catalog emulates (CLIENTS.md §2), and
each takes a schema (default: every schema on the search path but the
system ones) plus a LIKE pattern or an exact table name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cumulo.driver.connection import Connection

_SYSTEM = "n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_toast'"

_TABLES = f"""
SELECT n.nspname AS schema, c.relname AS name,
       CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'TABLE' WHEN 'v' THEN 'VIEW'
                      WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'f' THEN 'FOREIGN TABLE' END AS type
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND {_SYSTEM}
  AND n.nspname LIKE %(schema)s AND c.relname LIKE %(pattern)s
ORDER BY 1, 2"""

_COLUMNS = f"""
SELECT n.nspname AS schema, c.relname AS table, a.attname AS name, a.attnum AS position,
       pg_catalog.format_type(a.atttypid, a.atttypmod) AS type, a.atttypid AS type_oid,
       NOT a.attnotnull AS nullable, pg_catalog.pg_get_expr(d.adbin, d.adrelid) AS default
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND {_SYSTEM}
  AND n.nspname LIKE %(schema)s AND c.relname LIKE %(pattern)s
ORDER BY 1, 2, 4"""

_PRIMARY_KEYS = f"""
SELECT n.nspname AS schema, c.relname AS table, a.attname AS column,
       k.ord::int AS position, con.conname AS name
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE con.contype = 'p' AND {_SYSTEM}
  AND n.nspname LIKE %(schema)s AND c.relname LIKE %(pattern)s
ORDER BY 1, 2, 4"""

_INDEXES = f"""
SELECT n.nspname AS schema, t.relname AS table, i.relname AS name, x.indisunique AS unique,
       x.indisprimary AS primary, a.attname AS column, k.ord::int AS position,
       pg_catalog.pg_get_indexdef(x.indexrelid) AS definition
FROM pg_catalog.pg_index x
JOIN pg_catalog.pg_class t ON t.oid = x.indrelid
JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid
JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace
CROSS JOIN LATERAL unnest(x.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
WHERE {_SYSTEM} AND n.nspname LIKE %(schema)s AND t.relname LIKE %(pattern)s
ORDER BY 1, 2, 3, 7"""


class Metadata:
    """Catalog queries over one connection."""

    def __init__(self, conn: Connection):
        self._conn = conn

    def _query(self, sql: str, pattern: str, schema: str | None) -> list[dict]:
        cur = self._conn.cursor()
        try:
            cur.execute(sql, {"schema": schema or "%", "pattern": pattern})
            names = [d[0] for d in cur.description or ()]
            return [dict(zip(names, row, strict=False)) for row in cur.fetchall()]
        finally:
            cur.close()

    def tables(self, pattern: str = "%", schema: str | None = None) -> list[dict]:
        """Lists tables and views: schema, name, type."""
        return self._query(_TABLES, pattern, schema)

    def columns(self, table: str = "%", schema: str | None = None) -> list[dict]:
        """Lists columns: schema, table, name, position, type, type_oid, nullable, default."""
        return self._query(_COLUMNS, table, schema)

    def primary_keys(self, table: str = "%", schema: str | None = None) -> list[dict]:
        """Lists primary key columns: schema, table, column, position, name."""
        return self._query(_PRIMARY_KEYS, table, schema)

    def indexes(self, table: str = "%", schema: str | None = None) -> list[dict]:
        """Lists index columns: schema, table, name, unique, primary, column, position,
        definition (one row per indexed column)."""
        return self._query(_INDEXES, table, schema)
