"""Exceptions raised by the model layer."""

from __future__ import annotations

from collections.abc import Iterable


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


class SolverOptionError(ValueError):
    """A solver name or solver option the user asked for (``--solver``,
    ``--solver-option``) that cvxpy or the solver does not accept: bad input,
    not a numerical failure."""


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """A hint for a misspelt name: ``"; did you mean 'envy-freeness'?"``, or
    ``""`` when nothing is close (difflib's ratio of at least 0.6).

    Examples
    --------
    >>> did_you_mean("envy-freenes", ["envy-freeness", "sharing-incentive"])
    "; did you mean 'envy-freeness'?"
    >>> did_you_mean("xyz", ["drf", "asset"])
    ''
    """
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
