"""Embedded mode writes a bulk commit's redo record as it is packed (`codec.record_pieces`,
`RedoLog.log_pieces`): the pieces are exactly `pack_record`'s bytes, the parts come back
whole from `read_log`, and a record whose last part never reached the files is not
recovered (the commit was never acknowledged)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from cumulo.server.kivi.api import SpaceWrites, Write
from cumulo.server.kivi.ascending import AscendingKeys
from cumulo.server.kivi.wirecols import DECIMAL, Encoded
from cumulo.server.txn import codec
from cumulo.server.txn.codec import pack_record, record_pieces, unpack_bulk
from cumulo.server.txn.logger import LogGroup, RedoLog, read_log


def _spaces(n: int) -> tuple[list[SpaceWrites], dict[int, list[list[object]]]]:
    keys = AscendingKeys(b"k%06d" % i for i in range(n))
    rows = [(i, Decimal(f"{i}.50"), dt.date(2000, 1, 1 + i % 28), None if i % 3 else "x")
            for i in range(n)]
    deletes = SpaceWrites(8, [b"d1", b"d2"], [None, (1,)])
    cols = [list(c) for c in zip(*rows, strict=True)]
    cols[1] = Encoded(cols[1], DECIMAL, [str(v) for v in cols[1]])
    return [SpaceWrites(5, keys, rows), SpaceWrites(6, list(keys), list(rows)), deletes], {5: cols}


@pytest.mark.parametrize("n", [1, 5, 40])
def test_pieces_are_the_record(monkeypatch, n):
    monkeypatch.setattr(codec, "CHUNK", 4)
    spaces, cols = _spaces(n)
    writes = [Write(1, b"a", (1, "y")), Write(2, b"b", None)]
    pieces = list(record_pieces(9, writes, [3], spaces, cols))
    assert b"".join(pieces) == pack_record(9, writes, [3], spaces, cols)
    assert len(pieces) > 3


def test_long_columns_chunked_as_the_whole_column_encodes(monkeypatch):
    """Without the batch's columns, the rows are transposed and encoded a column and a
    chunk at a time; chunks that disagree on the kind (NULLs only, then Decimals; a type
    change) fall back to the whole column, so the bytes stay `pack_record`'s."""
    monkeypatch.setattr(codec, "CHUNK", 4)
    n = 20
    rows = [(None if i < 6 else Decimal(i), dt.date(2001, 1, 1) if i < 15 else "d", i, "s")
            for i in range(n)]
    spaces = [SpaceWrites(5, AscendingKeys(b"k%03d" % i for i in range(n)), rows)]
    assert b"".join(record_pieces(3, [], (), spaces)) == pack_record(3, [], (), spaces)
    assert unpack_bulk(pack_record(3, [], (), spaces))[3][0].rows == rows


def test_parts_written_as_they_come_read_back_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(codec, "CHUNK", 16)
    spaces, cols = _spaces(500)
    whole = pack_record(41, [], (), spaces, cols)
    log = RedoLog(str(tmp_path), "L0")
    log.log_pieces(41, record_pieces(41, [], (), spaces, cols), part_bytes=1000)
    log.log_pieces(42, record_pieces(42, [Write(5, b"z", (1,))]), part_bytes=1000)  # one part
    log.close()
    found = {unpack_bulk(p)[0]: p for p in read_log(str(tmp_path))}
    assert found == {41: whole, 42: pack_record(42, [Write(5, b"z", (1,))])}
    group = LogGroup(str(tmp_path / "g"), 2)
    group.log_pieces(43, record_pieces(43, [], (), spaces, cols))
    group.close()
    assert list(read_log(str(tmp_path / "g"))) == [pack_record(43, [], (), spaces, cols)]


def test_a_record_cut_before_its_last_part_is_not_recovered(tmp_path, monkeypatch):
    monkeypatch.setattr(codec, "CHUNK", 16)
    spaces, cols = _spaces(300)

    def crash_after(pieces):
        for i, p in enumerate(pieces):
            if i == 20:
                raise OSError("the process died here")
            yield p

    log = RedoLog(str(tmp_path), "L0")
    with pytest.raises(OSError):
        log.log_pieces(41, crash_after(record_pieces(41, [], (), spaces, cols)), part_bytes=200)
    log.log(42, pack_record(42, [Write(5, b"z", (1,))]))
    log.close()
    assert [unpack_bulk(p)[0] for p in read_log(str(tmp_path))] == [42]
