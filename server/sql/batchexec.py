"""Pipelined executions of one prepared INSERT, run as one bulk write with row-path outcomes.

pgwire holds a run of Executes of the same statement that arrive before a
Sync (`pgwire.extended`) and hands their parameter lists here. The outcome must
be the one `execute` per row would give: a reply per row, and at the first
failing row its error (with its DETAIL), the rows after it skipped, and the
session left as PostgreSQL leaves it.

How:

1. the first row runs through `execute`, the ordinary path: privileges,
   revalidation after DDL, the transaction's start;
2. the rest run as one statement (`Stmt.many`, a `dml.batchinsert.BatchInsert`)
   behind a savepoint taken just before it;
3. if that fails, the savepoint is rolled back and the rows replay one by one
   through `execute`, so the error lands on the row, with the message, that the
   row path gives. A cancel is not replayed: it ends the run where it hit.

Every row is one statement either way, so nothing of a failed run survives but
what the row path would leave too: after an error the implicit transaction is
rolled back at Sync, and an explicit one is aborted. A sequence the run drew
from (a serial or identity column) is put back where it was before the replay
(`CatalogStore.rewind_sequence`), so the replay draws the row path's values,
unless another session drew from it meanwhile (then the replayed rows get later
values: a gap, as concurrent inserts leave on PostgreSQL too). `Stmt.many` is
None for what a replay could not repeat exactly (volatile defaults, two columns
from sequences).

With RETURNING (plain columns), each row's reply is its own row, as the row path's.

The bulk statement would stretch statement_timeout over the whole run and log
one statement for many, so with either of those set, or log_statement, the rows
go one by one.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from ..errors import QueryCanceled, SQLError
from ..pgwire.backend import Prepared, Result

if TYPE_CHECKING:
    from .session import SQLSession


def can_batch(prepared: Prepared) -> bool:
    """Tells pgwire whether Executes of `prepared` may be held for `execute_many`."""
    handle = prepared.handle
    many = handle.many if handle is not None else None
    return many is not None and (prepared.columns is None or many.returning is not None)


def _plain(s: SQLSession) -> bool:
    """No per-statement timer or log that one bulk statement would change."""
    v = s.settings.values
    return (v.get("statement_timeout", "0") == "0" and v.get("log_statement", "none") == "none"
            and v.get("log_min_duration_statement", "-1") == "-1")


def execute_many(s: SQLSession, prepared: Prepared, seq: list[list[Any]]
                 ) -> tuple[list[Result], BaseException | None]:
    """Runs `prepared` once per parameter list, as that many `execute` calls would.

    Returns the results of the executions that succeeded, in order, and the error of
    the one that failed (None if none did); the executions after it did not run.
    The failure has been reported to the session (`on_error`) as `execute` does.
    """
    results: list[Result] = []
    if len(seq) < 3 or not _plain(s) or s.failed:
        return _one_by_one(s, prepared, seq, results)
    try:
        results.append(s.execute(prepared, seq[0]))
    except Exception as e:
        return results, e
    rest = seq[1:]
    stmt = prepared.handle  # NB: as `execute` revalidated it
    many = stmt.many if stmt is not None else None
    txn = s.txn
    if many is None or txn is None or s.failed or not many.ready(s):
        return _one_by_one(s, prepared, rest, results)
    bulk = dataclasses.replace(stmt, run=many.run)
    token = txn.savepoint()
    s.last_query = prepared.sql
    marks = [(seq, s.store.sequence_mark(seq), s.currvals.get(seq.oid))
             for seq in many.sequences]
    try:
        done = s.execute_stmt(bulk, rest)
    except QueryCanceled as e:
        s.on_error(e)
        return results, e
    except SQLError:
        txn.rollback_to(token)  # NB: replay to find the row, and its error, the row path gives
        _give_back(s, marks)
        return _one_by_one(s, prepared, rest, results)
    except Exception as e:  # a bug: reported as the row path reports one
        s.on_error(e)
        return results, e
    prepared.executions += len(rest)
    if many.returning is not None:
        cols = done.columns
        results.extend(Result("INSERT 0 1", cols, iter((row,)), done=False)
                       for row in done.fetch())
    else:
        results.extend([Result("INSERT 0 1")] * len(rest))  # NB: a tag alone: one object serves
    return results, None


def _give_back(s: SQLSession, marks: list[tuple[Any, tuple[int, int], int | None]]) -> None:
    """Puts each sequence a failed run drew from back where it was (if nobody else drew
    since), and the session's currval with it: the replay then draws what the row path
    would have."""
    for seq, mark, before in marks:
        last = s.currvals.get(seq.oid)
        if last is None or last == before or not s.store.rewind_sequence(seq, mark, last):
            continue
        if before is None:
            s.currvals.pop(seq.oid, None)
        else:
            s.currvals[seq.oid] = before


def _one_by_one(s: SQLSession, prepared: Prepared, seq: list[list[Any]], results: list[Result]
                ) -> tuple[list[Result], BaseException | None]:
    for params in seq:
        try:
            results.append(s.execute(prepared, params))
        except Exception as e:
            return results, e
    return results, None
