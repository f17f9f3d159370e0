"""Records PostgreSQL 15's output for every case in `cases.py` into `pg15_outputs.json`.

Run by hand against a throwaway PostgreSQL 15: `python -m
tests.unit.sql_functions.record_pg15 <port> <socket dir>`; the tests only read
the recorded file.
"""

from __future__ import annotations

import json
import pathlib
import sys

import psycopg

from .cases import CASES

OUT = pathlib.Path(__file__).with_name("pg15_outputs.json")


def main() -> None:
    """Evaluates each case's SQL on the server and writes text outputs or ERROR <sqlstate>."""
    port, host = int(sys.argv[1]), sys.argv[2]
    results = {}
    with psycopg.connect(host=host, port=port, user="postgres", dbname="postgres",
                         autocommit=True) as conn:
        conn.execute("SET TimeZone = 'UTC'")
        for sql, *_ in CASES:
            try:
                row = conn.execute(f"SELECT ({sql})::text").fetchone()
                results[sql] = row[0]
            except psycopg.Error as e:
                results[sql] = f"ERROR {e.sqlstate}"
    OUT.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
