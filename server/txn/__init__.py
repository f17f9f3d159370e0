"""Transactions: snapshot isolation with the commit work split into independent components.

Bottom-up:

- `api`: the contract with the SQL layer (`Txn`, `TxnManager`, `ScanSpec`).
- `sequencer`, `snapshot`, `conflicts`: the components, as state machines
  with no I/O (`handle(message, now) -> outputs`).
- `logger`: the durable redo log with group commit; `codec`: its records.
- `writeset`, `transaction`: one transaction's private writes and merged reads.
- `ltm`: the local transaction manager, which drives the components and
  owns the threads, locks and waits.
- `recovery`, `embedded`: checkpoint + replay, and `open_embedded`, which
  wires everything in one process.
"""
