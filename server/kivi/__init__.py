"""KiVi storage: order-preserving keys, MVCC regions, nodes with pushed-down scans, routing.

Bottom-up: `keycodec` (keys) -> `mvcc` (versions of one region) -> `filters`, `agg`
(pushed filters, compiled by the SQL layer's compilers installed here; partial
aggregates) -> `region`, `regionmap` (placement) ->
`node` (a storage node) -> `client` (routing over nodes) -> `wire`, `remote`
(msgpack over TCP) and `checkpoint` (durable node state). The contract with
the transaction layer is `api`.
"""

from .api import KiviNodeAPI
from .client import KiviClient
from .keycodec import decode_key, encode_key, prefix_upper_bound
from .node import KiviNode
from .regionmap import RegionMap
from .remote import NodeServerThread, RemoteNode, serve_node

__all__ = [
    "KiviClient",
    "KiviNode",
    "KiviNodeAPI",
    "NodeServerThread",
    "RegionMap",
    "RemoteNode",
    "decode_key",
    "encode_key",
    "prefix_upper_bound",
    "serve_node",
]
