"""Helpers shared by the property checks: Leontief task counts, the numeric
screen's comparisons, exact comparisons and the exact-or-confirmed
re-verification of candidates.

With Leontief preferences (Ghodsi et al., NSDI 2011, Section 4) a bundle
``a`` is worth ``min_{j: d_ij > 0} a_j / d_ij`` tasks to user ``i``, at most
its cap ``k_i``; in the discrete setting only whole tasks count (the floor).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from models import Allocation, Instance, Policy, get_policy
from models.allocation import exact_str
from models.batching import run_batch
from models.filling_numeric import last_min
from models.tolerances import (
    COMPARE_ATOL,
    COMPARE_RTOL,
    NUMERIC_CONFIRM_ATOL,
    NUMERIC_CONFIRM_RTOL,
    RESOLVE_AGREE_RTOL,
)

from .base import CONTINUOUS, DISCRETE, Violation, allocate, check_mode

#: Note appended to the message of a violation confirmed only numerically.
NUMERIC_NOTE = (
    "numerically confirmed only (margin above {rtol:g} relative, unchanged by a re-solve at tighter tolerance): "
    "policy {policy!r} has no exact solver"
)


# ----------------------------------------------------------------- numbers
def show(value: Any) -> str:
    """A number for a human sentence: ``15``, ``45/11``, a float, or an
    irrational exact number with its decimal value."""
    if isinstance(value, float | np.floating):
        v = float(value)
        return str(int(v)) if v.is_integer() else f"{v:.6g}"
    if isinstance(value, int | Fraction):
        return exact_str(value)
    text = exact_str(value)
    if getattr(value, "is_Rational", False):
        return text
    return f"{text} (~{float(value):.6g})"  # an irrational exact number, with its value


def as_exact_str(value: Any) -> str:
    """Exact number as a ``"p/q"`` string; a float (from a policy without an
    exact solver) as its shortest decimal."""
    if isinstance(value, float | np.floating):
        return repr(float(value))
    return exact_str(value)


def strictly_less(a: Any, b: Any) -> bool:
    """``a < b`` decided exactly (Fractions, ints or sympy numbers).

    >>> import sympy
    >>> strictly_less(Fraction(7, 5), sympy.sqrt(2)), strictly_less(Fraction(3, 2), sympy.sqrt(2))
    (True, False)
    """
    if isinstance(a, int | Fraction) and isinstance(b, int | Fraction):
        return a < b
    import sympy

    diff = sympy.expand(_sym(b) - _sym(a))
    pos = diff.is_positive
    if pos is None:  # undecided symbolically: a high-precision sign
        return bool(sympy.N(diff, 60) > 0)
    return bool(pos)


def _sym(v: Any) -> Any:
    import sympy

    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    return sympy.sympify(v)


def numeric_below(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Screen: ``a`` is below ``b`` by more than the comparison tolerance
    (:data:`~models.tolerances.COMPARE_RTOL`, :data:`~models.tolerances.COMPARE_ATOL`)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        return a < b - (COMPARE_RTOL * np.abs(b) + COMPARE_ATOL)


def relative_margin(have: np.ndarray, owed: np.ndarray) -> float:
    """Smallest ``(have - owed) / (|owed| + COMPARE_ATOL)`` over the entries:
    ``>= 0`` when nothing is below what it is owed (``inf`` when empty).
    The violation margin a search minimises; it never decides."""
    have = np.asarray(have, dtype=float)
    owed = np.asarray(owed, dtype=float)
    ok = np.isfinite(owed) & np.isfinite(have)
    if not ok.any():
        return math.inf
    return float(np.min((have[ok] - owed[ok]) / (np.abs(owed[ok]) + COMPARE_ATOL)))


def confirmed_below(a: float, b: float) -> bool:
    """Numeric confirmation for policies without an exact solver: ``a`` is
    below ``b`` by far more than solver noise."""
    return float(a) < float(b) - (NUMERIC_CONFIRM_RTOL * abs(float(b)) + NUMERIC_CONFIRM_ATOL)


def below(a: Any, b: Any, exact: bool) -> bool:
    """``a < b``: exactly when ``exact``, else with the confirmation margin."""
    return strictly_less(a, b) if exact else confirmed_below(float(a), float(b))


# ----------------------------------------------------------- Leontief tasks
def leontief_tasks(need: Sequence[Any], bundle: Sequence[Any], cap: Any, mode: str) -> Any:
    """Tasks a user with per-task demand ``need`` runs with ``bundle``.

    ``min_{j: need_j > 0} bundle_j / need_j``, at most ``cap`` (``None`` for
    no cap); floored in the discrete setting. Exact when the inputs are.

    >>> leontief_tasks([Fraction(1), Fraction(3)], [Fraction(10), Fraction(15)], None, "continuous")
    Fraction(5, 1)
    >>> leontief_tasks([1, 0], [7, 0], 4, "continuous")
    4
    """
    t = min(b / d for d, b in zip(need, bundle, strict=True) if d > 0)
    if cap is not None and cap < t:
        t = cap
    if mode == DISCRETE:
        t = math.floor(t)
    return t


def leontief_tasks_np(need: np.ndarray, bundle: np.ndarray, caps: np.ndarray, mode: str) -> np.ndarray:
    """Vectorised :func:`leontief_tasks` over rows (shapes (..., m))."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = last_min(np.where(need > 0, bundle / np.where(need > 0, need, 1.0), np.inf))
    t = np.minimum(t, caps)
    if mode == DISCRETE:
        t = np.floor(t + COMPARE_ATOL)
    return t


def one_share_tasks_np(instance: Instance, mode: str) -> np.ndarray:
    """Tasks each user runs with ``w_i / sum(w)`` of every resource (capped)."""
    return share_tasks_np(instance.demands, instance.capacity, instance.weights, instance.weights.sum(),
                          instance.max_tasks, mode)


def share_tasks_np(D: np.ndarray, R: np.ndarray, w: np.ndarray, total: float | np.ndarray, caps: np.ndarray,
                   mode: str) -> np.ndarray:
    """Tasks each user runs with ``w_i / total`` of every resource, capped
    (the slice of sharing incentive, Ghodsi et al., NSDI 2011, Section 3):
    demands ``D`` (..., n, m), capacities ``R`` (..., m), weights and caps
    (..., n), ``total`` (...): one instance or a batch of them (users a
    padded member lacks add nothing to its ``total``)."""
    frac = w / np.asarray(total)[..., None]
    return leontief_tasks_np(D, frac[..., None] * R[..., None, :], caps, mode)


# ------------------------------------------------------------- evaluation
class Evaluator:
    """Allocations of one policy in one mode: numeric for the screen, exact
    (or flagged non-exact) for the verification.

    Parameters
    ----------
    policy : str or Policy
    mode : {"continuous", "discrete"}
    """

    def __init__(self, policy: str | Policy, mode: str = CONTINUOUS) -> None:
        self.policy = get_policy(policy)
        self.mode = check_mode(mode)
        #: False as soon as one verification had to use floating point.
        self.exact = True
        #: The floating-point verifications made so far (instance, tasks):
        #: re-solved at tighter tolerance before a violation is reported.
        self._floats: list[tuple[Instance, tuple[float, ...]]] = []

    def numeric(self, instance: Instance) -> np.ndarray:
        """Tasks per user (floats), for the screen: the policy's vectorised
        batch solver when it has one (:meth:`~models.policy.Policy.batch_solver`; CEEI
        without a conic solve), else :meth:`direct`. An answer of
        :meth:`direct` is remembered like a screen's
        (:func:`._batch.remember`): the check and the margin of an instance
        the batch could not answer solve it once, not once each."""
        from ._batch import remember, remembered

        known = remembered(self.policy, instance, self.mode)
        if known is not None:
            return known
        solver = self.policy.batch_solver() if self.mode == CONTINUOUS else None
        if solver is not None:
            x, ok = run_batch(solver, instance.demands[None], instance.capacity, instance.weights,
                              instance.max_tasks[None])
            if ok[0]:
                return x[0]
        x = self.direct(instance)
        remember(self.policy, instance, self.mode, x)
        return x

    def direct(self, instance: Instance) -> np.ndarray:
        """Tasks per user (floats) from the policy's own numeric solver."""
        return np.asarray(allocate(self.policy, instance, self.mode, exact=False).x, dtype=float)

    def exact_alloc(self, instance: Instance) -> Allocation:
        """The allocation with exact numbers where the policy can."""
        return allocate(self.policy, instance, self.mode, exact=True)

    def verified(self, instance: Instance) -> tuple[Any, ...]:
        """Tasks per user for the verification: exact numbers, or floats
        (and :attr:`exact` set to False) when the policy has no exact
        solver."""
        alloc = self.exact_alloc(instance)
        if alloc.exact and alloc.x_exact is not None:
            return tuple(alloc.x_exact)
        if self.mode == DISCRETE:  # whole numbers: floats hold them exactly
            return tuple(Fraction(float(v)) for v in alloc.x)
        self.exact = False
        x = tuple(float(v) for v in alloc.x)
        self._floats.append((instance, x))
        return x

    def survives_resolve(self) -> bool:
        """True when every floating-point verification made so far gives the
        same task counts (within :data:`~models.tolerances.RESOLVE_AGREE_RTOL`)
        when re-solved at tighter tolerance
        (:meth:`~models.policy.Policy.solve_tight`); a solver failure in the
        re-solve counts as disagreement."""
        from models import SolverError

        for instance, x in self._floats:
            try:
                again = np.asarray(self.policy.solve_tight(instance).x, dtype=float)
            except SolverError:
                return False
            first = np.asarray(x, dtype=float)
            if not np.all(np.abs(again - first) <= RESOLVE_AGREE_RTOL * np.abs(first) + COMPARE_ATOL):
                return False
        return True

    def below(self, a: Any, b: Any) -> bool:
        """``a < b`` in the current exactness."""
        return below(a, b, self.exact)

    def violation(self, prop: str, instance: Instance, user: str, message: str, **extra: Any) -> Violation | None:
        """A :class:`Violation`; a numerically confirmed one says so, and is
        given only when it survives the re-solve at tighter tolerance
        (:meth:`survives_resolve`; ``None`` otherwise: the floats were not
        trustworthy enough to report anything)."""
        if not self.exact and not self.survives_resolve():
            return None
        if not self.exact:
            message += " [" + NUMERIC_NOTE.format(rtol=NUMERIC_CONFIRM_RTOL, policy=self.policy.label) + "]"
        return Violation(
            property=prop,
            policy=self.policy.label,
            instance=instance,
            user=user,
            message=message,
            exact=self.exact,
            mode=self.mode,
            **extra,
        )


def per_user(instance: Instance, values: Sequence[Any]) -> dict[str, str]:
    """``{user: "p/q"}`` for a per-user vector."""
    return {u: as_exact_str(v) for u, v in zip(instance.users, values, strict=True)}


def per_resource(instance: Instance, values: Sequence[Any]) -> dict[str, str]:
    """``{resource: "p/q"}`` for a per-resource vector."""
    return {r: as_exact_str(v) for r, v in zip(instance.resources, values, strict=True)}


def maxmin_on_resource(instance: Instance, j: int) -> list[Fraction]:
    """Weighted max-min tasks with caps on resource ``j`` alone, exactly.

    Water-filling: at level ``t`` user ``i`` holds ``min(k_i, t w_i /
    d_ij)`` tasks (its weighted share ``x_i d_ij / w_i`` equals ``t`` until
    it reaches its cap); ``t`` rises until resource ``j`` is used up or
    everybody is capped. Every user must use ``j`` (``d_ij > 0``).

    >>> inst = Instance.from_exact([10], [[1], [2]], max_tasks=[1, None])
    >>> maxmin_on_resource(inst, 0)
    [Fraction(1, 1), Fraction(9, 2)]
    """
    d = [row[j] for row in instance.demands_exact]
    w, k = instance.weights_exact, instance.max_tasks_exact
    if any(v <= 0 for v in d):
        raise ValueError(f"every user must use resource {instance.resources[j]!r}")
    # cap level T_i = k_i d_ij / w_i (None: never capped), ascending
    level = [None if k_i is None else k_i * d_i / w_i for k_i, d_i, w_i in zip(k, d, w, strict=True)]
    order = sorted(range(instance.n), key=lambda i: (level[i] is None, level[i] or 0))
    left = Fraction(instance.capacity_exact[j])
    wsum = sum((w[i] for i in order), Fraction(0))
    x = [Fraction(0)] * instance.n
    for pos, i in enumerate(order):
        k_i, T_i = k[i], level[i]
        if k_i is not None and T_i is not None and T_i * wsum <= left:
            x[i] = Fraction(k_i)
            left -= k_i * d[i]
            wsum -= w[i]
            continue
        t = left / wsum
        for r in order[pos:]:
            x[r] = t * w[r] / d[r]
        break
    return x
