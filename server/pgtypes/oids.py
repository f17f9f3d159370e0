"""PostgreSQL's built-in type OIDs and the per-type facts the wire, the SQL layer and pg_type share.

One row per supported type: (name, oid, array oid, typlen, typcategory, sql name).
The values are PostgreSQL 15's own (`pg_type`), so clients that cache OIDs work.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TypeInfo:
    name: str  # pg_type.typname
    oid: int
    array_oid: int
    typlen: int  # -1 varlena, -2 cstring
    category: str  # pg_type.typcategory
    sql_name: str  # what format_type prints
    elem_oid: int = 0  # for array types: the element type


BOOL = 16
BYTEA = 17
CHAR = 18  # "char"
NAME = 19
INT8 = 20
INT2 = 21
INT2VECTOR = 22
INT4 = 23
REGPROC = 24
TEXT = 25
OID = 26
TID = 27
XID = 28
CID = 29
OIDVECTOR = 30
JSON = 114
XML = 142
PG_NODE_TREE = 194
POINT = 600
FLOAT4 = 700
FLOAT8 = 701
UNKNOWN = 705
MONEY = 790
INET = 869
CIDR = 650
MACADDR = 829
MACADDR8 = 774
ACLITEM = 1033
BPCHAR = 1042
VARCHAR = 1043
DATE = 1082
TIME = 1083
TIMESTAMP = 1114
TIMESTAMPTZ = 1184
INTERVAL = 1186
TIMETZ = 1266
BIT = 1560
VARBIT = 1562
NUMERIC = 1700
REGPROCEDURE = 2202
REGOPER = 2203
REGOPERATOR = 2204
REGCLASS = 2205
REGTYPE = 2206
RECORD = 2249
CSTRING = 2275
ANY = 2276
ANYARRAY = 2277
VOID = 2278
TRIGGER = 2279
ANYELEMENT = 2283
UUID = 2950
TXID_SNAPSHOT = 2970
PG_LSN = 3220
REGCONFIG = 3734
JSONB = 3802
INT4RANGE = 3904
NUMRANGE = 3906
TSRANGE = 3908
TSTZRANGE = 3910
DATERANGE = 3912
INT8RANGE = 3926
REGNAMESPACE = 4089
REGROLE = 4096
REGCOLLATION = 4191
PG_SNAPSHOT = 5038
XID8 = 5069

_SCALARS = [
    # name, oid, array_oid, typlen, category, sql name
    ("bool", BOOL, 1000, 1, "B", "boolean"),
    ("bytea", BYTEA, 1001, -1, "U", "bytea"),
    ("char", CHAR, 1002, 1, "Z", '"char"'),
    ("name", NAME, 1003, 64, "S", "name"),
    ("int8", INT8, 1016, 8, "N", "bigint"),
    ("int2", INT2, 1005, 2, "N", "smallint"),
    ("int2vector", INT2VECTOR, 1006, -1, "A", "int2vector"),
    ("int4", INT4, 1007, 4, "N", "integer"),
    ("regproc", REGPROC, 1008, 4, "N", "regproc"),
    ("text", TEXT, 1009, -1, "S", "text"),
    ("oid", OID, 1028, 4, "N", "oid"),
    ("tid", TID, 1010, 6, "U", "tid"),
    ("xid", XID, 1011, 4, "U", "xid"),
    ("cid", CID, 1012, 4, "U", "cid"),
    ("oidvector", OIDVECTOR, 1013, -1, "A", "oidvector"),
    ("json", JSON, 199, -1, "U", "json"),
    ("xml", XML, 143, -1, "U", "xml"),
    ("pg_node_tree", PG_NODE_TREE, 0, -1, "Z", "pg_node_tree"),
    ("point", POINT, 1017, 16, "G", "point"),
    ("lseg", 601, 1018, 32, "G", "lseg"),
    ("path", 602, 1019, -1, "G", "path"),
    ("box", 603, 1020, 32, "G", "box"),
    ("polygon", 604, 1027, -1, "G", "polygon"),
    ("line", 628, 629, 24, "G", "line"),
    ("circle", 718, 719, 24, "G", "circle"),
    ("float4", FLOAT4, 1021, 4, "N", "real"),
    ("float8", FLOAT8, 1022, 8, "N", "double precision"),
    ("unknown", UNKNOWN, 0, -2, "X", "unknown"),
    ("money", MONEY, 791, 8, "N", "money"),
    ("inet", INET, 1041, -1, "I", "inet"),
    ("cidr", CIDR, 651, -1, "I", "cidr"),
    ("macaddr", MACADDR, 1040, 6, "U", "macaddr"),
    ("macaddr8", MACADDR8, 775, 8, "U", "macaddr8"),
    ("aclitem", ACLITEM, 1034, 12, "U", "aclitem"),
    ("bpchar", BPCHAR, 1014, -1, "S", "character"),
    ("varchar", VARCHAR, 1015, -1, "S", "character varying"),
    ("date", DATE, 1182, 4, "D", "date"),
    ("time", TIME, 1183, 8, "D", "time without time zone"),
    ("timestamp", TIMESTAMP, 1115, 8, "D", "timestamp without time zone"),
    ("timestamptz", TIMESTAMPTZ, 1185, 8, "D", "timestamp with time zone"),
    ("interval", INTERVAL, 1187, 16, "T", "interval"),
    ("timetz", TIMETZ, 1270, 12, "D", "time with time zone"),
    ("bit", BIT, 1561, -1, "V", "bit"),
    ("varbit", VARBIT, 1563, -1, "V", "bit varying"),
    ("numeric", NUMERIC, 1231, -1, "N", "numeric"),
    ("regprocedure", REGPROCEDURE, 2207, 4, "N", "regprocedure"),
    ("regoper", REGOPER, 2208, 4, "N", "regoper"),
    ("regoperator", REGOPERATOR, 2209, 4, "N", "regoperator"),
    ("regclass", REGCLASS, 2210, 4, "N", "regclass"),
    ("regtype", REGTYPE, 2211, 4, "N", "regtype"),
    ("record", RECORD, 2287, -1, "P", "record"),
    ("cstring", CSTRING, 1263, -2, "P", "cstring"),
    ("any", ANY, 0, 4, "P", '"any"'),
    ("anyarray", ANYARRAY, 0, -1, "P", "anyarray"),
    ("void", VOID, 0, 4, "P", "void"),
    ("trigger", TRIGGER, 0, 4, "P", "trigger"),
    ("anyelement", ANYELEMENT, 0, 4, "P", "anyelement"),
    # pseudo-types only pg_operator/pg_proc rows name (operand types of `||`, range operators)
    ("anynonarray", 2776, 0, 4, "P", "anynonarray"),
    ("anyrange", 3831, 0, -1, "P", "anyrange"),
    ("anymultirange", 4537, 0, -1, "P", "anymultirange"),
    ("anycompatible", 5077, 0, 4, "P", "anycompatible"),
    ("anycompatiblearray", 5078, 0, -1, "P", "anycompatiblearray"),
    ("refcursor", 1790, 2201, -1, "U", "refcursor"),  # NB: text's I/O (textin, textsend)
    ("uuid", UUID, 2951, 16, "U", "uuid"),
    ("txid_snapshot", TXID_SNAPSHOT, 2949, -1, "U", "txid_snapshot"),
    ("pg_lsn", PG_LSN, 3221, 8, "U", "pg_lsn"),
    ("regconfig", REGCONFIG, 3735, 4, "N", "regconfig"),
    ("tsvector", 3614, 3643, -1, "U", "tsvector"),
    ("tsquery", 3615, 3645, -1, "U", "tsquery"),
    ("jsonb", JSONB, 3807, -1, "U", "jsonb"),
    ("jsonpath", 4072, 4073, -1, "U", "jsonpath"),
    ("int4range", INT4RANGE, 3905, -1, "R", "int4range"),
    ("numrange", NUMRANGE, 3907, -1, "R", "numrange"),
    ("tsrange", TSRANGE, 3909, -1, "R", "tsrange"),
    ("tstzrange", TSTZRANGE, 3911, -1, "R", "tstzrange"),
    ("daterange", DATERANGE, 3913, -1, "R", "daterange"),
    ("int8range", INT8RANGE, 3927, -1, "R", "int8range"),
    ("int4multirange", 4451, 6150, -1, "R", "int4multirange"),
    ("nummultirange", 4532, 6151, -1, "R", "nummultirange"),
    ("tsmultirange", 4533, 6152, -1, "R", "tsmultirange"),
    ("tstzmultirange", 4534, 6153, -1, "R", "tstzmultirange"),
    ("datemultirange", 4535, 6155, -1, "R", "datemultirange"),
    ("int8multirange", 4536, 6157, -1, "R", "int8multirange"),
    ("regnamespace", REGNAMESPACE, 4090, 4, "N", "regnamespace"),
    ("regrole", REGROLE, 4097, 4, "N", "regrole"),
    ("regcollation", REGCOLLATION, 4192, 4, "N", "regcollation"),
    ("pg_snapshot", PG_SNAPSHOT, 5039, -1, "U", "pg_snapshot"),
    ("xid8", XID8, 271, 8, "U", "xid8"),
]

TYPES: dict[int, TypeInfo] = {}
BY_NAME: dict[str, TypeInfo] = {}
for _name, _oid, _arr, _len, _cat, _sql in _SCALARS:
    _info = TypeInfo(_name, _oid, _arr, _len, _cat, _sql)
    TYPES[_oid] = _info
    BY_NAME[_name] = _info
    if _arr:
        _ainfo = TypeInfo("_" + _name, _arr, 0, -1, "A", _sql + "[]", elem_oid=_oid)
        TYPES[_arr] = _ainfo
        BY_NAME[_ainfo.name] = _ainfo

ARRAY_OF: dict[int, int] = {t.oid: t.array_oid for t in TYPES.values() if t.array_oid}
ELEMENT_OF: dict[int, int] = {t.oid: t.elem_oid for t in TYPES.values() if t.elem_oid}
# CREATE DOMAIN type OID -> its base type's: a domain's values print and send as its base
# type's do (filled by sql.expr.usertypes; seen where a domain is an array's element, `d[]`)
DOMAIN_BASE: dict[int, int] = {}


def type_size(oid: int) -> int:
    """Returns RowDescription's data type size (pg_type.typlen) for an OID; -1 if unknown."""
    info = TYPES.get(oid)
    return info.typlen if info else -1
