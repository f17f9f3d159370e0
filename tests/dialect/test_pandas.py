"""pandas through `cumulo://`: read_sql, read_sql_table and to_sql with chunksize."""

from __future__ import annotations

import datetime

import pytest
from sqlalchemy import create_engine, inspect, text

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def engine(sync_url):
    eng = create_engine(sync_url)
    yield eng
    with eng.begin() as conn:
        conn.execute(text("drop table if exists dlg_pd_frame"))
        conn.execute(text("drop table if exists dlg_pd_chunks"))
    eng.dispose()


def _frame(n: int):
    start = datetime.datetime(2024, 1, 1, 12, 0, 0)
    return pd.DataFrame({
        "a": list(range(n)),
        "b": [f"name {i}" for i in range(n)],
        "c": [i / 4 for i in range(n)],
        "d": [start + datetime.timedelta(hours=i) for i in range(n)],
    })


def test_to_sql_then_read_sql_table(engine):
    frame = _frame(10)
    assert frame.to_sql("dlg_pd_frame", engine, index=False, if_exists="replace") == 10
    cols = {c["name"]: c["type"] for c in inspect(engine).get_columns("dlg_pd_frame")}
    assert {k: str(t) for k, t in cols.items()} == {
        "a": "BIGINT", "b": "TEXT", "c": "DOUBLE PRECISION", "d": "TIMESTAMP"}
    assert cols["d"].timezone is False
    back = pd.read_sql_table("dlg_pd_frame", engine).sort_values("a").reset_index(drop=True)
    pd.testing.assert_frame_equal(back, frame)


def test_read_sql_query_with_params(engine):
    _frame(10).to_sql("dlg_pd_frame", engine, index=False, if_exists="replace")
    got = pd.read_sql(
        text("select a, b from dlg_pd_frame where a >= :lo order by a"), engine, params={"lo": 7})
    assert got.to_dict("list") == {"a": [7, 8, 9], "b": ["name 7", "name 8", "name 9"]}
    plain = pd.read_sql("select count(*) as n, sum(c) as s from dlg_pd_frame", engine)
    assert plain.to_dict("records") == [{"n": 10, "s": 11.25}]


def test_to_sql_chunksize_and_append(engine):
    frame = _frame(250)
    written = frame.to_sql("dlg_pd_chunks", engine, index=False, if_exists="replace",
                           chunksize=40, method="multi")
    assert written == 250
    frame.iloc[:5].to_sql("dlg_pd_chunks", engine, index=False, if_exists="append", chunksize=2)
    with engine.connect() as conn:
        assert conn.scalar(text("select count(*) from dlg_pd_chunks")) == 255
    chunks = list(pd.read_sql("select * from dlg_pd_chunks order by a", engine, chunksize=100))
    assert [len(c) for c in chunks] == [100, 100, 55]
