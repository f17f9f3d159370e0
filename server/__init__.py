"""The Cumulo server: pgwire front end, SQL engine, transaction manager and KiVi storage.

Layers, bottom-up; a higher layer may import a lower one, never the other way:
`kivi` (storage nodes) <- `txn` (snapshot isolation) <- `sql` (query engine)
<- `pgwire` (protocol) <- `cli` (the `cumulo` command). `errors` and `pgtypes`
are shared by all.
"""
