"""Built-in types, access methods, collations and operator classes: pg_type, pg_am, pg_range ...

The per-type storage facts (typbyval, typalign, I/O function names, ...) were
recorded from a throwaway PostgreSQL 15.18 (`pg_type` for every OID in
`pgtypes.oids`), so JDBC's TypeInfoCache and asyncpg's introspection see
PostgreSQL's own answers. Relations' composite row types come from
rowtypes.py. regproc columns hold `RegOid`s: they compare as OIDs and print as
function names, as in PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from ...pgtypes import oids as T
from ..catalog import model as M
from ..expr import usertypes
from ..expr.regcast import RegOid
from .accessmethods import INDEX_METHODS, installed
from .icucollations import predefined as icu_predefined
from .icucollations import version as icu_version
from .procoids import proc_oid
from .registry import pg_relation

_PG_TYPES = """
16 t b t , - boolin boolout boolrecv boolsend - - - c p 0
17 f b f , - byteain byteaout bytearecv byteasend - - - i x 0
18 t b f , - charin charout charrecv charsend - - - c p 0
19 f b f , raw_array_subscript_handler namein nameout namerecv namesend - - - c p 950
20 t b f , - int8in int8out int8recv int8send - - - d p 0
21 t b f , - int2in int2out int2recv int2send - - - s p 0
22 f b f , array_subscript_handler int2vectorin int2vectorout int2vectorrecv int2vectorsend - - - i p 0
23 t b f , - int4in int4out int4recv int4send - - - i p 0
24 t b f , - regprocin regprocout regprocrecv regprocsend - - - i p 0
25 f b t , - textin textout textrecv textsend - - - i x 100
26 t b t , - oidin oidout oidrecv oidsend - - - i p 0
27 f b f , - tidin tidout tidrecv tidsend - - - s p 0
28 t b f , - xidin xidout xidrecv xidsend - - - i p 0
29 t b f , - cidin cidout cidrecv cidsend - - - i p 0
30 f b f , array_subscript_handler oidvectorin oidvectorout oidvectorrecv oidvectorsend - - - i p 0
114 f b f , - json_in json_out json_recv json_send - - - i x 0
142 f b f , - xml_in xml_out xml_recv xml_send - - - i x 0
143 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
194 f b f , - pg_node_tree_in pg_node_tree_out pg_node_tree_recv pg_node_tree_send - - - i x 100
199 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
600 f b f , raw_array_subscript_handler point_in point_out point_recv point_send - - - d p 0
700 t b f , - float4in float4out float4recv float4send - - - i p 0
701 t b t , - float8in float8out float8recv float8send - - - d p 0
705 f p f , - unknownin unknownout unknownrecv unknownsend - - - c p 0
790 t b f , - cash_in cash_out cash_recv cash_send - - - d p 0
791 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
650 f b f , - cidr_in cidr_out cidr_recv cidr_send - - - i m 0
651 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
774 f b f , - macaddr8_in macaddr8_out macaddr8_recv macaddr8_send - - - i p 0
775 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
829 f b f , - macaddr_in macaddr_out macaddr_recv macaddr_send - - - i p 0
869 f b t , - inet_in inet_out inet_recv inet_send - - - i m 0
1040 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1000 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1001 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1002 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1003 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 950
1005 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1006 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1007 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1008 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1009 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 100
1010 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1011 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1012 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1013 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1014 f b f , array_subscript_handler array_in array_out array_recv array_send bpchartypmodin bpchartypmodout array_typanalyze i x 100
1015 f b f , array_subscript_handler array_in array_out array_recv array_send varchartypmodin varchartypmodout array_typanalyze i x 100
1016 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1017 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1021 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1022 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1028 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1033 f b f , - aclitemin aclitemout - - - - - i p 0
1034 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1041 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1042 f b f , - bpcharin bpcharout bpcharrecv bpcharsend bpchartypmodin bpchartypmodout - i x 100
1043 f b f , - varcharin varcharout varcharrecv varcharsend varchartypmodin varchartypmodout - i x 100
1082 t b f , - date_in date_out date_recv date_send - - - i p 0
1083 t b f , - time_in time_out time_recv time_send timetypmodin timetypmodout - d p 0
1114 t b f , - timestamp_in timestamp_out timestamp_recv timestamp_send timestamptypmodin timestamptypmodout - d p 0
1115 f b f , array_subscript_handler array_in array_out array_recv array_send timestamptypmodin timestamptypmodout array_typanalyze d x 0
1182 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1183 f b f , array_subscript_handler array_in array_out array_recv array_send timetypmodin timetypmodout array_typanalyze d x 0
1184 t b t , - timestamptz_in timestamptz_out timestamptz_recv timestamptz_send timestamptztypmodin timestamptztypmodout - d p 0
1185 f b f , array_subscript_handler array_in array_out array_recv array_send timestamptztypmodin timestamptztypmodout array_typanalyze d x 0
1186 f b t , - interval_in interval_out interval_recv interval_send intervaltypmodin intervaltypmodout - d p 0
1187 f b f , array_subscript_handler array_in array_out array_recv array_send intervaltypmodin intervaltypmodout array_typanalyze d x 0
1231 f b f , array_subscript_handler array_in array_out array_recv array_send numerictypmodin numerictypmodout array_typanalyze i x 0
1263 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
1266 f b f , - timetz_in timetz_out timetz_recv timetz_send timetztypmodin timetztypmodout - d p 0
1270 f b f , array_subscript_handler array_in array_out array_recv array_send timetztypmodin timetztypmodout array_typanalyze d x 0
1560 f b f , - bit_in bit_out bit_recv bit_send bittypmodin bittypmodout - i x 0
1561 f b f , array_subscript_handler array_in array_out array_recv array_send bittypmodin bittypmodout array_typanalyze i x 0
1562 f b t , - varbit_in varbit_out varbit_recv varbit_send varbittypmodin varbittypmodout - i x 0
1563 f b f , array_subscript_handler array_in array_out array_recv array_send varbittypmodin varbittypmodout array_typanalyze i x 0
1700 f b f , - numeric_in numeric_out numeric_recv numeric_send numerictypmodin numerictypmodout - i m 0
2202 t b f , - regprocedurein regprocedureout regprocedurerecv regproceduresend - - - i p 0
2203 t b f , - regoperin regoperout regoperrecv regopersend - - - i p 0
2204 t b f , - regoperatorin regoperatorout regoperatorrecv regoperatorsend - - - i p 0
2205 t b f , - regclassin regclassout regclassrecv regclasssend - - - i p 0
2206 t b f , - regtypein regtypeout regtyperecv regtypesend - - - i p 0
2207 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
2208 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
2209 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
2210 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
2211 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
2249 f p f , - record_in record_out record_recv record_send - - - d x 0
2275 f p f , - cstring_in cstring_out cstring_recv cstring_send - - - c p 0
2276 t p f , - any_in any_out - - - - - i p 0
2277 f p f , - anyarray_in anyarray_out anyarray_recv anyarray_send - - - d x 0
2278 t p f , - void_in void_out void_recv void_send - - - i p 0
2279 t p f , - trigger_in trigger_out - - - - - i p 0
2283 t p f , - anyelement_in anyelement_out - - - - - i p 0
2776 t p f , - anynonarray_in anynonarray_out - - - - - i p 0
3831 f p f , - anyrange_in anyrange_out - - - - - d x 0
4537 f p f , - anymultirange_in anymultirange_out - - - - - d x 0
5077 t p f , - anycompatible_in anycompatible_out - - - - - i p 0
5078 f p f , - anycompatiblearray_in anycompatiblearray_out anycompatiblearray_recv anycompatiblearray_send - - - d x 0
2287 f p f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
2949 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1790 f b f , - textin textout textrecv textsend - - - i x 0
2201 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
2950 f b f , - uuid_in uuid_out uuid_recv uuid_send - - - c p 0
2951 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
2970 f b f , - txid_snapshot_in txid_snapshot_out txid_snapshot_recv txid_snapshot_send - - - d x 0
3220 t b f , - pg_lsn_in pg_lsn_out pg_lsn_recv pg_lsn_send - - - d p 0
3221 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
3614 f b f , - tsvectorin tsvectorout tsvectorrecv tsvectorsend - - ts_typanalyze i x 0
3615 f b f , - tsqueryin tsqueryout tsqueryrecv tsquerysend - - - i p 0
4072 f b f , - jsonpath_in jsonpath_out jsonpath_recv jsonpath_send - - - i x 0
4073 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3643 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3645 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3734 t b f , - regconfigin regconfigout regconfigrecv regconfigsend - - - i p 0
4191 t b f , - regcollationin regcollationout regcollationrecv regcollationsend - - - i p 0
4192 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
5038 f b f , - pg_snapshot_in pg_snapshot_out pg_snapshot_recv pg_snapshot_send - - - d x 0
5039 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
5069 t b f , - xid8in xid8out xid8recv xid8send - - - d p 0
271 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
3735 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3802 f b f , jsonb_subscript_handler jsonb_in jsonb_out jsonb_recv jsonb_send - - - i x 0
3807 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3904 f r f , - range_in range_out range_recv range_send - - range_typanalyze i x 0
3905 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3906 f r f , - range_in range_out range_recv range_send - - range_typanalyze i x 0
3907 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3908 f r f , - range_in range_out range_recv range_send - - range_typanalyze d x 0
3909 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
3910 f r f , - range_in range_out range_recv range_send - - range_typanalyze d x 0
3911 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
3912 f r f , - range_in range_out range_recv range_send - - range_typanalyze i x 0
3913 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
3926 f r f , - range_in range_out range_recv range_send - - range_typanalyze d x 0
3927 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
601 f b f , raw_array_subscript_handler lseg_in lseg_out lseg_recv lseg_send - - - d p 0
602 f b f , - path_in path_out path_recv path_send - - - d x 0
603 f b f ; raw_array_subscript_handler box_in box_out box_recv box_send - - - d p 0
604 f b f , - poly_in poly_out poly_recv poly_send - - - d x 0
628 f b f , raw_array_subscript_handler line_in line_out line_recv line_send - - - d p 0
629 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
718 f b f , - circle_in circle_out circle_recv circle_send - - - d p 0
719 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1018 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1019 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1020 f b f ; array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
1027 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
4451 f m f , - multirange_in multirange_out multirange_recv multirange_send - - multirange_typanalyze i x 0
4532 f m f , - multirange_in multirange_out multirange_recv multirange_send - - multirange_typanalyze i x 0
4533 f m f , - multirange_in multirange_out multirange_recv multirange_send - - multirange_typanalyze d x 0
4534 f m f , - multirange_in multirange_out multirange_recv multirange_send - - multirange_typanalyze d x 0
4535 f m f , - multirange_in multirange_out multirange_recv multirange_send - - multirange_typanalyze i x 0
4536 f m f , - multirange_in multirange_out multirange_recv multirange_send - - multirange_typanalyze d x 0
6150 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
6151 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
6152 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
6153 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
6155 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
6157 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze d x 0
4089 t b f , - regnamespacein regnamespaceout regnamespacerecv regnamespacesend - - - i p 0
4090 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
4096 t b f , - regrolein regroleout regrolerecv regrolesend - - - i p 0
4097 f b f , array_subscript_handler array_in array_out array_recv array_send - - array_typanalyze i x 0
"""


# oid -> (typbyval, typtype, typispreferred, typdelim, typsubscript, typinput, typoutput,
#         typreceive, typsend, typmodin, typmodout, typanalyze, typalign, typstorage, typcollation)
FACTS: dict[int, tuple[Any, ...]] = {}

# NB: pg_type and pg_range list more than the built-in types: rowtypes.py (the relations' row
# types) and usertypes.py (CREATE TYPE) sit above this module (they need `regproc` from here)
# and append their row functions to these when imported, in that order (the package imports
# them both).
TYPE_ROW_SOURCES: list[Callable[[M.CatalogSnapshot], Iterable[tuple[Any, ...]]]] = []
RANGE_ROW_SOURCES: list[Callable[[M.CatalogSnapshot], Iterable[tuple[Any, ...]]]] = []
for _line in _PG_TYPES.strip().splitlines():
    _f = _line.split()
    FACTS[int(_f[0])] = (
        _f[1] == "t", _f[2], _f[3] == "t", _f[4], *_f[5:15], int(_f[15])
    )


# int2vector and oidvector are arrays to PostgreSQL (typelem set) without being "_" array types.
# name is likewise a fixed-length array of "char" to PostgreSQL.
# typelem of the types subscripting reads as fixed-length arrays (raw_array_subscript_handler):
# the vectors, name, and the geometric types made of float8s or points
VECTOR_ELEMENTS = {T.INT2VECTOR: T.INT2, T.OIDVECTOR: T.OID, T.NAME: T.CHAR, T.POINT: T.FLOAT8,
                   601: T.POINT, 603: T.POINT, 628: T.FLOAT8}


def type_storage(oid: int) -> tuple[int, bool, str, str]:
    """Returns (typlen, typbyval, typalign, typstorage) for pg_attribute's copies of them."""
    info = T.TYPES.get(oid)
    facts = FACTS.get(oid)
    if info is None or facts is None:
        user = usertypes.by_oid(oid)
        if user is not None and user.kind == "e":  # NB: else pg_dump adds SET STORAGE
            return 4, True, "i", "p"
        if user is not None and user.kind == "d" and user.subtype != oid:
            return type_storage(user.subtype)
        return -1, False, "i", "x"
    return info.typlen, facts[0], facts[12], facts[13]


def regproc(name: str) -> RegOid:
    """Returns a regproc value: the function's OID, printing as its name ("-" for none)."""
    return RegOid(0, "-") if name == "-" else RegOid(proc_oid(name), name)


@pg_relation("pg_catalog", "pg_type")
def pg_type(ctx: Any) -> tuple[tuple[Any, ...], ...]:
    """One row per built-in type, then the relations' row types (rowtypes.py), then the types
    CREATE TYPE made (usertypes.py)."""
    return _type_rows() + tuple(r for rows in TYPE_ROW_SOURCES for r in rows(ctx.catalog))


def builtin_type_row(oid: int) -> tuple[Any, ...] | None:
    """A built-in type's pg_type row (None for others): domains copy their base type's."""
    return _rows_by_oid().get(oid)


@cache
def _rows_by_oid() -> dict[int, tuple[Any, ...]]:
    return {r[0]: r for r in _type_rows()}


@cache
def _type_rows() -> tuple[tuple[Any, ...], ...]:
    out = []
    for oid, info in T.TYPES.items():
        f = FACTS.get(oid)
        if f is None:
            continue
        (byval, typtype, preferred, delim, subscript, tin, tout, trecv, tsend, tmodin, tmodout,
         tanalyze, align, storage, collation) = f
        out.append((
            oid, info.name, M.PG_CATALOG_OID, M.BOOTSTRAP_SUPERUSER_OID, info.typlen, byval,
            typtype, info.category, preferred, True, delim, 0, regproc(subscript),
            VECTOR_ELEMENTS.get(oid, info.elem_oid), info.array_oid, regproc(tin), regproc(tout), regproc(trecv),
            regproc(tsend), regproc(tmodin), regproc(tmodout), regproc(tanalyze), align,
            storage, False, 0, -1, 0, collation, None, None, None,
        ))
    return tuple(out)


@pg_relation("pg_catalog", "pg_range")
def pg_range(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per built-in range type, as PostgreSQL 15 has them, then CREATE TYPE's."""
    return [(oid, sub, multi, 0, opc, regproc(canon), regproc(diff))
            for oid, sub, multi, opc, canon, diff in _RANGES] + [
        r for rows in RANGE_ROW_SOURCES for r in rows(ctx.catalog)]


# (range type, subtype, multirange type, subtype btree opclass, canonical, subdiff)
_RANGES = [
    (T.INT4RANGE, T.INT4, 4451, 1978, "int4range_canonical", "int4range_subdiff"),
    (T.NUMRANGE, T.NUMERIC, 4532, 3125, "-", "numrange_subdiff"),
    (T.TSRANGE, T.TIMESTAMP, 4533, 3128, "-", "tsrange_subdiff"),
    (T.TSTZRANGE, T.TIMESTAMPTZ, 4534, 3127, "-", "tstzrange_subdiff"),
    (T.DATERANGE, T.DATE, 4535, 3122, "daterange_canonical", "daterange_subdiff"),
    (T.INT8RANGE, T.INT8, 4536, 3124, "int8range_canonical", "int8range_subdiff"),
]


@pg_relation("pg_catalog", "pg_am")
def pg_am(ctx: Any) -> list[tuple[Any, ...]]:
    """The heap table access method and the index methods (`accessmethods`; an extension's
    once CREATE EXTENSION made it)."""
    return [(2, "heap", regproc("heap_tableam_handler"), "t"),
            *((m.oid, m.name, regproc(m.handler), "i") for m in INDEX_METHODS.values()
              if installed(m))]


@pg_relation("pg_catalog", "pg_collation")
def pg_collation(ctx: Any) -> list[tuple[Any, ...]]:
    """The default, C and POSIX collations, initdb's (ucs_basic, C.utf8, one per ICU
    locale: `icucollations`), and CREATE COLLATION's."""
    return [
        (100, "default", 11, 10, "d", True, -1, None, None, None, None),
        (950, "C", 11, 10, "c", True, -1, "C", "C", None, None),
        (951, "POSIX", 11, 10, "c", True, -1, "POSIX", "POSIX", None, None),
        (12340, "ucs_basic", 11, 10, "c", True, 6, "C", "C", None, None),
        (12341, "C.utf8", 11, 10, "c", True, 6, "C.utf8", "C.utf8", None, None),
        *((oid, name, 11, 10, "i", True, -1, None, None, loc, icu_version(loc))
          for name, (oid, loc) in icu_predefined().items()),
        *((c.oid, c.name, c.schema_oid, c.owner, c.provider, c.deterministic, c.encoding,
           c.collate, c.ctype, c.iculocale, c.version) for c in ctx.catalog.collations),
    ]


# Default btree operator classes, as PostgreSQL 15 numbers them: (oid, name, family, input type).
_OPCLASSES = [
    (1978, "int4_ops", 1976, 23), (1979, "int2_ops", 1976, 21), (1981, "oid_ops", 1989, 26),
    (3122, "date_ops", 434, 1082), (3123, "float8_ops", 1970, 701),
    (3124, "int8_ops", 1976, 20), (3125, "numeric_ops", 1988, 1700),
    (3126, "text_ops", 1994, 25), (3127, "timestamptz_ops", 434, 1184),
    (3128, "timestamp_ops", 434, 1114), (10000, "array_ops", 397, 2277),
    (10002, "bit_ops", 423, 1560), (10003, "bool_ops", 424, 16), (10004, "bpchar_ops", 426, 1042),
    (10006, "bytea_ops", 428, 17), (10007, "char_ops", 429, 18), (10012, "float4_ops", 1970, 700),
    (10015, "inet_ops", 1974, 869), (10022, "interval_ops", 1982, 1186),
    (10028, "name_ops", 1994, 19), (10032, "oidvector_ops", 1991, 30),
    (10034, "record_ops", 2994, 2249), (10038, "time_ops", 1996, 1083),
    (10041, "timetz_ops", 2000, 1266), (10043, "varbit_ops", 2002, 1562),
    (10047, "money_ops", 2099, 790), (10050, "tid_ops", 2789, 27), (10065, "uuid_ops", 2968, 2950),
    (10067, "pg_lsn_ops", 3253, 3220), (10088, "jsonb_ops", 4033, 3802),
]
OPCLASS_FOR_TYPE = {t: oid for oid, _, _, t in _OPCLASSES}
BTREE_OPCLASSES = _OPCLASSES
# The non-default btree classes an index key may name (see opclasses.py)
PATTERN_OPCLASSES = [
    (4217, "text_pattern_ops", 2095, T.TEXT), (4218, "varchar_pattern_ops", 2095, T.TEXT),
    (4219, "bpchar_pattern_ops", 2097, T.BPCHAR),
]
OPCLASS_FOR_TYPE.update({T.VARCHAR: 3126, T.NAME: 10028})


def opclass_of(type_oid: int) -> int:
    """Returns the default btree operator class OID for a column type (0 if none)."""
    if type_oid in T.ELEMENT_OF:
        return 10000
    return OPCLASS_FOR_TYPE.get(type_oid, 0)


# pg_opclass: operators.py (PostgreSQL 15's classes of every access method)


@pg_relation("pg_catalog", "pg_language")
def pg_language(ctx: Any) -> list[tuple[Any, ...]]:
    """The internal, c, sql and plpgsql languages."""
    return [
        (12, "internal", 10, False, False, 0, 0, 2246, None),
        (13, "c", 10, False, False, 0, 0, 2247, None),
        (14, "sql", 10, False, True, 0, 0, 2248, None),
        (13563, "plpgsql", 10, True, True, 13560, 13561, 13562, None),
    ]


# pg_operator: operators.py; pg_cast: casts.py
