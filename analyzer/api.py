"""The front door: :func:`solve` any registered policy on an instance."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from models import Allocation, Instance, Policy, get_policy


def as_instance(instance: Instance | Mapping[str, Any] | str | Path) -> Instance:
    """An :class:`Instance` from an instance, a scenario dict or a file path.

    Raises
    ------
    InstanceError
        For anything else (``solve(42)``, ``solve(None)``), in one line.
    """
    if isinstance(instance, Instance):
        return instance
    if isinstance(instance, Mapping):
        return Instance.from_dict(instance)
    if isinstance(instance, str | os.PathLike):
        return Instance.load(instance)
    from models import InstanceError

    raise InstanceError(f"instance: must be an Instance, a scenario dict or a file path, got {type(instance).__name__}")


def solve(
    instance: Instance | Mapping[str, Any] | str | Path,
    policy: str | Policy | Sequence[str | Policy] = "drf",
    exact: bool = False,
) -> Any:
    """Allocate with one policy, or compare several.

    Parameters
    ----------
    instance : Instance, dict or path
        The scenario.
    policy : str, Policy or list of them
        A registered name (``"drf"``, ``"asset"``, ``"ceei"``, ...; with
        parameters ``"fds:beta=2"``) or a policy object; a list or tuple of
        them compares the policies on the instance.
    exact : bool
        Ask for exact numbers. A policy without an exact solver returns its
        floating-point answer with ``exact=False`` and a message saying so:
        floats are never labelled exact.

    Returns
    -------
    Allocation or Comparison
        An :class:`~models.Allocation` for one policy; for a list, a
        :class:`~analyzer.comparison.Comparison` (one Allocation per policy,
        as ``fairalloc solve --policy drf,ceei`` shows them).

    Examples
    --------
    >>> from analyzer import Instance, solve
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> solve(inst, "drf", exact=True).tasks["A"]
    Fraction(3, 1)
    >>> str(solve(inst, "asset", exact=True).tasks["B"])
    '54/25'
    >>> solve(inst, ["drf", "asset"], exact=True)["drf"].tasks["B"]
    Fraction(2, 1)
    """
    inst = as_instance(instance)
    if not isinstance(policy, str | Policy):
        from .comparison import Comparison

        if not policy:
            from models import PolicyError

            raise PolicyError("policy: expected at least one policy, got an empty list")
        return Comparison(inst, tuple(_solve_one(inst, p, exact) for p in policy))
    return _solve_one(inst, policy, exact)


def _solve_one(inst: Instance, policy: str | Policy, exact: bool) -> Allocation:
    """:func:`solve` for one policy; a solver error is raised as the
    :class:`~models.errors.SolverFailure` of ``inst`` (naming it)."""
    from models import SolverError, SolverFailure

    pol = get_policy(policy)
    reason = pol.supports(inst)
    if reason is not None:
        from models import PolicyError

        raise PolicyError(f"policy {pol.label!r} does not apply: {reason}")
    try:
        return _solve_supported(inst, pol, exact)
    except SolverError as exc:
        raise SolverFailure.of(exc, inst) from exc


def _solve_supported(inst: Instance, pol: Policy, exact: bool) -> Allocation:
    """:func:`_solve_one` once ``pol`` supports ``inst``."""
    if exact:
        from proofs import EXACT_SOLVERS

        if pol.name in EXACT_SOLVERS:
            return EXACT_SOLVERS.get(pol.name)(pol, inst)
        if pol.has_exact:
            return pol.solve_exact(inst)
        alloc = pol.solve(inst)
        return replace(
            alloc,
            exact=False,
            message=f"not exact: policy {pol.label!r} has no exact solver yet; the numbers are floating point",
        )
    return pol.solve(inst)
