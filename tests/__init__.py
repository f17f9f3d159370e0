"""The test suite. pytest imports this package first (tests/conftest.py is `tests.conftest`).

Compiled bytecode: with PYTHONDONTWRITEBYTECODE set (images set it to keep checkouts clean),
every Python process compiles each module it imports from source, and a test run starts
hundreds of them: a `cumulo serve` per restart test, every role of every cluster, CLI
subprocesses. A server start compiled ~600 modules, 1.9 s of CPU where reading them
compiled costs 0.7 s. So the tests keep bytecode outside the checkout instead
(PYTHONPYCACHEPREFIX, under the temp dir), for this process, set here before conftest
imports the server, and for every process it starts, which inherit the environment.
"""

from __future__ import annotations

import os
import sys
import tempfile

if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    os.environ.setdefault("PYTHONPYCACHEPREFIX",
                          os.path.join(tempfile.gettempdir(), "cumulo-pycache"))
    sys.dont_write_bytecode = False
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
