"""Numeric violation margins, used to steer the optimisation phase of the
search (never to decide: a violation is only reported after the property's
own exact check).

A margin is a float that is ``>= 0`` when the property holds numerically on
the instance and ``< 0`` when it is violated, scaled relative to the task
counts compared. A property may define its own ``margin(policy, instance)``
method; for properties that do not, this module gives margins for the
common ones (definitions in Ghodsi et al., NSDI 2011, Section 3):

* sharing incentive: ``x_i`` against the tasks ``1/n`` (weighted
  ``w_i / sum w``) of every resource buys;
* envy-freeness: ``x_i`` against the tasks user ``i`` could run with user
  ``k``'s bundle (scaled by ``w_i / w_k``);
* population monotonicity: ``x_i`` after removing one other user against
  before;
* resource monotonicity: ``x_i`` after multiplying one capacity by each
  factor of :data:`GROWTH_FACTORS` against before.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from models import Instance, Policy
from models.tolerances import COMPARE_ATOL

from ..properties._common import numeric_variant

#: Factors one capacity is multiplied by in the resource-monotonicity margin.
GROWTH_FACTORS: tuple[float, ...] = (1.5, 2.0, 4.0)

MarginFn = Callable[[Policy, Instance], float]


def _tasks(policy: Policy, instance: Instance) -> np.ndarray:
    return np.asarray(policy.solve(instance).x, dtype=float)


def _relative(gain: np.ndarray, scale: np.ndarray) -> float:
    return float(np.min(gain / (np.abs(scale) + COMPARE_ATOL)))


def _solo_tasks(instance: Instance) -> np.ndarray:
    """Tasks each user gets from its weighted ``1/n`` slice of every resource."""
    D, R, w = instance.demands, instance.capacity, instance.weights
    part = (w / w.sum())[:, None] * R[None, :]
    with np.errstate(divide="ignore"):
        per = np.where(D > 0, part / np.where(D > 0, D, 1.0), np.inf)
    return np.minimum(per.min(axis=1), instance.max_tasks)


def sharing_incentive(policy: Policy, instance: Instance) -> float:
    """Relative excess of each user's tasks over its sharing-incentive bound."""
    x = _tasks(policy, instance)
    s = _solo_tasks(instance)
    return _relative(x - s, s)


def envy_freeness(policy: Policy, instance: Instance) -> float:
    """Relative excess of ``x_i`` over what ``i`` could run with any other
    user's bundle (scaled by the weight ratio)."""
    x = _tasks(policy, instance)
    D, w = instance.demands, instance.weights
    bundles = x[:, None] * D  # (n, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        # could[i, k] = min_j (w_i / w_k) bundles[k, j] / D[i, j] over D[i, j] > 0
        ratio = np.where(D[:, None, :] > 0, bundles[None, :, :] / np.where(D > 0, D, 1.0)[:, None, :], np.inf)
    could = ratio.min(axis=2) * (w[:, None] / w[None, :])
    could = np.minimum(could, instance.max_tasks[:, None])
    np.fill_diagonal(could, -np.inf)
    worst = could.max(axis=1)
    return _relative(x - worst, np.maximum(worst, 0.0))


def population_monotonicity(policy: Policy, instance: Instance) -> float:
    """Smallest relative change of a remaining user's tasks when one user
    leaves."""
    if instance.n < 2:
        return float("inf")
    x = _tasks(policy, instance)
    worst = float("inf")
    for r in range(instance.n):
        keep = np.arange(instance.n) != r
        sub = numeric_variant(instance, keep=np.flatnonzero(keep))
        worst = min(worst, _relative(_tasks(policy, sub) - x[keep], x[keep]))
    return worst


def resource_monotonicity(policy: Policy, instance: Instance) -> float:
    """Smallest relative change of a user's tasks when one capacity grows by
    a factor of :data:`GROWTH_FACTORS`."""
    x = _tasks(policy, instance)
    worst = float("inf")
    for j in range(instance.m):
        for f in GROWTH_FACTORS:
            cap = np.array(instance.capacity, dtype=float)
            cap[j] *= f
            grown = numeric_variant(instance, capacity=cap)
            worst = min(worst, _relative(_tasks(policy, grown) - x, x))
    return worst


#: Built-in margins by property name.
BUILTIN_MARGINS: dict[str, MarginFn] = {
    "sharing-incentive": sharing_incentive,
    "envy-freeness": envy_freeness,
    "population-monotonicity": population_monotonicity,
    "resource-monotonicity": resource_monotonicity,
}


def margin_function(prop: object) -> MarginFn | None:
    """The margin of a property: its own ``margin`` method when it has one,
    else a built-in margin for its name, else ``None`` (the search then
    skips the optimisation phase)."""
    own = getattr(prop, "margin", None)
    if callable(own):
        return own  # type: ignore[no-any-return]
    return BUILTIN_MARGINS.get(getattr(prop, "name", ""))
