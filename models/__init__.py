"""The mathematics of fairalloc: instances, allocations and policies.

Nothing here prints, parses command lines, or imports ``proofs`` or
``analyzer``. cvxpy is imported lazily, only by the solvers that need it.
"""

from .allocation import OPTIMAL, OPTIMAL_INACCURATE, Allocation, UserMap
from .errors import InstanceError, PolicyError, SizeLimitError, SolverError, SolverFailure, SolverOptionError
from .filling import FillingPolicy, Stage, fill_exact
from .filling_numeric import fill_numeric
from .instance import Instance, MachineType
from .policy import Policy, available, get_policy, parse_policy_spec, register

__all__ = [
    "OPTIMAL",
    "OPTIMAL_INACCURATE",
    "Allocation",
    "FillingPolicy",
    "Instance",
    "InstanceError",
    "MachineType",
    "Policy",
    "PolicyError",
    "SizeLimitError",
    "SolverError",
    "SolverFailure",
    "SolverOptionError",
    "Stage",
    "UserMap",
    "available",
    "fill_exact",
    "fill_numeric",
    "get_policy",
    "parse_policy_spec",
    "register",
]
