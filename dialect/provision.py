"""Test-suite provisioning for `cumulo://`: SQLAlchemy imports `<dialect package>.provision`.

SQLAlchemy's testing plugin picks provisioning hooks by backend name, and
ours is "cumulo", not "postgresql". Most of PostgreSQL's hooks are right for
us (temporary-table keywords, search_path, upsert, enum clean-up), so they
are registered for "cumulo" too; the ones that are not are replaced here:

- databases are created without `TEMPLATE` (Cumulo has no template
  databases) and dropped without `pg_terminate_backend`;
- no `CREATE EXTENSION` (Cumulo has no extensions: citext and hstore tests
  are closed in requirements.py);
- the schemas `test_schema` and `test_schema_2` the suite needs are created
  when the engine is configured, so a fresh `cumulo serve` is ready to test.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects.postgresql import provision as pg_provision
from sqlalchemy.testing import provision as p

TEST_SCHEMAS = ("test_schema", "test_schema_2")

_INHERITED = (
    p.temp_table_keyword_args,
    p.set_default_schema_on_connection,
    p.drop_all_schema_objects_post_tables,
    p.prepare_for_drop_tables,
    p.upsert,
)

assert pg_provision  # imported for its registrations, which are copied below
for _hook in _INHERITED:
    if "postgresql" in _hook.fns:
        _hook.fns["cumulo"] = _hook.fns["postgresql"]


@p.create_db.for_db("cumulo")
def _cumulo_create_db(cfg: Any, eng: Any, ident: str) -> None:
    """Creates a follower database (used when the suite runs with several workers)."""
    with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"CREATE DATABASE {ident}")


@p.drop_db.for_db("cumulo")
def _cumulo_drop_db(cfg: Any, eng: Any, ident: str) -> None:
    """Drops a follower database."""
    with eng.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {ident}")


@p.post_configure_engine.for_db("cumulo")
def _cumulo_create_schemas(url: Any, engine: Any, follower_ident: str | None) -> None:
    """Creates the schemas the suite's cross-schema tests use."""
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        for schema in TEST_SCHEMAS:
            conn.exec_driver_sql(f"CREATE SCHEMA IF NOT EXISTS {schema}")


@p.drop_all_schema_objects_pre_tables.for_db("cumulo")
def _cumulo_pre_tables(cfg: Any, eng: Any) -> None:
    """Nothing to do: Cumulo has no prepared (two-phase) transactions to roll back."""
