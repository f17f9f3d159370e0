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
so a run that is stopped early still leaves its figures (SIGTERM or SIGINT stop it
cleanly: the servers are stopped and their tracebacks and memory recorded).

Chunk k always goes to front end k mod (number of front ends) with seed `--seed` + k,
but each front end has its own worker process, so the front ends are fuzzed at the
same time rather than taking turns (`--serial` takes turns in one process): the run
is bound by the client's waits and hypothesis's own work, not by one server. The
control session runs its query as a statement prepared once, through libpq directly,
so checking it after each input costs the client little; what is sent to the fuzzed
connections is the same either way.

Run it niced on a shared machine: `nice -n 19 python -m tests.integration.fuzz_long`.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import queue
import re
import shutil
import signal
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
_CONTROL_SQL = b"select sum(v), count(*) from fuzz_ctl"
_STOP = {"asked": False}  # NB: set by SIGTERM; checked before each input and each chunk


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


class Control:
    """The session opened before the fuzzing, asked the same question after every input.

    The query is prepared once and run through libpq (psycopg's `pgconn`), which
    skips psycopg's per-query Python work: over a million inputs that work was a
    fifth of the client's time, and the question and its checks stay the same.
    """

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn = self._open()

    def _open(self) -> psycopg.Connection:
        conn = psycopg.connect(self.dsn, autocommit=True)
        res = conn.pgconn.prepare(b"fuzz_control", _CONTROL_SQL)
        if res.status != psycopg.pq.ExecStatus.COMMAND_OK:
            raise RuntimeError(f"control prepare failed: {res.error_message!r}")
        return conn

    def check(self) -> str | None:
        """Returns what went wrong (reconnecting for the next input), or None."""
        try:
            res = self.conn.pgconn.exec_prepared(b"fuzz_control", [])
            ok = res.status == psycopg.pq.ExecStatus.TUPLES_OK
            err = "" if ok else res.error_message.decode(errors="replace").strip()
        except psycopg.Error as e:
            ok, err = False, f"{type(e).__name__}: {e}"
        if not ok:
            self.reopen()
            return f"control session failed: {err}"[:200]
        got = (res.get_value(0, 0), res.get_value(0, 1)) if res.ntuples == 1 else None
        if got != (b"5050", b"100"):
            return f"control session read {got}"
        return None

    def reopen(self) -> None:
        self.close()
        self.conn = self._open()

    def close(self) -> None:
        try:
            self.conn.close()
        except psycopg.Error:
            pass


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

    def add(self, other: Run) -> None:
        """Adds a worker's counts for one chunk."""
        self.inputs += other.inputs
        self.crashes += other.crashes
        self.failures.update(other.failures)
        for what, ex in other.examples.items():
            self.examples.setdefault(what, ex)

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


def _start(frontend: str) -> tuple[CumuloServer, Control]:
    # NB: generous: several servers start at once on a loaded machine
    server = CumuloServer(extra_args=["--frontend", frontend]).start(timeout=300)
    with psycopg.connect(server.dsn(), autocommit=True) as c:
        c.execute("create table if not exists fuzz_t (a int, b int)")
        c.execute("create table if not exists fuzz_ctl (k int primary key, v int)")
        c.execute("delete from fuzz_ctl")
        c.execute("insert into fuzz_ctl select g, g from generate_series(1, 100) g")
    return server, Control(server.dsn())


def _run_chunk(run: Run, server: CumuloServer, control: Control, n: int,
               chunk_seed: int) -> None:
    """Runs n examples against one server; restarts it if it dies."""

    @seed(chunk_seed)
    @settings(max_examples=n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(inputs)
    def one(example: tuple[bytes, list[bytes], int]) -> None:
        if _STOP["asked"]:
            raise KeyboardInterrupt  # NB: hypothesis passes it on and stops
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
            control.reopen()
            return
        what = control.check()
        if what is not None:
            run.fail(what, data, chunk_seed)

    one()


def _tracebacks(log: str) -> collections.Counter[str]:
    return collections.Counter(m.group(1)[:200] for m in _TRACE_END.finditer(log))


def _finish(frontend: str, server: CumuloServer, control: Control) -> tuple[int | None, Any]:
    """Stops one server after checking it still answers; returns its last RSS and tracebacks."""
    rss = None
    if server.proc is not None and server.proc.poll() is None:
        rss = _rss_kb(server.proc.pid)
    control.close()
    with psycopg.connect(server.dsn(), autocommit=True) as after:
        assert after.execute("select 42").fetchone() == (42,), frontend
    server.stop()
    tracebacks = _tracebacks(server.log())
    shutil.rmtree(server.data_dir, ignore_errors=True)
    return rss, tracebacks


def _chunks(examples: int, chunk: int) -> list[int]:
    """The size of each chunk, by chunk number."""
    return [min(chunk, examples - at) for at in range(0, examples, chunk)]


def _stop_on_term(*_: Any) -> None:
    """In a worker: stops the chunk now (a KeyboardInterrupt raised where a GC callback
    runs is swallowed, so each input also checks the flag)."""
    _STOP["asked"] = True
    raise KeyboardInterrupt


def _ask_stop(*_: Any) -> None:
    _STOP["asked"] = True


def _worker(frontend: str, label: str, mine: list[tuple[int, int]], base_seed: int,
            results: Any) -> None:
    """One server's chunks, (number, size) each; reports to the parent after each."""
    signal.signal(signal.SIGTERM, _stop_on_term)
    signal.signal(signal.SIGINT, _stop_on_term)
    try:
        server, control = _start(frontend)
    except BaseException:
        results.put(("done", label, (None, {})))  # NB: the parent must not wait for it
        raise
    results.put(("rss", label, _rss_kb(server.proc.pid)))  # type: ignore[union-attr]
    run = Run("")

    def report() -> None:
        rss = _rss_kb(server.proc.pid)  # type: ignore[union-attr]
        results.put(("chunk", label, (run.inputs, run.crashes, dict(run.failures),
                                         run.examples, rss)))

    try:
        for number, size in mine:
            if _STOP["asked"]:
                break
            run = Run("")
            _run_chunk(run, server, control, size, base_seed + number)
            report()
            run = Run("")
    except KeyboardInterrupt:
        if run.inputs:
            report()  # NB: the inputs of the chunk that was cut short count too
    finally:
        rss, tbs = _finish(frontend, server, control)
        results.put(("done", label, (rss, dict(tbs))))


def _parallel(run: Run, args: argparse.Namespace, frontends: list[str]) -> int:
    """A worker process and server per entry of `frontends` (a front end named twice gets
    two, each with half its chunks); returns the number of chunks done."""
    sizes = _chunks(args.examples, args.chunk)
    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    labels = [f if frontends.count(f) == 1 else f"{f}{i}" for i, f in enumerate(frontends)]
    workers = [ctx.Process(target=_worker, args=(
        f, labels[i], [(k, n) for k, n in enumerate(sizes) if k % len(frontends) == i],
        args.seed, results)) for i, f in enumerate(frontends)]
    for w in workers:
        w.start()
    counts = {"chunks": 0, "done": 0}

    def take(kind: str, frontend: str, payload: Any) -> None:
        if kind == "rss":
            run.rss[frontend] = [payload]
        elif kind == "chunk":
            part = Run("")
            part.inputs, part.crashes, failures, part.examples, rss = payload
            part.failures.update(failures)
            run.add(part)
            run.rss[frontend].append(rss)
            counts["chunks"] += 1
            run.save(chunks=counts["chunks"], running=True)
            print(f"{run.inputs} inputs, {run.crashes} crashes, {len(run.failures)} "
                  f"distinct failures, {time.monotonic() - run.started:.0f}s "
                  f"({frontend}: {rss // 1024} MB)", flush=True)
        else:
            rss, tbs = payload
            if rss is not None:
                run.rss[frontend].append(rss)
            run.tracebacks.update(tbs)
            counts["done"] += 1

    deadline = None
    while counts["done"] < len(workers):
        if _STOP["asked"] and deadline is None:
            for w in workers:
                if w.is_alive():
                    w.terminate()  # NB: it reports its cut chunk, stops its server, "done"
            deadline = time.monotonic() + 300
        if deadline is not None and time.monotonic() > deadline:
            print("workers did not finish", flush=True)
            break
        try:
            take(*results.get(timeout=1))
        except queue.Empty:
            pass
    for w in workers:
        w.join()
    return counts["chunks"]


def _serial(run: Run, args: argparse.Namespace, frontends: list[str]) -> int:
    """The front ends take turns by chunk in this process; returns the chunks done."""
    servers = {f: _start(f) for f in frontends}
    for f, (server, _) in servers.items():
        run.rss[f] = [_rss_kb(server.proc.pid)]  # type: ignore[union-attr]
    done = 0
    try:
        for chunk_no, n in enumerate(_chunks(args.examples, args.chunk)):
            frontend = frontends[chunk_no % len(frontends)]
            server, control = servers[frontend]
            _run_chunk(run, server, control, n, args.seed + chunk_no)
            run.rss[frontend].append(_rss_kb(server.proc.pid))  # type: ignore[union-attr]
            done += 1
            run.save(chunks=done, running=True)
            print(f"{run.inputs} inputs, {run.crashes} crashes, {len(run.failures)} distinct "
                  f"failures, {time.monotonic() - run.started:.0f}s", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        for f, (server, control) in servers.items():
            rss, tbs = _finish(f, server, control)
            if rss is not None:
                run.rss[f].append(rss)
            run.tracebacks.update(tbs)
    return done


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=1_000_000)
    ap.add_argument("--chunk", type=int, default=5_000)
    ap.add_argument("--seed", type=int, default=20261128)
    ap.add_argument("--out", default="fuzz_long.json")
    ap.add_argument("--frontends", default="threads,loop",
                    help="the front ends to fuzz: chunk k goes to entry k mod their number "
                    "(name one twice for two servers of it)")
    ap.add_argument("--serial", action="store_true",
                    help="take turns in one process instead of a worker per front end")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, _stop_on_term if args.serial else _ask_stop)
    run = Run(args.out)
    frontends = args.frontends.split(",")
    chunks = (_serial if args.serial else _parallel)(run, args, frontends)
    print(json.dumps(run.save(chunks=chunks, running=False), indent=1))


if __name__ == "__main__":
    main()
