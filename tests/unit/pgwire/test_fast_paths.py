"""The OLTP fast paths keep every answer of the full paths they shortcut.

Each test first primes a cache (Bind's layout caches, the simple-protocol text
cache, the Bind-time plan check that Execute then trusts), then changes what the
cache depends on (a statement replaced under the same name, DDL, search_path,
a bad parameter) and checks the reply is what the full path, and PostgreSQL,
gives. The engine is the real SQL engine over an in-memory transaction manager,
driven byte for byte through `protocol.Connection`.
"""

from __future__ import annotations

import doctest
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cumulo.server.errors import SQLError
from cumulo.server.pgtypes.text import text_decoder
from cumulo.server.pgwire import bindvalues
from cumulo.server.pgwire.protocol import Connection
from cumulo.server.sql.engine import SQLEngine
from cumulo.server.txn.embedded import open_embedded
from tests.unit.pgwire import wire as W

INT4 = 23


@pytest.fixture
def conn():
    engine = SQLEngine(open_embedded(None, gc_interval=None))
    c = Connection(engine)
    out = W.summarize(c.feed(W.startup("cumulo", "cumulo")))
    assert out[-1] == "Z I"
    run(c, W.query("CREATE TABLE acc (aid int PRIMARY KEY, bal int, note text);"
                   "INSERT INTO acc SELECT g, g * 10, 'n' || g FROM generate_series(1, 5) g"))
    yield c
    c.close()
    engine.close()


def run(conn: Connection, *msgs: bytes) -> list[str]:
    return W.summarize(conn.feed(b"".join(msgs)))


def bind_exec(conn: Connection, stmt: str, *params: bytes | None, pfmts=(), rfmts=()) -> list[str]:
    return run(conn, W.bind(tuple(params), stmt=stmt, pfmts=pfmts, rfmts=rfmts), W.execute(),
               W.SYNC)


def test_repeated_binds_use_each_new_value(conn):
    assert run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s1"), W.SYNC) == ["1", "Z I"]
    for aid in (1, 2, 3, 2, 5, 9):
        want = [] if aid > 5 else [f"D {aid * 10}"]
        assert bind_exec(conn, "s1", str(aid).encode()) == [
            "2", *want, f"C SELECT {len(want)}", "Z I"]
    assert bind_exec(conn, "s1", None) == ["2", "C SELECT 0", "Z I"]


def test_binary_and_text_layouts_are_cached_apart(conn):
    run(conn, W.parse("SELECT aid, note FROM acc WHERE aid = $1", "s1", (INT4,)), W.SYNC)
    assert bind_exec(conn, "s1", b"4") == ["2", "D 4,n4", "C SELECT 1", "Z I"]
    binary = struct.pack("!i", 3)
    out = bind_exec(conn, "s1", binary, pfmts=(1,), rfmts=(1, 0))
    assert out[0] == "2" and out[2:] == ["C SELECT 1", "Z I"]
    kind, payload = W.messages(conn.feed(
        W.bind((binary,), stmt="s1", pfmts=(1,), rfmts=(1, 0)) + W.execute() + W.SYNC))[1]
    assert kind == "D" and payload[2:10] == struct.pack("!ii", 4, 3) and payload.endswith(b"n3")
    assert bind_exec(conn, "s1", b"4") == ["2", "D 4,n4", "C SELECT 1", "Z I"]


def test_a_bad_value_after_good_ones_names_its_parameter(conn):
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s1", (INT4,)), W.SYNC)
    good = struct.pack("!i", 1)
    assert bind_exec(conn, "s1", good, pfmts=(1,))[1] == "D 10"
    out = conn.feed(W.bind((b"\0\0\0\1\1",), stmt="s1", pfmts=(1,)) + W.execute() + W.SYNC)
    fields = W.error_fields(out)
    assert fields["C"] == "22P03"
    assert fields["M"] == "incorrect binary data format in bind parameter 1"
    assert W.summarize(out)[-1] == "Z I"
    assert bind_exec(conn, "s1", b"x")[0].startswith("E ERROR 22P02")
    assert bind_exec(conn, "s1", good, pfmts=(1,))[1] == "D 10"


def test_a_statement_replaced_under_the_same_name_is_bound_anew(conn):
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s1"), W.SYNC)
    assert bind_exec(conn, "s1", b"2")[1] == "D 20"
    assert run(conn, W.close("S", "s1"), W.parse("SELECT note FROM acc WHERE aid = $1", "s1"),
               W.SYNC) == ["3", "1", "Z I"]
    assert bind_exec(conn, "s1", b"2")[1] == "D n2"
    run(conn, W.close("S", "s1"), W.SYNC)
    out = bind_exec(conn, "s1", b"2")
    assert out[0] == 'E ERROR 26000 prepared statement "s1" does not exist'


def test_the_unnamed_statement_follows_each_parse(conn):
    for sql, want in (("SELECT bal FROM acc WHERE aid = $1", "D 30"),
                      ("SELECT note FROM acc WHERE aid = $1", "D n3"),
                      ("SELECT aid + 1 FROM acc WHERE aid = $1", "D 4")):
        assert run(conn, W.parse(sql), W.bind((b"3",)), W.execute(), W.SYNC) == [
            "1", "2", want, "C SELECT 1", "Z I"]


def test_a_duplicate_named_portal_is_still_refused(conn):
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s1"), W.SYNC)
    run(conn, W.query("BEGIN"))
    first = W.bind((b"1",), stmt="s1", portal="p")
    assert run(conn, first, W.SYNC) == ["2", "Z T"]
    assert run(conn, first, W.SYNC)[0] == 'E ERROR 42P03 cursor "p" already exists'
    run(conn, W.query("ROLLBACK"))


def test_ddl_between_binds_replans_or_refuses_like_postgresql(conn):
    run(conn, W.parse("SELECT * FROM acc WHERE aid = $1", "s1"), W.SYNC)
    assert bind_exec(conn, "s1", b"1")[1] == "D 1,10,n1"
    run(conn, W.query("ALTER TABLE acc ADD COLUMN extra int"))
    out = bind_exec(conn, "s1", b"1")
    assert out[0] == "E ERROR 0A000 cached plan must not change result type"
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s2"), W.SYNC)
    assert bind_exec(conn, "s2", b"1")[1] == "D 10"
    run(conn, W.query("UPDATE acc SET bal = 11 WHERE aid = 1"))
    assert bind_exec(conn, "s2", b"1")[1] == "D 11"


def test_statements_between_bind_and_execute_are_seen(conn):
    """Execute trusts Bind's plan check only if no statement ran in between."""
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s1"),
        W.parse("ALTER TABLE acc RENAME COLUMN bal TO balance", "ddl"), W.SYNC)
    out = run(conn, W.bind((b"1",), stmt="s1", portal="p"), W.bind(stmt="ddl", portal="q"),
              W.execute("q"), W.execute("p"), W.SYNC)
    assert out[:3] == ["2", "2", "C ALTER TABLE"]
    assert out[3].startswith("E ERROR 42703")  # PostgreSQL: column "bal" does not exist
    assert out[-1] == "Z I"


def test_simple_query_text_cache_follows_the_catalog(conn):
    for _ in range(3):
        assert run(conn, W.query("SELECT 1"))[-3:] == ["D 1", "C SELECT 1", "Z I"]
    sql = W.query("SELECT bal FROM acc WHERE aid = 2")
    assert run(conn, sql)[1] == "D 20"
    assert run(conn, sql)[1] == "D 20"
    run(conn, W.query("UPDATE acc SET bal = 21 WHERE aid = 2"))
    assert run(conn, sql)[1] == "D 21"
    run(conn, W.query("ALTER TABLE acc RENAME COLUMN bal TO balance"))
    assert run(conn, sql)[0].startswith("E ERROR 42703")
    run(conn, W.query("ALTER TABLE acc RENAME COLUMN balance TO bal"))
    assert run(conn, sql)[1] == "D 21"


def test_simple_query_text_cache_follows_search_path(conn):
    run(conn, W.query("CREATE SCHEMA other; CREATE TABLE other.acc (aid int, bal int);"
                      "INSERT INTO other.acc VALUES (2, -2)"))
    sql = W.query("SELECT bal FROM acc WHERE aid = 2")
    assert run(conn, sql)[1] == "D 20"
    run(conn, W.query("SET search_path = other"))
    assert run(conn, sql)[1] == "D -2"
    run(conn, W.query("RESET search_path"))
    assert run(conn, sql)[1] == "D 20"


def test_cached_literals_are_not_shared_between_runs(conn):
    sql = W.query("UPDATE acc SET note = note || 'x' WHERE aid = 4 RETURNING note")
    assert run(conn, sql)[1] == "D n4x"
    assert run(conn, sql)[1] == "D n4xx"
    assert run(conn, W.query("SELECT 'a', 2.5, 3"))[1:2] == ["D a,2.5,3"]
    assert run(conn, W.query("SELECT 'a', 2.5, 3"))[1:2] == ["D a,2.5,3"]


def test_an_unnamed_parse_of_a_known_text_follows_ddl_and_failed_blocks(conn):
    """The same unnamed Parse again (PQexecParams, pgbench -M extended) reuses the first one
    only while its plan still stands: a new column shows in Describe, a dropped table fails
    at Parse, and a failed block refuses it, each as a first Parse of the text would."""
    sql = "SELECT * FROM acc WHERE aid = $1"
    once = (W.parse(sql), W.bind((b"2",)), W.describe("P"), W.execute(), W.SYNC)
    seen = set()
    for _ in range(3):
        assert run(conn, *once) == ["1", "2", "T aid:23:0,bal:23:0,note:25:0", "D 2,20,n2",
                                    "C SELECT 1", "Z I"]
        seen.add(id(conn.statements[""]))
    assert len(seen) == 1  # parsed once, reused twice
    run(conn, W.query("ALTER TABLE acc ADD COLUMN extra int"))
    assert run(conn, *once)[2:4] == ["T aid:23:0,bal:23:0,note:25:0,extra:23:0", "D 2,20,n2,NULL"]
    run(conn, W.query("BEGIN; SELECT 1/0"))
    failed = run(conn, *once)
    assert any(m.startswith("E ERROR 25P02") for m in failed) and failed[-1] == "Z E"
    run(conn, W.query("ROLLBACK; DROP TABLE acc"))
    assert run(conn, *once)[0] == 'E ERROR 42P01 relation "acc" does not exist'
    run(conn, W.query("CREATE TABLE acc (aid int PRIMARY KEY, x text)"))
    assert run(conn, *once)[:3] == ["1", "2", "T aid:23:0,x:25:0"]


def _one_by_one(conn: Connection, msgs: list[bytes]) -> bytes:
    return b"".join(conn.feed(m) for m in msgs)


def test_a_whole_round_trip_answers_byte_for_byte_as_message_by_message(conn):
    """`_bind_run` takes Bind, [Describe,] Execute, Sync arriving together; fed one message
    at a time they go through each handler. Both must give the same bytes, whatever the
    statement does: a primary-key read (on a `StatementRead`), a scan, an error, a write,
    a failed block."""
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "pk"),
        W.parse("SELECT aid, note FROM acc WHERE bal > $1 ORDER BY aid", "scan"),
        W.parse("SELECT 10 / $1", "div"), W.parse("UPDATE acc SET bal = bal + 1 WHERE aid = $1",
                                                  "upd"), W.SYNC)
    rounds = [("pk", b"2"), ("pk", b"9"), ("pk", None), ("scan", b"20"), ("div", b"0"),
              ("div", b"5"), ("upd", b"3"), ("pk", b"3")]
    for describe in (True, False):
        for stmt, value in rounds:
            msgs = [W.bind((value,), stmt=stmt), *([W.describe("P")] if describe else []),
                    W.execute(), W.SYNC]
            together = conn.feed(b"".join(msgs))
            run(conn, W.query(f"UPDATE acc SET bal = bal - 1 WHERE aid = {value.decode()}")
                if stmt == "upd" else W.query("SELECT 1"))
            assert _one_by_one(conn, msgs) == together, (stmt, value, describe)
    assert bind_exec(conn, "pk", b"3") == ["2", "D 32", "C SELECT 1", "Z I"]  # two net +1s
    run(conn, W.query("BEGIN"), W.query("SELECT * FROM missing"))
    msgs = [W.bind((b"1",), stmt="pk"), W.describe("P"), W.execute(), W.SYNC]
    together = conn.feed(b"".join(msgs))
    assert W.summarize(together)[0].startswith("E ERROR 25P02")
    assert _one_by_one(conn, msgs) == together
    assert run(conn, W.query("ROLLBACK"))[-1] == "Z I"


def test_statements_without_rows_answer_in_one_pass_as_message_by_message(conn):
    """BEGIN, UPDATE, INSERT, SET, COMMIT (a TPC-B transaction's statements) also take
    `_bind_run`'s one pass: NoData for Describe, the tag, ParameterStatus after a SET,
    an error, 25P02 in a failed block and COMMIT ending it as ROLLBACK. Two sessions run
    the same script, one a round trip at a time, the other one message at a time: every
    reply must be the same bytes."""
    engine = SQLEngine(open_embedded(None, gc_interval=None))
    other = Connection(engine)
    other.feed(W.startup("cumulo", "cumulo"))
    parse = [W.query("CREATE TABLE t (k int PRIMARY KEY, v int, note text);"
                     "INSERT INTO t SELECT g, g * 10, 'n' FROM generate_series(1, 3) g"),
             W.parse("BEGIN", "b"), W.parse("COMMIT", "c"),
             W.parse("UPDATE t SET v = v + $1 WHERE k = $2", "u", (INT4, INT4)),
             W.parse("INSERT INTO t VALUES ($1, $2, now()::text)", "i", (INT4, INT4)),
             W.parse("UPDATE t SET v = v / $1 WHERE k = 1", "z", (INT4,)),
             W.parse("SET TimeZone = 'UTC'", "tz"), W.parse("RESET TimeZone", "untz"), W.SYNC]
    run(conn, *parse)
    _one_by_one(other, parse)
    script = [("b", ()), ("u", (b"5", b"2")), ("i", (b"40", b"1")), ("c", ()),
              ("u", (b"1", b"99")), ("tz", ()), ("untz", ()), ("z", (b"0",)),
              ("b", ()), ("z", (b"0",)), ("u", (b"1", b"2")), ("c", ()),
              ("i", (b"41", None)), ("u", (b"7", b"3"))]
    seen = []
    for describe in (True, False):
        for stmt, values in script:
            msgs = [W.bind(values, stmt=stmt), *([W.describe("P")] if describe else []),
                    W.execute(), W.SYNC]
            together = conn.feed(b"".join(msgs))
            assert _one_by_one(other, msgs) == together, (stmt, values, describe)
            seen.append(W.summarize(together))
    assert seen[0] == ["2", "n", "C BEGIN", "Z T"]
    assert seen[3][-2:] == ["C COMMIT", "Z I"]
    assert any(line == "S TimeZone=UTC" for line in seen[5])
    assert seen[7][-2].startswith("E ERROR 22012")
    assert seen[10][0].startswith("E ERROR 25P02")
    assert seen[11][-2:] == ["C ROLLBACK", "Z I"]
    assert seen[-1] == ["2", "C UPDATE 1", "Z I"]  # without Describe nothing before the tag
    query = W.query("SELECT k, v FROM t ORDER BY k")  # NB: k=2 got +5 once: the second
    assert run(conn, query) == W.summarize(other.feed(query)) == \
        ["T k:23:0,v:23:0", "D 1,10", "D 2,25", "D 3,44", "D 40,1", "D 41,NULL",
         "C SELECT 5", "Z I"]  # block failed at its duplicate INSERT of k=40 (23505)
    other.close()
    engine.close()


def test_the_portal_of_a_statement_without_rows_lives_on_only_in_a_block(conn):
    """`_bind_run`'s no-rows branch makes the unnamed portal only when it outlives the Sync:
    in a block a later Describe of it answers NoData and an Execute refuses the finished
    portal (55000), as PostgreSQL and the message-by-message path do; outside one the Sync
    dropped it."""
    run(conn, W.parse("BEGIN", "b"), W.parse("COMMIT", "c"),
        W.parse("UPDATE acc SET bal = bal + $1 WHERE aid = $2", "u"), W.SYNC)
    one_trip = [W.bind((b"1", b"2"), stmt="u"), W.describe("P"), W.execute(), W.SYNC]
    assert run(conn, *one_trip) == ["2", "n", "C UPDATE 1", "Z I"]
    assert run(conn, W.describe("P"), W.SYNC) == [
        'E ERROR 34000 portal "" does not exist', "Z I"]
    assert run(conn, W.bind((), stmt="b"), W.execute(), W.SYNC) == ["2", "C BEGIN", "Z T"]
    assert run(conn, *one_trip) == ["2", "n", "C UPDATE 1", "Z T"]
    assert run(conn, W.describe("P"), W.SYNC) == ["n", "Z T"]
    out = run(conn, W.execute(), W.SYNC)
    assert out == ['E ERROR 55000 portal "" cannot be run', "Z E"]
    assert run(conn, W.bind((), stmt="c"), W.execute(), W.SYNC) == ["2", "C ROLLBACK", "Z I"]
    assert bind_exec(conn, "u", b"0", b"2")[-2:] == ["C UPDATE 1", "Z I"]
    assert run(conn, W.query("SELECT bal FROM acc WHERE aid = 2"))[1] == "D 21"


@pytest.mark.parametrize("isolation", ["read committed", "repeatable read"])
def test_point_reads_in_a_block_answer_as_message_by_message(conn, isolation):
    """A primary-key read inside a block takes `read_point`'s lane too (the session's
    `_block_rows`): its row at the block's snapshot with the block's own writes, a new
    snapshot per statement under READ COMMITTED and the first one under REPEATABLE READ, and
    after the Sync a spent portal (Describe gives its row shape, Execute says SELECT 0).
    Each round trip must give the bytes of its messages one at a time."""
    other = Connection(conn.engine)
    other.feed(W.startup("cumulo", "cumulo"))
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "pk"),
        W.parse("UPDATE acc SET bal = bal + 1 WHERE aid = $1", "upd"), W.SYNC)
    taken = []
    lane = conn.session._block_rows
    conn.session._block_rows = lambda *a: taken.append(r := lane(*a)) or r

    def read(aid: bytes) -> list[str]:
        msgs = [W.bind((aid,), stmt="pk"), W.describe("P"), W.execute(), W.SYNC]
        together = conn.feed(b"".join(msgs))
        assert _one_by_one(conn, msgs) == together, aid
        return W.summarize(together)

    assert run(conn, W.query(f"BEGIN ISOLATION LEVEL {isolation}"))[-1] == "Z T"
    assert read(b"1") == ["2", "T bal:23:0", "D 10", "C SELECT 1", "Z T"]
    run(other, W.query("UPDATE acc SET bal = 999 WHERE aid = 1"))
    seen = "D 999" if isolation == "read committed" else "D 10"
    assert read(b"1") == ["2", "T bal:23:0", seen, "C SELECT 1", "Z T"]
    assert bind_exec(conn, "upd", b"2") == ["2", "C UPDATE 1", "Z T"]
    assert read(b"2") == ["2", "T bal:23:0", "D 21", "C SELECT 1", "Z T"]
    assert read(b"9") == ["2", "T bal:23:0", "C SELECT 0", "Z T"]
    together = conn.feed(W.bind((b"2",), stmt="pk") + W.execute() + W.SYNC)
    assert W.summarize(together) == ["2", "D 21", "C SELECT 1", "Z T"]
    assert run(conn, W.describe("P"), W.execute(), W.SYNC) == [
        "T bal:23:0", "C SELECT 0", "Z T"]  # NB: as PostgreSQL's finished portal
    # NB: the lane, not `execute`, but for the first read: right after BEGIN the block has
    # no transaction yet (`execute_stmt` begins it)
    assert [rows is not None for rows in taken] == [True] * 4
    assert run(conn, W.query("COMMIT")) == ["C COMMIT", "Z I"]
    assert run(other, W.query("SELECT bal FROM acc WHERE aid IN (1, 2) ORDER BY aid")) == [
        "T bal:23:0", "D 999", "D 21", "C SELECT 2", "Z I"]
    other.close()


def test_unnamed_statements_taken_again_keep_their_own_bind_layouts(conn):
    """psycopg sends each statement it has not prepared yet as an unnamed Parse + Bind; two
    texts whose Binds look alike up to the values take turns. Each keeps its own layouts
    (`Statement.heads`), so neither sends the other down the full path, and each Bind
    still binds its own statement."""
    texts = ("SELECT bal FROM acc WHERE aid = $1", "SELECT note FROM acc WHERE aid = $1")
    stmts = []
    for _turn in range(3):
        for sql, want in zip(texts, ("D 30", "D n3"), strict=True):
            assert run(conn, W.parse(sql), W.bind((b"3",)), W.execute(), W.SYNC) == [
                "1", "2", want, "C SELECT 1", "Z I"]
            stmts.append(conn.statements[""])
    assert stmts[0] is stmts[2] is stmts[4] and stmts[1] is stmts[3] is not stmts[0]
    assert all(len(s.heads) == 1 for s in stmts)
    hits = []
    fast_bound = conn._fast_bound
    conn._fast_bound = lambda *args: hits.append(r := fast_bound(*args)) or r
    for sql in texts:
        run(conn, W.parse(sql), W.bind((b"4",)), W.execute(), W.SYNC)
    assert [type(h) for h in hits] == [tuple, tuple]  # NB: both bound from their layouts


def test_autocommit_point_reads_take_a_snapshot_and_give_it_back(conn):
    """Outside a block under READ COMMITTED a primary-key read runs on a snapshot alone: it
    sees the session's own last commit, counts as a read-only commit and leaves nothing
    registered that would hold garbage collection back."""
    ltm = conn.engine.tm.ltm
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "pk"), W.SYNC)
    before = ltm.stats["read_only_commits"]
    for i in range(1, 4):
        run(conn, W.query(f"UPDATE acc SET bal = {100 + i} WHERE aid = 1"))
        assert bind_exec(conn, "pk", b"1") == ["2", f"D {100 + i}", "C SELECT 1", "Z I"]
    assert ltm.stats["read_only_commits"] == before + 3
    assert ltm.low_water() == ltm.snapshots.snapshot
    # REPEATABLE READ: the implicit transaction of a pipeline keeps one snapshot
    run(conn, W.query("SET default_transaction_isolation = 'repeatable read'"))
    out = run(conn, W.bind((b"1",), stmt="pk"), W.execute(), W.bind((b"1",), stmt="pk"),
              W.execute(), W.SYNC)
    assert out == ["2", "D 103", "C SELECT 1", "2", "D 103", "C SELECT 1", "Z I"]
    assert ltm.low_water() == ltm.snapshots.snapshot


def test_a_select_of_constants_runs_without_a_transaction_yet_keeps_its_status(conn):
    """`SELECT 1` outside a block takes no transaction (plan.pointread.tableless); inside
    one, in a failed one, with a statement_timeout, and next to writes it behaves as
    every other statement does (PostgreSQL's replies)."""
    session = conn.session
    assert run(conn, W.query("SELECT 1, 'a', $$b$$, NULL")) == [
        "T ?column?:23:0,?column?:25:0,?column?:25:0,?column?:25:0", "D 1,a,b,NULL",
        "C SELECT 1", "Z I"]
    assert session.txn is None
    assert run(conn, W.query("BEGIN; SELECT 2"))[-2:] == ["C SELECT 1", "Z T"]
    assert run(conn, W.query("SELECT 1/0"))[-2:] == ["E ERROR 22012 division by zero", "Z E"]
    assert run(conn, W.query("SELECT 3"))[-2:] == [
        "E ERROR 25P02 current transaction is aborted, commands ignored until end of "
        "transaction block", "Z E"]
    run(conn, W.query("ROLLBACK"))
    # a write then a constant SELECT in one Query: one implicit transaction, both seen
    assert run(conn, W.query("UPDATE acc SET bal = 7 WHERE aid = 1; SELECT 4"))[-3:] == [
        "D 4", "C SELECT 1", "Z I"]
    assert run(conn, W.query("SELECT bal FROM acc WHERE aid = 1"))[-3] == "D 7"
    run(conn, W.query("SET statement_timeout = '5s'"))
    assert run(conn, W.query("SELECT 5"))[-3:] == ["D 5", "C SELECT 1", "Z I"]
    run(conn, W.query("RESET statement_timeout"))
    # the extended protocol's constant statement too, with a parameter
    assert run(conn, W.parse("SELECT $1::int", "k"), W.bind((b"6",), stmt="k"), W.execute(),
               W.SYNC) == ["1", "2", "D 6", "C SELECT 1", "Z I"]
    assert session.txn is None
    # its one row comes without the executor (constant_row), after the privilege check of
    # a view that is nothing but constants; a cursor over one fetches it once
    run(conn, W.query("CREATE ROLE r; CREATE VIEW v AS SELECT 1 AS one, $$k$$ AS k"))
    assert run(conn, W.query("SET ROLE r; SELECT * FROM v"))[-2:] == [
        "E ERROR 42501 permission denied for view v", "Z I"]
    assert run(conn, W.query("RESET ROLE; SELECT * FROM v"))[-4:] == [
        "T one:23:0,k:25:0", "D 1,k", "C SELECT 1", "Z I"]
    # prepared, its row comes at Bind time too (`read_point`), with the same answers
    run(conn, W.parse("SELECT * FROM v", "view"), W.SYNC)
    assert run(conn, W.query("SET ROLE r"), W.bind((), stmt="view"), W.execute(), W.SYNC)[
        -2:] == ["E ERROR 42501 permission denied for view v", "Z I"]
    assert run(conn, W.query("RESET ROLE"), W.bind((), stmt="view"), W.execute(), W.SYNC)[
        -3:] == ["D 1,k", "C SELECT 1", "Z I"]
    assert run(conn, W.query("BEGIN"), W.bind((b"7",), stmt="k"), W.execute(), W.SYNC)[
        -3:] == ["D 7", "C SELECT 1", "Z T"]
    run(conn, W.query("SELECT 1/0"))
    assert run(conn, W.bind((b"8",), stmt="k"), W.execute(), W.SYNC)[-2:] == [
        "E ERROR 25P02 current transaction is aborted, commands ignored until end of "
        "transaction block", "Z E"]
    run(conn, W.query("ROLLBACK"))
    assert run(conn, W.query("BEGIN; DECLARE c CURSOR FOR SELECT 5; FETCH c; FETCH c; COMMIT"))[
        2:] == ["T ?column?:23:0", "D 5", "C FETCH 1", "T ?column?:23:0", "C FETCH 0", "C COMMIT",
                "Z I"]
    assert run(conn, W.query("SELECT 1 OFFSET 1"))[-2:] == ["C SELECT 0", "Z I"]


@pytest.mark.parametrize("oid", [21, INT4, 20])
def test_text_integer_keys_answer_as_the_types_input_function(conn, oid):
    """Plain digits become the number at once; signs, blanks, digit groups, other scripts'
    digits and values past the type's range go through its input function (as PG's)."""
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s1", (oid,)), W.SYNC)
    for text in (b"2", b"0002", b" 3", b"+4", b"-0", b"5 "):
        want = int(text)
        out = bind_exec(conn, "s1", text)
        assert out[1:3] == ([f"D {want * 10}", "C SELECT 1"] if 1 <= want <= 5
                            else ["C SELECT 0", "Z I"]), text
    limit = {21: b"32768", INT4: b"2147483648", 20: b"9223372036854775808"}[oid]
    assert bind_exec(conn, "s1", limit)[0].startswith("E ERROR 22003")
    for bad in (b"1_0", "١".encode(), b"", b"1.0"):
        assert bind_exec(conn, "s1", bad)[0].startswith("E ERROR 22P02"), bad
    assert bind_exec(conn, "s1", b"1")[1] == "D 10"


@pytest.mark.parametrize("oid", [21, INT4, 20])
def test_text_integers_with_a_minus_sign_read_as_the_types_input_function(oid):
    """A Bind's text integer read in place (`bindvalues`: a minus sign and digits, pgbench's
    deltas) is the value the type's input function gives; anything else that looks alike
    goes to it and fails or reads as it says."""
    read = bindvalues.values_reader([oid], (0,))
    parse = text_decoder(oid, None)
    texts = [b"-1", b"-0", b"-007", b"-99", b"-", b"--1", b"-1a", b"- 1", b"-+1", b"-1 ",
             "-\u0661".encode(), b"-32768", b"-32769", b"-2147483648", b"-2147483649",
             b"-" + b"9" * 17, b"-9223372036854775808", b"-9223372036854775809"]
    for text in texts:
        frame = struct.pack("!i", len(text)) + text
        try:
            want: object = ([parse(text.decode())], len(frame))
        except SQLError as e:
            want = e.sqlstate
        try:
            got: object = read(frame, 0, [lambda b: parse(b.decode())])
        except SQLError as e:
            got = e.sqlstate
        assert got == want, text


def test_a_search_path_set_to_its_own_value_keeps_binding(conn):
    run(conn, W.parse("SELECT bal FROM acc WHERE aid = $1", "s1"), W.SYNC)
    assert bind_exec(conn, "s1", b"1")[1] == "D 10"
    run(conn, W.query("SET search_path = \"$user\", public"))
    assert bind_exec(conn, "s1", b"2")[1] == "D 20"
    run(conn, W.query("CREATE SCHEMA other; CREATE TABLE other.acc (aid int PRIMARY KEY, bal int);"
                      "INSERT INTO other.acc VALUES (1, -1); SET search_path = other, public"))
    assert bind_exec(conn, "s1", b"1")[1] == "D -1"  # PostgreSQL replans on the new path


def test_a_repeated_one_statement_read_answers_as_its_first_run(conn):
    """A Query text that was one primary-key or constant read comes back through the
    session's `simple_read` lane: byte for byte the full path's reply, and the full path's
    error (same position) once DDL, a block, a timeout or a privilege changes the answer."""
    engine = conn.engine
    fresh = Connection(engine)
    fresh.feed(W.startup("cumulo", "cumulo"))
    texts = ["SELECT 1", "SELECT bal, note FROM acc WHERE aid = 3;",
             "SELECT note FROM acc WHERE aid = 9"]
    for sql in texts:
        first = conn.feed(W.query(sql))
        assert conn.feed(W.query(sql)) == first == fresh.feed(W.query(sql))
        assert sql in conn.session._read_texts  # NB: the second run took the lane
    sql = W.query(texts[1])
    run(conn, W.query("UPDATE acc SET bal = 33 WHERE aid = 3"))
    assert run(conn, sql)[1] == "D 33,n3"
    assert run(conn, W.query("BEGIN"), sql, W.query("SELECT 1/0"), sql, W.query("ROLLBACK")) == [
        "C BEGIN", "Z T", "T bal:23:0,note:25:0", "D 33,n3", "C SELECT 1", "Z T",
        "E ERROR 22012 division by zero", "Z E",
        "E ERROR 25P02 current transaction is aborted, commands ignored until end of "
        "transaction block", "Z E", "C ROLLBACK", "Z I"]
    run(conn, W.query("SET statement_timeout = '5s'"))
    assert run(conn, sql)[1:] == ["D 33,n3", "C SELECT 1", "Z I"]
    run(conn, W.query("RESET statement_timeout"))
    assert run(conn, sql)[1:] == ["D 33,n3", "C SELECT 1", "Z I"]
    run(conn, W.query("CREATE ROLE r"))
    run(conn, W.query("GRANT SELECT ON acc TO r"), W.query("SET ROLE r"))
    assert run(conn, sql)[1] == "D 33,n3"
    run(conn, W.query("RESET ROLE"), W.query("REVOKE SELECT ON acc FROM r"), W.query("SET ROLE r"))
    assert run(conn, sql) == ["E ERROR 42501 permission denied for table acc", "Z I"]
    run(conn, W.query("RESET ROLE"), W.query("DROP TABLE acc"))
    dropped = conn.feed(sql)
    assert dropped == fresh.feed(sql)
    assert W.summarize(dropped)[0] == 'E ERROR 42P01 relation "acc" does not exist'
    fresh.close()


def test_an_executemany_run_answers_as_message_by_message(conn):
    """`_held_binds` takes the Bind + Execute pairs of an executemany arriving together; fed
    one message at a time they go through `_bind` and `_execute`. Same bytes and rows,
    with a NULL, a binary value of the wrong size, a text value the type refuses, and
    another layout (text) inside the run."""
    run(conn, W.parse("INSERT INTO acc VALUES ($1, $2, $3)", "ins", (INT4, INT4, 25)), W.SYNC)

    def row(aid: int, bal: bytes | None, fmts: tuple[int, ...] = (1, 1, 0)) -> bytes:
        key = struct.pack("!i", aid) if fmts[0] else str(aid).encode()
        return W.bind((key, bal, b"n"), stmt="ins", pfmts=fmts) + W.execute()

    def good(k: int) -> list[bytes]:
        return [row(k + i, struct.pack("!i", i)) for i in range(4)]

    cases = [
        good(100) + [row(104, None)] + good(105),
        good(200) + [row(204, b"\0\0\0\0\0\0\0\x01")] + good(205),  # int4 of 8 bytes
        good(300) + [row(304, b"x", (0, 0, 0))] + good(305),  # 22P02 in text
        good(400) + [row(404, b"7", (0, 0, 0))] + good(405),
        good(500) + [row(2, struct.pack("!i", 1))] + good(505),  # a duplicate key: 23505
    ]
    for msgs in cases:
        together = conn.feed(b"".join(msgs) + W.SYNC)
        first = W.summarize(conn.feed(W.query("SELECT count(*), sum(bal) FROM acc")))
        run(conn, W.query("DELETE FROM acc WHERE aid > 5"))
        assert _one_by_one(conn, [*msgs, W.SYNC]) == together
        assert W.summarize(conn.feed(W.query("SELECT count(*), sum(bal) FROM acc"))) == first
        run(conn, W.query("DELETE FROM acc WHERE aid > 5"))


_FORMS = [(INT4, 0), (20, 0), (21, 0), (INT4, 1), (20, 1), (701, 1), (25, 0), (25, 1), (17, 1)]


def _reference(payload: bytes, pos: int, decoders: list) -> tuple[list, int] | None:
    """Bind's values read one by one, as the full path reads them (signed lengths, each
    checked against the message), or None where it would refuse them."""
    out = []
    for dec in decoders:
        if pos + 4 > len(payload):
            return None
        (n,) = struct.unpack_from("!i", payload, pos)
        pos += 4
        if n == -1:
            out.append(None)
            continue
        if n < 0 or pos + n > len(payload):
            return None
        out.append(dec(payload[pos:pos + n]))
        pos += n
    return out, pos


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_FORMS),
                          st.one_of(st.none(), st.binary(max_size=12),
                                    st.integers(-10**12, 10**12).map(lambda i: str(i).encode()))),
                min_size=1, max_size=5),
       st.binary(max_size=3), st.integers(0, 40), st.sampled_from(["keep", "cut", "length"]))
def test_unrolled_values_read_as_one_by_one(values, tail, at, how):
    """`bindvalues`' reader of a layout gives what reading the values one by one with the
    statement's decoders gives (digits read in place included), or None (or an exception:
    the caller's full path then says what is wrong) where that refuses the message: NULLs,
    values of every length, messages cut short and lengths changed to others (negative,
    past the end, the other values' sizes)."""
    oids = [f[0] for f, _ in values]
    fmts = tuple(f[1] for f, _ in values)
    decoders = []
    for oid, fmt in zip(oids, fmts, strict=True):
        if fmt == 1:
            size = {INT4: 4, 20: 8, 701: 8}.get(oid)
            code = {INT4: "!i", 20: "!q", 701: "!d"}.get(oid)

            def dec(b, size=size, code=code):
                if size is None:
                    return bytes(b)
                if len(b) != size:
                    raise SQLError("bad binary", sqlstate="22P03")
                return struct.unpack(code, b)[0]
        else:
            parse = text_decoder(oid, None)

            def dec(b, parse=parse):
                return parse(b.decode())
        decoders.append(dec)
    payload = b"".join(struct.pack("!i", -1) if v is None else struct.pack("!i", len(v)) + v
                       for _, v in values) + tail
    if how == "cut":
        payload = payload[:at]
    elif how == "length" and at + 4 <= len(payload):
        payload = payload[:at] + struct.pack("!i", (at * 7919) % 40 - 20) + payload[at + 4:]
    read = bindvalues.values_reader(oids, fmts)

    def outcome(fn):
        try:
            return fn(payload, 0, decoders)
        except Exception as e:  # noqa: BLE001 - the caller takes the full path on any
            return type(e)

    want, got = outcome(_reference), outcome(read)
    if isinstance(want, tuple):
        assert repr(got) == repr(want)  # NB: a float8 NaN is not equal to itself
    else:  # the full path refuses it (None) or the type's input does (its error)
        assert not isinstance(got, tuple), (payload, got)


def test_bind_values_doctests():
    assert doctest.testmod(bindvalues).failed == 0


def test_a_round_trips_notification_comes_before_its_ready(conn):
    """`_bind_run` writes ReadyForQuery itself only when nothing is to be reported first: a
    NOTIFY to the session's own channel, run as one prepared round trip, is delivered
    (NotificationResponse) just before the ReadyForQuery of its commit, as PostgreSQL does:
    at once outside a block, at COMMIT inside one (not after the NOTIFY, nor after a point
    read in the block)."""
    run(conn, W.query("LISTEN ch"))
    assert run(conn, W.parse("NOTIFY ch, 'hi'", "n"), W.parse("BEGIN", "b"),
               W.parse("COMMIT", "c"), W.parse("SELECT bal FROM acc WHERE aid = $1", "s"),
               W.SYNC) == ["1", "1", "1", "1", "Z I"]

    def trip(stmt: str, *params: bytes) -> list[str]:
        return run(conn, W.bind(params, stmt=stmt), W.describe("P"), W.execute(), W.SYNC)

    for _ in range(2):  # NB: the second time from the layout caches
        told = trip("n")
        assert told[:3] == ["2", "n", "C NOTIFY"] and told[3].startswith("A ") and \
            told[4:] == ["Z I"]
        assert trip("b") == ["2", "n", "C BEGIN", "Z T"]
        assert trip("n") == ["2", "n", "C NOTIFY", "Z T"]
        assert trip("s", b"1")[2:] == ["D 10", "C SELECT 1", "Z T"]
        assert trip("c") == ["2", "n", "C COMMIT", told[3], "Z I"]
