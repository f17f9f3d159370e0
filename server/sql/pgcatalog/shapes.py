"""The column sets of the pg_catalog and information_schema relations, as PostgreSQL 15 has them.

Generated from a throwaway PostgreSQL 15.18 (`pg_attribute` ordered by attnum), so names,
types and order match what clients expect. Information-schema domains (sql_identifier,
cardinal_number, character_data, yes_or_no, time_stamp) are replaced by their base types.
Each entry: (schema, name) -> (PostgreSQL's pg_class OID, relkind, columns as (name, type OID)).
"""

from __future__ import annotations

SHAPES: dict[tuple[str, str], tuple[int, str, tuple[tuple[str, int], ...]]] = {
    ('pg_catalog', 'pg_namespace'): (2615, 'r', (
        ('oid', 26), ('nspname', 19), ('nspowner', 26), ('nspacl', 1034),
    )),
    ('pg_catalog', 'pg_class'): (1259, 'r', (
        ('oid', 26), ('relname', 19), ('relnamespace', 26), ('reltype', 26), ('reloftype', 26),
        ('relowner', 26), ('relam', 26), ('relfilenode', 26), ('reltablespace', 26),
        ('relpages', 23), ('reltuples', 700), ('relallvisible', 23), ('reltoastrelid', 26),
        ('relhasindex', 16), ('relisshared', 16), ('relpersistence', 18), ('relkind', 18),
        ('relnatts', 21), ('relchecks', 21), ('relhasrules', 16), ('relhastriggers', 16),
        ('relhassubclass', 16), ('relrowsecurity', 16), ('relforcerowsecurity', 16),
        ('relispopulated', 16), ('relreplident', 18), ('relispartition', 16), ('relrewrite', 26),
        ('relfrozenxid', 28), ('relminmxid', 28), ('relacl', 1034), ('reloptions', 1009),
        ('relpartbound', 194),
    )),
    ('pg_catalog', 'pg_attribute'): (1249, 'r', (
        ('attrelid', 26), ('attname', 19), ('atttypid', 26), ('attstattarget', 23),
        ('attlen', 21), ('attnum', 21), ('attndims', 23), ('attcacheoff', 23), ('atttypmod', 23),
        ('attbyval', 16), ('attalign', 18), ('attstorage', 18), ('attcompression', 18),
        ('attnotnull', 16), ('atthasdef', 16), ('atthasmissing', 16), ('attidentity', 18),
        ('attgenerated', 18), ('attisdropped', 16), ('attislocal', 16), ('attinhcount', 23),
        ('attcollation', 26), ('attacl', 1034), ('attoptions', 1009), ('attfdwoptions', 1009),
        ('attmissingval', 2277),
    )),
    ('pg_catalog', 'pg_attrdef'): (2604, 'r', (
        ('oid', 26), ('adrelid', 26), ('adnum', 21), ('adbin', 194),
    )),
    ('pg_catalog', 'pg_type'): (1247, 'r', (
        ('oid', 26), ('typname', 19), ('typnamespace', 26), ('typowner', 26), ('typlen', 21),
        ('typbyval', 16), ('typtype', 18), ('typcategory', 18), ('typispreferred', 16),
        ('typisdefined', 16), ('typdelim', 18), ('typrelid', 26), ('typsubscript', 24),
        ('typelem', 26), ('typarray', 26), ('typinput', 24), ('typoutput', 24),
        ('typreceive', 24), ('typsend', 24), ('typmodin', 24), ('typmodout', 24),
        ('typanalyze', 24), ('typalign', 18), ('typstorage', 18), ('typnotnull', 16),
        ('typbasetype', 26), ('typtypmod', 23), ('typndims', 23), ('typcollation', 26),
        ('typdefaultbin', 194), ('typdefault', 25), ('typacl', 1034),
    )),
    ('pg_catalog', 'pg_index'): (2610, 'r', (
        ('indexrelid', 26), ('indrelid', 26), ('indnatts', 21), ('indnkeyatts', 21),
        ('indisunique', 16), ('indnullsnotdistinct', 16), ('indisprimary', 16),
        ('indisexclusion', 16), ('indimmediate', 16), ('indisclustered', 16), ('indisvalid', 16),
        ('indcheckxmin', 16), ('indisready', 16), ('indislive', 16), ('indisreplident', 16),
        ('indkey', 22), ('indcollation', 30), ('indclass', 30), ('indoption', 22),
        ('indexprs', 194), ('indpred', 194),
    )),
    ('pg_catalog', 'pg_constraint'): (2606, 'r', (
        ('oid', 26), ('conname', 19), ('connamespace', 26), ('contype', 18),
        ('condeferrable', 16), ('condeferred', 16), ('convalidated', 16), ('conrelid', 26),
        ('contypid', 26), ('conindid', 26), ('conparentid', 26), ('confrelid', 26),
        ('confupdtype', 18), ('confdeltype', 18), ('confmatchtype', 18), ('conislocal', 16),
        ('coninhcount', 23), ('connoinherit', 16), ('conkey', 1005), ('confkey', 1005),
        ('conpfeqop', 1028), ('conppeqop', 1028), ('conffeqop', 1028), ('confdelsetcols', 1005),
        ('conexclop', 1028), ('conbin', 194),
    )),
    ('pg_catalog', 'pg_database'): (1262, 'r', (
        ('oid', 26), ('datname', 19), ('datdba', 26), ('encoding', 23), ('datlocprovider', 18),
        ('datistemplate', 16), ('datallowconn', 16), ('datconnlimit', 23), ('datfrozenxid', 28),
        ('datminmxid', 28), ('dattablespace', 26), ('datcollate', 25), ('datctype', 25),
        ('daticulocale', 25), ('datcollversion', 25), ('datacl', 1034),
    )),
    ('pg_catalog', 'pg_roles'): (12000, 'v', (
        ('rolname', 19), ('rolsuper', 16), ('rolinherit', 16), ('rolcreaterole', 16),
        ('rolcreatedb', 16), ('rolcanlogin', 16), ('rolreplication', 16), ('rolconnlimit', 23),
        ('rolpassword', 25), ('rolvaliduntil', 1184), ('rolbypassrls', 16), ('rolconfig', 1009),
        ('oid', 26),
    )),
    ('pg_catalog', 'pg_authid'): (1260, 'r', (
        ('oid', 26), ('rolname', 19), ('rolsuper', 16), ('rolinherit', 16), ('rolcreaterole', 16),
        ('rolcreatedb', 16), ('rolcanlogin', 16), ('rolreplication', 16), ('rolbypassrls', 16),
        ('rolconnlimit', 23), ('rolpassword', 25), ('rolvaliduntil', 1184),
    )),
    ('pg_catalog', 'pg_user'): (12014, 'v', (
        ('usename', 19), ('usesysid', 26), ('usecreatedb', 16), ('usesuper', 16), ('userepl', 16),
        ('usebypassrls', 16), ('passwd', 25), ('valuntil', 1184), ('useconfig', 1009),
    )),
    ('pg_catalog', 'pg_am'): (2601, 'r', (
        ('oid', 26), ('amname', 19), ('amhandler', 24), ('amtype', 18),
    )),
    ('pg_catalog', 'pg_proc'): (1255, 'r', (
        ('oid', 26), ('proname', 19), ('pronamespace', 26), ('proowner', 26), ('prolang', 26),
        ('procost', 700), ('prorows', 700), ('provariadic', 26), ('prosupport', 24),
        ('prokind', 18), ('prosecdef', 16), ('proleakproof', 16), ('proisstrict', 16),
        ('proretset', 16), ('provolatile', 18), ('proparallel', 18), ('pronargs', 21),
        ('pronargdefaults', 21), ('prorettype', 26), ('proargtypes', 30),
        ('proallargtypes', 1028), ('proargmodes', 1002), ('proargnames', 1009),
        ('proargdefaults', 194), ('protrftypes', 1028), ('prosrc', 25), ('probin', 25),
        ('prosqlbody', 194), ('proconfig', 1009), ('proacl', 1034),
    )),
    ('pg_catalog', 'pg_settings'): (12104, 'v', (
        ('name', 25), ('setting', 25), ('unit', 25), ('category', 25), ('short_desc', 25),
        ('extra_desc', 25), ('context', 25), ('vartype', 25), ('source', 25), ('min_val', 25),
        ('max_val', 25), ('enumvals', 1009), ('boot_val', 25), ('reset_val', 25),
        ('sourcefile', 25), ('sourceline', 23), ('pending_restart', 16),
    )),
    ('pg_catalog', 'pg_description'): (2609, 'r', (
        ('objoid', 26), ('classoid', 26), ('objsubid', 23), ('description', 25),
    )),
    ('pg_catalog', 'pg_shdescription'): (2396, 'r', (
        ('objoid', 26), ('classoid', 26), ('description', 25),
    )),
    ('pg_catalog', 'pg_sequence'): (2224, 'r', (
        ('seqrelid', 26), ('seqtypid', 26), ('seqstart', 20), ('seqincrement', 20),
        ('seqmax', 20), ('seqmin', 20), ('seqcache', 20), ('seqcycle', 16),
    )),
    ('pg_catalog', 'pg_sequences'): (12048, 'v', (
        ('schemaname', 19), ('sequencename', 19), ('sequenceowner', 19), ('data_type', 2206),
        ('start_value', 20), ('min_value', 20), ('max_value', 20), ('increment_by', 20),
        ('cycle', 16), ('cache_size', 20), ('last_value', 20),
    )),
    ('pg_catalog', 'pg_collation'): (3456, 'r', (
        ('oid', 26), ('collname', 19), ('collnamespace', 26), ('collowner', 26),
        ('collprovider', 18), ('collisdeterministic', 16), ('collencoding', 23),
        ('collcollate', 25), ('collctype', 25), ('colliculocale', 25), ('collversion', 25),
    )),
    ('pg_catalog', 'pg_enum'): (3501, 'r', (
        ('oid', 26), ('enumtypid', 26), ('enumsortorder', 700), ('enumlabel', 19),
    )),
    ('pg_catalog', 'pg_range'): (3541, 'r', (
        ('rngtypid', 26), ('rngsubtype', 26), ('rngmultitypid', 26), ('rngcollation', 26),
        ('rngsubopc', 26), ('rngcanonical', 24), ('rngsubdiff', 24),
    )),
    ('pg_catalog', 'pg_inherits'): (2611, 'r', (
        ('inhrelid', 26), ('inhparent', 26), ('inhseqno', 23), ('inhdetachpending', 16),
    )),
    ('pg_catalog', 'pg_partitioned_table'): (3350, 'r', (
        ('partrelid', 26), ('partstrat', 18), ('partnatts', 21), ('partdefid', 26),
        ('partattrs', 22), ('partclass', 30), ('partcollation', 30), ('partexprs', 194),
    )),
    ('pg_catalog', 'pg_policy'): (3256, 'r', (
        ('oid', 26), ('polname', 19), ('polrelid', 26), ('polcmd', 18), ('polpermissive', 16),
        ('polroles', 1028), ('polqual', 194), ('polwithcheck', 194),
    )),
    ('pg_catalog', 'pg_statistic_ext'): (3381, 'r', (
        ('oid', 26), ('stxrelid', 26), ('stxname', 19), ('stxnamespace', 26), ('stxowner', 26),
        ('stxstattarget', 23), ('stxkeys', 22), ('stxkind', 1002), ('stxexprs', 194),
    )),
    ('pg_catalog', 'pg_publication'): (6104, 'r', (
        ('oid', 26), ('pubname', 19), ('pubowner', 26), ('puballtables', 16), ('pubinsert', 16),
        ('pubupdate', 16), ('pubdelete', 16), ('pubtruncate', 16), ('pubviaroot', 16),
    )),
    ('pg_catalog', 'pg_publication_rel'): (6106, 'r', (
        ('oid', 26), ('prpubid', 26), ('prrelid', 26), ('prqual', 194), ('prattrs', 22),
    )),
    ('pg_catalog', 'pg_publication_namespace'): (6237, 'r', (
        ('oid', 26), ('pnpubid', 26), ('pnnspid', 26),
    )),
    ('pg_catalog', 'pg_trigger'): (2620, 'r', (
        ('oid', 26), ('tgrelid', 26), ('tgparentid', 26), ('tgname', 19), ('tgfoid', 26),
        ('tgtype', 21), ('tgenabled', 18), ('tgisinternal', 16), ('tgconstrrelid', 26),
        ('tgconstrindid', 26), ('tgconstraint', 26), ('tgdeferrable', 16), ('tginitdeferred', 16),
        ('tgnargs', 21), ('tgattr', 22), ('tgargs', 17), ('tgqual', 194), ('tgoldtable', 19),
        ('tgnewtable', 19),
    )),
    ('pg_catalog', 'pg_rewrite'): (2618, 'r', (
        ('oid', 26), ('rulename', 19), ('ev_class', 26), ('ev_type', 18), ('ev_enabled', 18),
        ('is_instead', 16), ('ev_qual', 194), ('ev_action', 194),
    )),
    ('pg_catalog', 'pg_foreign_table'): (3118, 'r', (
        ('ftrelid', 26), ('ftserver', 26), ('ftoptions', 1009),
    )),
    ('pg_catalog', 'pg_extension'): (3079, 'r', (
        ('oid', 26), ('extname', 19), ('extowner', 26), ('extnamespace', 26),
        ('extrelocatable', 16), ('extversion', 25), ('extconfig', 1028), ('extcondition', 1009),
    )),
    ('pg_catalog', 'pg_opclass'): (2616, 'r', (
        ('oid', 26), ('opcmethod', 26), ('opcname', 19), ('opcnamespace', 26), ('opcowner', 26),
        ('opcfamily', 26), ('opcintype', 26), ('opcdefault', 16), ('opckeytype', 26),
    )),
    ('pg_catalog', 'pg_tablespace'): (1213, 'r', (
        ('oid', 26), ('spcname', 19), ('spcowner', 26), ('spcacl', 1034), ('spcoptions', 1009),
    )),
    ('pg_catalog', 'pg_stat_activity'): (12222, 'v', (
        ('datid', 26), ('datname', 19), ('pid', 23), ('leader_pid', 23), ('usesysid', 26),
        ('usename', 19), ('application_name', 25), ('client_addr', 869), ('client_hostname', 25),
        ('client_port', 23), ('backend_start', 1184), ('xact_start', 1184), ('query_start', 1184),
        ('state_change', 1184), ('wait_event_type', 25), ('wait_event', 25), ('state', 25),
        ('backend_xid', 28), ('backend_xmin', 28), ('query_id', 20), ('query', 25),
        ('backend_type', 25),
    )),
    ('pg_catalog', 'pg_locks'): (12073, 'v', (
        ('locktype', 25), ('database', 26), ('relation', 26), ('page', 23), ('tuple', 21),
        ('virtualxid', 25), ('transactionid', 28), ('classid', 26), ('objid', 26),
        ('objsubid', 21), ('virtualtransaction', 25), ('pid', 23), ('mode', 25), ('granted', 16),
        ('fastpath', 16), ('waitstart', 1184),
    )),
    ('pg_catalog', 'pg_views'): (12028, 'v', (
        ('schemaname', 19), ('viewname', 19), ('viewowner', 19), ('definition', 25),
    )),
    ('pg_catalog', 'pg_tables'): (12033, 'v', (
        ('schemaname', 19), ('tablename', 19), ('tableowner', 19), ('tablespace', 19),
        ('hasindexes', 16), ('hasrules', 16), ('hastriggers', 16), ('rowsecurity', 16),
    )),
    ('pg_catalog', 'pg_indexes'): (12043, 'v', (
        ('schemaname', 19), ('tablename', 19), ('indexname', 19), ('tablespace', 19),
        ('indexdef', 25),
    )),
    ('pg_catalog', 'pg_matviews'): (12038, 'v', (
        ('schemaname', 19), ('matviewname', 19), ('matviewowner', 19), ('tablespace', 19),
        ('hasindexes', 16), ('ispopulated', 16), ('definition', 25),
    )),
    ('pg_catalog', 'pg_depend'): (2608, 'r', (
        ('classid', 26), ('objid', 26), ('objsubid', 23), ('refclassid', 26), ('refobjid', 26),
        ('refobjsubid', 23), ('deptype', 18),
    )),
    ('pg_catalog', 'pg_operator'): (2617, 'r', (
        ('oid', 26), ('oprname', 19), ('oprnamespace', 26), ('oprowner', 26), ('oprkind', 18),
        ('oprcanmerge', 16), ('oprcanhash', 16), ('oprleft', 26), ('oprright', 26),
        ('oprresult', 26), ('oprcom', 26), ('oprnegate', 26), ('oprcode', 24), ('oprrest', 24),
        ('oprjoin', 24),
    )),
    ('pg_catalog', 'pg_language'): (2612, 'r', (
        ('oid', 26), ('lanname', 19), ('lanowner', 26), ('lanispl', 16), ('lanpltrusted', 16),
        ('lanplcallfoid', 26), ('laninline', 26), ('lanvalidator', 26), ('lanacl', 1034),
    )),
    ('pg_catalog', 'pg_auth_members'): (1261, 'r', (
        ('roleid', 26), ('member', 26), ('grantor', 26), ('admin_option', 16),
    )),
    ('pg_catalog', 'pg_cast'): (2605, 'r', (
        ('oid', 26), ('castsource', 26), ('casttarget', 26), ('castfunc', 26),
        ('castcontext', 18), ('castmethod', 18),
    )),
    ('information_schema', 'schemata'): (13382, 'v', (
        ('catalog_name', 19), ('schema_name', 19), ('schema_owner', 19),
        ('default_character_set_catalog', 19), ('default_character_set_schema', 19),
        ('default_character_set_name', 19), ('sql_path', 1043),
    )),
    ('information_schema', 'tables'): (13425, 'v', (
        ('table_catalog', 19), ('table_schema', 19), ('table_name', 19), ('table_type', 1043),
        ('self_referencing_column_name', 19), ('reference_generation', 1043),
        ('user_defined_type_catalog', 19), ('user_defined_type_schema', 19),
        ('user_defined_type_name', 19), ('is_insertable_into', 1043), ('is_typed', 1043),
        ('commit_action', 1043),
    )),
    ('information_schema', 'columns'): (13295, 'v', (
        ('table_catalog', 19), ('table_schema', 19), ('table_name', 19), ('column_name', 19),
        ('ordinal_position', 23), ('column_default', 1043), ('is_nullable', 1043),
        ('data_type', 1043), ('character_maximum_length', 23), ('character_octet_length', 23),
        ('numeric_precision', 23), ('numeric_precision_radix', 23), ('numeric_scale', 23),
        ('datetime_precision', 23), ('interval_type', 1043), ('interval_precision', 23),
        ('character_set_catalog', 19), ('character_set_schema', 19), ('character_set_name', 19),
        ('collation_catalog', 19), ('collation_schema', 19), ('collation_name', 19),
        ('domain_catalog', 19), ('domain_schema', 19), ('domain_name', 19), ('udt_catalog', 19),
        ('udt_schema', 19), ('udt_name', 19), ('scope_catalog', 19), ('scope_schema', 19),
        ('scope_name', 19), ('maximum_cardinality', 23), ('dtd_identifier', 19),
        ('is_self_referencing', 1043), ('is_identity', 1043), ('identity_generation', 1043),
        ('identity_start', 1043), ('identity_increment', 1043), ('identity_maximum', 1043),
        ('identity_minimum', 1043), ('identity_cycle', 1043), ('is_generated', 1043),
        ('generation_expression', 1043), ('is_updatable', 1043),
    )),
    ('information_schema', 'views'): (13483, 'v', (
        ('table_catalog', 19), ('table_schema', 19), ('table_name', 19),
        ('view_definition', 1043), ('check_option', 1043), ('is_updatable', 1043),
        ('is_insertable_into', 1043), ('is_trigger_updatable', 1043),
        ('is_trigger_deletable', 1043), ('is_trigger_insertable_into', 1043),
    )),
    ('information_schema', 'table_constraints'): (13411, 'v', (
        ('constraint_catalog', 19), ('constraint_schema', 19), ('constraint_name', 19),
        ('table_catalog', 19), ('table_schema', 19), ('table_name', 19),
        ('constraint_type', 1043), ('is_deferrable', 1043), ('initially_deferred', 1043),
        ('enforced', 1043), ('nulls_distinct', 1043),
    )),
    ('information_schema', 'key_column_usage'): (13329, 'v', (
        ('constraint_catalog', 19), ('constraint_schema', 19), ('constraint_name', 19),
        ('table_catalog', 19), ('table_schema', 19), ('table_name', 19), ('column_name', 19),
        ('ordinal_position', 23), ('position_in_unique_constraint', 23),
    )),
    ('information_schema', 'referential_constraints'): (13339, 'v', (
        ('constraint_catalog', 19), ('constraint_schema', 19), ('constraint_name', 19),
        ('unique_constraint_catalog', 19), ('unique_constraint_schema', 19),
        ('unique_constraint_name', 19), ('match_option', 1043), ('update_rule', 1043),
        ('delete_rule', 1043),
    )),
    ('information_schema', 'constraint_column_usage'): (13300, 'v', (
        ('table_catalog', 19), ('table_schema', 19), ('table_name', 19), ('column_name', 19),
        ('constraint_catalog', 19), ('constraint_schema', 19), ('constraint_name', 19),
    )),
    ('information_schema', 'sequences'): (13386, 'v', (
        ('sequence_catalog', 19), ('sequence_schema', 19), ('sequence_name', 19),
        ('data_type', 1043), ('numeric_precision', 23), ('numeric_precision_radix', 23),
        ('numeric_scale', 23), ('start_value', 1043), ('minimum_value', 1043),
        ('maximum_value', 1043), ('increment', 1043), ('cycle_option', 1043),
    )),
    ('information_schema', 'character_sets'): (13250, 'v', (
        ('character_set_catalog', 19), ('character_set_schema', 19), ('character_set_name', 19),
        ('character_repertoire', 19), ('form_of_use', 19), ('default_collate_catalog', 19),
        ('default_collate_schema', 19), ('default_collate_name', 19),
    )),
}
