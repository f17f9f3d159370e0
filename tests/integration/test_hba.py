"""Client authentication rules (`cumulo_hba.conf`) against PostgreSQL 15's pg_hba.conf.

The same rules go into a fresh Cumulo's data directory and into the oracle's
pg_hba.conf; each connection attempt must succeed on both or fail on both with
the same SQLSTATE and message (`pg_hba.conf rejects connection for host ...`,
`no pg_hba.conf entry for host ...`, 28P01 for a wrong password). Then the
Cumulo file changes and SIGHUP makes the new rules apply without a restart.
"""

from __future__ import annotations

import os
import shutil
import signal
import time

import pg8000.dbapi
import psycopg
import pytest

from tests.pg15 import PASSWORD
from tests.server_process import CumuloServer

RULES = """
# TYPE     DATABASE  USER     ADDRESS                    METHOD
host       all       pv_rej   all                        reject
hostssl    all       pv_ssl   all                        trust
host       all       pv_pw    127.0.0.1/32               scram-sha-256
host       all       pv_ok    127.0.0.1 255.255.255.255  trust
host       postgres  pv_db    samehost                   trust
"""
CUMULO_TAIL = "host all cumulo 127.0.0.1/32 trust\n"
PG_TAIL = "local all all trust\nhost all cumulo 127.0.0.1/32 scram-sha-256\n"
ROLES = ["pv_rej", "pv_ssl", "pv_pw", "pv_ok", "pv_db"]
ATTEMPTS = [("pv_ok", "cumulo", None), ("pv_rej", "cumulo", None), ("pv_ssl", "cumulo", None),
            ("pv_pw", "cumulo", "wrong"), ("pv_pw", "cumulo", PASSWORD), ("pv_db", "cumulo", None),
            ("pv_db", "postgres", None), ("nosuchrole", "cumulo", None)]


@pytest.fixture(scope="module")
def cumulo_hba():
    server = CumuloServer()
    os.makedirs(server.data_dir, exist_ok=True)
    with open(os.path.join(server.data_dir, "cumulo_hba.conf"), "w") as f:
        f.write(RULES + CUMULO_TAIL)
    server.start()
    try:
        _make_roles(server.dsn())
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def pg_hba(pg15):
    with open(os.path.join(pg15.data_dir, "pg_hba.conf"), "w") as f:
        f.write(RULES + PG_TAIL)
    pg15.psql("select pg_reload_conf()")
    _make_roles(pg15.dsn())
    return pg15


def _make_roles(dsn: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        for r in ROLES:
            conn.execute(f"create role {r} login password '{PASSWORD}'")
        if not _has_db(conn, "postgres"):  # PostgreSQL has one; the rules name it
            conn.execute("create database postgres")


def _has_db(conn: psycopg.Connection, name: str) -> bool:
    return conn.execute("select count(*) from pg_database where datname = %s",
                        (name,)).fetchone()[0] > 0


def _attempt(port: int, user: str, db: str, password: str | None) -> tuple:
    try:
        conn = psycopg.connect(host="127.0.0.1", port=port, user=user, dbname=db,
                               password=password or "", sslmode="disable", connect_timeout=10)
    except psycopg.OperationalError as e:
        text = str(e)
        return ("error", text[text.index("FATAL:"):].strip() if "FATAL:" in text else text)
    with conn:
        return ("ok", conn.execute("select current_user").fetchone()[0])


def test_same_outcomes_as_pg_hba_conf(cumulo_hba, pg_hba):
    got = [_attempt(cumulo_hba.port, *a) for a in ATTEMPTS]
    expected = [_attempt(pg_hba.port, *a) for a in ATTEMPTS]
    assert got[1] == ("error", 'FATAL:  pg_hba.conf rejects connection for host "127.0.0.1", '
                               'user "pv_rej", database "cumulo", no encryption')
    assert got[2] == ("error", 'FATAL:  no pg_hba.conf entry for host "127.0.0.1", '
                               'user "pv_ssl", database "cumulo", no encryption')
    assert got == expected


def test_pg8000_sees_the_sqlstate(cumulo_hba):
    with pytest.raises(pg8000.dbapi.DatabaseError) as ei:
        pg8000.dbapi.connect(user="pv_rej", host="127.0.0.1", port=cumulo_hba.port,
                             database="cumulo")
    info = ei.value.args[0]
    assert (info["S"], info["C"]) == ("FATAL", "28000")
    assert info["M"].startswith('pg_hba.conf rejects connection for host "127.0.0.1"')


def test_sighup_reloads_the_rules(cumulo_hba):
    path = os.path.join(cumulo_hba.data_dir, "cumulo_hba.conf")
    assert _attempt(cumulo_hba.port, "pv_ok", "cumulo", None) == ("ok", "pv_ok")
    with open(path, "w") as f:
        f.write("host all pv_ok all reject\n" + RULES + CUMULO_TAIL)
    cumulo_hba.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 30
    while _attempt(cumulo_hba.port, "pv_ok", "cumulo", None)[0] == "ok":
        assert time.monotonic() < deadline, "SIGHUP did not reload cumulo_hba.conf"
        time.sleep(0.2)
    assert "rejects connection" in _attempt(cumulo_hba.port, "pv_ok", "cumulo", None)[1]
    with open(path, "w") as f:  # a bad file keeps the rules in force
        f.write("hots all all all trust\n")
    cumulo_hba.proc.send_signal(signal.SIGHUP)
    time.sleep(1)
    assert "rejects connection" in _attempt(cumulo_hba.port, "pv_ok", "cumulo", None)[1]
    assert 'invalid connection type "hots"' in cumulo_hba.log()


def test_bad_file_refuses_to_start():
    server = CumuloServer()
    os.makedirs(server.data_dir, exist_ok=True)
    with open(os.path.join(server.data_dir, "cumulo_hba.conf"), "w") as f:
        f.write("host all all 127.0.0.1/32 ident\n")
    try:
        with pytest.raises(RuntimeError, match='invalid authentication method "ident"'):
            server.start(timeout=30)
    finally:
        server.stop()
        shutil.rmtree(server.data_dir, ignore_errors=True)


@pytest.mark.parametrize("line, conn, expected", [
    ("hostnossl all all 0.0.0.0/0 md5", ("host", True, "10.0.0.1", "d", "u"), None),
    ("hostnossl all all 0.0.0.0/0 md5", ("host", False, "10.0.0.1", "d", "u"), "md5"),
    ("host all all ::1/128 scram-sha-256", ("host", False, "::1", "d", "u"), "scram"),
    ("host all all ::1/128 trust", ("host", False, "127.0.0.1", "d", "u"), None),
    ("host all all 10.0.0.0/8 password", ("host", False, "::ffff:10.2.3.4", "d", "u"), "password"),
    ("host sameuser all all trust", ("host", False, "1.2.3.4", "bob", "bob"), "trust"),
    ("host sameuser all all trust", ("host", False, "1.2.3.4", "app", "bob"), None),
    ('host "Db",x alice,"Bob" all trust', ("host", False, "1.2.3.4", "Db", "Bob"), "trust"),
    ("local all all trust", ("host", False, "127.0.0.1", "d", "u"), None),
])
def test_rule_matching(line, conn, expected):
    from cumulo.server.errors import InvalidAuthorizationSpecification
    from cumulo.server.pgwire.hba import method_for, parse

    rules = parse(line, "t.conf")
    if expected is None:
        with pytest.raises(InvalidAuthorizationSpecification, match="no pg_hba.conf entry"):
            method_for(rules, *conn)
    else:
        assert method_for(rules, *conn) == expected


@pytest.mark.parametrize("line, message", [
    ("hots all all all trust", 'invalid connection type "hots"'),
    ("host all all trust", "end-of-line before authentication method"),
    ("host all all 10.0.0.1 md5", 'invalid IP mask "md5"'),
    ("host all all nosuch.example trust", 'invalid IP address "nosuch.example"'),
    ("host all all all ldap", 'invalid authentication method "ldap"'),
])
def test_bad_lines_name_the_line(line, message):
    from cumulo.server.pgwire.hba import HbaError, parse

    with pytest.raises(HbaError, match=message + '.*line 2 of configuration file "t.conf"'):
        parse("# a comment\n" + line, "t.conf")


def test_doctests():
    import doctest

    from cumulo.server.pgwire import hba
    from cumulo.server.sql.privileges import acl, statements

    for module in (hba, acl, statements):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted and not result.failed, module.__name__
