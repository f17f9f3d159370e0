"""pandas to_sql / read_sql round trips at bulk scale, through both dialects, against PG 15.

20,000 rows of the types a DataFrame usually holds (int64, float64, str with NULLs,
datetime64, bool, and a tz-aware datetime) go in with `to_sql` (SQLAlchemy's
insertmanyvalues batches of 1,000 rows, one shape: `sql.manyvalues`) and come back with
`read_sql`, through `cumulo://` (our driver) and `postgresql+psycopg://` (the stock
dialect, executemany after CREATE TABLE in one transaction). PostgreSQL 15 gets the
same frame through the stock dialect; the frames read back must be identical.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sqlalchemy import create_engine

from tests.dialect.conftest import url_for

ROWS = 20_000


def _frame(n: int) -> pd.DataFrame:
    ids = np.arange(n, dtype=np.int64)
    return pd.DataFrame({
        "id": ids,
        "qty": ids * 7 % 1000,
        "price": ids / 8,
        "name": [None if i % 11 == 0 else f"item {i} 'q' \"d\" \\ tab\there" for i in range(n)],
        "at": pd.Timestamp("2024-01-01") + pd.to_timedelta(ids, "s"),
        "flag": ids % 3 == 0,
        "seen": pd.Timestamp("2024-06-01", tz="UTC") + pd.to_timedelta(ids, "min"),
    })


def _round_trip(url: str, frame: pd.DataFrame, table: str) -> pd.DataFrame:
    engine = create_engine(url)
    try:
        # NB: to_sql's return is the driver's rowcount: with insertmanyvalues, SQLAlchemy
        # reports the last batch's; the rows read back are what counts
        frame.to_sql(table, engine, index=False, if_exists="replace")
        back = pd.read_sql(f"SELECT * FROM {table} ORDER BY id", engine)
    finally:
        engine.dispose()
    back["seen"] = back["seen"].dt.tz_convert("UTC")
    return back


@pytest.mark.parametrize("scheme", ["cumulo", "postgresql+psycopg"])
def test_to_sql_read_sql_round_trip_matches_postgresql(scheme, cumulo_server, pg15):
    frame = _frame(ROWS)
    ours = _round_trip(url_for(cumulo_server, scheme), frame, "pd_bulk")
    theirs = _round_trip(pg15.dsn().replace("postgresql://", "postgresql+psycopg://", 1), frame,
                         "pd_bulk")
    pd.testing.assert_frame_equal(ours, theirs)
    expected = frame.copy()
    pd.testing.assert_frame_equal(ours, expected, check_dtype=False)
