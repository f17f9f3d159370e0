"""cumulo.pipeline: Spark on Cumulo (the `cumulo` data source, its streaming sink, tick data).

Needs the `spark` extra (`pip install 'cumulo[spark]'`: pyspark, fastavro).
"""
