"""What the properties of the dynamic setting share: the allocations after
every arrival of a policy, numeric for the screen and exact for the
verification, and the violation they report (Kash, Procaccia and Shah,
"No Agent Left Behind: Dynamic Fair Division of Multiple Resources", JAIR
51, 2014, Section 3).

Steps are numbered ``k = 1..n`` (the ``k``-th arrival); user ``i`` (0-based)
arrives at step ``i + 1``; ``x[k - 1][i]`` is its tasks after step ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy, SolverError, get_policy
from models.dynamic import present_fractions
from models.tolerances import COMPARE_ATOL, RESOLVE_AGREE_RTOL

from ..dynamics.trajectory import batch_steps, lifted, steps
from ._batch import shape_groups
from ._common import NUMERIC_NOTE, below
from .base import DYNAMIC, Property, Violation

#: Why a property of the dynamic setting is not defined in the others.
DYNAMIC_WHY = "a property of the allocations after every arrival: check it with mode='dynamic'"


class DynamicProperty(Property):
    """A property of the allocations after every arrival (Kash, Procaccia
    and Shah, JAIR 51, 2014): checked in the dynamic setting only, and
    undefined, saying why, in the others."""

    modes = (DYNAMIC,)
    undefined_why = DYNAMIC_WHY

#: The float steps of the last screened chunk by ``id`` of the instance
#: (with the instance and the policy label, so that a reused ``id`` never
#: matches): the check of an instance of the chunk reuses them.
_MEMO: dict[int, tuple[Instance, str, np.ndarray]] = {}


def steps_many(policy: Policy, instances: Sequence[Instance]) -> list[np.ndarray | None]:
    """Float steps (n, n) of many unrelated instances, for the screens: one
    :func:`batch_steps` per group of equal shape and weights (instances
    with machines or scenario extensions are left out); ``None`` where no
    batch answers (the check then solves it itself)."""
    out: list[np.ndarray | None] = [None] * len(instances)
    for idxs, members, D, R, caps in shape_groups(instances, lambda inst: not inst.machines and not inst.extensions):
        x = batch_steps(policy, D, R, members[0].weights, caps)
        if x is None:
            return out
        for row, i in zip(x, idxs, strict=True):
            out[i] = row
    return out


def screen_steps(policy: Policy, instances: Sequence[Instance]) -> list[np.ndarray]:
    """Float steps of every instance of a screened chunk (one vectorised
    batch per group where the policy has one), remembered for the checks."""
    _MEMO.clear()
    got = steps_many(policy, instances)
    out = []
    for inst, x in zip(instances, got, strict=True):
        if x is None:
            x = steps(policy, inst).x
        _MEMO[id(inst)] = (inst, policy.label, x)
        out.append(x)
    return out


def step_name(instance: Instance, k: int) -> str:
    """``"after B arrives (step 2)"``."""
    return f"after {instance.users[k - 1]} arrives (step {k})"


def budgets(instance: Instance, exact: bool) -> list[list[Any]]:
    """``W_k / W`` of every resource for ``k = 1..n``: what the users present
    after the ``k``-th arrival may hold (``k/n`` unweighted)."""
    if exact:
        fr = present_fractions(list(instance.weights_exact))
        return [[f * c for c in instance.capacity_exact] for f in fr]
    fr = present_fractions([float(v) for v in instance.weights])
    return [[f * float(c) for c in instance.capacity] for f in fr]


class DynamicEvaluator:
    """The steps of one policy: numeric for the screen, exact (or flagged
    non-exact) for the verification; the dynamic setting's
    :class:`~analyzer.properties._common.Evaluator`.

    Parameters
    ----------
    policy : str or Policy
        A dynamic mechanism, or a static policy (lifted: recomputed on the
        users present after every arrival).
    """

    def __init__(self, policy: str | Policy) -> None:
        self.policy = get_policy(policy)
        #: False as soon as one verification had to use floating point.
        self.exact = True
        self._floats: list[tuple[Instance, np.ndarray]] = []

    def numeric(self, instance: Instance) -> np.ndarray:
        """Float steps, shape (n, n) (the screen's, when it just ran)."""
        hit = _MEMO.get(id(instance))
        if hit is not None and hit[0] is instance and hit[1] == self.policy.label:
            return hit[2].copy()
        return steps(self.policy, instance).x

    def verified(self, instance: Instance) -> list[list[Any]]:
        """Steps for the verification: exact numbers, or floats (and
        :attr:`exact` set to False) for a policy without an exact solver."""
        got = steps(self.policy, instance, exact=True)
        if got.exact and got.x_exact is not None:
            return [[Fraction(v) if isinstance(v, int) else v for v in row] for row in got.x_exact]
        self.exact = False
        self._floats.append((instance, got.x))
        return [[float(v) for v in row] for row in got.x]

    def below(self, a: Any, b: Any) -> bool:
        """``a < b`` in the current exactness (the confirmation margin for floats)."""
        return below(a, b, self.exact)

    def survives_resolve(self) -> bool:
        """Every float verification gives the same steps when the lifted
        policy is re-solved at tighter tolerance on every prefix."""
        from models.policies.recompute import prefix

        static = lifted(self.policy)
        if static is None:
            return True  # the dynamic mechanisms solve by filling: nothing to tighten
        for instance, x in self._floats:
            for k in range(1, instance.n + 1):
                try:
                    again = np.asarray(static.solve_tight(prefix(instance, k)).x, dtype=float)
                except SolverError:
                    return False
                first = x[k - 1, :k]
                if not np.all(np.abs(again - first) <= RESOLVE_AGREE_RTOL * np.abs(first) + COMPARE_ATOL):
                    return False
        return True

    def violation(self, prop: str, instance: Instance, user: str, message: str, **extra: Any) -> Violation | None:
        """A :class:`Violation` of the dynamic setting; one confirmed only
        numerically says so, and is given only when it survives the
        re-solve at tighter tolerance."""
        if not self.exact and not self.survives_resolve():
            return None
        if not self.exact:
            from models.tolerances import NUMERIC_CONFIRM_RTOL

            message += " [" + NUMERIC_NOTE.format(rtol=NUMERIC_CONFIRM_RTOL, policy=self.policy.label) + "]"
        return Violation(property=prop, policy=self.policy.label, instance=instance, user=user, message=message,
                         exact=self.exact, mode=DYNAMIC, **extra)
