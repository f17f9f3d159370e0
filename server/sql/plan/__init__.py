"""The query planner: binding sqlglot ASTs into logical plans, and the compiler entry points."""
