"""Exceptions raised by the model layer."""

from __future__ import annotations


class InstanceError(ValueError):
    """A scenario (file, dict or arrays) is malformed.

    The message always starts with the dotted path of the offending field,
    e.g. ``users.B.demand.mem: must be >= 0, got -1``.
    """


class PolicyError(ValueError):
    """An unknown policy name, a bad policy parameter, or a policy that does
    not apply to an instance."""


class SolverError(RuntimeError):
    """A numerical solver did not reach an optimal status.

    Parameters
    ----------
    policy : str
        Name of the policy being solved.
    status : str
        The solver status string (e.g. cvxpy's ``"infeasible"``).
    """

    def __init__(self, policy: str, status: str, detail: str = "") -> None:
        self.policy = policy
        self.status = status
        msg = f"policy {policy!r}: solver returned status {status!r}"
        super().__init__(msg + (f" ({detail})" if detail else ""))
