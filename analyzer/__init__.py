"""fairalloc's user-facing package: solve, check properties, search for
counterexamples, build property tables, compare with discrete scheduling.

>>> from analyzer import Instance, solve
"""

from models import Allocation, Instance, InstanceError, Policy, PolicyError, SolverError, available, get_policy, register

from .api import as_instance, solve
from .check import check
from .discrete import progressive_filling

__all__ = [
    "Allocation",
    "Instance",
    "InstanceError",
    "Policy",
    "PolicyError",
    "SolverError",
    "as_instance",
    "check",
    "available",
    "get_policy",
    "progressive_filling",
    "register",
    "solve",
]
