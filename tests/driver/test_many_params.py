"""The driver's parameter path at the scale SQLAlchemy's multi-row INSERTs use it.

`insertmanyvalues` names every cell (`%(id__0)s, ... %(f__999)s`): 7,000 names in one
statement. Converting them to `$n` was quadratic (a list searched per name); these tests
pin the mapping itself (order, repeated names) and the encoded Bind, without a server.
"""

from __future__ import annotations

import datetime as dt
import doctest
import struct

from cumulo.driver import core, sqlparams


def test_doctests():
    result = doctest.testmod(sqlparams)
    assert result.attempted and not result.failed


def test_thousands_of_named_placeholders_keep_their_order_and_reuse():
    rows, cols = 1000, 7
    names = [f"c{j}__{i}" for i in range(rows) for j in range(cols)]
    sql = "INSERT INTO t VALUES " + ", ".join(
        "(" + ", ".join(f"%({n})s::BIGINT" for n in names[i * cols:(i + 1) * cols]) + ")"
        for i in range(rows)) + " RETURNING %(c0__0)s"
    params = {n: k for k, n in enumerate(names)}
    text, values, multi = sqlparams.bind_params(sql, params)
    assert not multi
    assert values == list(range(rows * cols))
    assert text.startswith("INSERT INTO t VALUES ($1::BIGINT, $2::BIGINT")
    assert text.endswith(f"(${rows * cols - 6}::BIGINT, ${rows * cols - 5}::BIGINT, "
                         f"${rows * cols - 4}::BIGINT, ${rows * cols - 3}::BIGINT, "
                         f"${rows * cols - 2}::BIGINT, ${rows * cols - 1}::BIGINT, "
                         f"${rows * cols}::BIGINT) RETURNING $1")
    one, values1, _ = sqlparams.bind_params("SELECT %(a)s, %(b)s, %(a)s", {"a": 1, "b": 2})
    assert (one, values1) == ("SELECT $1, $2, $1", [1, 2])


def test_encoded_bind_carries_every_value_and_null():
    values = [1, None, "x", 2.5, dt.datetime(2024, 1, 2, 3, 4, 5), True, 2**40, b"\x00"]
    oids, encoded = core.encode_params(values)
    assert oids == (23, 0, 0, 701, 1114, 16, 20, 17)
    stmt = core.Prepared("s1", "SELECT", oids, None)
    msg = core.bind_message(stmt, encoded)
    assert msg[:1] == b"B" and struct.unpack("!i", msg[1:5])[0] == len(msg) - 1
    body = msg[5:]
    assert body.startswith(b"\0s1\0")
    nformats = struct.unpack("!h", body[4:6])[0]
    formats = struct.unpack(f"!{nformats}h", body[6:6 + 2 * nformats])
    assert formats == (1, 0, 0, 1, 1, 1, 1, 1)  # the NULL's format is text, as encoded
    pos = 6 + 2 * nformats
    assert struct.unpack("!h", body[pos:pos + 2])[0] == len(values)
    pos += 2
    got = []
    for _ in values:
        size = struct.unpack("!i", body[pos:pos + 4])[0]
        pos += 4
        got.append(None if size < 0 else body[pos:pos + size])
        pos += max(size, 0)
    assert got == [e[2] for e in encoded] and got[1] is None and got[2] == b"x"
    assert body[pos:] == struct.pack("!h", 0)  # no result formats
