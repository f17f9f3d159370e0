"""Composite row types: every table and view has one in pg_type, with an array type.

PostgreSQL creates a row type named after each relation (typtype 'c', typrelid
the relation, I/O through record_in/record_out) and an array of it (`_name`);
pg_class.reltype points at it. JDBC's getUDTs and getTypeInfo list them, and
psql's `\\dT` knows to leave them out. User relations get their two OIDs at
CREATE (`Table.reltype`, `Table.array_type`; 0 for relations made before
Cumulo kept them: those have no row type, as PostgreSQL's sequences); system
catalogs and information_schema views use PostgreSQL 15's own OIDs below.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from ..catalog import model as M
from .registry import VIRTUAL_TABLES
from .systypes import TYPE_ROW_SOURCES, regproc

# (schema, relation) -> (its row type's OID, that type's array OID), as PostgreSQL 15 has them.
ROW_TYPES: dict[tuple[str, str], tuple[int, int]] = {
    ('information_schema', 'applicable_roles'): (13238, 13237),
    ('information_schema', 'attributes'): (13247, 13246),
    ('information_schema', 'character_sets'): (13252, 13251),
    ('information_schema', 'check_constraints'): (13262, 13261),
    ('information_schema', 'column_privileges'): (13287, 13286),
    ('information_schema', 'columns'): (13297, 13296),
    ('information_schema', 'constraint_column_usage'): (13302, 13301),
    ('information_schema', 'domains'): (13322, 13321),
    ('information_schema', 'element_types'): (13495, 13494),
    ('information_schema', 'enabled_roles'): (13327, 13326),
    ('information_schema', 'key_column_usage'): (13331, 13330),
    ('information_schema', 'parameters'): (13336, 13335),
    ('information_schema', 'referential_constraints'): (13341, 13340),
    ('information_schema', 'role_table_grants'): (13423, 13422),
    ('information_schema', 'routines'): (13379, 13378),
    ('information_schema', 'schemata'): (13384, 13383),
    ('information_schema', 'sequences'): (13388, 13387),
    ('information_schema', 'table_constraints'): (13413, 13412),
    ('information_schema', 'table_privileges'): (13418, 13417),
    ('information_schema', 'tables'): (13427, 13426),
    ('information_schema', 'triggers'): (13442, 13441),
    ('information_schema', 'usage_privileges'): (13456, 13455),
    ('information_schema', 'user_defined_types'): (13465, 13464),
    ('information_schema', 'views'): (13485, 13484),
    ('pg_catalog', 'pg_aggregate'): (10027, 10026), ('pg_catalog', 'pg_am'): (10015, 10014),
    ('pg_catalog', 'pg_amop'): (10017, 10016), ('pg_catalog', 'pg_amproc'): (10019, 10018),
    ('pg_catalog', 'pg_attrdef'): (10001, 10000), ('pg_catalog', 'pg_attribute'): (75, 270),
    ('pg_catalog', 'pg_auth_members'): (2843, 10058), ('pg_catalog', 'pg_authid'): (2842, 10057),
    ('pg_catalog', 'pg_available_extensions'): (12083, 12082),
    ('pg_catalog', 'pg_cast'): (10043, 10042), ('pg_catalog', 'pg_class'): (83, 273),
    ('pg_catalog', 'pg_collation'): (10095, 10094),
    ('pg_catalog', 'pg_constraint'): (10003, 10002),
    ('pg_catalog', 'pg_conversion'): (10049, 10048), ('pg_catalog', 'pg_cursors'): (12079, 12078),
    ('pg_catalog', 'pg_database'): (1248, 10052),
    ('pg_catalog', 'pg_db_role_setting'): (10054, 10053),
    ('pg_catalog', 'pg_default_acl'): (10088, 10087), ('pg_catalog', 'pg_depend'): (10051, 10050),
    ('pg_catalog', 'pg_description'): (10041, 10040), ('pg_catalog', 'pg_enum'): (10045, 10044),
    ('pg_catalog', 'pg_event_trigger'): (10039, 10038),
    ('pg_catalog', 'pg_extension'): (10074, 10073),
    ('pg_catalog', 'pg_foreign_data_wrapper'): (10076, 10075),
    ('pg_catalog', 'pg_foreign_server'): (10078, 10077),
    ('pg_catalog', 'pg_foreign_table'): (10082, 10081), ('pg_catalog', 'pg_index'): (10007, 10006),
    ('pg_catalog', 'pg_indexes'): (12045, 12044), ('pg_catalog', 'pg_inherits'): (10005, 10004),
    ('pg_catalog', 'pg_init_privs'): (10090, 10089), ('pg_catalog', 'pg_language'): (10021, 10020),
    ('pg_catalog', 'pg_locks'): (12075, 12074), ('pg_catalog', 'pg_matviews'): (12040, 12039),
    ('pg_catalog', 'pg_namespace'): (10047, 10046), ('pg_catalog', 'pg_opclass'): (10013, 10012),
    ('pg_catalog', 'pg_operator'): (10009, 10008), ('pg_catalog', 'pg_opfamily'): (10011, 10010),
    ('pg_catalog', 'pg_partitioned_table'): (10099, 10098),
    ('pg_catalog', 'pg_policy'): (10084, 10083),
    ('pg_catalog', 'pg_prepared_statements'): (12097, 12096),
    ('pg_catalog', 'pg_prepared_xacts'): (12092, 12091), ('pg_catalog', 'pg_proc'): (81, 272),
    ('pg_catalog', 'pg_publication'): (10107, 10106),
    ('pg_catalog', 'pg_publication_namespace'): (10109, 10108),
    ('pg_catalog', 'pg_publication_rel'): (10111, 10110),
    ('pg_catalog', 'pg_range'): (10101, 10100),
    ('pg_catalog', 'pg_replication_slots'): (12259, 12258),
    ('pg_catalog', 'pg_rewrite'): (10035, 10034), ('pg_catalog', 'pg_roles'): (12002, 12001),
    ('pg_catalog', 'pg_seclabel'): (10092, 10091), ('pg_catalog', 'pg_sequence'): (10105, 10104),
    ('pg_catalog', 'pg_sequences'): (12050, 12049), ('pg_catalog', 'pg_settings'): (12106, 12105),
    ('pg_catalog', 'pg_shdescription'): (10062, 10061),
    ('pg_catalog', 'pg_shseclabel'): (4066, 10093),
    ('pg_catalog', 'pg_stat_activity'): (12224, 12223),
    ('pg_catalog', 'pg_stat_database'): (12268, 12267),
    ('pg_catalog', 'pg_stat_replication'): (12229, 12228),
    ('pg_catalog', 'pg_stat_ssl'): (12251, 12250),
    ('pg_catalog', 'pg_stat_user_indexes'): (12194, 12193),
    ('pg_catalog', 'pg_stat_user_tables'): (12163, 12162),
    ('pg_catalog', 'pg_statio_user_tables'): (12181, 12180),
    ('pg_catalog', 'pg_statistic_ext'): (10031, 10030), ('pg_catalog', 'pg_stats'): (12055, 12054),
    ('pg_catalog', 'pg_subscription'): (6101, 10112), ('pg_catalog', 'pg_tables'): (12035, 12034),
    ('pg_catalog', 'pg_tablespace'): (10056, 10055),
    ('pg_catalog', 'pg_timezone_abbrevs'): (12124, 12123),
    ('pg_catalog', 'pg_timezone_names'): (12128, 12127),
    ('pg_catalog', 'pg_transform'): (10103, 10102), ('pg_catalog', 'pg_trigger'): (10037, 10036),
    ('pg_catalog', 'pg_ts_config'): (10064, 10063), ('pg_catalog', 'pg_type'): (71, 210),
    ('pg_catalog', 'pg_user'): (12016, 12015), ('pg_catalog', 'pg_views'): (12030, 12029),
}


def _rows(name: str, nsp: int, owner: int, relid: int, reltype: int,
          array: int) -> tuple[tuple[Any, ...], ...]:
    """pg_type rows of one relation's row type and of its array type."""
    row = (reltype, name, nsp, owner, -1, False, "c", "C", False, True, ",", relid,
           regproc("-"), 0, array, regproc("record_in"), regproc("record_out"),
           regproc("record_recv"), regproc("record_send"), regproc("-"), regproc("-"),
           regproc("-"), "d", "x", False, 0, -1, 0, 0, None, None, None)
    arr = (array, "_" + name, nsp, owner, -1, False, "b", "A", False, True, ",", 0,
           regproc("array_subscript_handler"), reltype, 0, regproc("array_in"),
           regproc("array_out"), regproc("array_recv"), regproc("array_send"), regproc("-"),
           regproc("-"), regproc("array_typanalyze"), "d", "x", False, 0, -1, 0, 0, None, None,
           None)
    return (row, arr) if array else (row,)


@cache
def _system_rows() -> tuple[tuple[Any, ...], ...]:
    nsp = {"pg_catalog": M.PG_CATALOG_OID, "information_schema": M.INFORMATION_SCHEMA_OID}
    out: list[tuple[Any, ...]] = []
    for vt in VIRTUAL_TABLES.values():
        types = ROW_TYPES.get((vt.schema, vt.name))
        if vt.oid and types:
            out += _rows(vt.name, nsp[vt.schema], M.BOOTSTRAP_SUPERUSER_OID, vt.oid, *types)
    return tuple(out)


def row_type_rows(cat: M.CatalogSnapshot) -> list[tuple[Any, ...]]:
    """pg_type rows of the row types of the system relations and of the snapshot's own."""
    out = list(_system_rows())
    for t in cat.tables:
        if t.reltype:
            out += _rows(t.name, t.schema_oid, t.owner, t.oid, t.reltype, t.array_type)
    return out


def reltype_of(schema: str, name: str) -> int:
    """pg_class.reltype of a system relation (0 if PostgreSQL gives it none)."""
    return ROW_TYPES.get((schema, name), (0, 0))[0]


TYPE_ROW_SOURCES.append(row_type_rows)
