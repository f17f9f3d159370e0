"""The loop front end's short way for a usual round trip (`PgProtocol.plain`) gives way to the
full one (`_process`) whenever something rare happened to the connection: input that came
while its statement was parked, a client that stopped reading. Each test first makes the
connection plain (a round trip after its startup), then makes the rare thing happen and
checks what PostgreSQL's backend would do next. Real SQL engine (in-memory transaction
manager), real uvloop loop and hub; the transports are stand-ins that keep what is written.
Loop passes, not time, drive the tests (`passes`)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import uvloop

from cumulo.server.pgwire import loop as L
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded
from tests.unit.pgwire import wire as W


class Transport:
    """What `PgProtocol` uses of a uvloop transport; keeps every write."""

    def __init__(self, protocol: L.PgProtocol) -> None:
        self.written = bytearray()
        self.protocol = protocol
        self.closed = False

    def get_extra_info(self, _name: str, default: Any = None) -> Any:
        return default

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass

    def write(self, data: bytes) -> None:
        self.written += data

    def take(self) -> list[str]:
        out = W.summarize(bytes(self.written))
        self.written.clear()
        return out

    def close(self) -> None:  # NB: as a transport's: connection_lost on a later pass
        if not self.closed:
            self.closed = True
            asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)

    def abort(self) -> None:
        self.close()

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def passes(done: Callable[[], bool]) -> None:
    """Runs loop passes until `done()` (a generous deadline only against a hang)."""
    deadline = time.monotonic() + 60
    while not done():
        assert time.monotonic() < deadline, "the loop never got there"
        await asyncio.sleep(0)


async def client(server: L.LoopServer) -> tuple[L.PgProtocol, Transport]:
    h = L.PgProtocol(server, local=True)
    t = Transport(h)
    h.connection_made(t)
    h.data_received(W.startup("cumulo", "cumulo"))
    await passes(lambda: t.written.endswith(b"Z\0\0\0\5I"))
    t.take()
    h.data_received(W.query("SELECT 1"))  # NB: a round trip after the startup: plain now
    await passes(lambda: not h.busy and not h.reply)
    assert t.take() == ["T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]
    assert h.plain
    return h, t


def on_loop(test: Callable[[L.LoopServer], Any]) -> None:
    async def main() -> None:
        engine = SQLEngine(open_embedded(None, gc_interval=None))
        server = L.LoopServer(engine, "trust", None)
        try:
            await test(server)
        finally:
            await server.close(grace=5.0)
            engine.close()

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(main())


def test_input_that_came_while_parked_runs_when_the_statement_ends():
    async def test(server: L.LoopServer) -> None:
        (a, ta), (b, tb) = await client(server), await client(server)
        a.data_received(W.query("CREATE TABLE t (k int PRIMARY KEY, v int);"
                                "INSERT INTO t VALUES (1, 0)"))
        await passes(lambda: ta.written.endswith(b"Z\0\0\0\5I"))
        a.data_received(W.query("BEGIN; UPDATE t SET v = 1 WHERE k = 1"))
        await passes(lambda: ta.written.endswith(b"Z\0\0\0\5T"))
        b.data_received(W.query("UPDATE t SET v = 2 WHERE k = 1"))
        await passes(lambda: b.busy)  # NB: parked on a's row lock
        b.data_received(W.query("SELECT 42"))  # kept until the UPDATE ends
        assert b.busy and tb.take() == []
        a.data_received(W.query("COMMIT"))
        await passes(lambda: tb.written.count(b"Z\0\0\0\5I") == 2)
        assert tb.take() == ["C UPDATE 1", "Z I", "T ?column?:23:0", "D 42", "C SELECT 1",
                             "Z I"]

    on_loop(test)


def test_a_client_that_stops_reading_parks_its_session_until_it_drains():
    async def test(server: L.LoopServer) -> None:
        h, t = await client(server)
        h.pause_writing()  # NB: as the transport says when its buffer passes the high mark
        h.data_received(W.query("SELECT 2"))
        await passes(lambda: bool(t.written))  # the held reply goes out at the pass's end
        assert h.busy  # NB: but the session waits for the client to read
        h.data_received(W.query("SELECT 3"))  # kept meanwhile
        assert t.take() == ["T ?column?:23:0", "D 2", "C SELECT 1", "Z I"]
        h.resume_writing()
        await passes(lambda: t.written.endswith(b"Z\0\0\0\5I"))
        assert t.take() == ["T ?column?:23:0", "D 3", "C SELECT 1", "Z I"]
        assert not h.busy

    on_loop(test)
