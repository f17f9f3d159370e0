"""Virtual system tables (pg_catalog, information_schema), computed from the catalog snapshot.

The registry lives in `registry.py`; importing this package imports every
module that registers relations, so `VIRTUAL_TABLES` is complete.
"""

from __future__ import annotations

from . import (  # noqa: F401  (imported to register their relations)
    aggregates,
    casts,
    depends,  # pg_depend, pg_rewrite
    infoschema,
    operators,  # pg_operator, pg_opclass, pg_opfamily, pg_amop, pg_amproc
    partitions,  # pg_inherits, pg_partitioned_table
    privrows,
    relations,
    routinerows,  # NB: after infoschema: its routines is empty
    runtime,
    shared,
    stats,
    systypes,
    timezones,
    triggers,  # NB: after relations and infoschema: their pg_trigger is empty
    tsconfig,
    usertypes,
    views,
)
from .registry import VIRTUAL_BY_OID, VIRTUAL_TABLES, VirtualTable, pg_relation, virtual_table

__all__ = ["VIRTUAL_BY_OID", "VIRTUAL_TABLES", "VirtualTable", "pg_relation", "virtual_table"]
