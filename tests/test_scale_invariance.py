"""Every ``Policy.scale_invariant`` declaration, proved on random instances.

A policy declares ``scale_invariant = True`` when, in the continuous
setting, multiplying user ``i``'s demand by ``c > 0`` (its cap divided by
``c``) gives that user ``x_i / c`` tasks, i.e. the same bundle, and leaves
everybody else's tasks unchanged. The strategy-proofness search skips
rescaled reports for exactly these policies (issue 12), so a false
declaration would hide a profitable lie; the test below checks each
declaration on random instances (groups for the tree policies, machines for
DRFH). Policies that do not declare it are shown not to be invariant on at
least one instance, so that no declaration is missing by oversight.
"""

from __future__ import annotations

import warnings
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from models import Instance, available, get_policy
from models.tolerances import CROSSCHECK_RTOL
from tests.strategies import random_instance

#: Scale factors tried per instance (exact, above and below 1).
FACTORS: tuple[Fraction, ...] = (Fraction(1, 3), Fraction(5, 2), Fraction(7))
CONTINUOUS = sorted(name for name, cls in available().items() if not cls.discrete_only)


def _decorate(name: str, inst: Instance, rng: np.random.Generator) -> Instance:
    """The instance in the form ``name`` needs: a group tree for the tree
    policies, machines for DRFH."""
    spec: dict[str, Any] = inst.to_dict()
    if name in ("hdrf", "hdrf-naive"):
        for entry in spec["users"].values():
            if rng.random() < 0.7:
                entry["group"] = f"g{int(rng.integers(2))}"
    if name == "drfh":  # two machine types of different shapes; the pool's totals are the capacities
        first = {r: int(c) for r, c in zip(inst.resources, inst.capacity, strict=True)}
        second = {r: int(rng.integers(1, 30)) for r in inst.resources}
        spec["machines"] = [{"count": 1, **first}, {"count": 1, **second}]
        spec["resources"] = {r: first[r] + second[r] for r in inst.resources}
    return Instance.from_dict(spec)


def _rescaled(inst: Instance, i: int, c: Fraction) -> Instance:
    D = [list(row) for row in inst.demands_exact]
    D[i] = [c * v for v in D[i]]
    K = list(inst.max_tasks_exact)
    if K[i] is not None:
        K[i] = K[i] / c
    return inst.replace(demands=D, max_tasks=K)


def _invariant_on(pol: Any, inst: Instance, i: int, c: Fraction) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.asarray(pol.solve(inst).x, dtype=float)
        y = np.asarray(pol.solve(_rescaled(inst, i, c)).x, dtype=float)
    want = x.copy()
    want[i] = x[i] / float(c)
    return bool(np.allclose(y, want, rtol=CROSSCHECK_RTOL, atol=CROSSCHECK_RTOL))


def _instances(name: str, seed: int, count: int) -> list[Instance]:
    rng = np.random.default_rng(seed)
    pol = get_policy(name)
    out: list[Instance] = []
    while len(out) < count:
        inst = _decorate(name, random_instance(rng, n_max=4, m_max=3), rng)
        if pol.supports(inst) is None:
            out.append(inst)
    return out


@pytest.mark.parametrize("name", [n for n in CONTINUOUS if get_policy(n).scale_invariant])
def test_declared_scale_invariance_holds(name: str) -> None:
    pol = get_policy(name)
    count = 6 if pol.has_exact or name in ("hdrf", "hdrf-naive", "static") else 3  # conic/LP solves are slow
    for k, inst in enumerate(_instances(name, 12, count)):
        i = k % inst.n
        for c in FACTORS:
            assert _invariant_on(pol, inst, i, c), f"{name}: user {i} scaled by {c} on {inst.describe()}"


@pytest.mark.parametrize("name", [n for n in CONTINUOUS if not get_policy(n).scale_invariant])
def test_undeclared_policies_are_really_scale_dependent(name: str) -> None:
    """A policy left at the default is shown to depend on the report scale
    (so the default is not hiding a missing declaration)."""
    pol = get_policy(name)
    found = any(not _invariant_on(pol, inst, k % inst.n, c)
                for k, inst in enumerate(_instances(name, 5, 8)) for c in FACTORS)
    assert found, f"{name} looks scale-invariant: declare scale_invariant = True (and let this test prove it)"


def test_user_policies_default_to_scale_dependent() -> None:
    from tests._policies import BalancedFirst

    assert BalancedFirst.scale_invariant is False
