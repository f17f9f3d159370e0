"""Runs every MVCC golden script under golden/ (see golden_runner for the format)."""

from __future__ import annotations

import glob
import os

import pytest

from .golden_runner import Runner, ScriptError, check, parse

HERE = os.path.dirname(__file__)
SCRIPTS = sorted(glob.glob(os.path.join(HERE, "golden", "*.txt")))


def test_scripts_exist():
    names = {os.path.basename(p) for p in SCRIPTS}
    for required in (
        "dirty_read.txt", "lost_update.txt", "write_skew.txt", "read_your_writes.txt",
        "snapshot_at_first_statement.txt", "session_consistency.txt",
        "delete_reinsert.txt", "savepoint.txt",
    ):
        assert required in names


@pytest.mark.parametrize("path", SCRIPTS, ids=[os.path.basename(p) for p in SCRIPTS])
def test_golden(path):
    check(path)


def test_runner_rejects_unknown_commands():
    r = Runner()
    try:
        with pytest.raises(ScriptError):
            r.run_line("t1: begn")
        r.run_line("t1: begin")
        with pytest.raises(ScriptError):
            r.run_line("t1: gett a")
        with pytest.raises(ScriptError):
            r.run_line("frobnicate")
        with pytest.raises(ScriptError):
            r.run_line("t1: begin isolation=bogus")
    finally:
        r.close()


def test_runner_checks_error_marks():
    r = Runner()
    try:
        r.run_line("t1: begin readonly")
        with pytest.raises(AssertionError):
            r.run_line("t1: put a=1")  # fails without !
        r.run_line("t2: begin")
        with pytest.raises(AssertionError):
            r.run_line("!t2: put a=1")  # succeeds despite !
    finally:
        r.close()


def test_parse_requires_separator():
    with pytest.raises(ScriptError):
        parse("t1: begin\n")
