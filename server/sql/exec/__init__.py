"""The batch executor: one generator of row batches per plan node.

Importing the package registers every operator in `runner.EXECUTORS`.
"""

from . import aggregate, guard, join, runner, scan, subquery, window  # noqa: F401
