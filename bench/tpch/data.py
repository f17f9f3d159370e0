"""TPC-H data, the 22 queries and their reference answers, all from DuckDB's tpch extension.

Why DuckDB: its `dbgen` is the reference generator compiled in (SF 0.1 in about
a second), and the same extension ships the 22 queries (in SQL that PostgreSQL
accepts) and the official answers at SF 0.01, 0.1 and 1. The extension comes
as a PyPI wheel, `duckdb-extension-tpch`, so nothing is downloaded at run time:
`INSTALL tpch` would reach the network, `LOAD '<path in the wheel>'` does not.

Data goes through CSV files generated once per scale into a cache directory,
then into each system by `COPY ... FROM STDIN (FORMAT csv)`, so Cumulo and
PostgreSQL load byte-identical input. Tables get their primary keys and the
load ends with ANALYZE, as a user following the TPC-H guide would do.

Example:
    >>> [t for t, _ in TABLES][:3]
    ['region', 'nation', 'supplier']
    >>> parse_answer("a|b\\n1|x\\n")
    [('1', 'x')]
    >>> parse_answer("avg\\n\\n")  # one row, NULL
    [('',)]
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable
from typing import Any

# (table, column definitions with the primary key), parents first so a load can run in order
TABLES: list[tuple[str, str]] = [
    ("region", "r_regionkey integer NOT NULL, r_name varchar(25) NOT NULL, r_comment varchar(152),"
               " PRIMARY KEY (r_regionkey)"),
    ("nation", "n_nationkey integer NOT NULL, n_name varchar(25) NOT NULL, n_regionkey integer NOT NULL,"
               " n_comment varchar(152), PRIMARY KEY (n_nationkey)"),
    ("supplier", "s_suppkey integer NOT NULL, s_name varchar(25) NOT NULL, s_address varchar(40) NOT NULL,"
                 " s_nationkey integer NOT NULL, s_phone varchar(15) NOT NULL,"
                 " s_acctbal decimal(15,2) NOT NULL, s_comment varchar(101) NOT NULL,"
                 " PRIMARY KEY (s_suppkey)"),
    ("customer", "c_custkey integer NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,"
                 " c_nationkey integer NOT NULL, c_phone varchar(15) NOT NULL,"
                 " c_acctbal decimal(15,2) NOT NULL, c_mktsegment varchar(10) NOT NULL,"
                 " c_comment varchar(117) NOT NULL, PRIMARY KEY (c_custkey)"),
    ("part", "p_partkey integer NOT NULL, p_name varchar(55) NOT NULL, p_mfgr varchar(25) NOT NULL,"
             " p_brand varchar(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL,"
             " p_container varchar(10) NOT NULL, p_retailprice decimal(15,2) NOT NULL,"
             " p_comment varchar(23) NOT NULL, PRIMARY KEY (p_partkey)"),
    ("partsupp", "ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL,"
                 " ps_supplycost decimal(15,2) NOT NULL, ps_comment varchar(199) NOT NULL,"
                 " PRIMARY KEY (ps_partkey, ps_suppkey)"),
    ("orders", "o_orderkey integer NOT NULL, o_custkey integer NOT NULL, o_orderstatus varchar(1) NOT NULL,"
               " o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL,"
               " o_orderpriority varchar(15) NOT NULL, o_clerk varchar(15) NOT NULL,"
               " o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL,"
               " PRIMARY KEY (o_orderkey)"),
    ("lineitem", "l_orderkey integer NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL,"
                 " l_linenumber integer NOT NULL, l_quantity decimal(15,2) NOT NULL,"
                 " l_extendedprice decimal(15,2) NOT NULL, l_discount decimal(15,2) NOT NULL,"
                 " l_tax decimal(15,2) NOT NULL, l_returnflag varchar(1) NOT NULL,"
                 " l_linestatus varchar(1) NOT NULL, l_shipdate date NOT NULL,"
                 " l_commitdate date NOT NULL, l_receiptdate date NOT NULL,"
                 " l_shipinstruct varchar(25) NOT NULL, l_shipmode varchar(10) NOT NULL,"
                 " l_comment varchar(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber)"),
]

ANSWER_SCALES = (0.01, 0.1, 1.0)  # the scales the extension has reference answers for
CHUNK = 1 << 20  # bytes per COPY data message


class Unavailable(RuntimeError):
    """DuckDB or its tpch extension is not installed (install `duckdb-extension-tpch`)."""


def extension_path() -> str:
    """Returns the tpch extension file shipped in the `duckdb-extension-tpch` wheel."""
    try:
        import duckdb_extension_tpch  # type: ignore[import-not-found]
    except ImportError as exc:
        raise Unavailable("pip install duckdb-extension-tpch (DuckDB's TPC-H generator)") from exc
    found = glob.glob(os.path.join(os.path.dirname(duckdb_extension_tpch.__file__),
                                   "extensions", "*", "tpch.duckdb_extension"))
    if not found:
        raise Unavailable("the duckdb-extension-tpch wheel holds no tpch.duckdb_extension")
    return found[0]


def duck(database: str = ":memory:") -> Any:
    """Returns a DuckDB connection with the tpch extension loaded from the wheel (offline)."""
    try:
        import duckdb
    except ImportError as exc:
        raise Unavailable("pip install duckdb") from exc
    conn = duckdb.connect(database)
    try:
        conn.execute(f"LOAD '{extension_path()}'")
    except duckdb.Error as exc:  # the wheel's extension is built for another DuckDB version
        conn.close()
        raise Unavailable(f"the tpch extension does not load: {exc}") from exc
    return conn


def data_dir(cache: str, sf: float) -> str:
    """Returns the directory that holds the CSV files of scale `sf`."""
    return os.path.join(cache, f"tpch-sf{sf:g}")


def generate(cache: str, sf: float) -> str:
    """Generates scale `sf` as one CSV file per table (once; reused later); returns the dir."""
    out = data_dir(cache, sf)
    done = os.path.join(out, ".complete")
    if os.path.exists(done):
        return out
    os.makedirs(out, exist_ok=True)
    conn = duck()
    try:
        conn.execute(f"CALL dbgen(sf={sf})")
        for table, _ in TABLES:
            path = os.path.join(out, f"{table}.csv")
            conn.execute(f"COPY {table} TO '{path}' (FORMAT csv, HEADER false)")
    finally:
        conn.close()
    with open(done, "w") as f:
        f.write(f"{sf}\n")
    return out


def create(conn: Any) -> None:
    """Drops and creates the eight tables (with primary keys) on a psycopg connection."""
    for table, _ in reversed(TABLES):
        conn.execute(f"DROP TABLE IF EXISTS {table} CASCADE")  # NB: CH-benCHmark keeps views and keys on nation, supplier ...
    for table, cols in TABLES:
        conn.execute(f"CREATE TABLE {table} ({cols})")


def load(conn: Any, directory: str, progress: Callable[[int], None] | None = None) -> dict[str, int]:
    """Creates the tables and COPYs every CSV file in, then ANALYZE; returns rows per table."""
    create(conn)
    counts: dict[str, int] = {}
    for table, _ in TABLES:
        with conn.cursor() as cur:
            with cur.copy(f"COPY {table} FROM STDIN (FORMAT csv)") as copy, \
                    open(os.path.join(directory, f"{table}.csv"), "rb") as f:
                while block := f.read(CHUNK):
                    copy.write(block)
                    if progress:
                        progress(len(block))
        counts[table] = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    conn.execute("ANALYZE")
    return counts


def bytes_of(directory: str) -> int:
    """Returns the size of the CSV files (the load's progress total)."""
    return sum(os.path.getsize(os.path.join(directory, f"{t}.csv")) for t, _ in TABLES)


def queries() -> list[tuple[str, str]]:
    """Returns [("Q1", sql), ...]: the 22 queries as the extension ships them."""
    conn = duck()
    try:
        rows = conn.execute("SELECT query_nr, query FROM tpch_queries() ORDER BY query_nr").fetchall()
    finally:
        conn.close()
    return [(f"Q{n}", sql.strip().rstrip(";")) for n, sql in rows]


def parse_answer(text: str) -> list[tuple[str, ...]]:
    """Splits a reference answer (a header line, then `|`-separated rows) into string rows."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text ends with a newline; a row of one NULL is an empty line
    return [tuple(ln.split("|")) for ln in lines[1:]]


def answers(sf: float) -> dict[str, list[tuple[str, ...]]]:
    """Returns the reference answers at scale `sf` ({} at a scale the extension has none for)."""
    if sf not in ANSWER_SCALES:
        return {}
    conn = duck()
    try:
        rows = conn.execute("SELECT query_nr, answer FROM tpch_answers() WHERE scale_factor = ?",
                            [sf]).fetchall()
    finally:
        conn.close()
    return {f"Q{n}": parse_answer(text) for n, text in rows}
