"""ADD PRIMARY KEY on a loaded table (pgbench's load-then-key order): the rewrite's checks.

The rewrite moves the rows under their new key in batches; an integer key goes
through a fast path with C-level passes only, and anything it cannot prove
clean (a NULL, a duplicate within a batch or across batches) falls back to the
row-by-row loop, which names the offending value as PostgreSQL 15 does.
"""

from __future__ import annotations

from .helpers import fails, rows, run

N = 10_000  # more than two of the rewrite's 4096-row batches


def test_integer_key_rewrite_keeps_every_row(session):
    run(session, "create table a (aid int not null, bid int, abalance int, filler char(84))")
    run(session, f"insert into a select g, (g - 1) / 1000 + 1, 0, '' from generate_series({N}, 1, -1) g")
    run(session, "alter table a add primary key (aid)")
    assert rows(session, "select count(*), min(aid), max(aid), sum(bid) from a") == [
        (N, 1, N, sum((g - 1) // 1000 + 1 for g in range(1, N + 1)))]
    assert rows(session, "select aid, bid from a where aid = 4097") == [(4097, 5)]
    fails(session, "insert into a values (17, 1, 0, '')", "23505")


def test_duplicate_across_batches(session):
    run(session, "create table d (k bigint, v text)")
    run(session, f"insert into d select g, 'x' from generate_series(1, {N}) g")
    run(session, "insert into d values (3, 'again')")  # stored after the first batch
    err = fails(session, "alter table d add primary key (k)", "23505")
    assert err.message == 'could not create unique index "d_pkey"'
    assert err.detail == "Key (k)=(3) is duplicated."
    assert rows(session, "select count(*) from d") == [(N + 1,)]  # nothing changed


def test_duplicate_within_a_batch_and_null(session):
    run(session, "create table e (k int, v int)")
    run(session, "insert into e values (1, 1), (2, 2), (2, 3)")
    err = fails(session, "alter table e add primary key (k)", "23505")
    assert err.detail == "Key (k)=(2) is duplicated."
    run(session, "create table f (k smallint, v int)")
    run(session, "insert into f values (1, 1), (null, 2)")
    err = fails(session, "alter table f add primary key (k)", "23502")
    assert err.message == 'column "k" of relation "f" contains null values'
