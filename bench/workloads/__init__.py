"""The workloads `python -m bench` can run, by name.

A workload is a module with `NAME`, `DESCRIPTION` and `run(ctx) -> list[Figure]`:
it gets the running systems in a `RunContext` and returns figures; it never
starts servers (unless, like `floor`, it brings its own reference server) and
never prints results. To add one, write the module and add its name here;
`__main__`, `report` and the tests pick it up from this table.
"""

from __future__ import annotations

import importlib
from types import ModuleType

WORKLOADS = {
    "pgbench": "bench.workloads.pgbench",
    "selectonly": "bench.workloads.selectonly",
    "ingest": "bench.workloads.ingest",
    "aggregation": "bench.workloads.aggregation",
    "floor": "bench.workloads.floor",
    "tpcc": "bench.workloads.tpcc",
    "ch": "bench.workloads.ch",
    "tpch": "bench.workloads.tpch",
    "spark": "bench.workloads.spark",
    "locust": "bench.workloads.locust",
    "pipeline": "bench.workloads.pipeline",
    "columnar": "bench.workloads.columnar",
    "htap": "bench.workloads.htap",
    "bulk": "bench.workloads.bulk",
    "copyin": "bench.workloads.copyin",
    "copyout": "bench.workloads.copyout",
    "literalinsert": "bench.workloads.literalinsert",
    "cluster": "bench.workloads.cluster",
    "workers": "bench.workloads.workers",
    "memory": "bench.workloads.memory",
}

# Micro-benchmarks of Cumulo's components, in process: no PostgreSQL to compare with, no
# server started. Run by name (`python -m bench txn-micro`); `all` leaves them out.
MICRO = {
    "txn-micro": "bench.workloads.txn_micro",
    "cluster-sim": "bench.workloads.cluster_sim",
    "kivi-wire": "bench.workloads.kivi_wire",
}


def load(name: str) -> ModuleType:
    """Returns the module of the named workload."""
    return importlib.import_module(WORKLOADS.get(name) or MICRO[name])
