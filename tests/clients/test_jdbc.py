"""The real PostgreSQL JDBC driver (Debian's pgJDBC) through the whole common list (issue 4).

pgJDBC runs in one JVM inside the test process (JPype; a JVM cannot be
restarted in a process, so it is started once and left to exit with it).
Most checks run against a throwaway PostgreSQL 15 and against `cumulo serve`
and compare what the driver saw, so the expectation is the oracle's answer,
not a value written down here: DatabaseMetaData (tables, columns, keys, the
imported/exported keys of a foreign key, indexes, types), every type of
`types_matrix.py` through PreparedStatement in text and in binary
(`prepareThreshold=1` makes the driver use named statements and, once it has
described them, binary results), batches with and without
`reWriteBatchedInserts`, generated keys, transactions and savepoints, a
40001 retry at REPEATABLE READ, SQLSTATEs, fetch in batches (portal
suspension), CopyManager, cancel, query timeouts, and SCRAM and md5 logins
over plain TCP and TLS (a server of the module's own that requires passwords).
"""

from __future__ import annotations

import os
import shutil
import threading
import time

import psycopg
import pytest

from tests.clients import pgjdbc
from tests.clients import types_matrix as TM
from tests.server_process import CumuloServer

JAR = pgjdbc.JAR

jpype = pytest.importorskip("jpype", reason="JPype1 is not installed (pip install JPype1)")
if not os.path.exists(JAR) or not shutil.which("java"):
    pytest.skip(f"needs {JAR} (apt-get install libpostgresql-jdbc-java) and java",
                allow_module_level=True)

TARGETS = ("pg15", "cumulo")


@pytest.fixture(scope="module")
def jvm():
    """The JVM with pgJDBC on its class path (started once per process)."""
    return pgjdbc.start().JPackage("java")


@pytest.fixture(scope="module")
def urls(jvm, cumulo_server, client_db, pg15):
    """JDBC URLs (without properties) of the module's database on both servers."""
    pg15.psql(f"create database {client_db} owner cumulo")
    out = {
        "cumulo": f"jdbc:postgresql://{cumulo_server.host}:{cumulo_server.port}/{client_db}"
                  "?user=cumulo",
        "pg15": f"jdbc:postgresql://{pg15.host}:{pg15.port}/{client_db}"
                f"?user=cumulo&password={pg15_password()}",
    }
    yield out
    pg15.psql(f"drop database if exists {client_db} with (force)")


def pg15_password() -> str:
    from tests.pg15 import PASSWORD

    return PASSWORD


def connect(jvm, url: str, **props: str):
    """Opens a JDBC connection to `url` with extra URL properties."""
    extra = "".join(f"&{k}={v}" for k, v in props.items())
    return jvm.sql.DriverManager.getConnection(url + extra)


def execute(conn, *sqls: str) -> None:
    st = conn.createStatement()
    try:
        for sql in sqls:
            st.execute(sql)
    finally:
        st.close()


def rows(rs, *cols: str) -> list[tuple]:
    """Reads a ResultSet to the end as tuples of Python strings (None for NULL)."""
    out = []
    while rs.next():
        out.append(tuple(_py(rs.getString(c)) for c in cols))
    rs.close()
    return out


def _py(v):
    return None if v is None else str(v)


def sqlstate(call) -> str:
    """Runs `call`, which must fail with an SQLException; returns its SQLSTATE."""
    with pytest.raises(jpype.JClass("java.sql.SQLException")) as e:
        call()
    return str(e.value.getSQLState())


def both(jvm, urls, fn, **props):
    """Runs fn(conn) against both servers; returns {target: result}."""
    out = {}
    for target in TARGETS:
        conn = connect(jvm, urls[target], **props)
        try:
            out[target] = fn(conn)
        finally:
            conn.close()
    return out


# -- DatabaseMetaData ----------------------------------------------------------------------

SCHEMA = (
    "create table if not exists md_parent (id integer primary key, code varchar(10) not null,"
    " unique (code))",
    "create table if not exists md_child (id bigint primary key, parent_id integer not null"
    " references md_parent (id), note text default 'n/a', amount numeric(10,2))",
    "create index if not exists md_child_parent on md_child (parent_id)",
)


@pytest.fixture(scope="module")
def md_schema(jvm, urls):
    both(jvm, urls, lambda c: execute(c, *SCHEMA))


def test_get_tables_and_columns(jvm, urls, md_schema):
    def probe(conn):
        meta = conn.getMetaData()
        tables = rows(meta.getTables(None, "public", "md_%", None),
                      "TABLE_SCHEM", "TABLE_NAME", "TABLE_TYPE")
        cols = rows(meta.getColumns(None, "public", "md_child", None),
                    "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS",
                    "NULLABLE", "COLUMN_DEF", "ORDINAL_POSITION", "IS_NULLABLE")
        return tables, cols

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"]
    tables, cols = got["cumulo"]
    assert [t[1] for t in tables if t[2] == "TABLE"] == ["md_child", "md_parent"]
    assert ("public", "md_child_parent", "INDEX") in tables
    assert [c[0] for c in cols] == ["id", "parent_id", "note", "amount"]


def test_primary_and_foreign_keys(jvm, urls, md_schema):
    fk_cols = ("PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "KEY_SEQ",
               "UPDATE_RULE", "DELETE_RULE", "FK_NAME", "PK_NAME", "DEFERRABILITY")

    def probe(conn):
        meta = conn.getMetaData()
        return (
            rows(meta.getPrimaryKeys(None, "public", "md_child"),
                 "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME"),
            rows(meta.getImportedKeys(None, "public", "md_child"), *fk_cols),
            rows(meta.getExportedKeys(None, "public", "md_parent"), *fk_cols),
        )

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"]
    pk, imported, exported = got["cumulo"]
    assert pk == [("md_child", "id", "1", "md_child_pkey")]
    # One foreign key of one column: one row each way, not a product of the two tables' columns.
    assert imported == exported and len(imported) == 1
    assert imported[0][:4] == ("md_parent", "id", "md_child", "parent_id")


def test_index_info(jvm, urls, md_schema):
    def probe(conn):
        meta = conn.getMetaData()
        return [rows(meta.getIndexInfo(None, "public", t, False, False),
                     "TABLE_NAME", "NON_UNIQUE", "INDEX_NAME", "TYPE", "ORDINAL_POSITION",
                     "COLUMN_NAME", "ASC_OR_DESC")
                for t in ("md_parent", "md_child")]

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"]
    names = {r[2] for r in got["cumulo"][0] + got["cumulo"][1]}
    assert names == {"md_parent_pkey", "md_parent_code_key", "md_child_pkey", "md_child_parent"}


def test_type_info(jvm, urls):
    """getTypeInfo lists every type the matrix uses, mapped to the same java.sql.Types."""
    wanted = {"bool", "int2", "int4", "int8", "numeric", "float4", "float8", "text", "varchar",
              "bpchar", "bytea", "date", "time", "timestamp", "timestamptz", "interval", "uuid",
              "json", "jsonb", "timetz", "name", "char", "_int4", "_text"}

    def probe(conn):
        got = rows(conn.getMetaData().getTypeInfo(), "TYPE_NAME", "DATA_TYPE", "PRECISION",
                   "NULLABLE", "CASE_SENSITIVE", "SEARCHABLE")
        return {r[0]: r for r in got if r[0] in wanted}

    got = both(jvm, urls, probe)
    assert set(got["cumulo"]) == wanted
    assert got["cumulo"] == got["pg15"]


def _all_rows(rs) -> list[tuple]:
    n = rs.getMetaData().getColumnCount()
    return rows(rs, *[str(rs.getMetaData().getColumnLabel(i)) for i in range(1, n + 1)])


def test_more_database_metadata(jvm, urls, md_schema):
    """The rest of what database tools (DBeaver, DataGrip) ask DatabaseMetaData for."""
    calls = {
        "getCatalogs": lambda m: m.getCatalogs(),
        "getTableTypes": lambda m: m.getTableTypes(),
        "getSchemas": lambda m: m.getSchemas(None, "pub%"),
        "getProcedures": lambda m: m.getProcedures(None, "pg_catalog", "pg_backend_pid"),
        "getFunctionColumns": lambda m: m.getFunctionColumns(None, "pg_catalog",
                                                             "pg_backend_pid", None),
        "getTablePrivileges": lambda m: m.getTablePrivileges(None, "public", "md_parent"),
        "getColumnPrivileges": lambda m: m.getColumnPrivileges(None, "public", "md_parent",
                                                               None),
        "getBestRowIdentifier": lambda m: m.getBestRowIdentifier(None, "public", "md_child", 0,
                                                                 True),
        "getVersionColumns": lambda m: m.getVersionColumns(None, "public", "md_parent"),
        "getClientInfoProperties": lambda m: m.getClientInfoProperties(),
    }

    def probe(conn):
        meta = conn.getMetaData()
        return {name: _all_rows(call(meta)) for name, call in calls.items()}

    got = both(jvm, urls, probe)
    diff = {k: (v, got["cumulo"][k]) for k, v in got["pg15"].items() if got["cumulo"][k] != v}
    assert not diff, f"(pg15, cumulo): {diff}"
    assert got["cumulo"]["getBestRowIdentifier"][0][1] == "id"


def test_function_and_partial_index_metadata(jvm, urls, md_schema):
    """getFunctions / getProcedures REMARKS come from pg_description; getIndexInfo of a partial
    expression index carries PostgreSQL's FILTER_CONDITION text and PAGES."""
    funcs = ("pg_backend_pid", "now", "version", "current_database", "gen_random_uuid",
             "pg_sleep", "md5", "abs")

    def probe(conn):
        execute(conn, "create table if not exists md_part (id int primary key, note text,"
                      " amount numeric(10,2))",
                "create index if not exists md_part_ix on md_part (lower(note), amount desc)"
                " where amount > 0")
        meta = conn.getMetaData()
        return {
            "functions": [_all_rows(meta.getFunctions(None, "pg_catalog", f)) for f in funcs],
            "procedures": [_all_rows(meta.getProcedures(None, "pg_catalog", f)) for f in funcs],
            "index": _all_rows(meta.getIndexInfo(None, "public", "md_part", False, False)),
            "cross": _all_rows(meta.getCrossReference(None, "public", "md_parent", None,
                                                      "public", "md_child")),
        }

    got = both(jvm, urls, probe)
    diff = {k: (v, got["cumulo"][k]) for k, v in got["pg15"].items() if got["cumulo"][k] != v}
    assert not diff, f"(pg15, cumulo): {diff}"
    remarks = {r[2]: r[3] for rs in got["cumulo"]["functions"] for r in rs}
    assert remarks["pg_backend_pid"] == "statistics: current backend PID"
    assert {r[-1] for r in got["cumulo"]["index"] if r[5] == "md_part_ix"} == {
        "(amount > (0)::numeric)"}


def test_row_types_of_tables_and_views(jvm, urls, md_schema):
    """Every table and view has a composite row type (and its array): getUDTs lists them as
    STRUCT, getTypeInfo lists their arrays, and pg_type has them in PostgreSQL's shape."""

    def probe(conn):
        execute(conn, "create or replace view md_v as select id, code from md_parent")
        meta = conn.getMetaData()
        types = rows(meta.getTypeInfo(), "TYPE_NAME", "DATA_TYPE", "PRECISION", "NULLABLE",
                     "CASE_SENSITIVE", "SEARCHABLE")
        st = conn.createStatement()
        shape = _all_rows(st.executeQuery(
            "select c.relname, t.typname, t.typtype, t.typcategory, t.typrelid = c.oid,"
            " a.typname, a.typelem = t.oid, t.typinput, a.typinput"
            " from pg_class c join pg_type t on t.oid = c.reltype"
            " join pg_type a on a.oid = t.typarray"
            " where c.relname in ('md_parent', 'md_child', 'md_v', 'pg_class', 'tables')"
            " order by 1"))
        st.close()
        return {
            "udts": _all_rows(meta.getUDTs(None, "public", "md_%", None)),
            "types": [r for r in types if r[0].lstrip("_") in ("md_parent", "md_child", "md_v")],
            "shape": shape,
        }

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"]
    assert {"md_child", "md_parent", "md_v"} <= {r[2] for r in got["cumulo"]["udts"]}
    assert len(got["cumulo"]["types"]) == 3 and len(got["cumulo"]["shape"]) == 5  # the arrays


# -- every type of the matrix, text and binary ---------------------------------------------


def _bind(jvm, conn, stmt, i: int, case: TM.TypeCase, simple: bool = False) -> None:
    """Binds the case's value with the setter a Java program would use for its type.

    NB: pgJDBC 42.5 cannot inline a setBytes parameter in simple mode (it leaves the `?` in
    the SQL, PostgreSQL 15 says 42601), so there bytea goes in as its text form."""
    jt, v = jpype.JPackage("java").time, case.value
    PGInterval = jpype.JClass("org.postgresql.util.PGInterval")
    PGobject = jpype.JClass("org.postgresql.util.PGobject")

    match case.sql_type:
        case "boolean":
            stmt.setBoolean(i, v)
        case "smallint":
            stmt.setShort(i, jpype.JShort(v))
        case "integer":
            stmt.setInt(i, v)
        case "bigint":
            stmt.setLong(i, v)
        case "real":
            stmt.setFloat(i, jpype.JFloat(v))
        case "double precision":
            stmt.setDouble(i, v)
        case "bytea" if not simple:
            stmt.setBytes(i, jpype.JArray(jpype.JByte)(v))
        case "date":
            stmt.setObject(i, jt.LocalDate.of(v.year, v.month, v.day))
        case "time":
            stmt.setObject(i, jt.LocalTime.of(v.hour, v.minute, v.second, v.microsecond * 1000))
        case "timestamp":
            stmt.setTimestamp(i, jvm.sql.Timestamp.valueOf(str(v)))
        case "timestamptz":
            stmt.setObject(i, jt.OffsetDateTime.of(v.year, v.month, v.day, v.hour, v.minute,
                                                   v.second, 0, jt.ZoneOffset.UTC))
        case "interval":
            stmt.setObject(i, PGInterval(case.text))
        case "uuid":
            stmt.setObject(i, jvm.util.UUID.fromString(str(v)))
        case "json" | "jsonb" | "timetz" | "bytea":
            obj = PGobject()
            obj.setType(case.sql_type)
            obj.setValue(case.text)
            stmt.setObject(i, obj)
        case "integer[]":
            stmt.setArray(i, conn.createArrayOf("int4", jpype.JArray(jvm.lang.Integer)(
                [None if x is None else jvm.lang.Integer(x) for x in v])))
        case "text[]":
            stmt.setArray(i, conn.createArrayOf("text", jpype.JArray(jvm.lang.String)(v)))
        case _ if case.sql_type.startswith("numeric"):
            stmt.setBigDecimal(i, jvm.math.BigDecimal(str(v)))
        case _:  # text, varchar, char(n), name, "char"
            stmt.setString(i, v)


def _private(rs, name: str):
    """A field of pgJDBC's PgResultSet that the JDBC API does not show."""
    f = jpype.JClass("org.postgresql.jdbc.PgResultSet").class_.getDeclaredField(name)
    f.setAccessible(True)
    return f.get(rs)


def _field_formats(rs) -> list[int]:
    """The wire format (0 text, 1 binary) of each column, read from pgJDBC's own Field objects."""
    return [int(x.getFormat()) for x in _private(rs, "fields")]


def _read(rs, cases) -> list[tuple]:
    """What a program sees of each column: getString, and getObject's class and text."""
    out = []
    for i, _case in enumerate(cases, start=2):
        obj = rs.getObject(i)
        if obj is not None and obj.getClass().isArray():
            obj = bytes(obj).hex()
        elif obj is not None and isinstance(obj, jpype.JClass("java.sql.Array")):
            obj = (str(obj.getBaseTypeName()), [_py(x) for x in obj.getArray()])
        else:
            obj = None if obj is None else (str(obj.getClass().getName()), str(obj))
        text = _py(rs.getString(i))
        if text is not None and text.startswith("[B@"):
            text = "[B@"  # pgJDBC's getString of a binary bytea is byte[].toString(): a hash
        out.append((text, obj))
    return out


MODES = {
    "text": {"prepareThreshold": "0"},
    "binary": {"prepareThreshold": "1"},
    "simple": {"preferQueryMode": "simple"},
}


@pytest.mark.parametrize("mode", list(MODES))
def test_every_type_round_trips(jvm, urls, mode):
    """Each matrix value goes in through a typed setter and comes back the same as from PG 15.

    In text mode the driver never names a statement (prepareThreshold=0); in binary mode it
    does from the first execution (prepareThreshold=1) and asks for binary results once it has
    described the statement, which the field formats of the last run prove. In simple mode
    (preferQueryMode=simple, as behind some poolers) it inlines every parameter as a literal.
    """
    cases = TM.CASES
    table = f"types_{mode}"
    marks = ", ".join("?" for _ in cases)
    props = MODES[mode]

    def probe(conn):
        execute(conn, f"drop table if exists {table}", TM.create_sql(table, cases))
        ins = conn.prepareStatement(f"insert into {table} (id, {TM.columns(cases)})"
                                    f" values (?, {marks})")
        for rid in (1, 2, 3):
            ins.setInt(1, rid)
            for i, case in enumerate(cases, start=2):
                _bind(jvm, conn, ins, i, case, simple=mode == "simple")
            assert ins.executeUpdate() == 1
        sel = conn.prepareStatement(f"select id, {TM.columns(cases)} from {table} where id = ?")
        seen, formats = [], []
        for rid in (1, 2, 3):
            sel.setInt(1, rid)
            rs = sel.executeQuery()
            assert rs.next()
            seen.append(_read(rs, cases))
            formats = _field_formats(rs)
            rs.close()
        txt = conn.createStatement().executeQuery(TM.text_sql(table, cases))
        texts = []
        while txt.next():
            texts.append(tuple(_py(txt.getString(i)) for i in range(1, len(cases) + 1)))
        return seen, formats, texts

    got = both(jvm, urls, probe, **props)
    for target in TARGETS:
        seen, formats, texts = got[target]
        for t in texts:  # what went in is what PostgreSQL prints for the matrix
            TM.check_text_row(t, cases)
        assert (1 in formats) == (mode == "binary"), (target, formats)
    for run, (pg, cu) in enumerate(zip(got["pg15"][0], got["cumulo"][0], strict=True)):
        diff = {c.column: (p, q) for c, p, q in zip(cases, pg, cu, strict=True) if p != q}
        assert not diff, f"run {run}: columns that differ (pg15, cumulo): {diff}"
    assert got["cumulo"][1] == got["pg15"][1]


def test_typed_getters(jvm, urls):
    """getTimestamp, getBigDecimal, getBytes, getArray and UUID/json objects of a binary read."""
    def probe(conn):
        st = conn.prepareStatement(
            "select timestamp '1999-12-31 23:59:59.5', 12345.678::numeric(10,3),"
            " '\\x00ff'::bytea, array[1,null,3]::int4[],"
            " 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '{\"a\": 1}'::jsonb, ?::int8")
        out = []
        for n in range(3):
            st.setLong(1, n)
            rs = st.executeQuery()
            assert rs.next()
            arr = rs.getArray(4)
            out.append((str(rs.getTimestamp(1)), str(rs.getBigDecimal(2)),
                        bytes(rs.getBytes(3)).hex(), str(arr.getBaseTypeName()),
                        [_py(x) for x in arr.getArray()], str(rs.getObject(5).getClass().getName()),
                        str(rs.getObject(6)), int(rs.getLong(7))))
            rs.close()
        return out

    got = both(jvm, urls, probe, prepareThreshold="1")
    assert got["cumulo"] == got["pg15"]
    assert got["cumulo"][2] == ("1999-12-31 23:59:59.5", "12345.678", "00ff", "int4",
                                ["1", None, "3"], "java.util.UUID", '{"a": 1}', 2)


def test_sqlxml(jvm, urls):
    """setSQLXML (sent as xml, checked as xml_in checks it: 2200N for bad content), then
    getSQLXML/getString of the value and of xpath's xml[]; later reads are binary."""
    def probe(conn):
        st = conn.prepareStatement("select x, xpath('//text()', xmlelement(name r, x))"
                                   " from (select ?::xml as x) s")
        out = []
        for text in ("<a>1</a>", "x<b/>", "<a", "<?xml version=\"1.0\"?><c>2</c>"):
            x = conn.createSQLXML()
            x.setString(text)
            st.setSQLXML(1, x)
            try:
                rs = st.executeQuery()
            except jpype.JClass("java.sql.SQLException") as e:
                out.append(str(e.getSQLState()))
                continue
            assert rs.next()
            out.append((str(rs.getSQLXML(1).getString()), str(rs.getString(1)),
                        _py(rs.getString(2))))
            rs.close()
        return out

    got = both(jvm, urls, probe, prepareThreshold="1")
    assert got["cumulo"] == got["pg15"]
    assert got["cumulo"][:3] == [("<a>1</a>", "<a>1</a>", "{1}"), ("x<b/>", "x<b/>", "{x}"), "2200N"]


def test_metadata_of_every_type(jvm, urls):
    """getColumns and ResultSetMetaData of the matrix table: typmods, sizes, Java classes."""
    cases = TM.CASES

    def probe(conn):
        execute(conn, "drop table if exists types_md", TM.create_sql("types_md", cases))
        cols = rows(conn.getMetaData().getColumns(None, "public", "types_md", None),
                    "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS",
                    "NUM_PREC_RADIX", "NULLABLE", "CHAR_OCTET_LENGTH", "IS_AUTOINCREMENT")
        rs = conn.createStatement().executeQuery("select * from types_md")
        md = rs.getMetaData()
        shown = [(str(md.getColumnName(i)), str(md.getColumnTypeName(i)),
                  int(md.getColumnType(i)),
                  int(md.getPrecision(i)), int(md.getScale(i)), int(md.isNullable(i)),
                  str(md.getColumnClassName(i)), int(md.getColumnDisplaySize(i)),
                  str(md.getTableName(i)), bool(md.isAutoIncrement(i)))
                 for i in range(1, md.getColumnCount() + 1)]
        rs.close()
        return cols, shown, sorted(r[0] for r in rows(conn.getMetaData().getSchemas(),
                                                      "TABLE_SCHEM"))

    got = both(jvm, urls, probe)
    for part, name in enumerate(("getColumns", "ResultSetMetaData", "getSchemas")):
        pg, cu = got["pg15"][part], got["cumulo"][part]
        diff = [(p, c) for p, c in zip(pg, cu, strict=False) if p != c]
        assert cu == pg, f"{name} (pg15, cumulo): {diff or (pg, cu)}"
    assert len(got["cumulo"][1]) == len(cases) + 1


# -- DML: batches, generated keys ----------------------------------------------------------


@pytest.mark.parametrize("rewrite", ["false", "true"])
def test_execute_batch(jvm, urls, rewrite):
    """addBatch/executeBatch: n Bind/Execute before one Sync, or one multi-row INSERT."""
    table = f"batch_{rewrite}"

    def probe(conn):
        execute(conn, f"drop table if exists {table}",
                f"create table {table} (id int primary key, name varchar(20), score numeric(6,2))")
        conn.setAutoCommit(False)
        ins = conn.prepareStatement(f"insert into {table} values (?, ?, ?)")
        for i in range(1, 251):
            ins.setInt(1, i)
            ins.setString(2, f"n{i}")
            ins.setBigDecimal(3, jvm.math.BigDecimal(f"{i}.25"))
            ins.addBatch()
        counts = [int(c) for c in ins.executeBatch()]
        conn.commit()
        conn.setAutoCommit(True)
        rs = conn.createStatement().executeQuery(
            f"select count(*), sum(id), sum(score), string_agg(name, ',' order by id) from {table}")
        assert rs.next()
        return counts, (rs.getLong(1), rs.getLong(2), str(rs.getBigDecimal(3)),
                        str(rs.getString(4)).count(","))

    got = both(jvm, urls, probe, reWriteBatchedInserts=rewrite)
    assert got["cumulo"] == got["pg15"]
    counts, summary = got["cumulo"]
    assert summary == (250, 250 * 251 // 2, "31437.50", 249)
    assert counts == ([1] * 250 if rewrite == "false" else [-2] * 250)  # -2: SUCCESS_NO_INFO


def test_generated_keys(jvm, urls):
    """RETURN_GENERATED_KEYS: the driver appends RETURNING * and reads the keys back."""
    def probe(conn):
        execute(conn, "drop table if exists genkeys",
                "create table genkeys (id serial primary key, name text, made date default"
                " '2024-01-02')")
        st = conn.prepareStatement("insert into genkeys (name) values (?)",
                                   jvm.sql.Statement.RETURN_GENERATED_KEYS)
        keys = []
        for name in ("a", "b"):
            st.setString(1, name)
            assert st.executeUpdate() == 1
            rs = st.getGeneratedKeys()
            keys += rows(rs, "id", "name", "made")
        named = conn.prepareStatement("insert into genkeys (name) values ('c')",
                                      jpype.JArray(jvm.lang.String)(["id"]))
        named.executeUpdate()
        keys += [tuple(r) for r in rows(named.getGeneratedKeys(), "id")]
        return keys

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"] == [("1", "a", "2024-01-02"), ("2", "b", "2024-01-02"),
                                            ("3",)]


# -- transactions ----------------------------------------------------------------------------


def _scalar(conn, sql: str):
    rs = conn.createStatement().executeQuery(sql)
    assert rs.next()
    v = rs.getObject(1)
    rs.close()
    return None if v is None else str(v)


def test_commit_rollback_savepoint(jvm, urls):
    def probe(conn):
        execute(conn, "drop table if exists tx", "create table tx (id int primary key)")
        conn.setAutoCommit(False)
        ins = conn.prepareStatement("insert into tx values (?)")
        ins.setInt(1, 1)
        ins.executeUpdate()
        conn.rollback()
        ins.setInt(1, 2)
        ins.executeUpdate()
        sp = conn.setSavepoint("sp")
        ins.setInt(1, 3)
        ins.executeUpdate()
        conn.rollback(sp)
        ins.setInt(1, 4)
        ins.executeUpdate()
        sp2 = conn.setSavepoint()  # unnamed: the driver names it JDBC_SAVEPOINT_n
        ins.setInt(1, 4)
        state = sqlstate(ins.executeUpdate)  # 23505 inside the block ...
        conn.rollback(sp2)  # ... and the block survives by rolling back to the savepoint
        conn.commit()
        conn.setAutoCommit(True)
        return state, _scalar(conn, "select string_agg(id::text, ',' order by id) from tx")

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"] == ("23505", "2,4")


def test_serialization_failure_is_retried(jvm, urls):
    """Two REPEATABLE READ transactions update one row: the later writer gets 40001, retries."""
    def probe(conn):
        execute(conn, "drop table if exists acct",
                "create table acct (id int primary key, bal int)", "insert into acct values (1, 0)")
        other = jvm.sql.DriverManager.getConnection(conn.getMetaData().getURL())
        try:
            states, attempts = [], 0
            for c in (conn, other):
                c.setAutoCommit(False)
                c.setTransactionIsolation(jvm.sql.Connection.TRANSACTION_REPEATABLE_READ)
            assert _scalar(other, "select bal from acct where id = 1") == "0"  # snapshot taken
            assert _scalar(conn, "select bal from acct where id = 1") == "0"
            execute(conn, "update acct set bal = bal + 1 where id = 1")
            conn.commit()
            while True:
                attempts += 1
                try:
                    execute(other, "update acct set bal = bal + 10 where id = 1")
                    other.commit()
                    break
                except jpype.JClass("java.sql.SQLException") as e:
                    states.append(str(e.getSQLState()))
                    other.rollback()
                    if attempts > 3:
                        raise
            conn.setAutoCommit(True)
            return states, attempts, _scalar(conn, "select bal from acct where id = 1")
        finally:
            other.close()

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"] == (["40001"], 2, "11")


def test_prepared_statement_survives_ddl(jvm, urls):
    """A named server-side statement whose table changed: the server says 0A000 (routine
    RevalidateCachedQuery) and the driver re-prepares it, so the program sees the new shape."""
    def probe(conn):
        execute(conn, "drop table if exists reshaped",
                "create table reshaped (id int primary key, a text)",
                "insert into reshaped values (1, 'x')")
        st = conn.prepareStatement("select * from reshaped where id = ?")
        shapes = []
        for step in range(4):
            if step == 2:
                execute(conn, "alter table reshaped add column b int default 7")
            st.setInt(1, 1)
            shapes.append(_all_rows(st.executeQuery()))
        return shapes

    got = both(jvm, urls, probe, prepareThreshold="1")
    assert got["cumulo"] == got["pg15"]
    assert got["cumulo"][-1] == [("1", "x", "7")]


# -- errors ----------------------------------------------------------------------------------

ERRORS = {
    "23505": "insert into err_child values (1, 1)",
    "23503": "insert into err_child values (2, 99)",
    "42P01": "select * from no_such_table",
    "22012": "select 1 / (select count(*) - count(*) from err_parent)",
    "42601": "selec 1",
}


def test_sqlstates(jvm, urls):
    """Each failure carries PostgreSQL's SQLSTATE, and the connection goes on working."""
    def probe(conn):
        execute(conn, "drop table if exists err_child", "drop table if exists err_parent",
                "create table err_parent (id int primary key)",
                "create table err_child (id int primary key, p int references err_parent)",
                "insert into err_parent values (1)", "insert into err_child values (1, 1)")
        got = {}
        for want, sql in ERRORS.items():
            st = conn.createStatement()
            got[want] = sqlstate(lambda st=st, sql=sql: st.execute(sql))
            ps = conn.prepareStatement(sql)  # the extended protocol reports the same code
            got[want + "/prepared"] = sqlstate(ps.execute)
        return got, _scalar(conn, "select count(*) from err_child")

    got = both(jvm, urls, probe, prepareThreshold="1")
    assert got["cumulo"] == got["pg15"]
    assert {k: v for k, v in got["cumulo"][0].items() if "/" not in k} == {k: k for k in ERRORS}


def test_connection_and_statement_odds(jvm, urls, md_schema):
    """What JDBC programs and pools do besides queries: isValid, read-only transactions,
    setMaxRows, several results from one execute, warnings, getCrossReference."""
    def probe(conn):
        out = {"valid": bool(conn.isValid(5))}  # the driver sends an empty query
        st = conn.createStatement()
        st.execute("drop table if exists no_such_table_here")
        warning = st.getWarnings()
        out["warning"] = None if warning is None else str(warning.getSQLState())
        st.setMaxRows(3)
        rs = st.executeQuery("select g from generate_series(1, 10) g")
        out["max_rows"] = [r[0] for r in rows(rs, "g")]
        st.setMaxRows(0)
        results, has_rs = [], st.execute("select 1 as a; select 2 as b, 3 as c; select 4 as d")
        while has_rs or st.getUpdateCount() != -1:
            if has_rs:
                rs = st.getResultSet()
                results.append(int(rs.getMetaData().getColumnCount()))
            has_rs = st.getMoreResults()
        out["results"] = results
        conn.setAutoCommit(False)
        conn.setReadOnly(True)
        out["read_only"] = sqlstate(lambda: conn.createStatement().execute(
            "insert into md_parent values (99, 'x')"))
        conn.rollback()
        conn.setReadOnly(False)
        conn.setAutoCommit(True)
        out["cross"] = rows(conn.getMetaData().getCrossReference(
            None, "public", "md_parent", None, "public", "md_child"),
            "PKTABLE_NAME", "PKCOLUMN_NAME", "FKTABLE_NAME", "FKCOLUMN_NAME", "FK_NAME")
        return out

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"]
    assert got["cumulo"]["read_only"] == "25006" and got["cumulo"]["max_rows"] == ["1", "2", "3"]
    assert got["cumulo"]["results"] == [1, 2, 1] and len(got["cumulo"]["cross"]) == 1


# -- fetch in batches ------------------------------------------------------------------------


def test_fetch_size_suspends_the_portal(jvm, urls):
    """setFetchSize(100) with autocommit off: Execute(portal, 100) until CommandComplete."""
    def probe(conn):
        execute(conn, "drop table if exists fetched",
                "create table fetched (id int primary key, label text)",
                "insert into fetched select g, 'row ' || g from generate_series(1, 1000) g")
        conn.setAutoCommit(False)
        st = conn.prepareStatement("select id, label from fetched where id > ? order by id")
        st.setFetchSize(100)
        st.setInt(1, 10)
        rs = st.executeQuery()
        # The driver holds one batch and a cursor to resume: the server suspended the portal
        # after 100 rows instead of sending them all with CommandComplete.
        suspended = (_private(rs, "rows").size(), _private(rs, "cursor") is not None)
        ids, labels = [], 0
        while rs.next():
            ids.append(int(rs.getInt(1)))
            labels += rs.getString(2) == f"row {ids[-1]}"
            if len(ids) == 150:  # mid-fetch, the transaction (and its portal) is still usable
                assert _scalar(conn, "select count(*) from fetched") == "1000"
        rs.close()
        conn.commit()
        conn.setAutoCommit(True)
        return suspended, ids == list(range(11, 1001)), labels

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"] == ((100, True), True, 990)


# -- COPY ------------------------------------------------------------------------------------


def test_copy_manager_in_and_out(jvm, urls):
    data = "".join(f"{i},name {i},{i * 1.5}\n" for i in range(1, 501)) + '501,"quoted, comma",\n'

    def probe(conn):
        execute(conn, "drop table if exists copied",
                "create table copied (id int primary key, name text, score float8)")
        api = conn.unwrap(jpype.JClass("org.postgresql.PGConnection")).getCopyAPI()
        n_in = api.copyIn("COPY copied FROM STDIN (FORMAT csv)", jvm.io.StringReader(data))
        out = jvm.io.StringWriter()
        n_out = api.copyOut("COPY (select * from copied order by id) TO STDOUT (FORMAT csv)", out)
        text_out = jvm.io.StringWriter()
        api.copyOut("COPY copied TO STDOUT", text_out)
        return int(n_in), int(n_out), str(out.toString()), len(str(text_out.toString()))

    got = both(jvm, urls, probe)
    assert got["cumulo"] == got["pg15"]
    n_in, n_out, csv, _ = got["cumulo"]
    assert (n_in, n_out) == (501, 501)
    assert csv.splitlines()[0] == "1,name 1,1.5" and csv.endswith('501,"quoted, comma",\n')


# -- cancel and timeouts ---------------------------------------------------------------------

LONG_QUERY = "select count(*) from generate_series(1, 500000000)"


def test_cancel_from_another_thread(jvm, urls):
    """Statement.cancel() sends a CancelRequest: 57014, and the connection goes on."""
    conn = connect(jvm, urls["cumulo"])
    try:
        st = conn.createStatement()
        timer = threading.Timer(0.5, st.cancel)
        timer.start()
        started = time.monotonic()
        state = sqlstate(lambda: st.executeQuery(LONG_QUERY))
        timer.join()
        assert state == "57014"
        assert time.monotonic() - started < 30  # ended by the cancel, not by finishing
        assert _scalar(conn, "select 41 + 1") == "42"
    finally:
        conn.close()


def test_query_timeout(jvm, urls):
    """setQueryTimeout: the driver's own timer cancels the statement (57014)."""
    conn = connect(jvm, urls["cumulo"])
    try:
        conn.setAutoCommit(False)
        st = conn.prepareStatement(LONG_QUERY)
        st.setQueryTimeout(1)
        assert sqlstate(st.executeQuery) == "57014"
        conn.rollback()
        assert _scalar(conn, "select 'still here'") == "still here"
    finally:
        conn.close()


# -- passwords and TLS ------------------------------------------------------------------------

PASSWORDS = {"jdbc_scram": "jdbc pw", "jdbc_md5": "md5 pw"}


@pytest.fixture(scope="module")
def auth_server():
    """A server of the module's own that requires passwords and offers TLS."""
    from tests.integration.test_wire_auth import _self_signed

    srv = CumuloServer().start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute(f"create role jdbc_scram login password '{PASSWORDS['jdbc_scram']}'")
            c.execute("set password_encryption = 'md5'")
            c.execute(f"create role jdbc_md5 login password '{PASSWORDS['jdbc_md5']}'")
        cert, key = _self_signed(srv.data_dir)
        srv.stop()
        srv.extra_args = ["--require-password", "--ssl-cert", cert, "--ssl-key", key]
        srv.start()
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(srv.data_dir, ignore_errors=True)


@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
@pytest.mark.parametrize("user", list(PASSWORDS))
def test_password_login(jvm, auth_server, user, tls):
    """SCRAM-SHA-256 and md5 logins, over plain TCP and TLS; a wrong password is 28P01."""
    url = f"jdbc:postgresql://{auth_server.host}:{auth_server.port}/cumulo"
    props = jvm.util.Properties()
    props.setProperty("user", user)
    props.setProperty("password", PASSWORDS[user])
    props.setProperty("sslmode", "require" if tls else "disable")
    props.setProperty("sslfactory", "org.postgresql.ssl.NonValidatingFactory")
    conn = jvm.sql.DriverManager.getConnection(url, props)
    try:
        assert _scalar(conn, "select current_user") == user
        assert _scalar(conn, "select 6 * 7") == "42"
    finally:
        conn.close()
    props.setProperty("password", "wrong")
    assert sqlstate(lambda: jvm.sql.DriverManager.getConnection(url, props)) == "28P01"
