"""Byte-level scripts against the pgwire state machine (CockroachDB pgtest style), no sockets."""

from __future__ import annotations

import struct

import pytest

from cumulo.server.pgwire.protocol import Connection, normalize_encoding
from tests.unit.pgwire import wire as W
from tests.unit.pgwire.fake_engine import FakeEngine

PARAMS = 13


def connect(auth: str = "trust", user: str = "trust", **kw):
    engine = FakeEngine()
    conn = Connection(engine, auth=auth, **kw)
    out = W.summarize(conn.feed(W.ssl_request()))
    out += W.summarize(conn.feed(W.startup(user)))
    return engine, conn, out


def ready(conn_out: list[str]) -> None:
    assert conn_out[0] == "ssl N"
    assert conn_out[1] == "R0"
    assert sum(1 for line in conn_out if line.startswith("S ")) == PARAMS
    assert conn_out[-2] == "K" or conn_out[-2].startswith("K ")
    assert conn_out[-1] == "Z I"


def run(conn: Connection, *msgs: bytes) -> list[str]:
    return W.summarize(conn.feed(b"".join(msgs)))


def test_startup_trust_sends_params_key_and_ready():
    engine, conn, out = connect()
    ready(out)
    assert "S server_version=15.0 (Cumulo)" in out
    assert conn.key in conn.registry and conn.key[0] == engine.sessions[0].backend_pid


def test_startup_byte_at_a_time():
    engine = FakeEngine()
    conn = Connection(engine)
    data = W.startup() + W.query("select 1")
    out = b"".join(conn.feed(data[i : i + 1]) for i in range(len(data)))
    assert W.summarize(out)[-4:] == ["T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]


def test_gssenc_then_ssl_then_startup():
    conn = Connection(FakeEngine())
    assert conn.feed(W.ssl_request(80877104)) == b"N"
    assert conn.feed(W.ssl_request()) == b"N"
    assert W.summarize(conn.feed(W.startup()))[-1] == "Z I"


def test_ssl_request_with_tls_signals_upgrade():
    conn = Connection(FakeEngine(), tls=True)
    assert conn.feed(W.ssl_request()) == b"S"
    assert conn.start_tls
    conn.tls_started()
    assert W.summarize(conn.feed(W.startup()))[-1] == "Z I"


def test_unknown_role_trust_is_28000_fatal():
    conn = Connection(FakeEngine())
    out = conn.feed(W.startup("ghost"))
    f = W.error_fields(out)
    assert (f["S"], f["C"], f["M"]) == ("FATAL", "28000", 'role "ghost" does not exist')
    assert conn.closed and conn.session is None


def test_nologin_and_missing_database():
    conn = Connection(FakeEngine())
    assert W.error_fields(conn.feed(W.startup("nologin")))["C"] == "28000"
    conn = Connection(FakeEngine())
    f = W.error_fields(conn.feed(W.startup("trust", "nodb")))
    assert (f["S"], f["C"]) == ("FATAL", "3D000") and conn.closed


def test_newer_minor_version_gets_negotiate():
    conn = Connection(FakeEngine())
    out = W.summarize(conn.feed(W.startup(minor=2, _pq_x="1")))
    assert out[0].startswith("v ") and out[-1] == "Z I"


def test_cancel_request_signals_key_and_closes():
    conn = Connection(FakeEngine())
    assert conn.feed(W.cancel_request(1234, 99)) == b""
    assert conn.cancel_key == (1234, 99) and conn.closed


@pytest.mark.parametrize("raw", ["'utf-8'", "UTF8", "unicode", "utf_8"])
def test_client_encoding_aliases(raw):
    assert normalize_encoding(raw) == "UTF8"


def test_client_encoding_reaches_session_normalized():
    engine = FakeEngine()
    conn = Connection(engine)
    conn.feed(W.startup(client_encoding="'utf-8'", application_name="app"))
    assert engine.sessions[0].options["client_encoding"] == "UTF8"


# -- authentication ----------------------------------------------------------------


def test_cleartext_password():
    conn = Connection(FakeEngine(), auth="password")
    assert W.summarize(conn.feed(W.startup("plainuser"))) == ["R3"]
    out = W.summarize(conn.feed(W.password("pw")))
    assert out[0] == "R0" and out[-1] == "Z I"


def test_cleartext_against_scram_and_md5_verifiers():
    for user in ("scramuser", "md5user"):
        conn = Connection(FakeEngine(), auth="password")
        conn.feed(W.startup(user))
        assert W.summarize(conn.feed(W.password("pw")))[-1] == "Z I"


def test_wrong_password_is_28p01_and_no_session():
    engine = FakeEngine()
    conn = Connection(engine, auth="password")
    conn.feed(W.startup("plainuser"))
    f = W.error_fields(conn.feed(W.password("nope")))
    assert (f["S"], f["C"], f["M"]) == (
        "FATAL", "28P01", 'password authentication failed for user "plainuser"')
    assert conn.closed and not engine.sessions


def test_md5_exchange():
    import hashlib

    conn = Connection(FakeEngine(), auth="md5")
    out = conn.feed(W.startup("md5user"))
    (kind, payload), = W.messages(out)
    assert kind == "R" and struct.unpack_from("!i", payload)[0] == 5
    salt = payload[4:8]
    inner = hashlib.md5(b"pwmd5user").hexdigest().encode()
    answer = "md5" + hashlib.md5(inner + salt).hexdigest()
    assert W.summarize(conn.feed(W.password(answer)))[-1] == "Z I"


def test_scram_exchange_with_scramp_client():
    from scramp import ScramClient

    conn = Connection(FakeEngine(), auth="scram")
    out = W.summarize(conn.feed(W.startup("scramuser")))
    assert out == ["R10"]
    client = ScramClient(["SCRAM-SHA-256"], "other", "pw")  # the SCRAM user name is ignored
    first = client.get_client_first().encode()
    body = W.cs("SCRAM-SHA-256") + struct.pack("!i", len(first)) + first
    (kind, payload), = W.messages(conn.feed(W.msg(b"p", body)))
    assert struct.unpack_from("!i", payload)[0] == 11
    client.set_server_first(payload[4:].decode())
    out = conn.feed(W.msg(b"p", client.get_client_final().encode()))
    msgs = W.messages(out)
    assert struct.unpack_from("!i", msgs[0][1])[0] == 12
    client.set_server_final(msgs[0][1][4:].decode())
    assert W.summarize(out)[1] == "R0" and W.summarize(out)[-1] == "Z I"


def test_scram_wrong_password():
    from scramp import ScramClient

    conn = Connection(FakeEngine(), auth="scram")
    conn.feed(W.startup("scramuser"))
    client = ScramClient(["SCRAM-SHA-256"], "scramuser", "bad")
    first = client.get_client_first().encode()
    out = conn.feed(W.msg(b"p", W.cs("SCRAM-SHA-256") + struct.pack("!i", len(first)) + first))
    client.set_server_first(W.messages(out)[0][1][4:].decode())
    f = W.error_fields(conn.feed(W.msg(b"p", client.get_client_final().encode())))
    assert f["C"] == "28P01" and conn.closed


def test_md5_method_upgrades_to_scram_for_scram_verifier():
    conn = Connection(FakeEngine(), auth="md5")
    assert W.summarize(conn.feed(W.startup("scramuser"))) == ["R10"]


# -- simple query --------------------------------------------------------------------


def test_simple_query_several_statements_one_ready():
    _, conn, _ = connect()
    out = run(conn, W.query("select 1; select series 2; begin"))
    assert out == ["T ?column?:23:0", "D 1", "C SELECT 1", "T n:23:0", "D 1", "D 2",
                   "C SELECT 2", "C BEGIN", "Z T"]


def test_empty_query():
    _, conn, _ = connect()
    assert run(conn, W.query("")) == ["I", "Z I"]


def test_error_skips_rest_and_sets_status():
    _, conn, _ = connect()
    assert run(conn, W.query("select 1; fail; select 1")) == [
        "T ?column?:23:0", "D 1", "C SELECT 1",
        "E ERROR 42601 syntax error at or near \"fail\"", "Z I"]
    assert run(conn, W.query("begin; fail")) == [
        "C BEGIN", "E ERROR 42601 syntax error at or near \"fail\"", "Z E"]
    assert run(conn, W.query("select 1"))[0].startswith("E ERROR 25P02")
    assert run(conn, W.query("rollback")) == ["C ROLLBACK", "Z I"]


def test_error_position_field():
    _, conn, _ = connect()
    f = W.error_fields(conn.feed(W.query("fail")))
    assert f["P"] == "1" and f["V"] == "ERROR"


def test_notice_and_parameter_status_after_set():
    _, conn, _ = connect()
    assert run(conn, W.query("notice")) == [
        "N NOTICE 00000 table \"x\" does not exist, skipping", "C DROP TABLE", "Z I"]
    out = run(conn, W.query("set timezone = 'Europe/Madrid'"))
    assert out == ["C SET", "S TimeZone=Europe/Madrid", "Z I"]


def test_timestamptz_uses_session_timezone():
    _, conn, _ = connect()
    out = run(conn, W.query("set timezone = 'Asia/Kolkata'; select typed"))
    assert "2024-01-02 08:34:05+05:30" in out[2].split(",")
    assert out[-2:] == ["S TimeZone=Asia/Kolkata", "Z I"]
    out = run(conn, W.parse("set timezone = 'UTC'"), W.bind(), W.execute(),
              W.parse("select typed"), W.bind(), W.execute(), W.SYNC)
    assert "2024-01-02 03:04:05+00" in out[5].split(",")


def test_typed_row_text_format():
    _, conn, _ = connect()
    out = run(conn, W.query("select typed"))
    assert out[1] == ("D t,-12,123456,1099511627776,1.5,0.1,-1234.5600,héllo,v,\\x00ff,"
                      "2024-02-29,03:04:05.12,2024-01-02 03:04:05.123,2024-01-02 03:04:05+00,"
                      "1 day 02:03:04,12345678-1234-5678-1234-567812345678,{\"a\": [1, 2]},"
                      "{1,NULL,3},{\"a b\",c}")


def test_unknown_message_type_is_fatal():
    _, conn, _ = connect()
    f = W.error_fields(conn.feed(W.msg(b"?", b"")))
    assert (f["S"], f["C"]) == ("FATAL", "08P01") and conn.closed


def test_terminate_closes_session():
    engine, conn, _ = connect()
    assert conn.feed(W.TERMINATE) == b""
    assert conn.closed and engine.sessions[0].closed == 1 and not conn.registry


# -- extended protocol --------------------------------------------------------------


def test_pgbench_extended_shape():
    _, conn, _ = connect()
    out = run(conn, W.parse("select $1::int4, $2::text"), W.bind((b"7", b"x")), W.describe("P"),
              W.execute(), W.SYNC)
    assert out == ["1", "2", "T int4:23:0,text:25:0", "D 7,x", "C SELECT 1", "Z I"]


def test_describe_statement_reports_inferred_types():
    _, conn, _ = connect()
    out = run(conn, W.parse("select $1::int8, $2::text", "s1", (0, 25)), W.describe("S", "s1"),
              W.SYNC)
    assert out == ["1", "t 20,25", "T int8:20:0,text:25:0", "Z I"]


def test_asyncpg_prepare_answers_at_flush_without_sync():
    _, conn, _ = connect()
    out = run(conn, W.parse("select 1", "__asyncpg_stmt_1__"), W.describe("S", "__asyncpg_stmt_1__"),
              W.FLUSH)
    assert out == ["1", "t ", "T ?column?:23:0"] or out == ["1", "t", "T ?column?:23:0"]


def test_binary_params_and_results():
    _, conn, _ = connect()
    out = conn.feed(W.parse("select $1::int4, $2::text") +
                    W.bind((struct.pack("!i", -5), b"y"), pfmts=(1, 0), rfmts=(1,)) +
                    W.describe("P") + W.execute() + W.SYNC)
    msgs = W.messages(out)
    assert W.summarize(out)[2] == "T int4:23:1,text:25:1"
    row = msgs[3][1]
    assert row == struct.pack("!hi", 2, 4) + struct.pack("!i", -5) + struct.pack("!i", 1) + b"y"


def test_binary_oid_array_param():
    _, conn, _ = connect()
    arr = struct.pack("!iiiii", 1, 0, 26, 2, 1) + struct.pack("!iIiI", 4, 16384, 4, 25)
    out = run(conn, W.parse("select $1::oid[]"), W.bind((arr,), pfmts=(1,)), W.execute(), W.SYNC)
    assert out == ["1", "2", "D {16384,25}", "C SELECT 1", "Z I"]


def test_bad_parameter_is_22p02_then_skip_until_sync():
    engine, conn, _ = connect()
    out = run(conn, W.parse("select $1::int4"), W.bind((b"abc",)), W.execute(), W.describe("P"),
              W.SYNC, W.query("select 1"))
    assert out[0] == "1"
    assert out[1] == 'E ERROR 22P02 invalid input syntax for type integer: "abc"'
    assert out[2:] == ["Z I", "T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]
    assert engine.sessions[0].failures == 1


def test_wrong_param_count_is_08p01():
    _, conn, _ = connect()
    out = run(conn, W.parse("select $1::int4"), W.bind(()), W.SYNC)
    assert out[1].startswith("E ERROR 08P01 bind message supplies 0 parameters")


def test_result_format_count_mismatch():
    _, conn, _ = connect()
    out = run(conn, W.parse("select $1::int4, $2::text"), W.bind((b"1", b"a"), rfmts=(0, 1, 1)),
              W.SYNC)
    assert out[1].startswith("E ERROR 08P01 bind message has 3 result formats")


def test_execute_max_rows_suspends_without_command_complete():
    _, conn, _ = connect()
    out = run(conn, W.parse("select series 5"), W.bind(portal="C_1"), W.describe("P", "C_1"),
              W.execute("C_1", 2), W.SYNC)
    assert out == ["1", "2", "T n:23:0", "D 1", "D 2", "s", "Z I"]
    # the implicit transaction ended at Sync, so the portal is gone
    assert run(conn, W.execute("C_1", 2), W.SYNC)[0].startswith("E ERROR 34000")


def test_portal_resumes_inside_transaction_and_dies_at_commit():
    _, conn, _ = connect()
    run(conn, W.query("begin"))
    out = run(conn, W.parse("select series 3"), W.bind(portal="c"), W.execute("c", 2), W.SYNC)
    assert out == ["1", "2", "D 1", "D 2", "s", "Z T"]
    # the tag counts this Execute's rows, as PostgreSQL's does
    assert run(conn, W.execute("c", 2), W.SYNC) == ["D 3", "C SELECT 1", "Z T"]
    run(conn, W.query("commit"))
    assert run(conn, W.execute("c", 2), W.SYNC)[0].startswith("E ERROR 34000")


def test_exact_fetch_boundary_then_complete():
    _, conn, _ = connect()
    run(conn, W.query("begin"))
    out = run(conn, W.parse("select series 2"), W.bind(portal="c"), W.execute("c", 2),
              W.execute("c", 2), W.SYNC)
    assert out == ["1", "2", "D 1", "D 2", "s", "C SELECT 0", "Z T"]


def test_unnamed_statement_survives_sync_pg8000_style():
    _, conn, _ = connect()
    assert run(conn, W.parse("select $1::int4"), W.FLUSH, W.SYNC) == ["1", "Z I"]
    assert run(conn, W.describe("S"), W.FLUSH, W.SYNC) == ["t 23", "T int4:23:0", "Z I"]
    out = run(conn, W.bind((b"3",)), W.FLUSH, W.execute(), W.FLUSH, W.SYNC)
    assert out == ["2", "D 3", "C SELECT 1", "Z I"]


def test_named_statements_outlive_transactions_and_close():
    _, conn, _ = connect()
    run(conn, W.parse("select 1", "P_0"), W.SYNC)
    run(conn, W.query("begin; commit"))
    assert run(conn, W.bind(stmt="P_0"), W.execute(), W.SYNC) == ["2", "D 1", "C SELECT 1", "Z I"]
    assert run(conn, W.parse("select 1", "P_0"), W.SYNC)[0].startswith("E ERROR 42P05")
    assert run(conn, W.close("S", "P_0"), W.SYNC) == ["3", "Z I"]
    assert run(conn, W.bind(stmt="P_0"), W.SYNC)[0].startswith("E ERROR 26000")


def test_nodata_for_statement_without_rows():
    _, conn, _ = connect()
    out = run(conn, W.parse("begin"), W.bind(), W.describe("P"), W.execute(), W.SYNC)
    assert out == ["1", "2", "n", "C BEGIN", "Z T"]


def test_empty_statement_extended():
    _, conn, _ = connect()
    assert run(conn, W.parse(""), W.bind(), W.execute(), W.SYNC) == ["1", "2", "I", "Z I"]


def test_parse_error_discards_until_sync():
    engine, conn, _ = connect()
    out = run(conn, W.parse("fail"), W.bind(), W.execute(), W.SYNC)
    assert out == ['E ERROR 42601 syntax error at or near "fail"', "Z I"]
    assert engine.sessions[0].syncs == 1


def test_pipeline_executemany_then_single_sync():
    _, conn, _ = connect()
    msgs = []
    for i in range(3):
        msgs += [W.parse("select $1::int4"), W.bind((str(i).encode(),)), W.describe("P"),
                 W.execute()]
    out = run(conn, *msgs, W.SYNC)
    assert out.count("C SELECT 1") == 3 and out[-1] == "Z I"
    assert [x for x in out if x.startswith("D")] == ["D 0", "D 1", "D 2"]


def test_describe_sql_cursor_portal():
    _, conn, _ = connect()
    run(conn, W.query("begin; declare c cursor for select series 3"))
    assert run(conn, W.describe("P", "c"), W.SYNC) == ["T n:23:0", "Z T"]
    assert run(conn, W.describe("P", "nope"), W.SYNC)[0].startswith("E ERROR 34000")


def test_row_description_carries_table_oid_attnum_and_size():
    _, conn, _ = connect()
    out = conn.feed(W.query("select series 1"))
    (kind, p) = W.messages(out)[0]
    assert kind == "T"
    assert struct.unpack_from("!ihihih", p, 2 + 2) == (16384, 1, 23, 4, -1, 0)


# -- COPY ------------------------------------------------------------------------------


def test_copy_in_pgbench_style():
    engine, conn, _ = connect()
    assert run(conn, W.query("copy t from stdin")) == ["G 0 2"]
    out = run(conn, W.copy_data(b"1\t1\n"), W.copy_data(b"2\t2\n"), W.copy_data(b"\\.\n"),
              W.COPY_DONE)
    assert out == ["C COPY 2", "Z I"]
    assert engine.sessions[0].copied == [b"1\t1\n", b"2\t2\n", b"\\.\n"]


def test_copy_in_then_more_statements_in_same_query():
    _, conn, _ = connect()
    assert run(conn, W.query("copy t from stdin; select 1")) == ["G 0 2"]
    assert run(conn, W.copy_data(b"1\tx\n"), W.COPY_DONE) == [
        "C COPY 1", "T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]


def test_copy_fail_and_bad_data():
    _, conn, _ = connect()
    run(conn, W.query("copy t from stdin"))
    assert run(conn, W.copy_fail("nope")) == [
        "E ERROR 57014 COPY from stdin failed: nope", "Z I"]
    run(conn, W.query("copy t from stdin"))
    out = run(conn, W.copy_data(b"bad\n"), W.copy_data(b"1\t2\n"), W.COPY_DONE)
    assert out == ["E ERROR 22P02 invalid input syntax for type integer", "Z I"]


def test_copy_in_extended_then_sync():
    _, conn, _ = connect()
    out = run(conn, W.parse("copy t from stdin binary"), W.bind(), W.execute(), W.SYNC)
    assert out == ["1", "2", "G 1 2"]
    assert run(conn, W.copy_data(b"PGCOPY"), W.COPY_DONE, W.SYNC) == ["C COPY 1", "Z I"]


def test_copy_out():
    _, conn, _ = connect()
    assert run(conn, W.query("copy t to stdout")) == [
        "H 0 2", "d 1\ta\n", "d 2\tb\n", "c", "C COPY 2", "Z I"]


def test_shutdown_message():
    from cumulo.server.errors import AdminShutdown

    engine, conn, _ = connect()
    out = conn.shutdown(AdminShutdown("terminating connection due to administrator command"))
    f = W.error_fields(out)
    assert (f["S"], f["C"]) == ("FATAL", "57P01") and conn.closed
    assert engine.sessions[0].closed == 1


def test_large_result_streams_through_send_callback():
    chunks: list[bytes] = []
    engine = FakeEngine()
    conn = Connection(engine, send=chunks.append)
    conn.feed(W.startup())
    rest = conn.feed(W.query("select series 100000"))
    assert len(chunks) >= 2
    out = W.summarize(b"".join(chunks) + rest)
    assert out[0] == "T n:23:0" and out[-2:] == ["C SELECT 100000", "Z I"]
    assert [line for line in out if line.startswith("D")][-1] == "D 100000"


def test_bogus_message_length_closes_without_a_reply():
    """PostgreSQL reports broken framing only in its log (COMMERROR) and hangs up."""
    _, conn, _ = connect()
    assert conn.feed(b"Q" + struct.pack("!i", 2)) == b"" and conn.closed
    _, conn, _ = connect()
    assert conn.feed(b"Q" + struct.pack("!i", 0x7FFFFFF0) + b"select") == b"" and conn.closed


def test_copy_messages_outside_copy_are_ignored():
    _, conn, _ = connect()
    assert run(conn, W.copy_data(b"x"), W.COPY_DONE, W.query("select 1")) == [
        "T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]


def test_error_inside_explicit_transaction_extended_gives_e():
    engine, conn, _ = connect()
    run(conn, W.query("begin"))
    out = run(conn, W.parse("select $1::int4"), W.bind((b"zz",)), W.execute(), W.SYNC)
    assert out[-1] == "Z E" and engine.sessions[0].failures == 1


def test_malformed_query_message_gets_error_and_ready():
    _, conn, _ = connect()
    out = run(conn, W.msg(b"Q", b"no terminator"), W.query("select 1"))
    assert out[0].startswith("E ERROR 08P01") and out[1] == "Z I"
    assert out[2:] == ["T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]


def test_malformed_bind_skips_until_sync():
    _, conn, _ = connect()
    out = run(conn, W.parse("select 1"), W.msg(b"B", b"\x00\x00\xff"), W.execute(), W.SYNC)
    assert out[0] == "1" and out[1].startswith("E ERROR 08P01") and out[2:] == ["Z I"]


def test_out_of_memory_and_recursion_end_the_statement_not_the_session():
    _, conn, _ = connect()
    assert run(conn, W.query("oom"), W.query("deep"), W.query("select 1")) == [
        "E ERROR 53200 out of memory", "Z I",
        "E ERROR 54001 stack depth limit exceeded", "Z I",
        "T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]
    assert run(conn, W.parse("oom"), W.bind(), W.execute(), W.SYNC, W.query("select 1")) == [
        "1", "2", "E ERROR 53200 out of memory", "Z I",
        "T ?column?:23:0", "D 1", "C SELECT 1", "Z I"]
