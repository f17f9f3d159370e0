"""The workloads `python -m bench` can run, by name.

A workload is a module with `NAME`, `DESCRIPTION` and `run(ctx) -> list[Figure]`:
it gets the running systems in a `RunContext` and returns figures; it never
starts servers (unless, like `floor`, it brings its own reference server) and
never prints results. To add one (TPC-C, CH-benCHmark, Spark reads, locust),
write the module and add its name here; `__main__`, `report` and the tests pick
it up from this table.
"""

from __future__ import annotations

import importlib
from types import ModuleType

WORKLOADS = {
    "pgbench": "bench.workloads.pgbench",
    "ingest": "bench.workloads.ingest",
    "aggregation": "bench.workloads.aggregation",
    "floor": "bench.workloads.floor",
}


def load(name: str) -> ModuleType:
    """Returns the module of the named workload."""
    return importlib.import_module(WORKLOADS[name])
