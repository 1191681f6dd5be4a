"""fairalloc's user-facing package: solve, check properties, search for
counterexamples, build property tables, compare with discrete scheduling.

>>> from analyzer import Instance, solve
"""

from models import Allocation, Instance, InstanceError, Policy, PolicyError, SolverError, available, get_policy, register

from .api import as_instance, solve
from .check import check
from .discrete import progressive_filling
from .table import PropertyTable, property_table
from .search import search  # noqa: E402 -- the function shadows the subpackage name on purpose

__all__ = [
    "Allocation",
    "Instance",
    "InstanceError",
    "Policy",
    "PolicyError",
    "PropertyTable",
    "SolverError",
    "as_instance",
    "check",
    "available",
    "get_policy",
    "progressive_filling",
    "property_table",
    "register",
    "search",
    "solve",
]
