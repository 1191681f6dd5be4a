"""Exceptions raised by the model layer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class InstanceError(ValueError):
    """A scenario (file, dict or arrays) is malformed.

    The message always starts with the dotted path of the offending field,
    e.g. ``users.B.demand.mem: must be >= 0, got -1``.
    """


class SizeLimitError(InstanceError):
    """A size (machines, whole tasks, task launches, proof cases, ...) past
    what fairalloc can hold in memory or finish, refused before any work
    starts. The message names the field, the size asked for and the limit
    (:mod:`models.limits`); the command line exits with code 2."""


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


#: Largest instance (users x resources) a :class:`SolverFailure` message
#: writes out in full; a larger one is named by its size.
DESCRIBE_MAX_ENTRIES: int = 24


class SolverFailure(SolverError):
    """No solver succeeded on one instance: the batched solver could not
    answer it, and neither could the policy's own certified solvers (for
    CEEI: the projected Newton method, then the conic program). Not bad
    input and not a violation: the command line exits with code 3.

    Parameters
    ----------
    policy : str
        Label of the policy (``"ceei"``, ``"fds:beta=4"``).
    instance : Instance
        The instance no solver answered (kept whole on :attr:`instance`;
        the message writes it like the paper, or by its size when large).
    reason : str
        What the last solver reported.

    Examples
    --------
    >>> from models import Instance
    >>> exc = SolverFailure("ceei", Instance.from_exact([1], [[1], [2]]), "solver returned status 'infeasible'")
    >>> str(exc)
    "policy 'ceei': solver returned status 'infeasible', on the instance R=<1>; u0: <1>, u1: <2>"
    """

    def __init__(self, policy: str, instance: Any, reason: str) -> None:
        self.instance = instance
        self.reason = reason
        self.policy = policy
        self.status = "failed"
        RuntimeError.__init__(self, f"policy {policy!r}: {reason}, on the instance {describe_briefly(instance)}")

    @classmethod
    def of(cls, exc: SolverError, instance: Any) -> SolverFailure:
        """``exc`` (a :class:`SolverError` of one solve of ``instance``) as
        the failure of that instance; a :class:`SolverFailure` is returned
        as it is."""
        if isinstance(exc, SolverFailure):
            return exc
        reason = str(exc).removeprefix(f"policy {exc.policy!r}: ")
        out = cls(exc.policy, instance, reason)
        out.status = exc.status
        return out


def describe_briefly(instance: Any) -> str:
    """``instance.describe()`` when it has at most
    :data:`DESCRIBE_MAX_ENTRIES` demand entries, otherwise its name and
    size (one short line either way)."""
    n, m = int(instance.n), int(instance.m)
    if n * m <= DESCRIBE_MAX_ENTRIES:
        return str(instance.describe())
    name = f"{instance.name!r} " if getattr(instance, "name", None) else ""
    return f"{name}with {n} users and {m} resources"


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
