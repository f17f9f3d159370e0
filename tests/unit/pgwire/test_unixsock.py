"""pgwire.unixsock on its own: the socket and lock files, stale ones, and the start-up errors.

Real sockets in a temporary directory; the servers that use them are tested through
real clients in tests/integration/test_unix_socket*.py.
"""

from __future__ import annotations

import doctest
import grp
import logging
import os
import socket
import stat
import subprocess
import sys

import pytest

from cumulo.server.pgwire import unixsock
from cumulo.server.pgwire.unixsock import UnixSocketError, UnixSpec, listen, remove


def test_doctests():
    result = doctest.testmod(unixsock)
    assert result.attempted and not result.failed


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid  # NB: reaped: no process has it now (reuse within the test is unlikely,
    # and harmless: a live pid without a listening socket is stale too)


def test_listen_makes_socket_and_lock_and_remove_deletes_them(tmp_path):
    spec = UnixSpec((str(tmp_path),), 0o700, data_dir="/data")
    [lst] = listen(spec, 6543)
    try:
        path = tmp_path / ".s.PGSQL.6543"
        assert lst.path == str(path) and stat.S_ISSOCK(path.stat().st_mode)
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
        lines = (tmp_path / ".s.PGSQL.6543.lock").read_text().splitlines()
        assert lines[0] == str(os.getpid()) and lines[1] == "/data"
        assert lines[3:] == ["6543", str(tmp_path)]
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(path))  # it listens
    finally:
        remove([lst])
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("owner", ["dead", "live-without-socket"])
def test_stale_files_are_replaced(tmp_path, owner):
    path = tmp_path / ".s.PGSQL.6544"
    old = socket.socket(socket.AF_UNIX)
    old.bind(str(path))
    old.close()  # a socket file nobody listens on, as a killed server leaves it
    pid = _dead_pid() if owner == "dead" else os.getppid()
    (tmp_path / ".s.PGSQL.6544.lock").write_text(f"{pid}\n/old\n0\n6544\n{tmp_path}\n")
    [lst] = listen(UnixSpec((str(tmp_path),)), 6544)
    try:
        assert (tmp_path / ".s.PGSQL.6544.lock").read_text().split("\n")[0] == str(os.getpid())
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(str(path))
    finally:
        remove([lst])


def test_a_live_server_keeps_its_socket(tmp_path):
    """A lock held by a live process whose socket accepts connections: another server's."""
    owner = subprocess.Popen(
        [sys.executable, "-c", "import socket, sys, time\n"
         "s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)\n"
         "open(sys.argv[1] + '.lock', 'w').write('%d\\n' % __import__('os').getpid())\n"
         "print('up', flush=True); sys.stdin.read()",
         str(tmp_path / ".s.PGSQL.6545")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None and owner.stdout.readline().strip() == "up"
        with pytest.raises(UnixSocketError, match=f"already exists .*PID {owner.pid}"):
            listen(UnixSpec((str(tmp_path),)), 6545)
        assert (tmp_path / ".s.PGSQL.6545").exists()
    finally:
        assert owner.stdin is not None
        owner.stdin.close()
        owner.wait(60)


def test_a_configured_directory_that_cannot_hold_the_lock_is_fatal(tmp_path):
    with pytest.raises(UnixSocketError, match="could not create lock file .*No such file"):
        listen(UnixSpec((str(tmp_path / "missing"),)), 6546)


def test_the_default_directory_unusable_is_a_warning(tmp_path, caplog):
    spec = UnixSpec((str(tmp_path / "missing"),), configured=False)
    with caplog.at_level(logging.WARNING, logger="cumulo.pgwire"):
        assert listen(spec, 6547) == []
    assert "listening on TCP only" in caplog.text


def test_too_long_a_path_is_skipped_and_none_at_all_is_fatal(tmp_path, caplog):
    long_dir = tmp_path / ("d" * 100)
    long_dir.mkdir()
    with caplog.at_level(logging.WARNING, logger="cumulo.pgwire"):
        [lst] = listen(UnixSpec((str(long_dir), str(tmp_path))), 6548)
        remove([lst])
        assert "is too long" in caplog.text
        with pytest.raises(UnixSocketError, match="could not create any Unix-domain sockets"):
            listen(UnixSpec((str(long_dir),)), 6548)


def test_bad_settings():
    with pytest.raises(UnixSocketError, match="invalid value"):
        unixsock.permissions("rw")
    with pytest.raises(UnixSocketError, match="outside the valid range"):
        unixsock.permissions("01777")
    with pytest.raises(UnixSocketError, match='group "no-such-group-x" does not exist'):
        listen(UnixSpec(("/tmp",), group="no-such-group-x"), 6549)


def test_a_relative_directory_is_the_data_directorys(tmp_path):
    (tmp_path / "data" / "sock").mkdir(parents=True)
    [lst] = listen(UnixSpec(("sock",), data_dir=str(tmp_path / "data")), 6550)
    try:
        assert lst.path == str(tmp_path / "data" / "sock" / ".s.PGSQL.6550")
        assert stat.S_ISSOCK(os.stat(lst.path).st_mode)
    finally:
        remove([lst])


def test_an_abstract_name_has_no_file_and_no_second_owner(tmp_path, caplog):
    name = f"@cumulo-test-{os.getpid()}"
    [lst] = listen(UnixSpec((name,), data_dir=str(tmp_path)), 6551)
    try:
        assert lst.path == f"{name}/.s.PGSQL.6551" and lst.lock_path == ""
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(f"\0{name[1:]}/.s.PGSQL.6551")
        with caplog.at_level(logging.WARNING, logger="cumulo.pgwire"), \
                pytest.raises(UnixSocketError, match="could not create any"):
            listen(UnixSpec((name,)), 6551)
        assert "Address already in use" in caplog.text
    finally:
        remove([lst])
    assert os.listdir(tmp_path) == []


def test_probe_finds_a_live_owner_before_recovery(tmp_path):
    spec = UnixSpec((str(tmp_path),))
    unixsock.probe(spec, 6552)  # nothing there
    [lst] = listen(spec, 6552)
    try:
        unixsock.probe(spec, 6552)  # NB: its own lock (this process) does not count
        (tmp_path / ".s.PGSQL.6552.lock").write_text(f"{os.getppid()}\n")
        with pytest.raises(UnixSocketError, match=f"PID {os.getppid()}"):
            unixsock.probe(spec, 6552)  # a live process, and the socket answers
        unixsock.probe(UnixSpec((str(tmp_path),), configured=False), 6552)  # the default's
    finally:
        remove([lst])
    unixsock.probe(spec, 6552)


def test_unix_socket_group_by_name_or_number(tmp_path):
    gid = os.getgid()
    for group in (grp.getgrgid(gid).gr_name, str(gid)):
        [lst] = listen(UnixSpec((str(tmp_path),), 0o770, group=group), 6553)
        try:
            assert os.stat(lst.path).st_gid == gid
            assert stat.S_IMODE(os.stat(lst.path).st_mode) == 0o770
        finally:
            remove([lst])
