"""The operations modules on their own: doctests, the checkpointer's schedule, settings layers."""

from __future__ import annotations

import doctest
import logging
import threading
import time

import pytest

from cumulo.server import datadir, oplog
from cumulo.server.sql import conffile, settings
from cumulo.server.sql.settings import SERVER, Settings
from cumulo.server.txn import checkpointer, recovery
from cumulo.server.txn.checkpointer import Checkpointer


@pytest.mark.parametrize("module", [datadir, oplog, conffile, recovery, checkpointer])
def test_doctests(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


class Storage:
    """A transaction manager that counts its checkpoints (what the checkpointer drives)."""

    def __init__(self) -> None:
        self.checkpoints = 0
        self.commits = 0
        self.done = threading.Event()

    def checkpoint(self) -> bool:
        self.checkpoints += 1
        self.done.set()
        return True


def test_checkpointer_skips_idle_checkpoints():
    tm = Storage()
    cp = Checkpointer(tm, lambda: 300.0, lambda: tm.commits)
    assert cp.run_once() is False  # nothing committed since it started
    tm.commits = 5
    assert cp.run_once() is True and tm.checkpoints == 1
    assert cp.run_once() is False
    tm.commits = 6
    assert cp.run_once() is True and tm.checkpoints == 2


def test_a_long_checkpoint_stretches_the_wait_for_the_next():
    """A checkpoint writes everything, so its cost grows with the data: the next one waits
    at least its duration over SHARE (checkpoints take at most that share of the time)."""
    tm = Storage()
    cp = Checkpointer(tm, lambda: 300.0, lambda: tm.commits)
    tm.checkpoint = lambda: time.sleep(0.05) or True  # type: ignore[method-assign]
    tm.commits = 1
    assert cp.run_once() is True and cp.took >= 0.05
    assert checkpointer.next_wait(300.0, cp.took) == 300.0
    assert checkpointer.next_wait(0.1, cp.took) == cp.took / checkpointer.SHARE >= 0.5


def test_checkpointer_thread_runs_and_stops():
    tm = Storage()
    cp = Checkpointer(tm, lambda: 0.01, lambda: tm.commits).start()  # raised to MIN_INTERVAL
    tm.commits = 1
    assert tm.done.wait(30)
    cp.stop()
    assert tm.checkpoints >= 1


def test_a_failing_checkpoint_is_logged_not_raised(caplog):
    class Broken(Storage):
        def checkpoint(self) -> bool:
            raise OSError("disk full")

    tm = Broken()
    cp = Checkpointer(tm, lambda: 1.0, lambda: tm.commits)
    tm.commits = 1
    with caplog.at_level(logging.WARNING):
        assert cp.run_once() is False
    assert "checkpoint failed: disk full" in caplog.text


def test_reload_reaches_sessions_that_did_not_set_the_value(tmp_path):
    saved = (SERVER.values, SERVER.sources, SERVER.files)
    try:
        (tmp_path / "cumulo.conf").write_text("work_mem = 8MB\n")
        config = conffile.Config(str(tmp_path))
        config.load()
        own, other = Settings(), Settings({"lock_timeout": "2s"})
        own.set("work_mem", "1MB")
        assert other.get("work_mem") == "8MB" and other.source("work_mem") == \
            "configuration file"
        (tmp_path / "cumulo.conf").write_text("work_mem = 32MB\nlock_timeout = 9s\n")
        assert config.reload()
        assert other.refresh() and own.refresh()
        assert other.get("work_mem") == "32MB"
        assert other.get("lock_timeout") == "2s"  # the client's startup value wins
        assert own.get("work_mem") == "1MB" and own.source("work_mem") == "session"
        own.set("work_mem", None)  # RESET: back to the file's value
        assert own.get("work_mem") == "32MB"
    finally:
        SERVER.replace(*saved)


def test_alter_system_rewrites_the_auto_file(tmp_path):
    config = conffile.Config(str(tmp_path))
    config.alter_system("work_mem", "64MB")
    config.alter_system("search_path", "a, public")
    config.alter_system("work_mem", None)
    text = (tmp_path / "cumulo.auto.conf").read_text()
    assert text == conffile.AUTO_HEADER + "search_path = 'a, public'\n"
    values, sources, _ = config.read()
    assert values["search_path"] == "a, public" and sources["search_path"] == "configuration file"
    config.alter_system(None, None)  # RESET ALL
    assert config.read()[0] == {}


def test_conf_syntax_errors_name_the_line():
    with pytest.raises(conffile.ConfError, match='file "x.conf" line 2'):
        conffile.parse("a = 1\nb = = 2\n", "x.conf")


def test_checkpoint_timeout_counts_seconds():
    assert settings.validate("checkpoint_timeout", "30") == "30s"
    assert settings.validate("checkpoint_timeout", "5min") == "5min"


def test_storage_without_files_is_not_counted_as_checkpointed(caplog):
    class InMemory(Storage):
        def checkpoint(self) -> bool:
            super().checkpoint()
            return False

    tm = InMemory()
    cp = Checkpointer(tm, lambda: 1.0, lambda: tm.commits)
    tm.commits = 3
    with caplog.at_level(logging.INFO):
        assert cp.run_once() is False
    assert tm.checkpoints == 1 and cp.done == 0
    assert "storage keeps no files" in caplog.text
    assert cp.run_once() is False and tm.checkpoints == 1  # nothing new: not asked again
