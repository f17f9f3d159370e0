"""Scalar expressions: binding (names, types, operators, functions) and compilation to Python."""
