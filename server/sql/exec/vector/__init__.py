"""Vectorized operators over columnar packs (issue 11): scan with filter masks and zone maps,
partial hash aggregation merged across packs and regions (the kernel lives with the
packs, `kivi.columnar.aggregate`, so nodes run it too), top-N candidates.

Importing the package registers the `Columnar` executor (`run`). Batches stay
the executor's lists of tuples at the boundary with the row operators; inside,
every operator works on whole numpy / Arrow arrays of one pack at a time.
"""

from . import run  # noqa: F401
from .plan import Columnar, Prepared, VectorSpec

__all__ = ["Columnar", "Prepared", "VectorSpec"]
