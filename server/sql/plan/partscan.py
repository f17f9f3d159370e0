"""Reading a partitioned table: the UNION ALL of its leaf partitions' scans.

A partitioned table holds no rows (`ddl.partitions`), so the builder reads it as
PostgreSQL's Append does: one scan per leaf partition, in bound order, under
`SetOp` union-all nodes whose columns are the parent's (a partition has the
parent's columns at the same positions). Each leaf is an ordinary table scan,
so the optimizer's rules (filters pushed into KiVi, point gets, index lookups)
apply to it once `optimizer.partition_prune` has moved the query's filter onto
each leaf and dropped the leaves the filter rules out.

Each leaf reports its own OID as `tableoid`, as in PostgreSQL. When the statement
needs row keys (UPDATE, DELETE), a leaf's keys carry its OID in front
(`dml.partrouter.tag`), so the write goes back to the partition holding the row.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ...pgtypes import oids as T
from ..catalog.model import Table
from ..catalog.syscols import ROW_KEY
from ..dml.partrouter import tag
from ..expr.bound import E, col
from ..partitions.members import leaves
from . import nodes as N


def partition_scan(planner: Any, t: Table, qualifier: str, only: bool = False) -> N.Node:
    """The plan reading partitioned table `t` under the query's name `qualifier` (`only`:
    FROM ONLY t, its own rows, which are none)."""
    shape = planner._with_tableoid(planner._with_version(planner.table_scan(t, qualifier),
                                                         qualifier, t.oid), t.oid, qualifier)
    cols = [replace(c) for c in shape.cols]
    kids: list[N.Node] = []
    scans: list[N.Scan] = []
    for leaf in leaves(planner.catalog, t) if not only else ():
        scans.append(planner.table_scan(leaf, qualifier))
        node = planner._with_version(scans[-1], qualifier, leaf.oid)
        if planner.want_key:
            node = _tagged(node, leaf.oid)
        kids.append(planner._with_tableoid(node, leaf.oid, qualifier))
    if not kids:
        return N.Values([replace(c) for c in cols], rows=[])
    name_leaves(scans, qualifier)
    return union_all(kids, cols)


def name_leaves(scans: list[N.Scan], qualifier: str) -> None:
    """Names the leaves' scans as PostgreSQL's EXPLAIN does: `m_1`, `m_2`... for a query's
    `m` when it reads several partitions, `m` when it reads one."""
    for i, scan in enumerate(scans):
        name = f"{qualifier}_{i + 1}" if len(scans) > 1 else qualifier
        for c in scan.cols:
            c.qualifier = name


def union_all(kids: list[N.Node], cols: list[N.PCol]) -> N.Node:
    """The leaves as a balanced tree of union-all SetOps (one leaf: itself, renamed)."""
    if len(kids) == 1:
        node = kids[0]
        return N.Project([replace(c) for c in cols], child=node,
                         exprs=[col(i, c.type, c.name) for i, c in enumerate(node.cols)])
    mid = len(kids) // 2
    return N.SetOp([replace(c) for c in cols], left=union_all(kids[:mid], cols),
                   right=union_all(kids[mid:], cols), op="union", all=True)


def _tagged(node: N.Node, oid: int) -> N.Node:
    """The leaf with its ROW_KEY column prefixed by its OID."""
    exprs = []
    for i, c in enumerate(node.cols):
        e = col(i, c.type, c.name)
        if c.name == ROW_KEY:
            e = E("pyfunc", ("partition key", tag(oid), True), [e], T.BYTEA)
        exprs.append(e)
    return N.Project([replace(c) for c in node.cols], child=node, exprs=exprs)


def union_scans(node: N.Node) -> list[N.Scan] | None:
    """The scan under an Aggregate, or every scan of a UNION ALL of whole-row scans (a
    partitioned table's partitions, each maybe under its runtime-pruning Guard): each
    computes its partials in KiVi (`optimizer.push_aggregate`), and the Aggregate merges
    them all (`exec.aggregate`). None for anything else."""
    if isinstance(node, N.Scan):
        return [node]
    if isinstance(node, N.Guard):
        return union_scans(node.child)
    if isinstance(node, N.Project) and len(node.exprs) == len(node.child.cols) and all(
            e.kind == "col" and e.data == i for i, e in enumerate(node.exprs)):
        return union_scans(node.child)  # NB: a lone partition's, renamed as its parent
    if isinstance(node, N.SetOp) and node.op == "union" and node.all:
        left, right = union_scans(node.left), union_scans(node.right)
        return None if left is None or right is None else left + right
    return None
