"""Statistics and monitoring relations (pg_stat_*, pg_statio_*) and catalogs Cumulo leaves empty.

Monitoring tools and GUI clients read these on connect. Cumulo does not count
scans or blocks, so the counters are 0 and the timestamps NULL; the rows
themselves (one per table, index or database) come from the snapshot, so
joins against pg_class work. What ANALYZE learnt (`optimizer.stats`, stored
by `catalog.statstore`) shows as PostgreSQL shows it: `pg_stats` per column,
`n_live_tup`, `last_analyze` and `analyze_count` in pg_stat_user_tables, and
`reltuples` / `relpages` in pg_class (`class_counts`). Catalogs for features Cumulo lacks (event
triggers, foreign servers, subscriptions, ...) exist with PostgreSQL's columns
and no rows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...pgtypes import oids as T
from ...pgtypes.text import text_encoder
from ..expr.regcast import RegOid
from ..optimizer.stats import table_stats
from ..sessionview import SessionView
from .ddltext import format_type
from .names import names
from .registry import empty, pg_relation, virtual_table
from .shapes import SHAPES

_ZERO_TYPES = (T.INT2, T.INT4, T.INT8, T.FLOAT8, T.NUMERIC)


def _filler(schema: str, name: str) -> Callable[[dict[str, Any]], tuple[Any, ...]]:
    """Returns a row builder: given values by column name, zero counters and NULL the rest."""
    cols = SHAPES[(schema, name)][2]

    def build(known: dict[str, Any]) -> tuple[Any, ...]:
        return tuple(known[c] if c in known else (0 if t in _ZERO_TYPES else None)
                     for c, t in cols)

    return build


_TABLE_ROW = _filler("pg_catalog", "pg_stat_user_tables")
_IO_ROW = _filler("pg_catalog", "pg_statio_user_tables")
_INDEX_ROW = _filler("pg_catalog", "pg_stat_user_indexes")
_DB_ROW = _filler("pg_catalog", "pg_stat_database")


def _user_tables(ctx: Any) -> list[dict[str, Any]]:
    idx = names(ctx.catalog)
    return [{"relid": t.oid, "schemaname": idx.schema_name(t.schema_oid), "relname": t.name,
             **_analyzed(t)}
            for t in ctx.catalog.tables if t.kind == "r"]


def _analyzed(table: Any) -> dict[str, Any]:

    ts = table_stats(table)
    if ts is None:
        return {}
    return {"n_live_tup": ts.rows, "last_analyze": ts.analyzed_at, "analyze_count": 1}


def class_counts(table: Any) -> tuple[int, float]:
    """pg_class (relpages, reltuples): (0, -1) until the first ANALYZE, as in PostgreSQL."""

    ts = table_stats(table) if table.kind == "r" else None
    if ts is None:
        return 0, -1.0 if table.kind == "r" else 0.0
    return -(-ts.rows * ts.width // 8192), float(ts.rows)


def index_counts(table: Any, index: Any) -> tuple[int, float]:
    """pg_class (relpages, reltuples) of an index: a btree has its metapage from the start.

    PostgreSQL counts an index's pages when it builds it (1 for an empty table,
    JDBC's getIndexInfo PAGES); Cumulo estimates the leaf pages from ANALYZE's row
    count at about 16 bytes of entry per key column plus 16 of overhead.
    """
    tuples = class_counts(table)[1] if table is not None else -1.0
    if tuples < 0:
        return 1, 0.0
    width = 16 * (len(index.columns) + len(index.include)) + 16
    return 1 + -(-int(tuples) * width // 8192), tuples


_PG_STATS = [
    ("schemaname", T.NAME), ("tablename", T.NAME), ("attname", T.NAME), ("inherited", T.BOOL),
    ("null_frac", T.FLOAT4), ("avg_width", T.INT4), ("n_distinct", T.FLOAT4),
    ("most_common_vals", T.ANYARRAY), ("most_common_freqs", 1021),
    ("histogram_bounds", T.ANYARRAY), ("correlation", T.FLOAT4),
    ("most_common_elems", T.ANYARRAY), ("most_common_elem_freqs", 1021),
    ("elem_count_histogram", 1021),
]


def _array_text(type_oid: int, values: list[Any]) -> str | None:
    """An anyarray value in its text form, as PostgreSQL prints pg_stats' arrays."""

    if not values:
        return None
    return text_encoder(T.ARRAY_OF.get(type_oid, T.TEXT + 984))(values)


@virtual_table("pg_catalog", "pg_stats", _PG_STATS, 12053, "v")
def pg_stats(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per column of every analyzed table: ANALYZE's statistics, as PostgreSQL's
    pg_stats shows them (n_distinct negative when it scales with the row count)."""

    idx = names(ctx.catalog)
    out = []
    for t in ctx.catalog.tables:
        ts = table_stats(t) if t.kind == "r" else None
        if ts is None:
            continue
        for slot, c in enumerate(sorted(t.columns, key=lambda c: c.attnum)):
            cs = ts.columns.get(slot)
            if c.dropped or cs is None:
                continue
            nd = cs.ndistinct
            if ts.rows and nd > 0.1 * ts.rows:
                nd = -min(nd / ts.rows, 1.0)
            common = set(map(repr, cs.mcv))
            hist = [v for v in cs.histogram if repr(v) not in common] if cs.mcv else cs.histogram
            out.append((idx.schema_name(t.schema_oid), t.name, c.name, False, cs.null_frac,
                        cs.avg_width, float(nd), _array_text(c.type_oid, cs.mcv),
                        list(cs.mcf) or None,
                        _array_text(c.type_oid, hist) if len(hist) > 1 else None,
                        None, None, None, None))
    return out


@pg_relation("pg_catalog", "pg_stat_user_tables")
def pg_stat_user_tables(ctx: Any) -> list[tuple[Any, ...]]:
    """One row of (zero) access statistics per user table."""
    return [_TABLE_ROW(known) for known in _user_tables(ctx)]


@pg_relation("pg_catalog", "pg_statio_user_tables")
def pg_statio_user_tables(ctx: Any) -> list[tuple[Any, ...]]:
    """One row of (zero) block I/O statistics per user table."""
    return [_IO_ROW(known) for known in _user_tables(ctx)]


@pg_relation("pg_catalog", "pg_stat_user_indexes")
def pg_stat_user_indexes(ctx: Any) -> list[tuple[Any, ...]]:
    """One row of (zero) statistics per index of a user table."""
    cat = ctx.catalog
    idx = names(cat)
    out = []
    for i in cat.indexes:
        t = cat.table_by_oid(i.table_oid)
        if t is not None:
            out.append(_INDEX_ROW({"relid": t.oid, "indexrelid": i.oid,
                                   "schemaname": idx.schema_name(t.schema_oid),
                                   "relname": t.name, "indexrelname": i.name}))
    return out


@pg_relation("pg_catalog", "pg_stat_database")
def pg_stat_database(ctx: Any) -> list[tuple[Any, ...]]:
    """One row per database, with the number of sessions connected to it."""
    session: SessionView | None = ctx.session
    sessions = session.engine.sessions() if session is not None else []
    counts: dict[str, int] = {}
    for s in sessions:
        counts[s.database] = counts.get(s.database, 0) + 1
    if not sessions:
        counts[ctx.database] = 1
    return [_DB_ROW({"datid": d.oid, "datname": d.name, "numbackends": counts.get(d.name, 0)})
            for d in ctx.catalog.databases]


@pg_relation("pg_catalog", "pg_prepared_statements")
def pg_prepared_statements(ctx: Any) -> list[tuple[Any, ...]]:
    """The session's prepared statements: PREPARE's and the protocol's named Parse ones."""
    session: SessionView | None = ctx.session
    if session is None:
        return []
    prepared, info = session.prepared_sql, session.prepared_info
    return [(name, p.sql, p.prepared_at,
             [RegOid(o, format_type(o, None) or str(o)) for o in p.param_oids],
             from_sql, generic, custom)
            for name, p, from_sql, generic, custom in info.rows(list(prepared))]


@pg_relation("pg_catalog", "pg_cursors")
def pg_cursors(ctx: Any) -> list[tuple[Any, ...]]:
    """The session's open cursors (DECLARE), as `sql.cursors` keeps them."""
    session: SessionView | None = ctx.session
    if session is None:
        return []
    return [(c.name, c.statement, c.hold, c.binary, c.scroll, c.created)
            for c in session.cursors.values()]


for _name in ("pg_stat_replication", "pg_replication_slots", "pg_prepared_xacts",
              "pg_available_extensions", "pg_stat_ssl", "pg_event_trigger",
              "pg_conversion", "pg_foreign_server", "pg_foreign_data_wrapper",
              "pg_init_privs", "pg_seclabel", "pg_shseclabel", "pg_subscription", "pg_transform",
              "pg_ts_parser", "pg_ts_template", "pg_ts_dict", "pg_seclabels", "pg_parameter_acl"):
    # NB: pg_amop, pg_amproc, pg_opfamily: operators.py; pg_aggregate: aggregates.py
    empty("pg_catalog", _name)
