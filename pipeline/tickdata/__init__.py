"""The tick-data pipeline: Avro ticks -> Structured Streaming -> `tickdata` -> VaR -> `var_results`.

`cumulo pipeline tickdata --url URL` runs it (see `cli.py`); the parts are
the producer (`producer.py`), the replayable spool source (`spool.py`) and the
risk job (`risk.py`).
"""
