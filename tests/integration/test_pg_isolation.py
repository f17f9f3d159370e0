"""PostgreSQL's own isolationtester against `cumulo serve`, diffed with PostgreSQL 15's output.

The specs and PostgreSQL 15.18's output are in `../shared/suites/pg_isolation/`.
isolationtester needs BackendKeyData pids, `set_config`, CancelRequest and
`pg_isolation_test_session_is_blocked(pid, pids[])` (to print `<waiting ...>`
when a writer blocks behind an active writer, as in `read-write-unique`).

SERIALIZABLE is write-snapshot isolation in Cumulo, not PostgreSQL's SSI
(`shared/SERIALIZABLE.md` section 4). On the four shared specs the output is
identical. `read-only-anomaly-2` (PostgreSQL's spec, reproduced below) is a known
divergence: in its first permutation PostgreSQL commits both s1 and s2 (s2
serialized before s1), while WSI fixes the serial order to commit order and
aborts s2 at its write. Both outcomes are serializable; the test asserts that
exactly this step differs and that no anomaly commits.

Stretch specs (`pg_isolation_stretch/`, PostgreSQL's specs with PostgreSQL 15's
output): `classroom-scheduling`, `project-manager` and `temporal-range-integrity`
match exactly; `two-ids` and `receipt-report` fail in every permutation PostgreSQL
fails and in more (WSI's commit-order false positives), and never commit the
receipt-report anomaly, which REPEATABLE READ commits in six permutations.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psycopg
import pytest

SUITE = Path(__file__).resolve().parents[3] / "shared" / "suites" / "pg_isolation"
TESTER = Path("/usr/lib/postgresql/15/lib/pgxs/src/test/isolation/isolationtester")
SPECS = ["simple-write-skew", "total-cash", "read-only-anomaly", "read-write-unique"]
RW_ERROR = "ERROR:  could not serialize access due to read/write dependencies among transactions"


pytestmark = [
    pytest.mark.skipif(not TESTER.exists(),
                       reason="PostgreSQL 15's isolationtester is not installed"),
    pytest.mark.skipif(not SUITE.exists(), reason=f"{SUITE} is not present: the external test suites are not part of this repository"),
]


# Tables the specs create; other tests of the session (Hermitage) may have left one behind.
SPEC_TABLES = ("test", "accounts", "bank_account", "room_reservation", "person", "project",
               "statute", "offense", "ctl", "receipt", "d1", "d2")


def run_spec(server, spec_text: str) -> str:
    dsn = f"host=127.0.0.1 port={server.port} user=cumulo dbname=cumulo"
    if os.environ.get("CUMULO_TEST_ORACLE_PORT"):
        dsn += " password=cumulo-pw"
    with psycopg.connect(dsn, autocommit=True) as c:
        for t in SPEC_TABLES:
            c.execute(f"drop table if exists {t}")
    out = subprocess.run([str(TESTER), dsn], input=spec_text, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("name", SPECS)
def test_spec_matches_postgres(cumulo_server, name):
    spec = (SUITE / "specs" / f"{name}.spec").read_text()
    expected = (SUITE / "expected_pg15" / f"{name}.out").read_text()
    assert run_spec(cumulo_server, spec) == expected


@pytest.mark.parametrize("name", ["total-cash", "simple-write-skew"])
def test_the_same_specs_at_repeatable_read_show_the_anomaly(cumulo_server, name):
    # The harness has teeth: under snapshot isolation the write skews commit.
    spec = (SUITE / "specs" / f"{name}.spec").read_text()
    spec = spec.replace("ISOLATION LEVEL SERIALIZABLE", "ISOLATION LEVEL REPEATABLE READ")
    assert "REPEATABLE READ" in spec
    out = run_spec(cumulo_server, spec)
    assert "starting permutation" in out
    assert "ERROR" not in out


# PostgreSQL's src/test/isolation/specs/read-only-anomaly-2.spec (PostgreSQL License).
READ_ONLY_ANOMALY_2 = """\
setup
{
    CREATE TABLE bank_account (id TEXT PRIMARY KEY, balance DECIMAL NOT NULL);
    INSERT INTO bank_account (id, balance) VALUES ('X', 0), ('Y', 0);
}
teardown
{
    DROP TABLE bank_account;
}
session s1
setup\t\t{ BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE; }
step s1ry\t{ SELECT balance FROM bank_account WHERE id = 'Y'; }
step s1wy\t{ UPDATE bank_account SET balance = 20 WHERE id = 'Y'; }
step s1c\t{ COMMIT; }
session s2
setup\t\t{ BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE; }
step s2rx\t{ SELECT balance FROM bank_account WHERE id = 'X'; }
step s2ry\t{ SELECT balance FROM bank_account WHERE id = 'Y'; }
step s2wx\t{ UPDATE bank_account SET balance = -11 WHERE id = 'X'; }
step s2c\t{ COMMIT; }
session s3
setup\t\t{ BEGIN TRANSACTION ISOLATION LEVEL SERIALIZABLE; }
step s3r\t{ SELECT id, balance FROM bank_account WHERE id IN ('X', 'Y') ORDER BY id; }
step s3c\t{ COMMIT; }
permutation s2rx s2ry s1ry s1wy s1c s2wx s2c s3c
permutation s2rx s2ry s1ry s1wy s1c s3r s2wx s2c s3c
"""


def test_read_only_anomaly_2_differs_only_where_documented(cumulo_server):
    out = run_spec(cumulo_server, READ_ONLY_ANOMALY_2)
    perms = out.split("starting permutation: ")
    assert len(perms) == 3
    first, second = perms[1], perms[2]
    # Permutation 1: PostgreSQL 15 commits s2 (serialized before s1). WSI aborts s2 at its
    # write (it read Y, which s1 committed after s2's snapshot): the divergence of
    # SERIALIZABLE.md section 4. Everything else is PostgreSQL's output.
    wx = "step s2wx: UPDATE bank_account SET balance = -11 WHERE id = 'X';\n"
    assert first.count(RW_ERROR) == (0 if os.environ.get("CUMULO_TEST_ORACLE_PORT") else 1)
    assert first.replace(wx + RW_ERROR + "\n", wx) == (
        "s2rx s2ry s1ry s1wy s1c s2wx s2c s3c\n" + _PG_FIRST_STEPS
    )
    # Permutation 2 (s3 saw s1's commit): PostgreSQL aborts s2 at the same step.
    assert second.count(RW_ERROR) == 1
    assert second.index(RW_ERROR) > second.index("step s2wx")
    assert "X |      0\nY |     20" in second


_PG_FIRST_STEPS = """\
step s2rx: SELECT balance FROM bank_account WHERE id = 'X';
balance
-------
      0
(1 row)

step s2ry: SELECT balance FROM bank_account WHERE id = 'Y';
balance
-------
      0
(1 row)

step s1ry: SELECT balance FROM bank_account WHERE id = 'Y';
balance
-------
      0
(1 row)

step s1wy: UPDATE bank_account SET balance = 20 WHERE id = 'Y';
step s1c: COMMIT;
step s2wx: UPDATE bank_account SET balance = -11 WHERE id = 'X';
step s2c: COMMIT;
step s3c: COMMIT;

"""


# -- stretch specs (SERIALIZABLE.md section 5.3) ------------------------------------------------
# PostgreSQL's specs (PostgreSQL License) with PostgreSQL 15's output, in pg_isolation_stretch/.

STRETCH = Path(__file__).resolve().parent / "pg_isolation_stretch"


def _permutations(out: str) -> dict[str, str]:
    perms = out.split("starting permutation: ")[1:]
    return {p.splitlines()[0]: p for p in perms}


@pytest.mark.parametrize("name", ["classroom-scheduling", "project-manager",
                                  "temporal-range-integrity"])
def test_stretch_spec_matches_postgres(cumulo_server, name):
    out = run_spec(cumulo_server, (STRETCH / f"{name}.spec").read_text())
    assert out == (STRETCH / f"{name}.out").read_text()


@pytest.mark.parametrize("name", ["two-ids", "receipt-report"])
def test_stretch_spec_fails_at_least_where_postgres_fails(cumulo_server, name):
    # WSI serializes update transactions in commit order, so it also aborts where SSI finds
    # another serial order (SERIALIZABLE.md section 4): every permutation PostgreSQL fails
    # fails here too, and one that fails nowhere here is PostgreSQL's output exactly.
    out = _permutations(run_spec(cumulo_server, (STRETCH / f"{name}.spec").read_text()))
    expected = _permutations((STRETCH / f"{name}.out").read_text())
    assert out.keys() == expected.keys()
    for perm, text in expected.items():
        if RW_ERROR in text:
            assert RW_ERROR in out[perm], perm
        if RW_ERROR not in out[perm]:
            assert out[perm] == text, perm
    if name == "receipt-report":
        for perm, text in out.items():
            assert not _receipt_anomaly(text), perm


def _receipt_anomaly(perm: str) -> bool:
    """s3 saw the day closed (2008-12-23), yet its report of 2008-12-22 lacks receipt 3,
    which s1 committed with the date 2008-12-22 (s1 read ctl before s2 committed)."""
    order = perm.splitlines()[0].split()
    if order.index("rxwy1") > order.index("c2"):
        return False  # s1 read the new date: receipt 3 belongs to 2008-12-23
    steps = {}
    for chunk in perm.split("step ")[1:]:
        name = chunk.split(":", 1)[0]
        steps[name] = chunk
    s1_failed = any(RW_ERROR in steps.get(s, "") for s in ("rxwy1", "c1"))
    closed = "2008-12-23" in steps.get("rx3", "")
    ry3 = steps.get("ry3", "")
    return not s1_failed and closed and "4.00" not in ry3 and RW_ERROR not in ry3


RECEIPT_FAILURES = [  # the six permutations PostgreSQL fails (receipt-report.out)
    "rxwy1 wx2 c2 rx3 c1 ry3 c3", "rxwy1 wx2 c2 rx3 ry3 c1 c3", "rxwy1 wx2 c2 rx3 ry3 c3 c1",
    "wx2 rxwy1 c2 rx3 c1 ry3 c3", "wx2 rxwy1 c2 rx3 ry3 c1 c3", "wx2 rxwy1 c2 rx3 ry3 c3 c1",
]


def test_receipt_report_anomaly_check_has_teeth(cumulo_server):
    # At REPEATABLE READ the six permutations PostgreSQL must fail do show the anomaly.
    spec = (STRETCH / "receipt-report.spec").read_text().replace("SERIALIZABLE", "REPEATABLE READ")
    spec += "".join(f"permutation {p}\n" for p in RECEIPT_FAILURES)
    out = _permutations(run_spec(cumulo_server, spec))
    assert list(out) == RECEIPT_FAILURES
    assert all(_receipt_anomaly(text) for text in out.values())
    expected = _permutations((STRETCH / "receipt-report.out").read_text())
    assert all(RW_ERROR in expected[p] for p in RECEIPT_FAILURES)
