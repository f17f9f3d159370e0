"""The floor: a pgwire server that does nothing, so its speed bounds any Python server's.

Cumulo's pgwire front end is asyncio in CPython. How fast can such a server
answer `SELECT 1` at all? This one answers the startup handshake (trust auth,
PostgreSQL 15's thirteen ParameterStatus messages, BackendKeyData) and then
every Query, and every Parse/Bind/Describe/Execute/Sync, with precomputed
bytes of PostgreSQL's own `SELECT 1` reply. It never parses SQL. Whatever rate
pgbench reaches against it is the ceiling for a one-process asyncio pgwire
server on this machine (PostgreSQL, a process per connection, can beat it on
several cores); Cumulo's rate divided by it says how much Cumulo spends on
real work.

It uses `asyncio.BufferedProtocol` (the loop reads straight into our buffer,
no per-read bytes object) and writes once per batch of messages read, as a
well-tuned server would. It remembers the distinct SQL texts it was sent (the
first 50), logging each when first seen and all with counts on exit, so a run
shows what a client sent besides the benchmark's own statements (pgbench's
startup probes, for instance).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import struct
import sys

SSL_REQUEST, GSS_REQUEST, CANCEL_REQUEST, PROTOCOL_3 = 80877103, 80877104, 80877102, 196608
MAX_REMEMBERED = 50


def _msg(kind: bytes, body: bytes = b"") -> bytes:
    """Returns a backend message: type byte, length, body."""
    return kind + struct.pack("!i", len(body) + 4) + body


def _cstr(text: str) -> bytes:
    """Returns text as a NUL-terminated UTF-8 string."""
    return text.encode() + b"\0"


PARAMETERS = {
    "application_name": "",
    "client_encoding": "UTF8",
    "DateStyle": "ISO, MDY",
    "default_transaction_read_only": "off",
    "in_hot_standby": "off",
    "integer_datetimes": "on",
    "IntervalStyle": "postgres",
    "is_superuser": "on",
    "server_encoding": "UTF8",
    "server_version": "15.18 (floor)",
    "session_authorization": "cumulo",
    "standard_conforming_strings": "on",
    "TimeZone": "Etc/UTC",
}


def _row_description(fmt: int) -> bytes:
    """Returns the RowDescription of `SELECT 1`: one int4 column "?column?"."""
    field = _cstr("?column?") + struct.pack("!ihihih", 0, 0, 23, 4, -1, fmt)
    return _msg(b"T", struct.pack("!h", 1) + field)


TAG = _msg(b"C", _cstr("SELECT 1"))
ROW_DESCRIPTION = [_row_description(0), _row_description(1)]  # by result format: text, binary
ROW_AND_TAG = [
    _msg(b"D", struct.pack("!hi", 1, 1) + b"1") + TAG,
    _msg(b"D", struct.pack("!hii", 1, 4, 1)) + TAG,
]
READY_IDLE = _msg(b"Z", b"I")
SIMPLE_REPLY = ROW_DESCRIPTION[0] + ROW_AND_TAG[0] + READY_IDLE
REPLIES = {ord("P"): _msg(b"1"), ord("S"): READY_IDLE, ord("C"): _msg(b"3")}
BIND_COMPLETE = _msg(b"2")
DESCRIBE_STATEMENT = _msg(b"t", struct.pack("!h", 0)) + ROW_DESCRIPTION[0]


def startup_reply(params: dict[str, str], pid: int) -> bytes:
    """Returns AuthenticationOk, ParameterStatus x 13, BackendKeyData and ReadyForQuery."""
    status = dict(PARAMETERS)
    status["application_name"] = params.get("application_name", "")
    status["session_authorization"] = params.get("user", "cumulo")
    out = [_msg(b"R", struct.pack("!i", 0))]
    out += [_msg(b"S", _cstr(k) + _cstr(v)) for k, v in status.items()]
    out.append(_msg(b"K", struct.pack("!ii", pid, 0x5EED)))
    out.append(READY_IDLE)
    return b"".join(out)


class Stats:
    """Counts connections and remembers the distinct queries sent, across connections."""

    def __init__(self) -> None:
        self.connections = 0
        self.queries: dict[bytes, int] = {}

    def saw(self, sql: bytes) -> None:
        """Counts one query text (only the first MAX_REMEMBERED distinct ones)."""
        if sql in self.queries:
            self.queries[sql] += 1
        elif len(self.queries) < MAX_REMEMBERED:
            self.queries[sql] = 1
            print(
                f"floor: first query {sql.decode(errors='replace')!r}", file=sys.stderr, flush=True
            )

    def summary(self) -> str:
        """Returns a readable account of what clients sent."""
        lines = [f"floor: {self.connections} connections; distinct queries (simple or Parse):"]
        lines += [f"  {n:>9}  {sql.decode(errors='replace')!r}" for sql, n in self.queries.items()]
        return "\n".join(lines)


class FloorProtocol(asyncio.BufferedProtocol):
    """One client connection: frames messages in place and replies with canned bytes."""

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.buf = bytearray(65536)
        self.filled = 0
        self.started = False
        self.binary = 0  # result format asked by the last Bind (asyncpg asks for binary)
        self.transport: asyncio.Transport  # set by connection_made, before any data

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.stats.connections += 1

    def get_buffer(self, sizehint: int) -> memoryview:
        if len(self.buf) - self.filled < 4096:  # NB: grow here, never while a view is exported
            bigger = bytearray(len(self.buf) * 2)
            bigger[: self.filled] = self.buf[: self.filled]
            self.buf = bigger
        return memoryview(self.buf)[self.filled :]

    def buffer_updated(self, nbytes: int) -> None:
        self.filled += nbytes
        buf, end, pos = self.buf, self.filled, 0
        out: list[bytes] = []
        while True:
            if not self.started:
                if end - pos < 8:
                    break
                (length,) = struct.unpack_from("!i", buf, pos)
                if end - pos < length:
                    break
                if not self._startup(bytes(buf[pos + 4 : pos + length]), out):
                    return
                pos += length
                continue
            if end - pos < 5:
                break
            kind = buf[pos]
            (length,) = struct.unpack_from("!i", buf, pos + 1)
            if end - pos < length + 1:
                break
            reply = REPLIES.get(kind)
            if reply is not None:
                out.append(reply)
            elif kind == 0x51:  # Q
                self.stats.saw(bytes(buf[pos + 5 : pos + length]).rstrip(b"\0"))
                out.append(SIMPLE_REPLY)
            elif kind == 0x42:  # B: the last int16 is 1 only if the (last) result code is binary
                self.binary = 1 if buf[pos + length - 1] == 0 and buf[pos + length] == 1 else 0
                out.append(BIND_COMPLETE)
            elif kind == 0x45:  # E
                out.append(ROW_AND_TAG[self.binary])
            elif kind == 0x44:  # D: statement or portal
                if buf[pos + 5] == 0x53:
                    out.append(DESCRIBE_STATEMENT)
                else:
                    out.append(ROW_DESCRIPTION[self.binary])
            elif kind == 0x58:  # X
                self._flush(out)
                self.transport.close()
                return
            if kind == 0x50:  # P: remember the SQL too (name NUL query NUL ...)
                body = bytes(buf[pos + 5 : pos + 1 + length])
                name_end = body.index(b"\0")
                self.stats.saw(body[name_end + 1 : body.index(b"\0", name_end + 1)])
            pos += length + 1
        if pos:
            buf[: end - pos] = buf[pos:end]  # same-size move: allowed while a view is exported
            self.filled = end - pos
        self._flush(out)

    def _startup(self, body: bytes, out: list[bytes]) -> bool:
        """Handles one pre-startup packet; returns False when the connection is done."""
        (code,) = struct.unpack_from("!i", body, 0)
        if code in (SSL_REQUEST, GSS_REQUEST):
            out.append(b"N")
        elif code == CANCEL_REQUEST:
            self.transport.close()
            return False
        elif code == PROTOCOL_3:
            parts = body[4:].split(b"\0")
            params = {
                parts[i].decode(): parts[i + 1].decode()
                for i in range(0, len(parts) - 1, 2)
                if parts[i]
            }
            out.append(startup_reply(params, os.getpid()))
            self.started = True
        else:
            self.transport.write(_msg(b"E", b"SFATAL\0C08P01\0Munsupported protocol\0\0"))
            self.transport.close()
            return False
        return True

    def _flush(self, out: list[bytes]) -> None:
        if out:
            self.transport.write(b"".join(out))


async def serve(host: str, port: int, stats: Stats, ready: asyncio.Future | None = None) -> None:
    """Serves until SIGTERM/SIGINT (or cancellation), then logs what clients sent."""
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: FloorProtocol(stats), host, port, backlog=1024)
    bound = server.sockets[0].getsockname()
    print(
        f"floor server ready to accept connections on {bound[0]}:{bound[1]}",
        file=sys.stderr,
        flush=True,
    )
    if ready is not None:
        ready.set_result(bound[1])
    stop = asyncio.Event()
    try:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
    except (RuntimeError, ValueError):  # not the main thread (tests): cancellation stops us
        pass
    try:
        await stop.wait()
    finally:
        server.close()
        print(stats.summary(), file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Runs the floor server from the command line."""
    parser = argparse.ArgumentParser(prog="python -m bench.floor_server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)
    asyncio.run(serve(args.host, args.port, Stats()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
