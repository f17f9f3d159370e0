"""Runs the plain-text MVCC scripts under `golden/` (toydb-style goldenscripts).

A script is a sequence of blocks: command lines, a `----` line, then the
expected output, up to a blank line. A command line is

    [!][tN: ]command args...

`tN:` runs the command in transaction tN's own thread (each transaction has
one, as each session has in the server); `!` marks a command that must fail,
and its error is printed. A command that blocks (the transaction waits behind
another writer or for its session's last commit) prints `tN: blocked`; a
later `tN: await` prints its outcome. Blocking is observed, not guessed: the
runner asks the LTM whether the thread waits inside it.

Transaction commands: begin [rc|rr|serializable] [readonly] [session=S],
get K..., lock K... (SELECT FOR UPDATE), scan [LO [HI]], put K=V..., delete K...,
bulk PREFIX LO HI V [rev] (`put_bulk` of keys PREFIX+LO .. PREFIX+(HI-1), zero-padded to
HI's width, in key order or reversed: a COPY's batch), savepoint NAME,
rollback_to NAME, new_statement, snapshot, commit, abort, await.
Global commands: setup K=V... (one autocommit txn), pause_apply,
resume_apply, status, gc.

Keys are the bytes of their names in space 1, rows are `(name, value)`.
`UPDATE_GOLDENFILES=1` rewrites the expected output. Unknown commands fail.
"""

from __future__ import annotations

import os
import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from cumulo.server.errors import SQLError
from cumulo.server.txn.api import ScanSpec
from cumulo.server.txn.embedded import open_embedded

SPACE = 1
ISO = {"rc": "read committed", "rr": "repeatable read", "serializable": "serializable"}
_LINE = re.compile(r"^(?P<bang>!)?(?:(?P<txn>t\w+):\s*)?(?P<cmd>\w+)(?P<args>.*)$")


class ScriptError(Exception):
    """The script itself is wrong (unknown command, bad usage)."""


def _value(text: str) -> Any:
    return int(text) if re.fullmatch(r"-?\d+", text) else text


def _fmt_row(key: bytes, row: Any) -> str:
    return f"{key.decode()}={'None' if row is None else row[1]}"


class Runner:
    """Executes one script against a fresh in-memory embedded transaction manager."""

    def __init__(self) -> None:
        self.tm = open_embedded(None, gc_interval=None)
        self.txns: dict[str, Any] = {}
        self.threads: dict[str, ThreadPoolExecutor] = {}
        self.pending: dict[str, Future[str]] = {}
        self.savepoints: dict[tuple[str, str], Any] = {}

    def close(self) -> None:
        """Stops the threads and the manager."""
        self.tm.ltm.resume_apply()
        for name, txn in self.txns.items():
            if name not in self.pending:
                txn.abort()
        for ex in self.threads.values():
            ex.shutdown(wait=False, cancel_futures=True)
        self.tm.close()

    # -- one command ---------------------------------------------------------------

    def run_line(self, line: str) -> list[str]:
        """Runs one command line and returns its output lines."""
        m = _LINE.match(line)
        if not m:
            raise ScriptError(f"cannot parse {line!r}")
        bang, name, cmd = bool(m["bang"]), m["txn"], m["cmd"]
        args = m["args"].split()
        if name is None:
            return self._global(cmd, args, bang)
        if cmd == "await":
            fut = self.pending.pop(name, None)
            if fut is None:
                raise ScriptError(f"{name}: nothing to await")
            return self._outcome(name, fut, bang, timeout=10.0)
        if name in self.pending:
            raise ScriptError(f"{name} is blocked; await it first")
        fn = self._txn_command(name, cmd, args)
        ex = self.threads.setdefault(name, ThreadPoolExecutor(1, thread_name_prefix=name))
        fut = ex.submit(fn)
        deadline = time.monotonic() + 10.0
        while not fut.done() and time.monotonic() < deadline:
            txn = self.txns.get(name)
            if txn is not None and self.tm.ltm.is_waiting(txn):
                self.pending[name] = fut
                return [f"{name}: blocked"]
            time.sleep(0.001)
        return self._outcome(name, fut, bang, timeout=0)

    def _outcome(self, name: str, fut: Future[str], bang: bool, timeout: float) -> list[str]:
        try:
            out = fut.result(timeout=timeout or None)
        except SQLError as e:
            if not bang:
                raise AssertionError(f"{name}: unexpected error {e.sqlstate}: {e}") from e
            where = f" (on {e.key.decode()})" if getattr(e, "key", None) else ""
            return [f"{name}: Error {e.sqlstate}: {e}{where}"]
        if bang:
            raise AssertionError(f"{name}: expected an error, got {out!r}")
        return [f"{name}: {out}"] if out else []

    def _txn_command(self, name: str, cmd: str, args: list[str]) -> Any:
        if cmd == "begin":
            iso, ro, session = "read committed", False, None
            for a in args:
                if a in ISO:
                    iso = ISO[a]
                elif a == "readonly":
                    ro = True
                elif a.startswith("session="):
                    session = a.split("=", 1)[1]
                else:
                    raise ScriptError(f"begin: unknown option {a!r}")

            def begin() -> str:
                self.txns[name] = self.tm.begin(isolation=iso, read_only=ro, session=session)
                return ""

            return begin
        txn = self.txns.get(name)
        if txn is None:
            raise ScriptError(f"{name}: no transaction; begin it first")
        if cmd == "get":
            return lambda: " ".join(
                _fmt_row(k.encode(), r)
                for k, r in zip(args, txn.get(SPACE, [a.encode() for a in args]), strict=True)
            )
        if cmd == "lock":
            return lambda: " ".join(
                _fmt_row(k.encode(), r)
                for k, r in zip(args, txn.lock(SPACE, [a.encode() for a in args]), strict=True)
            )
        if cmd == "scan":
            lo = args[0].encode() if len(args) > 0 else None
            hi = args[1].encode() if len(args) > 1 else None

            def scan() -> str:
                rows = [r for b in txn.scan(ScanSpec(SPACE, lo, hi)) for r in b]
                return "[" + " ".join(f"{r[0]}={r[1]}" for r in rows) + "]"

            return scan
        if cmd == "put":
            items = []
            for a in args:
                k, _, v = a.partition("=")
                items.append((k.encode(), (k, _value(v))))
            return lambda: txn.put(SPACE, items) or ""
        if cmd == "bulk":
            prefix, lo, hi, v, *order = args
            names = [f"{prefix}{i:0{len(hi)}d}" for i in range(int(lo), int(hi))]
            if order == ["rev"]:
                names.reverse()
            elif order:
                raise ScriptError(f"bulk: unknown option {order!r}")
            keys = [n.encode() for n in names]
            rows = [(n, _value(v)) for n in names]
            return lambda: txn.put_bulk(SPACE, keys, rows) or ""
        if cmd == "delete":
            return lambda: txn.delete(SPACE, [a.encode() for a in args]) or ""
        if cmd == "savepoint":
            (sp,) = args

            def savepoint() -> str:
                self.savepoints[(name, sp)] = txn.savepoint()
                return ""

            return savepoint
        if cmd == "rollback_to":
            (sp,) = args
            return lambda: txn.rollback_to(self.savepoints[(name, sp)]) or ""
        if cmd == "new_statement":
            return lambda: txn.new_statement() or ""
        if cmd == "snapshot":
            return lambda: f"start_ts={txn.start_ts}"
        if cmd == "commit":

            def commit() -> str:
                ts = txn.commit()
                return "committed (read-only)" if ts is None else f"committed at {ts}"

            return commit
        if cmd == "abort":
            return lambda: txn.abort() or "aborted"
        raise ScriptError(f"unknown command {cmd!r}")

    def _global(self, cmd: str, args: list[str], bang: bool) -> list[str]:
        if bang:
            raise ScriptError("! applies to transaction commands only")
        ltm = self.tm.ltm
        if cmd == "setup":
            txn = self.tm.begin()
            items = []
            for a in args:
                k, _, v = a.partition("=")
                items.append((k.encode(), (k, _value(v))))
            txn.put(SPACE, items)
            return [f"setup committed at {txn.commit()}"]
        if cmd == "pause_apply":
            ltm.pause_apply()
            return []
        if cmd == "resume_apply":
            ltm.resume_apply()
            return []
        if cmd == "status":
            s = self.tm.stats
            return [
                f"snapshot={s['snapshot']} commits={s['commits']} waits={s['waits']} "
                f"conflicts={s['conflicts']} deadlocks={s['deadlocks']} "
                f"session_waits={s['session_waits']}"
            ]
        if cmd == "gc":
            return [f"gc low_water={self.tm.collect()}"]
        raise ScriptError(f"unknown command {cmd!r}")


def parse(text: str) -> list[tuple[list[str], list[str]]]:
    """Splits a script into (commands, expected output) blocks."""
    blocks: list[tuple[list[str], list[str]]] = []
    cmds: list[str] = []
    out: list[str] | None = None
    for raw in text.splitlines():
        line = raw.rstrip()
        if out is None:
            if line == "----":
                out = []
            elif line and not line.startswith("#"):
                cmds.append(line)
            elif line.startswith("#") and cmds:
                raise ScriptError(f"comment inside a command block: {line!r}")
        elif line == "":
            blocks.append((cmds, out))
            cmds, out = [], None
        else:
            out.append(line)
    if out is not None:
        blocks.append((cmds, out))
        cmds = []
    if cmds:
        raise ScriptError(f"commands without ---- at the end: {cmds}")
    return blocks


def run_script(path: str) -> tuple[str, str]:
    """Runs a script; returns (expected text, actual text) with comments preserved."""
    with open(path) as f:
        text = f.read()
    blocks = parse(text)
    runner = Runner()
    actual_blocks = []
    try:
        for cmds, _ in blocks:
            out: list[str] = []
            for c in cmds:
                out.extend(runner.run_line(c))
            actual_blocks.append(out)
    finally:
        runner.close()
    # Rebuild the script text with the actual outputs in place of the expected ones.
    lines = text.splitlines()
    result: list[str] = []
    i = 0
    b = 0
    while i < len(lines):
        line = lines[i]
        result.append(line)
        i += 1
        if line == "----":
            result.extend(actual_blocks[b])
            b += 1
            while i < len(lines) and lines[i].strip() != "":
                i += 1
    return text, "\n".join(result) + "\n"


def check(path: str) -> None:
    """Asserts a script's output (or rewrites it with UPDATE_GOLDENFILES=1)."""
    expected, actual = run_script(path)
    if os.environ.get("UPDATE_GOLDENFILES") == "1":
        with open(path, "w") as f:
            f.write(actual)
        return
    assert actual == expected, f"{path}: output differs\n--- actual ---\n{actual}"
