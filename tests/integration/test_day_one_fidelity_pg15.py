"""Small differences a PostgreSQL user meets on the first day, against PostgreSQL 15:

- a row COPY FROM refuses (NOT NULL, CHECK, no partition for it) names its line as the
  error's CONTEXT, `COPY t, line 3: "3<TAB>\\N"` (Cumulo gave no CONTEXT; and its batch
  check reported the first bad column's row, not the first bad row);
- now(1), pi(1), version(1) and current_database(1) are 42883 with PostgreSQL's HINT
  (sqlglot read now(1) as CURRENT_TIMESTAMP(1) and answered it; the others were 42601);
- a statement made by SQL PREPARE can be described, bound and executed through the
  extended protocol by its name, as PostgreSQL keeps one namespace for both (26000 before).
"""

from __future__ import annotations

import asyncio
import subprocess

import asyncpg
import psycopg

from tests.integration.stmtdiff import fresh_databases

_TABLES = ("create table t (a int, b text not null, c int check (c > 0));"
           "create table p (a int, b text not null) partition by range (a);"
           "create table p1 partition of p for values from (0) to (10)")

_COPIES = [  # (COPY statement, data)
    ("copy t from stdin", "1\tx\t1\n2\ty\t2\n3\t\\N\t3\n"),
    ("copy t from stdin", "1\tx\t1\n2\ty\t-2\n3\t\\N\t3\n"),
    ("copy t from stdin", "1\tx\t1\n2\t\\N\t2\n3\ty\t-3\n"),
    ("copy t from stdin", "1\tx\t-1\n"),
    ("copy t (a, c) from stdin", "1\t1\n"),
    ("copy t from stdin (format csv)", '1,x,1\n2,"y\nz",2\n3,,3\n'),
    ("copy t from stdin (format csv)", '1,x,1\n2,"y\nz",-2\n'),
    ("copy t from stdin (format csv, header)", "a,b,c\n1,x,1\n2,y,2\n3,,3\n"),
    ("copy t from stdin (format csv)", "1,x,1\n2,y,2\n3,,3\n"),
    ("copy p from stdin", "1\tx\n2\t\\N\n"),
    ("copy p from stdin", "1\tx\n20\ty\n"),
    ("copy t from stdin", "".join(f"{i}\tv{i}\t{i}\n" for i in range(1, 40000)) + "0\t\\N\t1\n"),
]


def _copy_errors(dsn: str) -> list[tuple]:
    out = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for stmt in _TABLES.split(";"):
            conn.execute(stmt)
        for sql, data in _COPIES:
            try:
                with conn.cursor() as cur, cur.copy(sql) as copy:
                    copy.write(data)
                out.append((sql, "ok"))
            except psycopg.Error as e:
                d = e.diag
                out.append((sql, e.sqlstate, d.message_primary, d.message_detail, d.context,
                            d.table_name, d.column_name))
    return out


def test_copy_row_errors_name_their_line_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "copy_row_ctx")
    expected = _copy_errors(pg)
    assert ("copy t from stdin", "23502", 'null value in column "b" of relation "t" violates '
            'not-null constraint', "Failing row contains (3, null, 3).",
            'COPY t, line 3: "3\t\\N\t3"', "t", "b") in expected
    assert _copy_errors(cu) == expected


def _copy_binary_error(dsn: str) -> tuple:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("create table tb (a int, b text not null)")
        try:
            with conn.cursor() as cur, cur.copy("copy tb from stdin (format binary)") as copy:
                copy.set_types(["int4", "text"])
                copy.write_row((1, "x"))
                copy.write_row((2, None))
        except psycopg.Error as e:
            return e.sqlstate, e.diag.message_primary, e.diag.context
    return ("ok",)


def test_copy_binary_row_error_context_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "copy_bin_ctx")
    assert _copy_binary_error(cu) == _copy_binary_error(pg)


def _psql_copy(dsn: str) -> str:
    res = subprocess.run(["psql", dsn, "-X", "-q", "-c", "copy t from stdin"],
                         input="1\tx\t1\n2\t\\N\t2\n", capture_output=True, text=True,
                         timeout=120)
    return res.stderr


def test_psql_prints_copy_context_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "copy_ctx_psql")
    for dsn in (pg, cu):
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("create table t (a int, b text not null, c int check (c > 0))")
    expected = _psql_copy(pg)
    assert 'CONTEXT:  COPY t, line 2: "2\t\\N\t2"' in expected
    assert _psql_copy(cu) == expected


_ARITY = ["select now(1)", "select now(1, 2)", "select now(null)", "select pi(1)",
          "select version('x')", "select current_database(1)", "select now() is not null",
          "select pi()", "select current_database() is not null"]


def _arity_psycopg(dsn: str) -> list[tuple]:
    out = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        for sql in _ARITY:
            try:
                out.append((sql, conn.execute(sql).fetchall()))
            except psycopg.Error as e:
                out.append((sql, e.sqlstate, e.diag.message_primary, e.diag.message_hint,
                            e.diag.statement_position))
    return out


async def _arity_asyncpg(dsn: str) -> list[tuple]:
    conn = await asyncpg.connect(dsn)
    out = []
    try:
        for sql in _ARITY:
            try:
                out.append((sql, [tuple(r) for r in await conn.fetch(sql)]))
            except asyncpg.PostgresError as e:
                out.append((sql, e.sqlstate, e.message, e.hint))
    finally:
        await conn.close()
    return out


def test_zero_argument_functions_refuse_arguments_as_pg15(pg15, cumulo_server):
    expected = _arity_psycopg(pg15.dsn())
    assert ("select now(1)", "42883", "function now(integer) does not exist",
            "No function matches the given name and argument types. You might need to add "
            "explicit type casts.", "8") in expected
    assert _arity_psycopg(cumulo_server.dsn()) == expected
    assert asyncio.run(_arity_asyncpg(cumulo_server.dsn())) == \
        asyncio.run(_arity_asyncpg(pg15.dsn()))


def _describe(pgconn: psycopg.pq.abc.PGconn, name: bytes) -> tuple:
    res = pgconn.describe_prepared(name)
    if res.status != psycopg.pq.ExecStatus.COMMAND_OK:
        return ("error", res.error_field(psycopg.pq.DiagnosticField.SQLSTATE),
                res.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY))
    return ([res.param_type(i) for i in range(res.nparams)],
            [(res.fname(i), res.ftype(i)) for i in range(res.nfields)])


def _execute(pgconn: psycopg.pq.abc.PGconn, name: bytes, params: list[bytes]) -> tuple:
    res = pgconn.exec_prepared(name, params)
    if res.status != psycopg.pq.ExecStatus.TUPLES_OK:
        return ("error", res.error_field(psycopg.pq.DiagnosticField.SQLSTATE),
                res.error_field(psycopg.pq.DiagnosticField.MESSAGE_PRIMARY))
    return tuple(res.get_value(r, c) for r in range(res.ntuples) for c in range(res.nfields))


def _shared_namespace(dsn: str) -> list:
    """libpq's PQdescribePrepared / PQexecPrepared (Describe, Bind, Execute) of statements
    SQL PREPARE made, through psycopg's connection."""
    out: list = []
    with psycopg.connect(dsn, autocommit=True) as conn:
        pgconn = conn.pgconn
        conn.execute("create table pt (id int primary key, v text)")
        conn.execute("insert into pt values (1, 'a'), (2, 'b')")
        conn.execute("prepare p (int) as select id, v, $1::int + 1 as n from pt where id = $1")
        conn.execute("prepare q as select $1::text || 'x' as s, $2::numeric as m")
        conn.execute("prepare ins (int, text) as insert into pt values ($1, $2)")
        out.append(_describe(pgconn, b"p"))
        out.append(_describe(pgconn, b"q"))
        out.append(_describe(pgconn, b"ins"))
        out.append(_execute(pgconn, b"p", [b"2"]))
        out.append(_execute(pgconn, b"q", [b"a", b"1.50"]))
        res = pgconn.exec_prepared(b"ins", [b"3", b"c"])
        out.append((res.status, res.command_status))
        out.append(_execute(pgconn, b"p", [b"3"]))
        out.append(conn.execute("execute p (1)").fetchall())
        out.append(conn.execute("select name, statement, parameter_types::text, from_sql, "
                                "generic_plans + custom_plans from pg_prepared_statements "
                                "order by name").fetchall())
        conn.execute("deallocate p")
        out.append(_describe(pgconn, b"p"))
        out.append(_execute(pgconn, b"p", [b"2"]))
        out.append(_describe(pgconn, b"nosuch"))
    return out


def test_protocol_reaches_sql_prepared_statements_as_pg15(pg15, cumulo_server):
    pg, cu = fresh_databases(pg15, cumulo_server, "prep_namespace")
    expected = _shared_namespace(pg)
    assert expected[0] == ([23], [(b"id", 23), (b"v", 25), (b"n", 23)])
    assert _shared_namespace(cu) == expected


def test_one_name_for_parse_and_prepare_as_pg15(pg15, cumulo_server):
    """PREPARE of a name a Parse took is 42P05 (it was already), and so is a Parse of a name
    PREPARE took (Cumulo made a second statement of that name)."""
    got = []
    for dsn in fresh_databases(pg15, cumulo_server, "prep_namespace2"):
        with psycopg.connect(dsn, autocommit=True) as conn:
            res = conn.pgconn.prepare(b"p", b"select 1")
            assert res.status == psycopg.pq.ExecStatus.COMMAND_OK
            try:
                conn.execute("prepare p as select 2")
                got.append("ok")
            except psycopg.Error as e:
                got.append(e.sqlstate)
            conn.execute("prepare q as select 3")
            res = conn.pgconn.prepare(b"q", b"select 4")
            got.append(res.error_field(psycopg.pq.DiagnosticField.SQLSTATE))
            got.append(_execute(conn.pgconn, b"q", []))
    assert got[:3] == ["42P05", b"42P05", (b"3",)]
    assert got[3:] == got[:3]
