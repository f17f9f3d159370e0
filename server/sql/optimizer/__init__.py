"""Optimizer rules: each module holds one `rule(plan, ctx) -> plan`; `rules.RULES` orders them."""
