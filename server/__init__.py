"""The Cumulo server: pgwire front end, SQL engine, transaction manager and KiVi storage.

Layers, bottom-up; a higher layer may import a lower one, never the other way:
`kivi` (storage nodes) <- `txn` (snapshot isolation) <- `sql` (query engine)
<- `pgwire` (protocol) <- `cli` (the `cumulo` command). `errors` and `pgtypes`
are shared by all.
"""

import os

# NB: this runs before anything in the server loads Arrow. Arrow's default pool is
# mimalloc, which reserves address space in 1 GiB arenas: one arena alone nearly fills a
# `--memory-limit 1536M` (RLIMIT_AS), and a thread created later (uvloop's resolver pool)
# then fails and aborts the process. 64 MiB arenas keep the reservation near what is used.
os.environ.setdefault("MIMALLOC_ARENA_RESERVE", "64MiB")
