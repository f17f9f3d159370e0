"""`pip install .` gives everything the clients shipped here need (cumulo://, cumulo+async://).

Every third-party module that driver/ and dialect/ import must be an install requirement of
the `cumulo` distribution, or an installed user of `cumulo+async://` gets an ImportError
(it did: greenlet was missing).
"""

from __future__ import annotations

import ast
import re
import sys
from importlib.metadata import requires
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
# import name -> distribution name, where they differ
DIST = {"yaml": "pyyaml"}
# not requirements: dialect/alembic.py is imported only by Alembic (whose users have it)
OPTIONAL = {"alembic"}


def third_party_imports(folder: Path) -> set[str]:
    found = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in ("cumulo", "__future__"):
                    found.add(top)
    return found


def test_client_imports_are_install_requirements():
    reqs = requires("cumulo") or []
    base = {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower().replace("_", "-")
            for r in reqs if "extra ==" not in r}
    needed = third_party_imports(ROOT / "driver") | third_party_imports(ROOT / "dialect")
    # SQLAlchemy's asyncio support (cumulo+async://) needs greenlet at run time
    needed.add("greenlet")
    missing = {m for m in needed - OPTIONAL if DIST.get(m, m).lower() not in base}
    assert not missing, f"import these but do not require them: {sorted(missing)}"
