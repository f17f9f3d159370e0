"""PostgreSQL 15's pg_proc OIDs for the functions Cumulo names: I/O functions and its SQL functions.

Recorded from a throwaway PostgreSQL 15.18 (`min(oid)` per `proname` in
pg_catalog), so `'pg_catalog.array_in'::regproc` and pg_type.typinput agree
with what JDBC caches. Names PostgreSQL lacks (or further overloads) get
stable synthetic OIDs below FIRST_USER_OID.
"""

from __future__ import annotations

import zlib

PG_PROC_OIDS: dict[str, int] = {
    "aclitemin": 1031, "aclitemout": 1032, "any_in": 2294, "any_out": 2295, "anyarray_in": 2296,
    "anyarray_out": 2297, "anyarray_recv": 2502, "anyarray_send": 2503, "anyelement_in": 2312,
    "anyelement_out": 2313, "array_in": 750, "array_out": 751, "array_recv": 2400,
    "array_send": 2401, "array_subscript_handler": 6179, "array_typanalyze": 3816, "bit_in": 1564,
    "bit_out": 1565, "bit_recv": 2456, "bit_send": 2457, "bittypmodin": 2919,
    "bittypmodout": 2920, "boolin": 1242, "boolout": 1243, "boolrecv": 2436, "boolsend": 2437,
    "bpcharin": 1044, "bpcharout": 1045, "bpcharrecv": 2430, "bpcharsend": 2431,
    "bpchartypmodin": 2913, "bpchartypmodout": 2914, "bthandler": 330, "byteain": 1244,
    "byteaout": 31, "bytearecv": 2412, "byteasend": 2413, "cash_in": 886, "cash_out": 887,
    "cash_recv": 2492, "cash_send": 2493, "charin": 1245, "charout": 33, "charrecv": 2434,
    "charsend": 2435, "cidin": 52, "cidout": 53, "cidrecv": 2442, "cidsend": 2443,
    "cstring_in": 2292, "cstring_out": 2293, "cstring_recv": 2500, "cstring_send": 2501,
    "date_in": 1084, "date_out": 1085, "date_recv": 2468, "date_send": 2469, "float4in": 200,
    "float4out": 201, "float4recv": 2424, "float4send": 2425, "float8in": 214, "float8out": 215,
    "float8recv": 2426, "float8send": 2427, "hashhandler": 331, "heap_tableam_handler": 3,
    "inet_in": 910, "inet_out": 911, "inet_recv": 2496, "inet_send": 2497, "int2in": 38,
    "int2out": 39, "int2recv": 2404, "int2send": 2405, "int2vectorin": 40, "int2vectorout": 41,
    "int2vectorrecv": 2410, "int2vectorsend": 2411, "int4in": 42, "int4out": 43,
    "int4range_canonical": 3914, "int4range_subdiff": 3922, "int4recv": 2406, "int4send": 2407,
    "int8in": 460, "int8out": 461, "int8recv": 2408, "int8send": 2409, "interval_in": 1160,
    "interval_out": 1161, "interval_recv": 2478, "interval_send": 2479, "intervaltypmodin": 2903,
    "intervaltypmodout": 2904, "json_in": 321, "json_out": 322, "json_recv": 323,
    "json_send": 324, "jsonb_in": 3806, "jsonb_out": 3804, "jsonb_recv": 3805, "jsonb_send": 3803,
    "jsonb_subscript_handler": 6098, "namein": 34, "nameout": 35, "namerecv": 2422,
    "namesend": 2423, "numeric_in": 1701, "numeric_out": 1702, "numeric_recv": 2460,
    "numeric_send": 2461, "numerictypmodin": 2917, "numerictypmodout": 2918, "oidin": 1798,
    "oidout": 1799, "oidrecv": 2418, "oidsend": 2419, "oidvectorin": 54, "oidvectorout": 55,
    "oidvectorrecv": 2420, "oidvectorsend": 2421, "pg_lsn_in": 3229, "pg_lsn_out": 3230,
    "pg_lsn_recv": 3238, "pg_lsn_send": 3239, "pg_node_tree_in": 195, "pg_node_tree_out": 196,
    "pg_node_tree_recv": 197, "pg_node_tree_send": 198, "point_in": 117, "point_out": 118,
    "point_recv": 2428, "point_send": 2429, "range_in": 3834, "range_out": 3835,
    "range_recv": 3836, "range_send": 3837, "range_typanalyze": 3916,
    "raw_array_subscript_handler": 6180, "record_in": 2290, "record_out": 2291,
    "record_recv": 2402, "record_send": 2403, "regclassin": 2218, "regclassout": 2219,
    "regclassrecv": 2452, "regclasssend": 2453, "regconfigin": 3736, "regconfigout": 3737,
    "regconfigrecv": 3738, "regconfigsend": 3739, "regnamespacein": 4084, "regnamespaceout": 4085,
    "regnamespacerecv": 4087, "regnamespacesend": 4088, "regoperin": 2214, "regoperout": 2215,
    "regoperrecv": 2448, "regopersend": 2449, "regprocedurein": 2212, "regprocedureout": 2213,
    "regprocedurerecv": 2446, "regproceduresend": 2447, "regprocin": 44, "regprocout": 45,
    "regprocrecv": 2444, "regprocsend": 2445, "regrolein": 4098, "regroleout": 4092,
    "regrolerecv": 4094, "regrolesend": 4095, "regtypein": 2220, "regtypeout": 2221,
    "regtyperecv": 2454, "regtypesend": 2455, "textin": 46, "textout": 47, "textrecv": 2414,
    "textsend": 2415, "tidin": 48, "tidout": 49, "tidrecv": 2438, "tidsend": 2439,
    "time_in": 1143, "time_out": 1144, "time_recv": 2470, "time_send": 2471, "timestamp_in": 1312,
    "timestamp_out": 1313, "timestamp_recv": 2474, "timestamp_send": 2475,
    "timestamptypmodin": 2905, "timestamptypmodout": 2906, "timestamptz_in": 1150,
    "timestamptz_out": 1151, "timestamptz_recv": 2476, "timestamptz_send": 2477,
    "timestamptztypmodin": 2907, "timestamptztypmodout": 2908, "timetypmodin": 2909,
    "timetypmodout": 2910, "timetz_in": 1350, "timetz_out": 1351, "timetz_recv": 2472,
    "timetz_send": 2473, "timetztypmodin": 2911, "timetztypmodout": 2912, "trigger_in": 2300,
    "trigger_out": 2301, "txid_snapshot_in": 2939, "txid_snapshot_out": 2940,
    "txid_snapshot_recv": 2941, "txid_snapshot_send": 2942, "unknownin": 109, "unknownout": 110,
    "unknownrecv": 2416, "unknownsend": 2417, "uuid_in": 2952, "uuid_out": 2953,
    "uuid_recv": 2961, "uuid_send": 2962, "varbit_in": 1579, "varbit_out": 1580,
    "varbit_recv": 2458, "varbit_send": 2459, "varbittypmodin": 2902, "varbittypmodout": 2921,
    "varcharin": 1046, "varcharout": 1047, "varcharrecv": 2432, "varcharsend": 2433,
    "varchartypmodin": 2915, "varchartypmodout": 2916, "void_in": 2298, "void_out": 2299,
    "void_recv": 3120, "void_send": 3121, "xidin": 50, "xidout": 51, "xidrecv": 2440,
    "xidsend": 2441, "xml_in": 2893, "xml_out": 2894, "xml_recv": 2898, "xml_send": 2899,
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
