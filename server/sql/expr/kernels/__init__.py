"""Vector kernels of the bound expression IR (`expr.vectorize` is the entry point): a
registry (`base.KERNELS`) filled by one small module per concept. Importing the package
registers every kernel."""

from . import arith, calls, compare, leaves, logic, strings  # noqa: F401 - they register
from .base import KERNELS

__all__ = ["KERNELS"]
