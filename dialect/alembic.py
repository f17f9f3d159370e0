"""Alembic support for `cumulo://`: migrations use Alembic's PostgreSQL implementation.

Alembic picks its DDL implementation by dialect name, and ours is "cumulo";
the DDL it emits and the autogenerate comparisons it makes are PostgreSQL's,
which is what Cumulo speaks. The class registers itself on import;
`cumulo.dialect.base` imports this module when Alembic is installed.
"""

from __future__ import annotations

from alembic.ddl.postgresql import PostgresqlImpl


class CumuloImpl(PostgresqlImpl):
    """Alembic's PostgreSQL migration implementation, under the dialect name "cumulo"."""

    __dialect__ = "cumulo"
