"""`cumulo_regions`, `cumulo_split` and `cumulo_move` on a single-node (embedded) server.

Cluster mode is tests/integration/test_cluster_placement.py; here the one node's
regions are listed and split, nothing can move, and only a superuser may split.
"""

from __future__ import annotations

import psycopg
import pytest


def test_regions_view_and_split_in_embedded_mode(cumulo_server):
    with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS reg_emb")
        c.execute("CREATE TABLE reg_emb (id int PRIMARY KEY, v text)")
        c.execute("INSERT INTO reg_emb SELECT g, 'x' FROM generate_series(1, 100) g")
        q = ("SELECT start_key, end_key, node, rows FROM cumulo_regions "
             "WHERE table_name = 'reg_emb'")
        (whole,) = c.execute(q).fetchall()
        assert whole[:2] == (None, None) and whole[3] == 100
        assert c.execute("SELECT cumulo_split('reg_emb', 50)").fetchone()[0] > 0
        assert c.execute(q).fetchall() == [(None, "50", whole[2], 49), ("50", None, whole[2], 51)]
        assert c.execute("SELECT count(*), sum(id) FROM reg_emb").fetchone() == (100, 5050)
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            c.execute("SELECT cumulo_split('reg_emb', 50)")  # a region starts there already
        with pytest.raises(psycopg.errors.FeatureNotSupported):
            c.execute("SELECT cumulo_move(1, 'kivi-1')")
        with pytest.raises(psycopg.errors.InvalidParameterValue):
            c.execute("SELECT cumulo_split('reg_emb', 'abc')")
        c.execute("DROP ROLE IF EXISTS reg_emb_user")
        c.execute("CREATE ROLE reg_emb_user LOGIN")
        c.execute("GRANT SELECT ON reg_emb TO reg_emb_user")
    try:
        with psycopg.connect(cumulo_server.dsn(user="reg_emb_user"), autocommit=True) as u:
            assert len(u.execute("SELECT * FROM cumulo_regions WHERE table_name = 'reg_emb'")
                       .fetchall()) == 2
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                u.execute("SELECT cumulo_split('reg_emb', 70)")
    finally:
        with psycopg.connect(cumulo_server.dsn(), autocommit=True) as c:
            c.execute("DROP TABLE reg_emb")
            c.execute("DROP ROLE reg_emb_user")
