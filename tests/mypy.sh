#!/usr/bin/env bash
# Type-checks server/, driver/ and dialect/ as the package `cumulo` they are installed as.
#
# `mypy server driver dialect` sees three packages named server, driver and dialect, and
# cannot resolve the absolute `cumulo.driver...` imports of driver/ and dialect/ (setup.py
# maps the folders onto `cumulo` with an import hook mypy does not follow), so those
# would be Any. Here a view of symlinks under the git-ignored .mypy_cache gives mypy a real
# `cumulo` namespace package; errors are reported with repo paths. Settings: setup.cfg
# [mypy]. Extra arguments go to mypy. Used by tests/run.sh and `tox -e mypy`.
set -uo pipefail
cd "$(dirname "$0")/.."

view=.mypy_cache/cumulo-view
mkdir -p "$view/cumulo"
for d in server driver dialect; do
    ln -sfn "../../../$d" "$view/cumulo/$d"
done
MYPYPATH="$view" python3 -m mypy -p cumulo.server -p cumulo.driver -p cumulo.dialect "$@" 2>&1 \
    | sed "s#^$view/cumulo/##"
