"""COPY FROM's batch paths (`sql/copybatch`) and the bulk write path below them.

Blocks are large enough here (tens of thousands of rows, more than one feed
chunk and one writer batch) that the column-at-a-time parsers, the one-scan
primary-key check, the bulk write set and KiVi's bulk apply all run; each
test also crosses into the per-value fallback (NULLs, escapes, quotes, bad
values) within the same COPY, and checks the rows against values computed
here, not against another Cumulo path.
"""

from __future__ import annotations

import doctest
import struct
from decimal import Decimal

import pytest

from cumulo.server.errors import SQLError
from cumulo.server.sql import copy as copy_module
from cumulo.server.sql import copybatch, copybinary

from .helpers import copy_in, fails, rows, run

BATCH = 4096
FEED_CHUNK = 1 << 16
N = 3 * BATCH + 123  # several writer batches and feed chunks, and a ragged last one


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    """Smaller feed blocks and writer batches, so that a few thousand rows cross several."""
    monkeypatch.setattr(copy_module, "BATCH", BATCH)
    monkeypatch.setattr(copy_module, "FEED_CHUNK", FEED_CHUNK)


def _text(ids, fmt="{i}\t{g}\t{x}\n"):
    return "".join(fmt.format(i=i, g=i % 7, x=i * 3) for i in ids).encode()


def _sums(ids):
    out = {}
    for i in ids:
        c, s = out.get(i % 7, (0, 0))
        out[i % 7] = (c + 1, s + i * 3)
    return sorted((g, c, s) for g, (c, s) in out.items())


def test_text_bulk_rows_and_group_by(session):
    run(session, "create table t (id bigint primary key, g int not null, x bigint)")
    data = _text(range(1, N + 1))
    assert len(data) > FEED_CHUNK  # the feed is parsed in more than one block
    parts = [data[i:i + 10000] for i in range(0, len(data), 10000)]  # lines cut mid-way
    assert copy_in(session, "copy t from stdin", parts) == f"COPY {N}"
    assert rows(session, "select count(*), sum(id), min(id), max(id) from t") == [
        (N, N * (N + 1) // 2, 1, N)]
    assert rows(session, "select g, count(*), sum(x) from t group by g order by g") == _sums(
        range(1, N + 1))
    assert rows(session, "select id, g, x from t where id = 4242") == [(4242, 4242 % 7, 12726)]


def test_nulls_escapes_and_custom_null_in_a_big_block(session):
    run(session, "create table t (id int primary key, s text, f float8)")
    lines = []
    for i in range(1, N + 1):
        s = "\\N" if i % 1000 == 0 else ("a\\tb" if i % 777 == 0 else f"s{i}")
        f = "\\N" if i % 500 == 0 else f"{i}.5"
        lines.append(f"{i}\t{s}\t{f}\n")
    assert copy_in(session, "copy t from stdin", ["".join(lines).encode()]) == f"COPY {N}"
    assert rows(session, "select count(s), count(f) from t") == [
        (N - N // 1000, N - N // 500)]
    assert rows(session, "select s, f from t where id in (777, 1000, 1001) order by id") == [
        ("a\tb", 777.5), (None, None), ("s1001", 1001.5)]
    run(session, "create table u (id int primary key, s text)")
    data = "".join(f"{i}|{'nil' if i % 3 == 0 else i}\n" for i in range(1, 5001)).encode()
    assert copy_in(session, "copy u from stdin with (delimiter '|', null 'nil')", [data]) == \
        "COPY 5000"
    assert rows(session, "select count(*), count(s) from u") == [(5000, 5000 - 5000 // 3)]


def test_bad_values_and_line_shapes_fail_as_in_postgres(session):
    run(session, "create table t (id int primary key, g int)")
    good = _text(range(1, 20001), "{i}\t{g}\n")
    gen_bad = good + b"20001\tseven\n"
    e = _copy_fails(session, "copy t from stdin", [gen_bad], "22P02")
    assert e.message == 'invalid input syntax for type integer: "seven"'
    e = _copy_fails(session, "copy t from stdin", [good + b"20001\t3000000000\n"], "22003")
    assert e.message == 'value "3000000000" is out of range for type integer'
    e = _copy_fails(session, "copy t from stdin", [good + b"20001\n"], "22P04")
    assert e.message == 'missing data for column "g"'
    assert "line 20001" in e.where
    e = _copy_fails(session, "copy t from stdin", [good + b"20001\t1\t2\n"], "22P04")
    assert e.message == "extra data after last expected column"
    assert rows(session, "select count(*) from t") == [(0,)]


def _copy_fails(session, sql, payloads, sqlstate):
    with pytest.raises(SQLError) as info:
        copy_in(session, sql, payloads)
    assert info.value.sqlstate == sqlstate, (info.value.sqlstate, info.value.message)
    return info.value


def test_duplicate_keys_in_a_batch_and_against_stored_rows(session):
    run(session, "create table t (id bigint primary key, g int)")
    assert copy_in(session, "copy t from stdin", [_text(range(1, 10001), "{i}\t{g}\n")]) == \
        "COPY 10000"
    dup_inside = _text(list(range(20001, 30001)) + [25000], "{i}\t{g}\n")
    e = _copy_fails(session, "copy t from stdin", [dup_inside], "23505")
    assert e.detail == "Key (id)=(25000) already exists."
    overlap = _text(range(9000, 12001), "{i}\t{g}\n")  # stored keys inside the batch's range
    e = _copy_fails(session, "copy t from stdin", [overlap], "23505")
    assert e.detail == "Key (id)=(9000) already exists."
    # a batch whose range encloses stored keys without hitting one is fine
    run(session, "create table s (id bigint primary key)")
    assert copy_in(session, "copy s from stdin", [b"".join(b"%d\n" % (2 * i) for i in
                                                          range(5000))]) == "COPY 5000"
    assert copy_in(session, "copy s from stdin", [b"".join(b"%d\n" % (2 * i + 1) for i in
                                                          range(5000))]) == "COPY 5000"
    assert rows(session, "select count(*), count(distinct id), max(id) from s") == [
        (10000, 10000, 9999)]
    assert rows(session, "select count(*) from t") == [(10000,)]


def test_csv_fast_blocks_then_quotes(session):
    run(session, "create table t (id int primary key, s text, n int)")
    head = "id,s,n\n" + "".join(f"{i},v{i},{'' if i % 10 == 0 else i}\n"
                                for i in range(1, N + 1))
    tail = f'{N + 1},"quoted, with comma",1\n{N + 2},"",0\n{N + 3},,\n'
    data = (head + tail).encode()
    assert data.index(b'"') > FEED_CHUNK  # quote-free blocks first, then the csv module
    tag = copy_in(session, "copy t from stdin with (format csv, header true)",
                  [data[i:i + 10000] for i in range(0, len(data), 10000)])
    assert tag == f"COPY {N + 3}"
    assert rows(session, "select count(*), count(n), sum(id) from t") == [
        (N + 3, N - N // 10 + 2, (N + 3) * (N + 4) // 2)]
    assert rows(session, f"select id, s, n from t where id >= {N} order by id") == [
        (N, f"v{N}", None if N % 10 == 0 else N), (N + 1, "quoted, with comma", 1),
        (N + 2, "", 0), (N + 3, None, None)]


def _binary(rows_, fmt):
    out = [b"PGCOPY\n\xff\r\n\x00", struct.pack("!ii", 0, 0)]
    for r in rows_:
        out.append(struct.pack("!h", len(r)))
        for v, f in zip(r, fmt, strict=True):
            if v is None:
                out.append(struct.pack("!i", -1))
            else:
                b = struct.pack("!" + f, v)
                out.append(struct.pack("!i", len(b)) + b)
    out.append(struct.pack("!h", -1))
    return b"".join(out)


def test_binary_fixed_width_rows_and_nulls(session):
    run(session, "create table t (id bigint primary key, g int, x float8)")
    data = [(i, i % 7, i / 4) for i in range(1, 20001)]
    assert copy_in(session, "copy t from stdin (format binary)", [_binary(data, "qid")]) == \
        "COPY 20000"
    with_null = [(i, None if i % 3 == 0 else i % 7, i / 4) for i in range(20001, 25001)]
    assert copy_in(session, "copy t from stdin (format binary)",
                   [_binary(with_null, "qid")]) == "COPY 5000"
    assert rows(session, "select count(*), count(g), sum(id), sum(x) from t") == [
        (25000, 25000 - len([1 for i in range(20001, 25001) if i % 3 == 0]),
         25000 * 25001 // 2, sum(i / 4 for i in range(1, 25001)))]
    assert rows(session, "select g, x from t where id in (3, 20002, 20004) order by id") == [
        (3, 0.75), (20002 % 7, 20002 / 4), (None, 20004 / 4)]
    e = _copy_fails(session, "copy t from stdin (format binary)",
                    [_binary([(30000, 1)], "qi")], "22P04")
    assert e.message == "row field count is 2, expected 3"


def test_rollback_to_savepoint_undoes_a_bulk_copy(session):
    run(session, "create table t (id bigint primary key, g int)")
    run(session, "begin")
    run(session, "insert into t values (0, 0)")
    run(session, "savepoint a")
    assert copy_in(session, "copy t from stdin", [_text(range(1, 20001), "{i}\t{g}\n")]) == \
        "COPY 20000"
    run(session, "update t set g = -1 where id = 5")
    assert rows(session, "select count(*) from t") == [(20001,)]
    run(session, "rollback to savepoint a")
    assert rows(session, "select count(*), sum(id) from t") == [(1, 0)]
    assert copy_in(session, "copy t from stdin", [_text(range(1, 20001), "{i}\t{g}\n")]) == \
        "COPY 20000"
    run(session, "commit")
    assert rows(session, "select count(*), sum(g) from t") == [
        (20001, sum(i % 7 for i in range(1, 20001)))]


def test_multi_row_insert_and_insert_select_use_the_same_checks(session):
    run(session, "create table t (id bigint primary key, g int not null)")
    values = ", ".join(f"({i}, {i % 5})" for i in range(1, 3001))
    assert run(session, f"insert into t values {values}")[-1][0] == "INSERT 0 3000"
    run(session, "create table u (id bigint primary key, g int not null)")
    assert run(session, "insert into u select id + 10000, g from t")[-1][0] == "INSERT 0 3000"
    fails(session, "insert into u select id + 12000, g from t", "23505")
    fails(session, "insert into u select id + 20000, null from t", "23502")
    assert rows(session, "select count(*), sum(id) from u") == [(3000, 3000 * 10000 + 4501500)]


def test_group_by_sees_its_snapshot_while_copies_commit(engine, session):
    run(session, "create table t (id bigint primary key, g int not null, x bigint)")
    assert copy_in(session, "copy t from stdin", [_text(range(1, 10001))]) == "COPY 10000"
    q = "select g, count(*), sum(x) from t group by g order by g"
    reader = engine.open_session("cumulo", "cumulo", {})
    try:
        run(reader, "begin isolation level repeatable read")
        assert rows(reader, q) == _sums(range(1, 10001))
        assert copy_in(session, "copy t from stdin", [_text(range(10001, 12001))]) == "COPY 2000"
        run(session, "update t set x = 0 where id = 1")
        assert rows(reader, q) == _sums(range(1, 10001))  # the old snapshot, twice
        assert rows(reader, q) == _sums(range(1, 10001))
        run(reader, "commit")
        now = _sums(range(1, 12001))
        now[1] = (1, now[1][1], now[1][2] - 3)
        assert rows(reader, q) == now
        run(session, "begin")
        run(session, "delete from t where id > 10000")
        before = _sums(range(1, 10001))
        before[1] = (1, before[1][1], before[1][2] - 3)
        assert rows(session, q) == before  # own deletes merged into the node's partials
        run(session, "rollback")
        assert rows(reader, q) == now
    finally:
        reader.close()


def test_csv_null_is_an_unquoted_field_only(session):
    """PostgreSQL: a quoted field is never NULL, whatever else the record holds."""
    run(session, "create table t (a int, b text, c text, d int)")
    data = b'1,"",,\n2,"multi\nline","",\n3,,"x""y",4\n4,"a,b",,"5"\n'
    assert copy_in(session, "copy t from stdin with (format csv)", [data]) == "COPY 4"
    assert rows(session, "select * from t order by a") == [
        (1, "", None, None), (2, "multi\nline", "", None), (3, None, 'x"y', 4),
        (4, "a,b", None, 5)]
    run(session, "create table u (a int, b text)")
    assert copy_in(session, "copy u from stdin with (format csv, null 'N', escape '\\')",
                   [b'1,"N"\n2,N\n3,"a\\"b"\n']) == "COPY 3"
    assert rows(session, "select * from u order by a") == [(1, "N"), (2, None), (3, 'a"b')]


def test_numeric_typmod_column_written_at_its_scale_and_otherwise(session):
    """numeric(6,2): values already at scale 2 and in range are taken as they are (one
    regular expression over the block); any other spelling is rounded half up, and an
    overflow fails with PostgreSQL's 22003, wherever it sits in the block."""
    run(session, "create table nm (id int primary key, v numeric(6,2))")
    exact = "".join(f"{i}\t{i % 10000}.{i % 100:02d}\n" for i in range(1, N))
    lines = exact + f"{N}\t-0.00\n{N + 1}\t0001.50\n{N + 2}\t9999.99\n"
    copy_in(session, "copy nm from stdin", [lines.encode()])
    got = rows(session, "select v::text from nm where id in (7, 10001, "
                        f"{N}, {N + 1}, {N + 2}) order by id")
    assert got == [("7.07",), ("1.01",), ("0.00",), ("1.50",), ("9999.99",)]
    assert rows(session, "select sum(v) from nm")[0][0] == sum(
        Decimal(f"{i % 10000}.{i % 100:02d}") for i in range(1, N)) + Decimal("10001.49")
    run(session, "delete from nm")
    copy_in(session, "copy nm from stdin", [(exact + f"{N}\t1.255\n{N + 1}\t3\n").encode()])
    assert rows(session, f"select v::text from nm where id >= {N} order by id") == [
        ("1.26",), ("3.00",)]
    run(session, "delete from nm")
    with pytest.raises(SQLError) as err:
        copy_in(session, "copy nm from stdin", [(exact + f"{N}\t10000.00\n").encode()])
    assert err.value.sqlstate == "22003"


def test_repeated_numerics_are_converted_once_per_text(session):
    """A numeric column that repeats a few values (TPC-H's quantities and discounts) is
    converted once per distinct text (`copybatch.shared`); every row keeps its own
    value, `-0.00` and `0.00` stay apart as texts and read back as PostgreSQL prints them."""
    run(session, "create table q (id int primary key, v numeric(12,2))")
    vals = ["1.50", "-0.00", "0.00", "12.25", "3.10", "99999.99"]
    data = "".join(f"{i}\t{vals[i % 6]}\n" for i in range(N)).encode()
    assert copy_in(session, "copy q from stdin", [data]) == f"COPY {N}"
    want: dict[str, int] = {}
    for i in range(N):
        text = "0.00" if vals[i % 6] == "-0.00" else vals[i % 6]
        want[text] = want.get(text, 0) + 1
    assert rows(session, "select v::text, count(*) from q group by 1 order by 1") == sorted(
        want.items())
    assert rows(session, "select v::text from q where id in (6, 7, 8, 11) order by id") == [
        ("1.50",), ("0.00",), ("0.00",), ("99999.99",)]
    assert rows(session, "select sum(v) from q")[0][0] == sum(Decimal(vals[i % 6])
                                                             for i in range(N))


def test_blocks_split_by_arrow_keep_the_string_paths_values_and_errors(session, monkeypatch):
    """Blocks with no NULL and no escape are split by Arrow (`copybatch.arrow_block`),
    integers and booleans converted from its arrays: the same rows, and a bad value
    still names its line, as the split by Python strings does."""
    split = []
    real = copy_module.arrow_block
    monkeypatch.setattr(copy_module, "arrow_block", lambda *a: split.append(1) or real(*a))
    run(session, "create table ab (id int primary key, b bool, s text, n int2)")
    spell = ["t", "f", "true", "false", "TRUE", " yes", "on", "0"]
    data = "".join(f"{i}\t{spell[i % 8] if i > N // 2 else spell[i % 4]}\tx{i}\t{i % 300}\n"
                   for i in range(1, N + 1)).encode()
    assert copy_in(session, "copy ab from stdin", [data]) == f"COPY {N}"
    assert split
    want = sum(1 for i in range(1, N + 1) if (i % 8 if i > N // 2 else i % 4) in (0, 2, 4, 5, 6))
    assert rows(session, "select count(*) filter (where b), sum(n), count(distinct s) "
                         "from ab") == [(want, sum(i % 300 for i in range(1, N + 1)), N)]
    run(session, "create table ab2 (id int primary key, n int2)")
    bad = "".join(f"{i}\t{i % 300}\n" for i in range(1, 5001)) + "5001\t40000\n"
    e = _copy_fails(session, "copy ab2 from stdin", [bad.encode()], "22003")
    assert e.message == 'value "40000" is out of range for type smallint'
    assert "line 5001" in e.where


def test_repeated_dates_split_by_arrow_convert_once_and_name_a_bad_line(session):
    """A column of repeated values split by Arrow is converted once per distinct value
    (`copybatch.arrow_shared`); a bad one still names its line."""
    run(session, "create table ad (id int primary key, d date, ts timestamp)")
    data = "".join(f"{i}\t2024-01-{1 + i % 28:02d}\t2024-02-{1 + i % 5:02d} 10:00:0{i % 3}\n"
                   for i in range(1, N + 1))
    assert copy_in(session, "copy ad from stdin", [data.encode()]) == f"COPY {N}"
    assert rows(session, "select count(distinct d), count(distinct ts), min(d)::text, "
                         "max(ts)::text from ad") == [(28, 15, "2024-01-01", "2024-02-05 10:00:02")]
    bad = data.replace("\n3000\t2024-01-05\t", "\n3000\t2024-13-04\t")
    assert bad != data
    run(session, "create table ad2 (id int primary key, d date, ts timestamp)")
    e = _copy_fails(session, "copy ad2 from stdin", [bad.encode()], "22008")
    assert e.message == 'date/time field value out of range: "2024-13-04"'
    assert "line 3000" in e.where


@pytest.mark.parametrize("module", [copybatch, copybinary])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_floats_split_by_arrow_keep_their_overflow_errors(session):
    """float8 from Arrow's split: zeros are zeros, 1e400 still fails with 22003 on its line."""
    run(session, "create table af (id int primary key, x float8)")
    data = "".join(f"{i}\t{i % 5 / 4}\n" for i in range(1, 5001))
    assert copy_in(session, "copy af from stdin", [data.encode()]) == "COPY 5000"
    assert rows(session, "select count(*) filter (where x = 0), sum(x) from af") == [
        (1000, sum(i % 5 / 4 for i in range(1, 5001)))]
    run(session, "create table af2 (id int primary key, x float8)")
    e = _copy_fails(session, "copy af2 from stdin", [(data + "5001\t1e400\n").encode()], "22003")
    assert e.message == '"1e400" is out of range for type double precision'
    assert "line 5001" in e.where
