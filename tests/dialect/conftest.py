"""Fixtures of the dialect tests; keeps the SQLAlchemy suite folder out of the main run.

`sqla_suite/` loads SQLAlchemy's own pytest plugin, which would take over
every test of the run; `test_sqla_suite.py` runs it in a subprocess instead.
"""

collect_ignore = ["sqla_suite"]
