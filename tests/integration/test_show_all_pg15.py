"""SHOW ALL and pg_settings describe each setting in PostgreSQL 15's words.

SHOW ALL's third column is the setting's short description, and pg_settings
has the same text in `short_desc` and its group in `category`, as in
PostgreSQL. Compared with a real PostgreSQL 15 for every setting both list,
through psycopg and pg8000.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pg8000.dbapi
import psycopg

NO_SHOW_ALL = {"role", "session_authorization", "is_superuser"}  # GUC_NO_SHOW_ALL


def _show_all(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn, autocommit=True) as c:
        cur = c.execute("show all")
        assert [d.name for d in cur.description] == ["name", "setting", "description"]
        return {name.lower(): desc for name, _, desc in cur.fetchall()}


def _pg_settings(host: str, port: int, user: str, password: str | None, db: str
                 ) -> dict[str, tuple[str, str]]:
    c = pg8000.dbapi.connect(host=host, port=port, user=user, password=password, database=db)
    try:
        cur = c.cursor()
        cur.execute("select name, category, short_desc from pg_settings")
        return {name.lower(): (cat, desc) for name, cat, desc in cur.fetchall()}
    finally:
        c.close()


def test_show_all_descriptions_are_postgres_ones(cumulo_server, pg15):
    pg, cu = _show_all(pg15.dsn()), _show_all(cumulo_server.dsn())
    both = sorted(set(pg) & set(cu))
    assert len(both) >= 90, f"only {len(both)} settings in common"
    diffs = [(n, pg[n], cu[n]) for n in both if pg[n] != cu[n]]
    assert not diffs, "\n".join(f"{n}\n  pg15:   {p}\n  cumulo: {c}" for n, p, c in diffs)
    assert not (set(pg) | set(cu)) & NO_SHOW_ALL
    assert all(cu.values()), [n for n, d in cu.items() if not d]  # Cumulo's own too


def test_pg_settings_category_and_short_desc(cumulo_server, pg15):
    u = urlparse(pg15.dsn())
    pg = _pg_settings(u.hostname, u.port, u.username, u.password, u.path.lstrip("/"))
    cu = _pg_settings(cumulo_server.host, cumulo_server.port, "cumulo", None, "cumulo")
    both = sorted(set(pg) & set(cu))
    assert len(both) >= 20, f"only {len(both)} settings in common"
    diffs = [(n, pg[n], cu[n]) for n in both if pg[n] != cu[n]]
    assert not diffs, "\n".join(f"{n}\n  pg15:   {p}\n  cumulo: {c}" for n, p, c in diffs)


# What pg_settings says of a setting apart from its value: PostgreSQL 15's for each one both
# list (settingfacts); and the values' own form where the test servers' configurations agree.
_FACTS = "vartype, unit, context, min_val, max_val, enumvals"
_VALUES = ("datestyle", "intervalstyle", "work_mem", "statement_timeout", "data_directory_mode",
           "checkpoint_timeout", "temp_buffers", "effective_cache_size", "max_stack_depth",
           "log_parameter_max_length", "log_parameter_max_length_on_error", "extra_float_digits")


def _facts(dsn: str) -> dict[str, tuple]:
    with psycopg.connect(dsn, autocommit=True) as c:
        rows = c.execute(f"select name, {_FACTS} from pg_settings").fetchall()
        values = c.execute("select lower(name), setting, unit, boot_val, reset_val "
                           "from pg_settings where lower(name) = any(%s)",
                           (list(_VALUES),)).fetchall()
    return {n.lower(): tuple(r) for n, *r in rows} | {f"value:{n}": tuple(r)
                                                     for n, *r in values}


# NB: server_version_num's min_val and max_val are the server's own version, which moves with
# the machine's PostgreSQL build (apt's 15.18, then 15.20): no fact of the setting to compare
_OWN_VERSION = {"server_version_num"}


def test_pg_settings_ranges_and_units_as_pg15(cumulo_server, pg15):
    pg, cu = _facts(pg15.dsn()), _facts(cumulo_server.dsn())
    both = sorted(set(pg) & set(cu) - _OWN_VERSION)
    assert len(both) >= 100 and "value:log_parameter_max_length" in both
    diffs = [(n, pg[n], cu[n]) for n in both if pg[n] != cu[n]]
    assert not diffs, "\n".join(f"{n}\n  pg15:   {p}\n  cumulo: {c}" for n, p, c in diffs)
