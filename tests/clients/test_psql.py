"""psql 15 against a real `cumulo serve`, checked against a real PostgreSQL 15.

psql's backslash commands are catalog queries (`\\d t` alone sends a dozen),
so the strongest check is differential: run the same DDL on both servers and
compare what the user sees, character for character. Interactive behaviour
(Ctrl-C cancelling a running query) is driven through a pseudo-terminal with
pexpect, as a user at a keyboard would.
"""

from __future__ import annotations

import os
import re
import subprocess

import pexpect
import pytest

from tests import pg15 as pg15_mod
from tests.clients.conftest import make_database

PSQL = "/usr/lib/postgresql/15/bin/psql"
DB = "cl_psql"

DDL = """
create table parent (id int primary key, label text unique);
create table t (
    id integer primary key,
    name varchar(20) not null default 'x',
    pid integer references parent (id),
    created timestamp default current_timestamp,
    amount numeric(10,2) default 0,
    flag boolean default true,
    note text default 'n/a',
    delta integer default -1,
    twice integer generated always as (id * 2) stored,
    constraint t_name_check check (name <> '' and delta between -10 and 10),
    check (amount >= 0 or flag is not true)
);
create index t_name_idx on t (name);
create index t_pid_created on t (pid, created);
create table other (a bigint, b char(3), c date, primary key (a));
create schema extra;
create table extra.inside (k int);
create view recent as select id, name from t where amount > 10;
create sequence counter start 5 increment 5;
comment on table other is 'other things';
create table wide (
    id bigint generated always as identity primary key, code char(3) unique,
    ref int references parent (id) on delete cascade on update set null, tags text[],
    price numeric check (price > 0), data jsonb not null default '{}',
    created date default current_date, sc serial, bi bigserial, t2 timestamp(3), iv interval,
    u uuid default gen_random_uuid(), d2 double precision default 1.5, unique (ref, created)
);
create index wide_multi on wide (created desc, code);
create index wide_cheap on wide (price) where price < 10.5 and code <> 'x';
create index t_big on t (amount) where amount > 100;
"""


def psql(port: int, *args: str, db: str = DB, stdin: str | None = None,
         password: str | None = None) -> subprocess.CompletedProcess:
    """Runs psql non-interactively against 127.0.0.1:port; output as the user sees it."""
    env = {**os.environ, "PGPASSWORD": password or "", "PAGER": "", "PSQL_PAGER": "",
           "PGTZ": "UTC", "LC_ALL": "C.UTF-8", "COLUMNS": "200"}
    env.pop("PGOPTIONS", None)
    return subprocess.run(
        [PSQL, "-X", "-h", "127.0.0.1", "-p", str(port), "-U", "cumulo", "-d", db, *args],
        input=stdin, capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture(scope="module")
def cumulo(cumulo_server):
    make_database(cumulo_server, DB)
    res = psql(cumulo_server.port, "-v", "ON_ERROR_STOP=1", "-c", DDL)
    assert res.returncode == 0, res.stderr
    return cumulo_server.port


@pytest.fixture(scope="module")
def oracle(pg15):
    pg15.psql(f"drop database if exists {DB}")
    pg15.psql(f"create database {DB} owner cumulo")
    res = psql(pg15.port, "-v", "ON_ERROR_STOP=1", "-c", DDL, password=pg15_mod.PASSWORD)
    assert res.returncode == 0, res.stderr
    return pg15.port


def both(cumulo: int, oracle: int, *args: str) -> tuple[str, str]:
    """Returns (cumulo's output, PostgreSQL's output) of the same psql invocation."""
    mine = psql(cumulo, *args)
    theirs = psql(oracle, *args, password=pg15_mod.PASSWORD)
    assert theirs.returncode == 0, theirs.stderr
    return mine.stdout + mine.stderr, theirs.stdout + theirs.stderr


@pytest.mark.parametrize("command", [r"\d t", r"\d parent", r"\d other", r"\d extra.inside",
                                     r"\d+ t", r"\d recent", r"\d counter", r"\d t_pkey",
                                     r"\d t_pid_created", r"\d+ recent", r"\sv recent",
                                     r"\d wide", r"\d+ wide", r"\d wide_multi",
                                     r"\d wide_sc_seq", r"\d t_big", r"\d wide_cheap"])
def test_describe_table_matches_postgres(cumulo, oracle, command):
    mine, theirs = both(cumulo, oracle, "-c", command)
    assert mine == theirs


def test_describe_shows_now_default_as_written(cumulo, oracle):
    for port, pw in ((cumulo, None), (oracle, pg15_mod.PASSWORD)):
        res = psql(port, "-c", "create table if not exists ts_now (at timestamptz default now())",
                   password=pw)
        assert res.returncode == 0, res.stderr
    mine, theirs = both(cumulo, oracle, "-c", r"\d ts_now")
    assert "now()" in theirs
    assert mine == theirs


@pytest.mark.parametrize("command", [r"\dt", r"\dn", r"\di", r"\dt extra.*", r"\d", r"\dv",
                                     r"\ds", r"\dn+", r"\dx", r"\dd", r"\dO", r"\drds",
                                     r"\dT", r"\dp t", r"\dm", r"\dy", r"\dc", r"\dRp",
                                     r"\dv+", r"\dp", r"\dD", r"\dE", r"\df", r"\dd t",
                                     r"\sf now", r"\sf pg_backend_pid", r"\sf abs(int4)",
                                     r"\df pg_backend_pid", r"\dT int4", r"\di+", r"\ds+",
                                     r"\dt+", r"\daS count", r"\dfS row_number",
                                     r"\daS regr_s*", r"\daS percentile*", r"\daS *rank",
                                     r"\daS mode", r"\dfS cume_dist"])  # NB: sizes agree while the DDL's tables are empty
def test_listings_match_postgres(cumulo, oracle, command):
    mine, theirs = both(cumulo, oracle, "-c", command)
    assert mine == theirs


@pytest.mark.parametrize("command", [r"\df+ abs", r"\df+ pg_backend_pid", r"\df+ now",
                                     r"\dT+ int4", r"\dT+ uuid", r"\dL"])
def test_builtin_object_listings_match_postgres(cumulo, oracle, command):
    """Built-in functions, types and languages belong to the bootstrap superuser: `postgres`
    on the oracle (initdb -U postgres), `cumulo` here; everything else must be the same."""
    mine, theirs = both(cumulo, oracle, "-A", "-c", command)
    assert "|postgres|" in theirs
    assert mine == theirs.replace("|postgres|", "|cumulo|")


def test_list_databases(cumulo):
    res = psql(cumulo, "-c", r"\l")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].strip() == "List of databases"
    assert [c.strip() for c in lines[1].split("|")] == [
        "Name", "Owner", "Encoding", "Collate", "Ctype", "ICU Locale", "Locale Provider",
        "Access privileges"]
    rows = {line.split("|")[0].strip(): [c.strip() for c in line.split("|")]
            for line in lines[3:] if "|" in line}
    assert rows[DB][1:7] == ["cumulo", "UTF8", "C", "C", "", "libc"]


def test_list_roles(cumulo):
    res = psql(cumulo, "-c", r"\du")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].strip() == "List of roles"
    assert [c.strip() for c in lines[1].split("|")] == ["Role name", "Attributes", "Member of"]
    rows = {line.split("|")[0].strip(): line for line in lines[3:] if "|" in line}
    assert "Superuser" in rows["cumulo"]
    assert not any(name.startswith("pg_") for name in rows)


def test_several_statements_in_one_c(cumulo, oracle):
    script = ("create temp table many (x int); insert into many values (1), (2); "
              "select sum(x) from many; select 'two' as second")
    mine, theirs = both(cumulo, oracle, "-c", script)
    assert mine == theirs
    assert "second" in mine


def test_c_stops_at_first_error_and_reports_it(cumulo):
    res = psql(cumulo, "-c", "select 1 as a; select * from no_such_table; select 3 as c")
    assert res.returncode == 1
    assert 'ERROR:  relation "no_such_table" does not exist' in res.stderr
    assert "LINE 1: select 1 as a; select * from no_such_table" in res.stderr
    assert " c \n" not in res.stdout


def test_copy_in_and_out(cumulo, tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("id,name,score\n1,alpha,1.5\n2,\"b,eta\",\n3,gamma,-2\n")
    out = tmp_path / "out.txt"
    res = psql(cumulo, "-v", "ON_ERROR_STOP=1",
               "-c", "drop table if exists cp; create table cp (id int, name text, score float8)",
               "-c", rf"\copy cp from '{src}' with (format csv, header true)",
               "-c", rf"\copy (select * from cp order by id) to '{out}'",
               "-c", r"\copy cp to stdout with (format csv)")
    assert res.returncode == 0, res.stderr
    assert "COPY 3" in res.stdout
    assert out.read_text() == "1\talpha\t1.5\n2\tb,eta\t\\N\n3\tgamma\t-2\n"
    assert '2,"b,eta",\n' in res.stdout
    res = psql(cumulo, "-c", r"\copy cp from stdin", stdin="4\tdelta\t4\n\\.\n")
    assert res.returncode == 0, res.stderr
    assert psql(cumulo, "-Atc", "select count(*) from cp").stdout == "4\n"


def test_ctrl_c_cancels_a_long_query(cumulo):
    env = {**os.environ, "PGPASSWORD": "", "PAGER": "", "PSQL_PAGER": "", "TERM": "dumb"}
    child = pexpect.spawn(PSQL, ["-X", "-h", "127.0.0.1", "-p", str(cumulo), "-U", "cumulo",
                                 "-d", DB], env=env, encoding="utf-8", timeout=30)
    try:
        child.expect(rf"{DB}=# ")
        child.sendline("select count(*) from generate_series(1, 1000000000000);")
        # Wait until the query is really running before pressing Ctrl-C.
        assert not child.expect([pexpect.TIMEOUT, rf"{DB}=# "], timeout=1)
        child.sendintr()
        child.expect("ERROR:  canceling statement due to user request")
        child.expect(rf"{DB}=# ")
        child.sendline("select 40 + 2 as answer;")
        child.expect(r"answer\s+-+\s+42\s+\(1 row\)")
        child.expect(rf"{DB}=# ")
        child.sendline(r"\q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_conninfo_and_timing(cumulo, oracle):
    """`\\conninfo` and `\\timing` as a user types them first (no TLS, so the oracle's answer
    has no SSL line; the port and the times differ by nature)."""
    seen = []
    for port, pw in ((cumulo, None), (oracle, pg15_mod.PASSWORD)):
        res = psql(port, "-c", r"\conninfo", "-c", r"\timing on", "-c", "select 1 as one",
                   db=f"dbname={DB} sslmode=disable", password=pw)
        assert res.returncode == 0, res.stderr
        out = re.sub(r'at port "\d+"', 'at port "N"', res.stdout)
        seen.append(re.sub(r"Time: \d+\.\d{3} ms", "Time: T ms", out))
    assert seen[0] == seen[1]
    assert "Timing is on." in seen[0] and "Time: T ms" in seen[0]
