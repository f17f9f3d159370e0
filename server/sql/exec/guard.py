"""A Guard runs its child unless the statement's parameter values rule it out: runtime
partition pruning (`optimizer.partition_prune`), decided once per execution."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..plan import nodes as N
from .runner import Batch, executes, run


@executes(N.Guard)
def run_guard(node: N.Guard, ctx: Any) -> Iterator[Batch]:
    if node.skip(ctx):
        return
    yield from run(node.child, ctx)
