"""Cluster mode: the transaction components and KiVi nodes as separate processes.

`role` runs one component per process behind `kivi.remote`'s TCP transport,
`services` holds the served objects, `proxies` the clients shaped like the
in-process components, and `manager.ClusterTxnManager` wires the LTM to them.
"""
