"""pgJDBC with dates BC and after 9999 (issue 16, item 6), against PostgreSQL 15.

java.time holds PostgreSQL's whole range (LocalDate.of(-43, 3, 15) is 44 BC), so the
driver's own conversions are a second reader of Cumulo's text and binary forms: the
same statements through PreparedStatement in text mode (prepareThreshold=0) and in
binary mode (named statements, binary results for date and timestamps) must give what
they give on PostgreSQL 15, parameters included. JVM and URLs: tests/clients/test_jdbc.py.
"""

from __future__ import annotations

import pytest

from tests.clients.test_jdbc import both, execute, jvm, urls  # noqa: F401 (fixtures)

MODES = {
    "text": {"prepareThreshold": "0"},
    "binary": {"prepareThreshold": "1", "binaryTransferEnable": "1082,1114,1184"},
}

LITERALS = ("select '0044-03-15 BC'::date, '5874897-12-31'::date, '4714-11-24 BC'::date, "
            "'0044-03-15 10:30:00.25 BC'::timestamp, '294276-12-31 23:59:59.999999'::timestamp, "
            "'20000-06-01 12:00+00'::timestamptz, '0001-01-01'::date")


@pytest.mark.parametrize("mode", sorted(MODES))
def test_jdbc_reads_and_binds_far_dates(jvm, urls, mode):  # noqa: F811 (fixtures)
    local_date = jvm.time.LocalDate
    local_dt = jvm.time.LocalDateTime

    def probe(conn) -> list:
        execute(conn, "set timezone = 'UTC'", "drop table if exists fd_j",
                "create table fd_j (k int primary key, d date, ts timestamp)")
        out: list = []
        for _ in range(2):  # the second run is the named, binary one in binary mode
            ps = conn.prepareStatement(LITERALS)
            rs = ps.executeQuery()
            rs.next()
            out.append([str(rs.getString(i)) for i in range(1, 8)])
            out.append([str(rs.getObject(i, local_date)) for i in (1, 2, 3, 7)])
            out.append([str(rs.getObject(i, local_dt)) for i in (4, 5)])
            rs.close()
            ps.close()
        ins = conn.prepareStatement("insert into fd_j values (?, ?, ?)")
        for k, (d, ts) in enumerate([(local_date.of(-43, 3, 15), local_dt.of(-43, 3, 15, 10, 30)),
                                     (local_date.of(20000, 2, 29), local_dt.of(20000, 6, 1, 12, 0)),
                                     (local_date.of(2024, 1, 1), local_dt.of(2024, 1, 1, 0, 0))]):
            ins.setInt(1, k)
            ins.setObject(2, d)
            ins.setObject(3, ts)
            ins.executeUpdate()
        ins.close()
        for _ in range(2):
            q = conn.prepareStatement("select k, d, ts, d::text as dt, ts::text as tt from fd_j "
                                      "where d < ? order by 2")
            q.setObject(1, local_date.of(3000, 1, 1))
            rs = q.executeQuery()
            while rs.next():
                out.append([str(rs.getString(i)) for i in range(1, 6)]
                           + [str(rs.getObject(2, local_date)), str(rs.getObject(3, local_dt))])
            rs.close()
            q.close()
        execute(conn, "drop table fd_j")
        return out

    got = both(jvm, urls, probe, **MODES[mode])
    assert ["-0043-03-15", "+5874897-12-31", "-4713-11-24", "0001-01-01"] in got["pg15"]
    assert got["cumulo"] == got["pg15"]
