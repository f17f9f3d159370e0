"""The long pgwire fuzz run: `python -m tests.integration.fuzz_long --examples 1000000`.

CI runs `test_frontend_fuzz.py`, which stops at the first failure so hypothesis
can shrink it. A long run wants the opposite: keep going, and count. This
script sends the same inputs (the strategies of `test_frontend_fuzz`) to a
real `cumulo serve` per front end (threads and loop, taking turns by chunk),
and records for each input whether

- the server died (it is then restarted, and the run goes on),
- the server did not hang up within the read timeout,
- a reply carried SQLSTATE XX000 (an internal error is always a bug),
- the control session, opened before the run, stopped giving the right answer;

and at the end how much the servers' resident memory grew, and every distinct
traceback the server logs wrote. Hypothesis keeps a tree of what it explored,
so the run is made of chunks of `--chunk` examples, each with its own seed
(`--seed` + chunk number): memory stays bounded and a failure names the seed
that reproduces it. A JSON summary is rewritten after every chunk (`--out`),
so a run that is stopped early still leaves its figures.

Run it niced on a shared machine: `nice -n 19 python -m tests.integration.fuzz_long`.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import socket
import time
from typing import Any

import psycopg
from hypothesis import HealthCheck, given, seed, settings

from tests.integration.test_frontend_fuzz import READ_TIMEOUT, _rss_kb, inputs
from tests.server_process import CumuloServer

_XX000 = b"CXX000\x00"
_TRACE_END = re.compile(r"^Traceback \(most recent call last\):\n(?:[ \t].*\n|\n)*(\S.*)$",
                        re.M)


def _exchange(host: str, port: int, data: bytes, chunk: int) -> str | None:
    """Sends one input as the CI test does; returns what went wrong, or None."""
    with socket.create_connection((host, port), timeout=READ_TIMEOUT) as s:
        got = bytearray()
        try:
            for i in range(0, len(data), chunk * 16):
                s.sendall(data[i:i + chunk * 16])
            s.shutdown(socket.SHUT_WR)
        except OSError:
            return None  # the server closed on us mid-way: allowed
        try:
            while b := s.recv(65536):
                got += b
        except ConnectionResetError:
            pass
        except TimeoutError:
            return f"no hang-up within {READ_TIMEOUT}s"
    if _XX000 in got:
        at = got.index(_XX000)
        m = re.search(rb"M([^\x00]*)\x00", bytes(got[at:at + 400]))
        return "XX000: " + (m.group(1).decode(errors="replace")[:160] if m else "?")
    return None


class Run:
    """Counts and keeps the first example of each distinct failure."""

    def __init__(self, out: str) -> None:
        self.out = out
        self.inputs = 0
        self.crashes = 0
        self.failures: collections.Counter[str] = collections.Counter()
        self.examples: dict[str, dict[str, Any]] = {}
        self.tracebacks: collections.Counter[str] = collections.Counter()
        self.rss: dict[str, list[int]] = {}
        self.started = time.monotonic()

    def fail(self, what: str, data: bytes, chunk_seed: int) -> None:
        self.failures[what] += 1
        self.examples.setdefault(what, {"seed": chunk_seed, "input": repr(data[:300])})

    def save(self, **extra: Any) -> dict[str, Any]:
        summary = {
            "inputs": self.inputs, "crashes": self.crashes,
            "distinct_failures": len(self.failures), "failures": dict(self.failures),
            "examples": self.examples, "server_tracebacks": dict(self.tracebacks),
            "rss_kb": self.rss, "seconds": round(time.monotonic() - self.started, 1), **extra,
        }
        with open(self.out, "w") as f:
            json.dump(summary, f, indent=1)
        return summary


def _start(frontend: str) -> tuple[CumuloServer, psycopg.Connection]:
    server = CumuloServer(extra_args=["--frontend", frontend]).start()
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        c.execute("create table if not exists fuzz_t (a int, b int)")
        c.execute("create table if not exists fuzz_ctl (k int primary key, v int)")
        c.execute("delete from fuzz_ctl")
        c.execute("insert into fuzz_ctl select g, g from generate_series(1, 100) g")
    return server, psycopg.connect(server.dsn(), autocommit=True)


def _run_chunk(run: Run, server: CumuloServer, control: psycopg.Connection, n: int,
               chunk_seed: int) -> psycopg.Connection:
    """Runs n examples against one server; restarts it if it dies. Returns the control."""
    state = {"control": control}

    @seed(chunk_seed)
    @settings(max_examples=n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(inputs)
    def one(example: tuple[bytes, list[bytes], int]) -> None:
        first, rest, chunk = example
        data = first + b"".join(rest)
        run.inputs += 1
        try:
            what = _exchange(server.host, server.port, data, chunk)
        except OSError as e:
            what = f"connect failed: {type(e).__name__}"
        if what is not None:
            run.fail(what, data, chunk_seed)
        if server.proc is not None and server.proc.poll() is not None:
            run.crashes += 1
            run.fail(f"server died (exit {server.proc.returncode})", data, chunk_seed)
            server.start()
            state["control"] = psycopg.connect(server.dsn(), autocommit=True)
            return
        try:
            got = state["control"].execute("select sum(v), count(*) from fuzz_ctl").fetchone()
        except psycopg.Error as e:
            run.fail(f"control session failed: {type(e).__name__}: {e}"[:200], data, chunk_seed)
            state["control"] = psycopg.connect(server.dsn(), autocommit=True)
            return
        if got != (5050, 100):
            run.fail(f"control session read {got}", data, chunk_seed)

    one()
    return state["control"]


def _tracebacks(log: str) -> collections.Counter[str]:
    return collections.Counter(m.group(1)[:200] for m in _TRACE_END.finditer(log))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=5_000)
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--out", default="fuzz_long.json")
    ap.add_argument("--frontends", default="threads,loop",
                    help="the front ends to fuzz, taking turns by chunk")
    args = ap.parse_args()
    run = Run(args.out)
    frontends = args.frontends.split(",")
    servers = {f: _start(f) for f in frontends}
    for f, (server, _) in servers.items():
        run.rss[f] = [_rss_kb(server.proc.pid)]  # type: ignore[union-attr]
    chunk_no = 0
    try:
        while run.inputs < args.examples:
            frontend = frontends[chunk_no % len(frontends)]
            server, control = servers[frontend]
            n = min(args.chunk, args.examples - run.inputs)
            control = _run_chunk(run, server, control, n, args.seed + chunk_no)
            servers[frontend] = (server, control)
            chunk_no += 1
            run.save(chunks=chunk_no, running=True)
            print(f"{run.inputs} inputs, {run.crashes} crashes, {len(run.failures)} distinct "
                  f"failures, {time.monotonic() - run.started:.0f}s", flush=True)
    finally:
        for f, (server, control) in servers.items():
            if server.proc is not None and server.proc.poll() is None:
                run.rss[f].append(_rss_kb(server.proc.pid))
            control.close()
            with psycopg.connect(server.dsn(), autocommit=True) as after:
                assert after.execute("select 42").fetchone() == (42,)
            server.stop()
            run.tracebacks.update(_tracebacks(server.log()))
        print(json.dumps(run.save(chunks=chunk_no, running=False), indent=1))


if __name__ == "__main__":
    main()
