"""cumulo.pipeline: Spark on Cumulo (the `cumulo` data source, its streaming sink, tick data).

Needs the `spark` extra (`pip install 'cumulo[spark]'`: pyspark, fastavro, and DuckDB's avro
extension, which decodes the tick spool column-wise).
"""
