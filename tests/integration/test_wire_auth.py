"""Authentication end to end: `cumulo serve --require-password` with TLS, and real clients.

The roles are made as a user would: on a trusting server, `CREATE ROLE ... LOGIN
PASSWORD` (SCRAM-SHA-256 by default, md5 after `SET password_encryption = 'md5'`),
then a restart with `--require-password --ssl-cert ... --ssl-key ...`. Every
client logs in with SCRAM (and md5 where the role has an md5 verifier), over
plain TCP and with `sslmode=require`; a wrong password is 28P01 and leaves no
session behind.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import shutil
import ssl
import subprocess
import time

import asyncpg
import pg8000.native
import psycopg
import psycopg2
import pytest

from tests.server_process import CumuloServer

pytestmark = pytest.mark.timeout(120)

ROLES = {"sam": "scr4m pass", "mia": "md5-pass", "cumulo": "owner pw"}


def _self_signed(directory: str) -> tuple[str, str]:
    """Writes a self-signed certificate for localhost; returns (cert, key) paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = os.path.join(directory, "server.crt"), os.path.join(directory, "server.key")
    with open(cert_path, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM,
                                  serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    os.chmod(key_path, 0o600)
    return cert_path, key_path


@pytest.fixture(scope="module")
def server():
    srv = CumuloServer().start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as conn:
            conn.execute(f"create role sam login password '{ROLES['sam']}'")
            conn.execute("create role nologin_role password 'whatever'")
            conn.execute("set password_encryption = 'md5'")
            conn.execute(f"create role mia login password '{ROLES['mia']}'")
            conn.execute("reset password_encryption")
            conn.execute(f"alter role cumulo password '{ROLES['cumulo']}'")
        cert, key = _self_signed(srv.data_dir)
        srv.extra_args = ["--require-password", "--ssl-cert", cert, "--ssl-key", key]
        srv.restart()
        yield srv
    finally:
        srv.stop()
        shutil.rmtree(srv.data_dir, ignore_errors=True)


def dsn(srv: CumuloServer, user: str, password: str | None, sslmode: str = "disable") -> str:
    pw = "" if password is None else f" password='{password}'"
    return (f"host=127.0.0.1 port={srv.port} dbname=cumulo user={user}{pw} "
            f"sslmode={sslmode}")


def sessions(srv: CumuloServer) -> int:
    """Counts the server's sessions (this one included), once the count is steady: a
    session an earlier test closed may still be ending on the server for a moment."""
    with psycopg.connect(dsn(srv, "cumulo", ROLES["cumulo"])) as conn:
        q = "select count(*) from pg_stat_activity"
        last = conn.execute(q).fetchone()[0]
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            time.sleep(0.1)
            now = conn.execute(q).fetchone()[0]
            if now == last:
                return now
            last = now
        return last


def test_verifiers_are_stored_like_postgres(server):
    with psycopg.connect(dsn(server, "cumulo", ROLES["cumulo"])) as conn:
        rows = dict(conn.execute(
            "select rolname, rolpassword from pg_authid where rolname in ('sam', 'mia', 'cumulo')"
        ).fetchall())
    assert rows["sam"].startswith("SCRAM-SHA-256$4096:")
    assert rows["cumulo"].startswith("SCRAM-SHA-256$4096:")
    import hashlib

    assert rows["mia"] == "md5" + hashlib.md5(b"md5-passmia").hexdigest()


def test_no_password_is_refused(server):
    before = sessions(server)
    with pytest.raises(psycopg.OperationalError, match="no password supplied|password"):
        psycopg.connect(dsn(server, "sam", None) + " passfile=/dev/null")
    assert sessions(server) == before


@pytest.mark.parametrize("user", ["sam", "mia"])
@pytest.mark.parametrize("sslmode", ["disable", "require"])
def test_psycopg(server, user, sslmode):
    with psycopg.connect(dsn(server, user, ROLES[user], sslmode)) as conn:
        assert conn.pgconn.ssl_in_use is (sslmode == "require")
        assert conn.execute("select current_user, %s::int + 1", (41,)).fetchone() == (user, 42)


def test_psycopg_wrong_password_is_28p01_and_no_session(server):
    before = sessions(server)
    for user in ("sam", "mia", "no_such_role"):
        with pytest.raises(psycopg.OperationalError,
                           match=f'password authentication failed for user "{user}"'):
            psycopg.connect(dsn(server, user, "wrong"))
    assert sessions(server) == before


def test_login_requires_the_login_attribute(server):
    with pytest.raises(psycopg.OperationalError,
                       match='role "nologin_role" is not permitted to log in'):
        psycopg.connect(dsn(server, "nologin_role", "whatever"))


@pytest.mark.parametrize("sslmode", ["disable", "require"])
def test_psycopg2_scram(server, sslmode):
    conn = psycopg2.connect(dsn(server, "sam", ROLES["sam"], sslmode))
    try:
        cur = conn.cursor()
        cur.execute("select current_user, %s", ("x",))
        assert cur.fetchone() == ("sam", "x")
    finally:
        conn.close()
    with pytest.raises(psycopg2.OperationalError, match="password authentication failed"):
        psycopg2.connect(dsn(server, "sam", "nope"))


def _client_tls() -> ssl.SSLContext:
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


@pytest.mark.parametrize("user", ["sam", "mia"])
@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
def test_pg8000(server, user, tls):
    conn = pg8000.native.Connection(user, host="127.0.0.1", port=server.port, database="cumulo",
                                    password=ROLES[user], ssl_context=_client_tls() if tls else None)
    try:
        assert conn.run("select current_user, :v::text", v="p") == [[user, "p"]]
    finally:
        conn.close()


def test_pg8000_wrong_password(server):
    before = sessions(server)
    for user in ("sam", "mia"):
        with pytest.raises(pg8000.native.DatabaseError) as info:
            pg8000.native.Connection(user, host="127.0.0.1", port=server.port,
                                     database="cumulo", password="wrong")
        fields = info.value.args[0]
        assert (fields["C"], fields["S"]) == ("28P01", "FATAL")
        assert fields["M"] == f'password authentication failed for user "{user}"'
    assert sessions(server) == before


@pytest.mark.parametrize("user", ["sam", "mia"])
@pytest.mark.parametrize("tls", [False, True], ids=["plain", "tls"])
def test_asyncpg(server, user, tls):
    async def main() -> None:
        conn = await asyncpg.connect(host="127.0.0.1", port=server.port, user=user,
                                     password=ROLES[user], database="cumulo",
                                     ssl=_client_tls() if tls else False)
        try:
            assert await conn.fetchrow("select current_user as u, $1::int4 as n", 7) == (user, 7)
        finally:
            await conn.close()

    asyncio.run(main())


def test_asyncpg_wrong_password(server):
    async def main() -> None:
        with pytest.raises(asyncpg.InvalidPasswordError) as info:
            await asyncpg.connect(host="127.0.0.1", port=server.port, user="sam",
                                  password="wrong", database="cumulo", ssl=False)
        assert info.value.sqlstate == "28P01"

    asyncio.run(main())


def _psql(srv: CumuloServer, user: str, password: str, sslmode: str, sql: str):
    env = {**os.environ, "PGPASSWORD": password, "PGSSLMODE": sslmode, "PGCONNECT_TIMEOUT": "10"}
    env.pop("PGPASSFILE", None)
    return subprocess.run(
        ["psql", "-X", "-At", "-h", "127.0.0.1", "-p", str(srv.port), "-U", user, "cumulo",
         "-c", sql], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("user", ["sam", "mia"])
@pytest.mark.parametrize("sslmode", ["disable", "require"])
def test_psql(server, user, sslmode):
    out = _psql(server, user, ROLES[user], sslmode, "select current_user")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [user]
    info = _psql(server, user, ROLES[user], sslmode, "\\conninfo")
    assert info.returncode == 0, info.stderr
    assert ("SSL connection (protocol: TLSv1." in info.stdout) is (sslmode == "require")


def test_psql_wrong_password(server):
    out = _psql(server, "sam", "wrong", "disable", "select 1")
    assert out.returncode == 2
    assert 'FATAL:  password authentication failed for user "sam"' in out.stderr


JDBC_JAR = "/usr/share/java/postgresql.jar"
JDBC_LOGIN = """
import java.sql.*;
public class JdbcLogin {
    public static void main(String[] a) throws Exception {
        for (int i = 0; i + 2 < a.length; i += 3) {
            try (Connection c = DriverManager.getConnection(a[i], a[i + 1], a[i + 2]);
                 PreparedStatement ps = c.prepareStatement("select current_user, ?::int4 + 1")) {
                ps.setInt(1, 41);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    System.out.println("OK " + rs.getString(1) + " " + rs.getInt(2));
                }
            } catch (SQLException e) {
                System.out.println("ERR " + e.getSQLState() + " " + e.getMessage());
            }
        }
    }
}
"""


def test_jdbc(server, tmp_path):
    """pgJDBC (what Spark uses) logs in with SCRAM and md5, over TCP and TLS; a wrong
    password is 28P01. One JVM runs every login: starting one costs seconds."""
    if shutil.which("java") is None or not os.path.exists(JDBC_JAR):
        pytest.fail("java and Debian's pgJDBC jar are needed for the JDBC login test")
    src = tmp_path / "JdbcLogin.java"
    src.write_text(JDBC_LOGIN)
    base = f"jdbc:postgresql://127.0.0.1:{server.port}/cumulo"
    urls = [base + "?sslmode=disable",
            base + "?sslmode=require&sslfactory=org.postgresql.ssl.NonValidatingFactory"]
    logins = [(url, user, pw) for url in urls
              for user, pw in (("sam", ROLES["sam"]), ("mia", ROLES["mia"]), ("sam", "wrong"))]
    out = subprocess.run(["java", "-cp", JDBC_JAR, str(src), *[x for t in logins for x in t]],
                         capture_output=True, text=True, timeout=120)
    wrong = 'ERR 28P01 FATAL: password authentication failed for user "sam"'
    assert out.stdout.splitlines() == ["OK sam 42", "OK mia 42", wrong] * 2, out.stderr
