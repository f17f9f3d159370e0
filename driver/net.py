"""Sockets for the sync connection: TCP or a Unix socket, the SSLRequest dance, CancelRequest.

sslmode follows libpq: `disable` never asks for TLS; `allow` and `prefer`
ask and accept a refusal; `require` asks and fails on refusal without
checking the certificate; `verify-ca` and `verify-full` also check it
(against `sslrootcert` or the system store, and the host name for full).

A host that is a directory (`/var/run/postgresql`) or an abstract name (`@name`) is a
Unix-domain socket, `<host>/.s.PGSQL.<port>`, as libpq takes it; as libpq, the driver does
not ask for TLS there, whatever the sslmode.
"""

from __future__ import annotations

import socket
import ssl

from cumulo.driver import protocol as p
from cumulo.driver.errors import OperationalError


def ssl_context(sslmode: str, rootcert: str | None) -> ssl.SSLContext:
    """Returns the TLS context for an sslmode."""
    if sslmode in ("verify-ca", "verify-full"):
        ctx = ssl.create_default_context(cafile=rootcert)
        ctx.check_hostname = sslmode == "verify-full"
        return ctx
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def tls_answer(answer: bytes, sslmode: str) -> bool:
    """Tells whether to start TLS after the server's answer to SSLRequest."""
    if answer == b"S":
        return True
    if answer == b"N":
        if sslmode in ("require", "verify-ca", "verify-full"):
            raise OperationalError(f"the server does not support TLS (sslmode={sslmode})")
        return False
    raise OperationalError(f"unexpected answer {answer!r} to SSLRequest")


def unix_path(host: str, port: int) -> str | None:
    """The Unix-domain socket's address for a host that names one (None for a TCP host).

    >>> unix_path("/tmp", 5433), unix_path("@pg", 5433), unix_path("127.0.0.1", 5433)
    ('/tmp/.s.PGSQL.5433', '\\x00pg/.s.PGSQL.5433', None)
    """
    if host.startswith("/"):
        return f"{host.rstrip('/')}/.s.PGSQL.{port}"
    if host.startswith("@"):
        return f"\0{host[1:]}/.s.PGSQL.{port}"
    return None


def connect(host: str, port: int, timeout: float | None) -> socket.socket:
    """A connected socket to host:port, or to the Unix socket the host names."""
    path = unix_path(host, port)
    if path is None:
        return socket.create_connection((host, port), timeout=timeout)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(path)
    except BaseException:
        sock.close()
        raise
    return sock


def open_socket(host: str, port: int, sslmode: str, rootcert: str | None,
                timeout: float | None) -> socket.socket:
    """Connects to host:port and negotiates TLS; the socket is left blocking."""
    sock = connect(host, port, timeout)
    try:
        if sock.family == socket.AF_UNIX:
            sock.settimeout(None)
            return sock
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if sslmode != "disable":
            sock.sendall(p.ssl_request())
            answer = sock.recv(1)
            if tls_answer(answer, sslmode):
                sock = ssl_context(sslmode, rootcert).wrap_socket(sock, server_hostname=host)
        sock.settimeout(None)
        return sock
    except BaseException:
        sock.close()
        raise


def send_cancel(host: str, port: int, pid: int, secret: int, timeout: float = 10.0) -> None:
    """Asks the server to cancel what backend `pid` is running (no answer is sent)."""
    with connect(host, port, timeout) as sock:
        sock.sendall(p.cancel_request(pid, secret))
        try:
            sock.recv(1)  # the server closes the socket once it has read the request
        except OSError:
            pass
