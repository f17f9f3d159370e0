"""Benchmarks that measure Cumulo against PostgreSQL 15, side by side, in one run.

Every claim about Cumulo's speed is a ratio to PostgreSQL 15 measured on the
same machine in the same run: absolute figures drift with the hardware and
with whoever else is using it, ratios drift far less. `python -m bench WORKLOAD`
starts both servers, runs the workload against each, and prints one table.
"""
