"""PostgreSQL 15's pg_proc OIDs for the functions Cumulo names: I/O functions and its SQL functions.

Recorded from a throwaway PostgreSQL 15.18 (`min(oid)` per `proname` in
pg_catalog), so `'pg_catalog.array_in'::regproc` and pg_type.typinput agree
with what JDBC caches. Names PostgreSQL lacks (or further overloads) get
stable synthetic OIDs below FIRST_USER_OID.
"""

from __future__ import annotations

import zlib

PG_PROC_OIDS: dict[str, int] = {
    "abs": 1394, "aclitemin": 1031, "aclitemout": 1032, "acos": 1601, "age": 1181, "any_in": 2294,
    "any_out": 2295, "anyarray_in": 2296, "anyarray_out": 2297, "anyarray_recv": 2502,
    "anyarray_send": 2503, "anyelement_in": 2312, "anyelement_out": 2313, "array_append": 378,
    "array_cat": 383, "array_dims": 747, "array_fill": 1193, "array_in": 750,
    "array_length": 2176, "array_lower": 2091, "array_ndims": 748, "array_out": 751,
    "array_position": 3277, "array_positions": 3279, "array_prepend": 379, "array_recv": 2400,
    "array_remove": 3167, "array_replace": 3168, "array_send": 2401,
    "array_subscript_handler": 6179, "array_to_json": 3153, "array_to_string": 384,
    "array_typanalyze": 3816, "array_upper": 2092, "ascii": 1620, "asin": 1600, "atan": 1602,
    "atan2": 1603, "bit_in": 1564, "bit_length": 1810, "bit_out": 1565, "bit_recv": 2456,
    "bit_send": 2457, "bittypmodin": 2919, "bittypmodout": 2920, "boolin": 1242, "boolout": 1243,
    "boolrecv": 2436, "boolsend": 2437, "bpcharin": 1044, "bpcharout": 1045, "bpcharrecv": 2430,
    "bpcharsend": 2431, "bpchartypmodin": 2913, "bpchartypmodout": 2914, "bthandler": 330,
    "gisthandler": 332, "ginhandler": 333, "spghandler": 334, "brinhandler": 335,
    "btrim": 884, "byteain": 1244, "byteaout": 31, "bytearecv": 2412, "byteasend": 2413,
    "cardinality": 3179, "cash_in": 886, "cash_out": 887, "cash_recv": 2492, "cash_send": 2493,
    "cbrt": 1345, "ceil": 1711, "ceiling": 2167, "char_length": 1372, "character_length": 1367,
    "charin": 1245, "charout": 33, "charrecv": 2434, "charsend": 2435, "chr": 1621, "cidin": 52,
    "cidout": 53, "cidrecv": 2442, "cidsend": 2443, "clock_timestamp": 2649,
    "col_description": 1216, "concat": 3058, "concat_ws": 3059, "cos": 1605, "cosh": 2463,
    "cstring_in": 2292, "cstring_out": 2293, "cstring_recv": 2500, "cstring_send": 2501,
    "current_database": 861, "current_query": 817, "current_schema": 1402,
    "current_schemas": 1403, "current_setting": 2077, "current_user": 745, "currval": 1575,
    "date_bin": 6177, "date_in": 1084, "date_out": 1085, "date_part": 1171, "date_recv": 2468,
    "date_send": 2469, "date_trunc": 1217, "decode": 1947, "degrees": 1608, "div": 1973,
    "encode": 1946, "exp": 1347, "extract": 6199, "factorial": 1376, "float4in": 200,
    "float4out": 201, "float4recv": 2424, "float4send": 2425, "float8in": 214, "float8out": 215,
    "float8recv": 2426, "float8send": 2427, "floor": 1712, "format": 3539, "format_type": 1081,
    "gcd": 5044, "gen_random_uuid": 3432, "generate_series": 938, "generate_subscripts": 1191,
    "has_any_column_privilege": 3024, "has_column_privilege": 3012,
    "has_database_privilege": 2250, "has_function_privilege": 2256, "has_schema_privilege": 2268,
    "has_sequence_privilege": 2181, "has_table_privilege": 1922, "has_tablespace_privilege": 2390,
    "has_type_privilege": 3138, "hashhandler": 331, "heap_tableam_handler": 3, "inet_in": 910,
    "inet_out": 911, "inet_recv": 2496, "inet_send": 2497, "inet_client_addr": 2196, "inet_client_port": 2197, "inet_server_addr": 2198,
    "inet_server_port": 2199, "initcap": 872, "int2in": 38, "int2out": 39, "int2recv": 2404,
    "int2send": 2405, "int2vectorin": 40, "int2vectorout": 41, "int2vectorrecv": 2410,
    "int2vectorsend": 2411, "int4in": 42, "int4out": 43, "int4range_canonical": 3914, "enum_in": 3506, "lseg_in": 119, "lseg_out": 120, "path_in": 121,
    "path_out": 122, "box_in": 123, "box_out": 124, "poly_in": 347, "poly_out": 348, "circle_in": 1450,
    "circle_out": 1451, "line_in": 1490, "line_out": 1491, "lseg_recv": 2480, "lseg_send": 2481,
    "path_recv": 2482, "path_send": 2483, "box_recv": 2484, "box_send": 2485, "poly_recv": 2486,
    "poly_send": 2487, "line_recv": 2488, "line_send": 2489, "circle_recv": 2490, "circle_send": 2491, "multirange_in": 4231, "multirange_out": 4232,
    "multirange_recv": 4233, "multirange_send": 4234, "multirange_typanalyze": 4242, "macaddr_in": 436, "macaddr_out": 437,
    "macaddr8_in": 4110, "macaddr8_out": 4111, "cidr_in": 1267, "cidr_out": 1427, "macaddr_recv": 2494,
    "macaddr_send": 2495, "cidr_recv": 2498, "cidr_send": 2499, "macaddr8_recv": 3446,
    "macaddr8_send": 3447, "enum_out": 3507, "enum_recv": 3532,
    "tsvectorin": 3610, "tsvectorout": 3611, "tsqueryin": 3612, "tsqueryout": 3613,
    "jsonpath_in": 4001, "jsonpath_recv": 4002, "jsonpath_out": 4003, "jsonpath_send": 4004,
    "tsvectorsend": 3638, "tsvectorrecv": 3639, "tsquerysend": 3640, "tsqueryrecv": 3641,
    "ts_typanalyze": 3688, "enum_send": 3533, "int8range_canonical": 3928,
    "daterange_canonical": 3915, "int8range_subdiff": 3923, "numrange_subdiff": 3924,
    "daterange_subdiff": 3925, "tsrange_subdiff": 3929, "tstzrange_subdiff": 3930,
    "int4range_subdiff": 3922, "int4recv": 2406, "int4send": 2407, "int8in": 460, "int8out": 461,
    "int8recv": 2408, "int8send": 2409, "interval_in": 1160, "interval_out": 1161,
    "interval_recv": 2478, "interval_send": 2479, "intervaltypmodin": 2903,
    "intervaltypmodout": 2904, "isfinite": 1373, "json_array_element": 3949,
    "json_array_element_text": 3950, "json_array_elements": 3955,
    "json_array_elements_text": 3969, "json_array_length": 3956, "json_build_array": 3198,
    "json_build_object": 3200, "json_each": 3958, "json_each_text": 3959,
    "json_extract_path_text": 3953, "json_in": 321, "json_object_field": 3947,
    "json_object_field_text": 3948, "json_object_keys": 3957, "json_out": 322, "json_recv": 323,
    "json_send": 324, "json_typeof": 3968, "jsonb_array_element": 3215,
    "jsonb_array_element_text": 3216, "jsonb_array_elements": 3219,
    "jsonb_array_elements_text": 3465, "jsonb_array_length": 3207, "jsonb_build_array": 3271,
    "jsonb_build_object": 3273, "jsonb_each": 3208, "jsonb_each_text": 3932,
    "jsonb_extract_path_text": 3940, "jsonb_in": 3806, "jsonb_object_field": 3478,
    "jsonb_object_field_text": 3214, "jsonb_object_keys": 3931, "jsonb_out": 3804,
    "jsonb_pretty": 3306, "jsonb_recv": 3805, "jsonb_send": 3803, "jsonb_subscript_handler": 6098,
    "jsonb_typeof": 3210, "lastval": 2559, "lcm": 5046, "left": 3060, "length": 1317, "ln": 1341,
    "log": 1340, "log10": 1194, "lower": 870, "lpad": 873, "ltrim": 875, "make_date": 3846,
    "make_interval": 3464, "make_time": 3847, "make_timestamp": 3461, "make_timestamptz": 3462,
    "md5": 2311,
    "min_scale": 5042, "mod": 940, "namein": 34, "nameout": 35, "namerecv": 2422,
    "namesend": 2423, "nextval": 1574, "now": 1299, "num_nonnulls": 440, "num_nulls": 438,
    "numeric_in": 1701, "numeric_out": 1702, "numeric_recv": 2460, "numeric_send": 2461,
    "numerictypmodin": 2917, "numerictypmodout": 2918, "obj_description": 1215,
    "octet_length": 720, "oidin": 1798, "oidout": 1799, "oidrecv": 2418, "oidsend": 2419,
    "oidvectorin": 54, "oidvectorout": 55, "oidvectorrecv": 2420, "oidvectorsend": 2421,
    "overlay": 749, "pg_advisory_lock": 2880, "pg_advisory_unlock": 2884,
    "pg_advisory_unlock_all": 2892, "pg_backend_pid": 2026, "pg_cancel_backend": 2171,
    "pg_char_to_encoding": 1264, "pg_client_encoding": 810, "pg_collation_is_visible": 3815,
    "pg_conf_load_time": 2034, "pg_conversion_is_visible": 2093, "pg_current_xact_id": 5059,
    "pg_database_size": 2168, "pg_encoding_to_char": 1597, "pg_function_is_visible": 2081,
    "pg_get_constraintdef": 1387, "pg_get_expr": 1716, "pg_get_function_arguments": 2162,
    "pg_get_function_identity_arguments": 2232, "pg_get_function_result": 2165,
    "pg_get_functiondef": 2098, "pg_get_indexdef": 1643, "pg_get_keywords": 1686,
    "pg_get_partkeydef": 3352, "pg_get_ruledef": 1573, "pg_get_serial_sequence": 1665,
    "pg_get_statisticsobjdef": 3415, "pg_get_statisticsobjdef_columns": 6174,
    "pg_get_triggerdef": 1662, "pg_get_userbyid": 1642, "pg_get_viewdef": 1640,
    "pg_has_role": 2705, "pg_indexes_size": 2998, "pg_is_in_recovery": 3810,
    "pg_last_xact_replay_timestamp": 3830, "pg_listening_channels": 3035, "pg_lsn_in": 3229,
    "pg_lsn_out": 3230, "pg_lsn_recv": 3238, "pg_lsn_send": 3239, "pg_node_tree_in": 195,
    "pg_node_tree_out": 196, "pg_node_tree_recv": 197, "pg_node_tree_send": 198,
    "pg_opclass_is_visible": 2083, "pg_operator_is_visible": 2082, "pg_partition_ancestors": 3425,
    "pg_partition_root": 3424, "pg_postmaster_start_time": 2560,
    "pg_relation_is_publishable": 6121, "pg_trigger_depth": 3163,
    "pg_relation_is_updatable": 3842, "pg_column_is_updatable": 3843,
    "pg_relation_size": 2325, "pg_size_pretty": 2288,
    "pg_isolation_test_session_is_blocked": 3378, "getdatabaseencoding": 1039, "pg_notify": 3036,
    "pg_opfamily_is_visible": 3829, "pg_ts_dict_is_visible": 3757,
    "pg_ts_parser_is_visible": 3756, "pg_ts_template_is_visible": 3768,
    "pg_sleep": 2626, "pg_statistics_obj_is_visible": 3403, "pg_table_is_visible": 2079,
    "pg_table_size": 2997, "pg_tablespace_location": 3778, "pg_terminate_backend": 2096,
    "pg_total_relation_size": 2286, "pg_try_advisory_lock": 2882, "pg_ts_config_is_visible": 3758,
    "pg_type_is_visible": 2080, "pg_typeof": 1619, "pi": 1610, "point_in": 117, "point_out": 118,
    "point_recv": 2428, "point_send": 2429, "position": 849, "pow": 1346, "power": 1368,
    "quote_ident": 1282, "quote_literal": 1283, "quote_nullable": 1289, "radians": 1609,
    "random": 1598, "range_in": 3834, "range_out": 3835, "range_recv": 3836, "range_send": 3837,
    "range_typanalyze": 3916, "raw_array_subscript_handler": 6180, "record_in": 2290,
    "record_out": 2291, "record_recv": 2402, "record_send": 2403, "regclassin": 2218,
    "regclassout": 2219, "regclassrecv": 2452, "regclasssend": 2453, "regconfigin": 3736,
    "regcollationin": 4193, "regcollationout": 4194, "regcollationrecv": 4196,
    "regcollationsend": 4197, "pg_snapshot_in": 5055, "pg_snapshot_out": 5056,
    "pg_snapshot_recv": 5057, "pg_snapshot_send": 5058, "xid8in": 5070, "xid8out": 5081,
    "xid8recv": 5082, "xid8send": 5083,
    "regconfigout": 3737, "regconfigrecv": 3738, "regconfigsend": 3739, "regexp_count": 6254,
    "regexp_like": 6263, "regexp_match": 3396, "regexp_matches": 2763, "regexp_replace": 2284,
    "regexp_split_to_array": 2767, "regexp_split_to_table": 2765, "regexp_substr": 6265,
    "regnamespacein": 4084, "regnamespaceout": 4085, "regnamespacerecv": 4087,
    "regnamespacesend": 4088, "regoperin": 2214, "regoperout": 2215, "regoperrecv": 2448,
    "regopersend": 2449, "regoperatorin": 2216, "regoperatorout": 2217,
    "regoperatorrecv": 2450, "regoperatorsend": 2451, "regprocedurein": 2212, "regprocedureout": 2213,
    "regprocedurerecv": 2446, "regproceduresend": 2447, "regprocin": 44, "regprocout": 45,
    "regprocrecv": 2444, "regprocsend": 2445, "regrolein": 4098, "regroleout": 4092,
    "regrolerecv": 4094, "regrolesend": 4095, "regtypein": 2220, "regtypeout": 2221,
    "regtyperecv": 2454, "regtypesend": 2455, "repeat": 1622, "replace": 2087, "reverse": 3062,
    "right": 3061, "round": 1342, "rpad": 874, "rtrim": 876, "scale": 3281, "session_user": 746,
    "set_config": 2078, "setseed": 1599, "setval": 1576, "sha224": 3419, "sha256": 3420,
    "sha384": 3421, "sha512": 3422, "shobj_description": 1993, "sign": 1706, "sin": 1604,
    "sinh": 2462, "split_part": 2088, "sqrt": 1344, "starts_with": 3696,
    "statement_timestamp": 2648, "string_to_array": 376, "strpos": 868, "substr": 877,
    "substring": 936, "tan": 1606, "tanh": 2464, "textin": 46, "textout": 47, "textrecv": 2414,
    "textsend": 2415, "tidin": 48, "tidout": 49, "tidrecv": 2438, "tidsend": 2439,
    "time_in": 1143, "time_out": 1144, "time_recv": 2470, "time_send": 2471, "timeofday": 274,
    "timestamp_in": 1312, "timestamp_out": 1313, "timestamp_recv": 2474, "timestamp_send": 2475,
    "timestamptypmodin": 2905, "timestamptypmodout": 2906, "timestamptz_in": 1150,
    "timestamptz_out": 1151, "timestamptz_recv": 2476, "timestamptz_send": 2477,
    "timestamptztypmodin": 2907, "timestamptztypmodout": 2908, "timetypmodin": 2909,
    "timetypmodout": 2910, "timetz_in": 1350, "timetz_out": 1351, "timetz_recv": 2472,
    "timetz_send": 2473, "timetztypmodin": 2911, "timetztypmodout": 2912, "timezone": 1026,
    "to_char": 1768, "to_date": 1780, "to_hex": 2089, "to_json": 3176, "to_jsonb": 3787,
    "to_number": 1777, "to_regclass": 3495, "to_regnamespace": 4086, "to_regproc": 3494,
    "to_regrole": 4093, "to_regtype": 3493, "to_timestamp": 1158, "transaction_timestamp": 2647,
    "translate": 878, "trigger_in": 2300, "trigger_out": 2301, "trim_scale": 5043, "trunc": 753,
    "txid_current": 2943, "txid_snapshot_in": 2939, "txid_snapshot_out": 2940,
    "txid_snapshot_recv": 2941, "txid_snapshot_send": 2942, "unknownin": 109, "unknownout": 110,
    "unknownrecv": 2416, "unknownsend": 2417, "unnest": 1293, "upper": 871, "uuid_in": 2952,
    "uuid_out": 2953, "uuid_recv": 2961, "uuid_send": 2962, "varbit_in": 1579, "varbit_out": 1580,
    "varbit_recv": 2458, "varbit_send": 2459, "varbittypmodin": 2902, "varbittypmodout": 2921,
    "varcharin": 1046, "varcharout": 1047, "varcharrecv": 2432, "varcharsend": 2433,
    "varchartypmodin": 2915, "varchartypmodout": 2916, "version": 89, "void_in": 2298,
    "void_out": 2299, "void_recv": 3120, "void_send": 3121, "width_bucket": 320, "xidin": 50,
    "xidout": 51, "xidrecv": 2440, "xidsend": 2441, "xml_in": 2893, "xml_out": 2894,
    "xml_recv": 2898, "xml_send": 2899,
}
BY_OID: dict[int, str] = {oid: name for name, oid in PG_PROC_OIDS.items()}


def proc_oid(name: str) -> int:
    """Returns the pg_proc OID for a function name (PostgreSQL's, or a stable synthetic one)."""
    oid = PG_PROC_OIDS.get(name)
    if oid is None:
        # NB: 9000..15999 holds no PostgreSQL 15 function; crc32 keeps the OID stable across runs.
        oid = 9000 + zlib.crc32(name.encode()) % 7000
        while oid in BY_OID and BY_OID[oid] != name:
            oid += 1
        PG_PROC_OIDS[name] = oid
        BY_OID[oid] = name
    return oid


# (name, argument type OIDs) -> PostgreSQL 15's OID, for names with several overloads (generated
# from pg_proc for the signatures Cumulo registers): JDBC's SPECIFIC_NAME and descriptions follow it.
PG_PROC_SIGNATURES: dict[tuple[str, tuple[int, ...]], int] = {
    ('abs', (20,)): 1396, ('abs', (21,)): 1398, ('abs', (23,)): 1397, ('abs', (700,)): 1394,
    ('abs', (701,)): 1395, ('abs', (1700,)): 1705, ('age', (1114,)): 2059,
    ('age', (1114, 1114)): 2058, ('age', (1184,)): 1386, ('age', (1184, 1184)): 1199,
    ('array_to_json', (2277,)): 3153, ('array_to_string', (2277, 25)): 395,
    ('array_to_string', (2277, 25, 25)): 384, ('bit_length', (25,)): 1811, ('btrim', (25,)): 885,
    ('btrim', (25, 25)): 884, ('ceil', (701,)): 2308, ('ceil', (1700,)): 1711,
    ('ceiling', (701,)): 2320, ('ceiling', (1700,)): 2167, ('char_length', (25,)): 1381,
    ('character_length', (25,)): 1369, ('current_setting', (25,)): 2077,
    ('current_setting', (25, 16)): 3294, ('date_bin', (1186, 1114, 1114)): 6177,
    ('date_bin', (1186, 1184, 1184)): 6178, ('date_part', (25, 1082)): 1384,
    ('date_part', (25, 1083)): 1385, ('date_part', (25, 1114)): 2021,
    ('date_part', (25, 1184)): 1171, ('date_part', (25, 1186)): 1172,
    ('date_part', (25, 1266)): 1273, ('date_trunc', (25, 1114)): 2020,
    ('date_trunc', (25, 1184)): 1217, ('date_trunc', (25, 1184, 25)): 1284,
    ('date_trunc', (25, 1186)): 1218, ('exp', (701,)): 1347, ('exp', (1700,)): 1732,
    ('extract', (25, 1082)): 6199, ('extract', (25, 1083)): 6200, ('extract', (25, 1114)): 6202,
    ('extract', (25, 1184)): 6203, ('extract', (25, 1186)): 6204, ('extract', (25, 1266)): 6201,
    ('floor', (701,)): 2309, ('floor', (1700,)): 1712, ('gcd', (20, 20)): 5045,
    ('gcd', (23, 23)): 5044, ('gcd', (1700, 1700)): 5048, ('generate_series', (20, 20)): 1069,
    ('generate_series', (20, 20, 20)): 1068, ('generate_series', (23, 23)): 1067,
    ('generate_series', (23, 23, 23)): 1066, ('generate_series', (1114, 1114, 1186)): 938,
    ('generate_series', (1184, 1184, 1186)): 939, ('generate_series', (1700, 1700)): 3260,
    ('generate_series', (1700, 1700, 1700)): 3259, ('generate_subscripts', (2277, 23)): 1192,
    ('generate_subscripts', (2277, 23, 16)): 1191, ('isfinite', (1082,)): 1373,
    ('isfinite', (1114,)): 2048, ('isfinite', (1184,)): 1389, ('isfinite', (1186,)): 1390,
    ('lcm', (20, 20)): 5047, ('lcm', (23, 23)): 5046, ('lcm', (1700, 1700)): 5049,
    ('length', (17,)): 2010, ('length', (25,)): 1317, ('ln', (701,)): 1341, ('ln', (1700,)): 1734,
    ('log', (701,)): 1340, ('log', (1700,)): 1741, ('log', (1700, 1700)): 1736,
    ('log10', (701,)): 1194, ('log10', (1700,)): 1481, ('lower', (25,)): 870,
    ('lpad', (25, 23)): 879, ('lpad', (25, 23, 25)): 873, ('ltrim', (25,)): 881,
    ('ltrim', (25, 25)): 875, ('make_timestamptz', (23, 23, 23, 23, 23, 701)): 3462,
    ('make_timestamptz', (23, 23, 23, 23, 23, 701, 25)): 3463, ('md5', (17,)): 2321,
    ('md5', (25,)): 2311, ('mod', (20, 20)): 947, ('mod', (21, 21)): 940, ('mod', (23, 23)): 941,
    ('mod', (1700, 1700)): 1728, ('obj_description', (26,)): 1348,
    ('obj_description', (26, 19)): 1215, ('octet_length', (17,)): 720,
    ('octet_length', (25,)): 1374, ('overlay', (25, 25, 23)): 1405,
    ('overlay', (25, 25, 23, 23)): 1404, ('pg_advisory_lock', (20,)): 2880,
    ('pg_advisory_lock', (23, 23)): 2886, ('pg_advisory_unlock', (20,)): 2884,
    ('pg_advisory_unlock', (23, 23)): 2890, ('pg_get_constraintdef', (26,)): 1387,
    ('pg_get_constraintdef', (26, 16)): 2508, ('pg_get_expr', (194, 26)): 1716,
    ('pg_get_expr', (194, 26, 16)): 2509, ('pg_get_indexdef', (26,)): 1643,
    ('pg_get_indexdef', (26, 23, 16)): 2507, ('pg_get_ruledef', (26,)): 1573,
    ('pg_get_ruledef', (26, 16)): 2504, ('pg_get_triggerdef', (26,)): 1662,
    ('pg_get_triggerdef', (26, 16)): 2730, ('pg_get_viewdef', (25,)): 1640,
    ('pg_get_viewdef', (25, 16)): 2505, ('pg_get_viewdef', (26,)): 1641,
    ('pg_get_viewdef', (26, 16)): 2506, ('pg_get_viewdef', (26, 23)): 3159,
    ('pg_size_pretty', (20,)): 2288, ('pg_size_pretty', (1700,)): 3166,
    ('pg_try_advisory_lock', (20,)): 2882, ('pg_try_advisory_lock', (23, 23)): 2888,
    ('position', (25, 25)): 849, ('pow', (701, 701)): 1346, ('pow', (1700, 1700)): 1738,
    ('power', (701, 701)): 1368, ('power', (1700, 1700)): 2169, ('quote_literal', (25,)): 1283,
    ('quote_nullable', (25,)): 1289, ('regexp_count', (25, 25)): 6254,
    ('regexp_like', (25, 25)): 6263, ('regexp_like', (25, 25, 25)): 6264,
    ('regexp_match', (25, 25)): 3396, ('regexp_match', (25, 25, 25)): 3397,
    ('regexp_matches', (25, 25)): 2763, ('regexp_matches', (25, 25, 25)): 2764,
    ('regexp_replace', (25, 25, 25)): 2284, ('regexp_replace', (25, 25, 25, 25)): 2285,
    ('regexp_split_to_array', (25, 25)): 2767, ('regexp_split_to_array', (25, 25, 25)): 2768,
    ('regexp_split_to_table', (25, 25)): 2765, ('regexp_split_to_table', (25, 25, 25)): 2766,
    ('regexp_substr', (25, 25)): 6265, ('regexp_substr', (25, 25, 23)): 6266,
    ('regexp_substr', (25, 25, 23, 23)): 6267, ('round', (701,)): 1342, ('round', (1700,)): 1708,
    ('round', (1700, 23)): 1707, ('rpad', (25, 23)): 880, ('rpad', (25, 23, 25)): 874,
    ('rtrim', (25,)): 882, ('rtrim', (25, 25)): 876, ('setval', (2205, 20)): 1576,
    ('setval', (2205, 20, 16)): 1765, ('sign', (701,)): 2310, ('sign', (1700,)): 1706,
    ('sqrt', (701,)): 1344, ('sqrt', (1700,)): 1730, ('string_to_array', (25, 25)): 394,
    ('string_to_array', (25, 25, 25)): 376, ('substr', (17, 23)): 2086,
    ('substr', (17, 23, 23)): 2085, ('substr', (25, 23)): 883, ('substr', (25, 23, 23)): 877,
    ('substring', (17, 23)): 2013, ('substring', (17, 23, 23)): 2012, ('substring', (25, 23)): 937,
    ('substring', (25, 23, 23)): 936, ('substring', (25, 25)): 2073,
    ('timezone', (25, 1114)): 2069, ('timezone', (25, 1184)): 1159, ('timezone', (25, 1266)): 2037,
    ('timezone', (1186, 1114)): 2070, ('timezone', (1186, 1184)): 1026,
    ('to_char', (20, 25)): 1774, ('to_char', (23, 25)): 1773, ('to_char', (701, 25)): 1776,
    ('to_char', (1114, 25)): 2049, ('to_char', (1184, 25)): 1770, ('to_char', (1186, 25)): 1768,
    ('to_char', (1700, 25)): 1772, ('to_hex', (20,)): 2090, ('to_hex', (23,)): 2089,
    ('to_timestamp', (25, 25)): 1778, ('to_timestamp', (701,)): 1158, ('trunc', (701,)): 1343,
    ('trunc', (1700,)): 1710, ('trunc', (1700, 23)): 1709, ('unnest', (2277,)): 2331,
    ('upper', (25,)): 871, ('width_bucket', (701, 701, 701, 23)): 320,
    ('width_bucket', (1700, 1700, 1700, 23)): 2170,
}
for (_name, _), _oid in PG_PROC_SIGNATURES.items():
    BY_OID.setdefault(_oid, _name)  # NB: regproc prints the name of any overload's OID

# pg_catalog names PostgreSQL 15 has several functions (or aggregates) under (`select proname
# from pg_proc ... having count(*) > 1`): `'lower'::regproc` is 42725 there, whatever
# overloads Cumulo registers.
OVERLOADED: frozenset[str] = frozenset("""
    abbrev abs age area array_agg array_fill array_position array_to_json array_to_string avg
    bit bit_and bit_count bit_length bit_or bit_xor bool box bpchar btrim ceil ceiling center
    char char_length character_length circle count cume_dist current_setting date date_bin
    date_part date_trunc datemultirange daterange dense_rank enum_range exp extract float4
    float8 floor format gcd generate_series generate_subscripts get_bit gin_extract_tsquery
    gin_extract_tsvector gin_tsquery_consistent ginarrayextract gtsquery_consistent
    gtsvector_consistent has_any_column_privilege has_column_privilege has_database_privilege
    has_foreign_data_wrapper_privilege has_function_privilege has_language_privilege
    has_parameter_privilege has_schema_privilege has_sequence_privilege has_server_privilege
    has_table_privilege has_tablespace_privilege has_type_privilege in_range int2 int4
    int4multirange int4range int8 int8multirange int8range interval isempty isfinite
    ishorizontal isparallel isperp isvertical json_build_array json_build_object json_object
    json_to_tsvector jsonb_build_array jsonb_build_object jsonb_delete jsonb_object
    jsonb_to_tsvector lag lcm lead length like like_escape ln lo_get lo_import log log10 lower
    lower_inc lower_inf lpad lseg ltrim make_timestamptz max md5 min mod money name notlike
    npoints numeric nummultirange numrange obj_description octet_length overlaps overlay
    percent_rank percentile_cont percentile_disc pg_advisory_lock pg_advisory_lock_shared
    pg_advisory_unlock pg_advisory_unlock_shared pg_advisory_xact_lock
    pg_advisory_xact_lock_shared pg_copy_logical_replication_slot
    pg_copy_physical_replication_slot pg_current_logfile pg_database_size pg_get_constraintdef
    pg_get_expr pg_get_indexdef pg_get_ruledef pg_get_triggerdef pg_get_viewdef pg_has_role
    pg_logical_emit_message pg_ls_dir pg_ls_tmpdir pg_read_binary_file pg_read_file
    pg_relation_size pg_size_pretty pg_stat_file pg_tablespace_size pg_try_advisory_lock
    pg_try_advisory_lock_shared pg_try_advisory_xact_lock pg_try_advisory_xact_lock_shared
    phraseto_tsquery plainto_tsquery point polygon position pow power quote_literal
    quote_nullable range_agg range_intersect_agg range_merge rank regexp_count regexp_instr
    regexp_like regexp_match regexp_matches regexp_replace regexp_split_to_array
    regexp_split_to_table regexp_substr round row_security_active row_to_json rpad rtrim
    set_bit set_masklen setval setweight sign similar_to_escape sqrt stddev stddev_pop
    stddev_samp string_agg string_to_array string_to_table substr substring sum text time
    timestamp timestamptz timetz timezone to_ascii to_char to_hex to_timestamp to_tsquery
    to_tsvector trunc ts_debug ts_delete ts_headline ts_parse ts_rank ts_rank_cd ts_rewrite
    ts_stat ts_token_type tsmultirange tsquery_phrase tsrange tstzmultirange tstzrange unnest
    upper upper_inc upper_inf var_pop var_samp varchar variance websearch_to_tsquery
    width_bucket xpath xpath_exists
""".split())
