"""pg_ts_config: the text search configurations full-text search provides (simple, english, french).

The OIDs are PostgreSQL 15's own (3748 simple, 13164 english, 13168 french; parser 3722, the
default parser), so `'english'::regconfig::oid` and clients that read the
catalog see what they would see on PostgreSQL.
"""

from __future__ import annotations

from typing import Any

from ..catalog import model as M
from ..functions.tsearchfns import CONFIG_OIDS, PARSER_OID
from .registry import pg_relation


@pg_relation("pg_catalog", "pg_ts_config")
def pg_ts_config(ctx: Any) -> list[tuple[Any, ...]]:
    """(oid, cfgname, cfgnamespace, cfgowner, cfgparser) of each configuration."""
    return [(oid, name, M.PG_CATALOG_OID, M.BOOTSTRAP_SUPERUSER_OID, PARSER_OID)
            for name, oid in sorted(CONFIG_OIDS.items(), key=lambda p: p[1])]
