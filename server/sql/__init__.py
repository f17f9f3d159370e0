"""The SQL layer: statements in, batches of rows out.

Life of a query (a SELECT, or the SELECT half of an UPDATE/DELETE):

1. The statement layer parses the text with sqlglot (postgres dialect) and
   hands the AST to `plan.compiler.COMPILER.plan_query` (see `context.py`).
2. `plan.builder` binds the AST against the `CatalogSnapshot`: it resolves
   names through `search_path` (pg_catalog first, then the virtual tables of
   `pgcatalog`), types every expression (`expr.binder`), infers parameter
   types, and builds a logical plan of `plan.nodes`.
3. `optimizer.rules.RULES` rewrite the plan one rule at a time (each
   `rule(plan, ctx) -> plan`, one module each): filters and LIMITs pushed into
   KiVi scans, primary-key point gets and key ranges, secondary indexes,
   partial aggregates, and the join algorithm.
4. `expr.codegen` compiles every expression of the final plan once into
   Python source, so that execution never walks an expression tree per row.
5. `exec` runs the physical plan as generators of batches (~1024 rows) that
   pull from `Txn.scan` / `Txn.get`; the statement layer streams the batches
   to pgwire. The same plan object serves every execution: parameters arrive
   in `ExecContext.params`.
"""
