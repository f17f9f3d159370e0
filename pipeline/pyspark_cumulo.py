"""Spark's entry point to the `cumulo` data source (`spark.read.format("cumulo")`).

PySpark imports every top-level module whose name starts with `pyspark_` and
registers its `DefaultSource`, so installing Cumulo is all it takes for
`format("cumulo")` to work. The source itself is `cumulo.pipeline.source`.
"""

from cumulo.pipeline.source import CumuloDataSource as DefaultSource

__all__ = ["DefaultSource"]
