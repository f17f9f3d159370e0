"""Hermitage's isolation anomalies against a real `cumulo serve` (read committed, repeatable read).

The runner and its expected outcomes live in `../shared/suites/hermitage/`;
they were checked against PostgreSQL 15. SERIALIZABLE comes with its own issue.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[3] / "shared" / "suites" / "hermitage" / "hermitage_pg.py"


def test_hermitage_rc_and_rr_lenient(cumulo_server):
    assert RUNNER.exists(), RUNNER
    dsn = f"host=127.0.0.1 port={cumulo_server.port} user=cumulo dbname=cumulo"
    out = subprocess.run(
        [
            sys.executable,
            str(RUNNER),
            "--dsn",
            dsn,
            "--lenient",
            "--levels",
            "read committed,repeatable read",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    print(out.stdout[-4000:], out.stderr[-2000:])
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "23 passed, 0 failed" in out.stdout
