#!/usr/bin/env bash
# Installs everything the tests need (system packages included) and runs them.
# This is the README's test command; .ci/run calls it. Extra arguments go to pytest.
set -uo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -x /usr/lib/postgresql/15/bin/postgres ] || need_apt+=(postgresql-15)
command -v psql >/dev/null || need_apt+=(postgresql-client-15)
command -v tmux >/dev/null || need_apt+=(tmux)
[ -f /usr/share/java/postgresql.jar ] || need_apt+=(libpostgresql-jdbc-java)
command -v java >/dev/null || need_apt+=(openjdk-17-jre-headless)
[ -f /usr/share/java/zookeeper.jar ] || need_apt+=(zookeeper)
[ -f /usr/include/unicode/ucol.h ] || need_apt+=(libicu-dev)  # PyICU builds against it
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
command -v g++ >/dev/null || need_apt+=(g++)  # and compiles with it
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${need_apt[@]}" || exit 1
fi

python3 -m pip install -q -e '.[test]' || exit 1

ruff check server driver dialect tests bench || exit 1
bash tests/mypy.sh || exit 1

python3 -m pytest -q -p no:cacheprovider "$@"
rc=$?
if [ $rc -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 0
fi
exit $rc
