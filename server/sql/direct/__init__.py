"""The direct (NoSQL) API's server side: Arrow column batches in and out of tables, no SQL per row.

Importing the package registers its SQL entry points (`functions`); the
driver's `cumulo.driver.table` is the client.
"""

from . import functions, regions  # noqa: F401  (imported to register)
