"""Client side of the wire for byte-level tests: frontend message builders and a backend decoder.

`summarize(data)` turns backend bytes into short readable lines, so a test
reads like a pgtest script: send messages, expect e.g.
`["T n:23:0", "D 1", "C SELECT 1", "Z I"]`.
"""

from __future__ import annotations

import struct


def msg(kind: bytes, payload: bytes = b"") -> bytes:
    return kind + struct.pack("!i", len(payload) + 4) + payload


def cs(s: str) -> bytes:
    return s.encode() + b"\0"


def startup(user: str = "trust", database: str | None = None, minor: int = 0, **params) -> bytes:
    body = struct.pack("!i", (3 << 16) | minor) + cs("user") + cs(user)
    if database:
        body += cs("database") + cs(database)
    for k, v in params.items():
        body += cs(k) + cs(v)
    body += b"\0"
    return struct.pack("!i", len(body) + 4) + body


def ssl_request(code: int = 80877103) -> bytes:
    return struct.pack("!ii", 8, code)


def cancel_request(pid: int, secret: int) -> bytes:
    return struct.pack("!iiii", 16, 80877102, pid, secret)


def query(sql: str) -> bytes:
    return msg(b"Q", cs(sql))


def parse(sql: str, name: str = "", oids: tuple[int, ...] = ()) -> bytes:
    return msg(b"P", cs(name) + cs(sql) + struct.pack(f"!H{len(oids)}I", len(oids), *oids))


def bind(params: tuple[bytes | None, ...] = (), stmt: str = "", portal: str = "",
         pfmts: tuple[int, ...] = (), rfmts: tuple[int, ...] = ()) -> bytes:
    body = cs(portal) + cs(stmt) + struct.pack(f"!h{len(pfmts)}h", len(pfmts), *pfmts)
    body += struct.pack("!h", len(params))
    for p in params:
        body += struct.pack("!i", -1) if p is None else struct.pack("!i", len(p)) + p
    body += struct.pack(f"!h{len(rfmts)}h", len(rfmts), *rfmts)
    return msg(b"B", body)


def function_call(oid: int, args: tuple[bytes | None, ...] = (), fmts: tuple[int, ...] = (),
                  rfmt: int = 0) -> bytes:
    """A FunctionCall ('F'): the function's OID, argument formats and values, result format."""
    body = struct.pack(f"!Ih{len(fmts)}hh", oid, len(fmts), *fmts, len(args))
    for a in args:
        body += struct.pack("!i", -1) if a is None else struct.pack("!i", len(a)) + a
    return msg(b"F", body + struct.pack("!h", rfmt))


def describe(kind: str = "P", name: str = "") -> bytes:
    return msg(b"D", kind.encode() + cs(name))


def execute(portal: str = "", max_rows: int = 0) -> bytes:
    return msg(b"E", cs(portal) + struct.pack("!i", max_rows))


def close(kind: str, name: str = "") -> bytes:
    return msg(b"C", kind.encode() + cs(name))


SYNC = msg(b"S")
FLUSH = msg(b"H")
TERMINATE = msg(b"X")


def password(pw: str) -> bytes:
    return msg(b"p", cs(pw))


def copy_data(data: bytes) -> bytes:
    return msg(b"d", data)


COPY_DONE = msg(b"c")


def copy_fail(reason: str) -> bytes:
    return msg(b"f", cs(reason))


def _fields(payload: bytes) -> dict[str, str]:
    out = {}
    for part in payload.split(b"\0"):
        if part:
            out[chr(part[0])] = part[1:].decode()
    return out


def messages(data: bytes) -> list[tuple[str, bytes]]:
    """Splits backend bytes into (type, payload); single-byte SSL answers come as ('ssl', b)."""
    out, pos = [], 0
    while pos < len(data):
        if len(data) == 1:
            out.append(("ssl", data[pos : pos + 1]))
            break
        kind = chr(data[pos])
        (n,) = struct.unpack_from("!i", data, pos + 1)
        out.append((kind, data[pos + 5 : pos + 1 + n]))
        pos += 1 + n
    return out


def summarize(data: bytes) -> list[str]:
    """Returns one readable line per backend message."""
    lines = []
    for kind, p in messages(data):
        if kind == "R":
            lines.append(f"R{struct.unpack_from('!i', p)[0]}")
        elif kind == "S":
            name, value = p.split(b"\0")[:2]
            lines.append(f"S {name.decode()}={value.decode()}")
        elif kind == "Z":
            lines.append(f"Z {p.decode()}")
        elif kind == "T":
            (n,), pos, cols = struct.unpack_from("!h", p), 2, []
            for _ in range(n):
                end = p.index(0, pos)
                name = p[pos:end].decode()
                _tbl, _att, oid, _len, _mod, fmt = struct.unpack_from("!ihihih", p, end + 1)
                cols.append(f"{name}:{oid}:{fmt}")
                pos = end + 19
            lines.append("T " + ",".join(cols))
        elif kind == "D":
            (n,), pos, vals = struct.unpack_from("!h", p), 2, []
            for _ in range(n):
                (ln,) = struct.unpack_from("!i", p, pos)
                pos += 4
                if ln < 0:
                    vals.append("NULL")
                else:
                    vals.append(p[pos : pos + ln].decode("utf-8", "backslashreplace"))
                    pos += ln
            lines.append("D " + ",".join(vals))
        elif kind in "Cd":
            text = p.rstrip(b"\0").decode("utf-8", "backslashreplace")
            lines.append(f"{kind} {text}")
        elif kind in "EN":
            f = _fields(p)
            lines.append(f"{kind} {f.get('S')} {f.get('C')} {f.get('M')}")
        elif kind == "t":
            (n,) = struct.unpack_from("!H", p)  # NB: unsigned, up to 65535 parameters
            lines.append("t " + ",".join(map(str, struct.unpack_from(f"!{n}I", p, 2))))
        elif kind in "GH":
            lines.append(f"{kind} {p[0]} {struct.unpack_from('!h', p, 1)[0]}")
        elif kind == "ssl":
            lines.append(f"ssl {p.decode()}")
        else:
            lines.append(kind + (f" {p.hex()}" if p else ""))
    return lines


def error_fields(data: bytes) -> dict[str, str]:
    """Returns the fields of the first ErrorResponse in data."""
    for kind, p in messages(data):
        if kind == "E":
            return _fields(p)
    raise AssertionError("no ErrorResponse")
