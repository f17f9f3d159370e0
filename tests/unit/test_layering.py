"""The layering shows in the imports: no new function-level import in server/.

An import inside a function hides a dependency from the module's header, and
usually a cycle: a lower layer reaching up into a higher one. Fix the
layering instead (move the shared piece down, move the function to the module
that owns its concept, or pass a callback in), and import at the top. The few
imports that may stay lazy are listed below, each with its reason; the
"debt" entries are cycles not yet broken, to be removed as they are fixed.
The check is a walk of every module's syntax tree (cheap, no imports).
"""

from __future__ import annotations

import ast
import functools
import re
import subprocess
import sys
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "server"

# (module path under server/, the module as the import statement names it): why it stays lazy
ALLOWED: dict[tuple[str, str], str] = {
    # -- optional or heavy, and needed only on one path ------------------------------------
    ("cli.py", "bench.__main__"): "bench/ is in the source checkout only",
    ("cli.py", "cumulo.pipeline.tickdata.cli"): "`cumulo pipeline` only: pyspark (spark extra)",
    ("cli.py", "resource"): "Unix-only stdlib module; its ImportError is handled",
    ("cli.py", ".pgwire.server"): "cluster role processes share the entry point, never load SQL",
    ("cli.py", ".sql.engine"): "cluster role processes share the entry point, never load SQL",
    ("kivi/columnar/aggregate.py", "pyarrow.compute"): "~0.2 s; most KiVi nodes never need it",
    ("sql/expr/functions.py", "importlib"): "loads the function library on first resolution",
    # -- debt: cycles not yet broken ---------------------------------------------------------
    ("pgtypes/zones.py", ".text"): "debt: zones <-> text (interval settings)",
    ("sql/functions/catalogfns.py", "..pgcatalog.relations"): "debt: functions <-> pgcatalog",
    ("sql/functions/catalogfns.py", "..pgcatalog.runtime"): "debt: functions <-> pgcatalog",
    ("sql/functions/regcasts.py", "..pgcatalog.runtime"): "debt: functions <-> pgcatalog",
    ("sql/functions/sysinfo.py", "..pgcatalog.ddltext"): "debt: functions <-> pgcatalog",
    ("sql/functions/sysinfo.py", "..pgcatalog.runtime"): "debt: functions <-> pgcatalog",
    ("sql/functions/sysinfo.py", "..pgcatalog.stats"): "debt: functions <-> pgcatalog",
    ("sql/functions/sysinfo.py", "..pgcatalog.systypes"): "debt: functions <-> pgcatalog",
    ("sql/functions/sysinfo.py", ".regcasts"): "debt: functions <-> pgcatalog",
    ("sql/pgcatalog/ddltext.py", "..ddl.indexkeys"): "debt: indexkeys -> functions -> ddltext",
    ("sql/pgcatalog/relations.py", "..ddl.indexkeys"): "debt: indexkeys -> pgcatalog",
}


# an import that is indented or follows a colon (`def f(): import os`) on its line
_MAYBE_NESTED = re.compile(r"^[ \t]+(import|from)\b|:[ \t]*(import|from)\b", re.M)


# a line that may import top-level `server` (`from server...`, `import x, server.y`)
_MAYBE_SERVER = re.compile(r"^[ \t]*(from[ \t]+server\b|import[ \t][^\n]*\bserver\b)", re.M)


@functools.cache
def function_level_imports(root: Path = SERVER) -> list[tuple[str, int, str]]:
    """(path under root, line, module as written) of every import inside a function
    (walked once per root: two tests read the server's)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text()
        if not _MAYBE_NESTED.search(text):  # most modules: nothing indented imports
            continue
        # NB: one walk per module, entering each function once (walking every function's
        # subtree again from each enclosing function made this test take 17 s)
        stack: list[tuple[ast.AST, bool]] = [(ast.parse(text, str(path)), False)]
        while stack:
            node, in_fn = stack.pop()
            if in_fn and isinstance(node, ast.ImportFrom):
                out.append((rel, node.lineno, "." * node.level + (node.module or "")))
            elif in_fn and isinstance(node, ast.Import):
                out.extend((rel, node.lineno, a.name) for a in node.names)
            inner = in_fn or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return sorted(set(out))


def test_no_new_function_level_imports():
    found = function_level_imports()
    assert found, "the walk found no function-level import at all: is SERVER right?"
    new = [f"server/{p}:{line}: {mod}" for p, line, mod in found if (p, mod) not in ALLOWED]
    assert not new, ("function-level imports outside the allow-list (import at the top and "
                     "fix the layering, or list it with its reason):\n" + "\n".join(new))


def test_every_allowed_lazy_import_still_exists():
    """A debt paid (the import moved to the top) leaves the list with it: a stale entry
    would let that lazy import come back unnoticed."""
    found = {(p, mod) for p, _, mod in function_level_imports()}
    stale = sorted(set(ALLOWED) - found)
    assert not stale, f"allow-list entries with no such import any more: {stale}"


def test_the_walk_sees_nested_imports(tmp_path):
    # NB: the check must not pass by missing imports nested in methods or inner functions
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "import os\n\nclass C:\n    def m(self):\n        def inner():\n"
        "            from ..x import y\n            import json\n")
    assert function_level_imports(tmp_path) == [("pkg/m.py", 6, "..x"), ("pkg/m.py", 7, "json")]


def test_tests_import_the_server_as_cumulo_server():
    """`server` is importable from a checkout too (the repo root is on sys.path), but as a
    second copy of every module, with its own settings, registries and waits hub: a test
    that imports it tests objects the server never uses."""
    tests = SERVER.parent / "tests"
    found = []
    for path in tests.rglob("*.py"):
        text = path.read_text()
        if not _MAYBE_SERVER.search(text):  # NB: the parse confirms what the pattern finds
            continue
        for node in ast.walk(ast.parse(text, str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level \
                else []
            found += [f"{path.relative_to(tests)}:{node.lineno}" for n in names
                      if n == "server" or n.startswith("server.")]
    assert not found, found


# a line that imports the package by its installed name (`from cumulo.server.x import y`)
_ABSOLUTE_SELF = re.compile(r"^[ \t]*(from|import)[ \t]+cumulo\.server\b", re.M)


def test_server_modules_import_each_other_relatively():
    """Inside server/, `from cumulo.server.x import y` works once installed, but a tree
    imported as `server.*` (a checkout's scripts) then holds two copies of x: its classes
    differ (a `Coded` column of one copy failed the other's isinstance checks)."""
    found = [f"server/{path.relative_to(SERVER)}" for path in sorted(SERVER.rglob("*.py"))
             if _ABSOLUTE_SELF.search(path.read_text())]
    assert not found, found


# what a KiVi node's process must never load: the SQL front end above the expression IR
_NOT_IN_A_NODE = ("sqlglot", "cumulo.server.sql.catalog", "cumulo.server.sql.parse",
                  "cumulo.server.sql.plan", "cumulo.server.sql.optimizer",
                  "cumulo.server.sql.engine", "cumulo.server.pgwire")


def test_a_kivi_node_loads_the_compilers_without_the_sql_front_end():
    """A role process (`cluster.role`) installs the filter compilers its pushed scans run
    (`sql.expr.pushed`, through codegen, runtime, casts and `typefacts`), and they need no
    parser, planner or catalog: a module of those reached from the compilers (as `types`,
    which reads sqlglot nodes, once was through casts) is a layering error, and ~0.1 s of
    every role's start-up. Checked in a fresh interpreter, where nothing else loaded them."""
    code = ("import sys, cumulo.server.cluster.role\n"
            "from cumulo.server.kivi import filters\n"
            "filters.positions(('cmp', '=', ('col', 0, 23), ('param', 1, 23)))\n"
            "print('\\n'.join(sorted(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=SERVER.parent).stdout.split()
    assert "cumulo.server.sql.expr.pushed" in out  # NB: else the check below proves nothing
    loaded = [m for m in out if any(m == n or m.startswith(n + ".") for n in _NOT_IN_A_NODE)]
    assert not loaded, loaded
