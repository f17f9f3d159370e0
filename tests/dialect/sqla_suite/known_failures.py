"""Suite tests that fail today because of a Cumulo server bug, each with its finding.

These are not features Cumulo lacks (those are closed in
`cumulo/dialect/requirements.py`): they are bugs filed on the findings board
for the server's owners. `conftest.py` marks each test here
`xfail(strict=True)`, so the suite stays green while the bug is open and turns
red (XPASS) the day it is fixed: then delete the entry.
"""

from __future__ import annotations

SERVER_ISSUE = "issue 3"

# (class, test name with parameters) -> why it fails, as filed.
KNOWN_FAILURES: dict[tuple[str, str], str] = {}
