"""Phase 3 of a search: derivative-free optimisation of a property's
numeric violation margin from the closest near misses of the stream; an
instance with a negative margin is made exact and goes to the property's own
exact check (so the margin steers, it never decides)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction

import numpy as np

from models import Instance, InstanceError, Policy
from models.tolerances import MARGIN_TIE

from ..properties.base import Violation
from .checkpoint import SearchState
from .checks import first_violation, safe_margin
from .instance_stream import Cell
from .strategies import build
from .stream import Recorder

#: Share of the budget given to margin optimisation (when a margin exists).
OPT_FRACTION: float = 0.1

#: scipy.optimize method of the optimisation phase (derivative-free; line
#: searches along each parameter suit the piecewise-linear margins).
OPT_METHOD: str = "Powell"

#: The optimisation moves each capacity and demand by at most this factor
#: (in log space: ``log(1000)``) from its near-miss value.
OPT_LOG_SPAN: float = math.log(1000.0)

#: Evaluations planned per optimisation start (fewer starts on small budgets).
EVALS_PER_START: int = 60

#: Denominators tried when an optimised float instance is made exact.
EXACT_DENOMINATORS: tuple[int, ...] = (1, 10, 100, 1000)


Progress = Callable[[int], None]


class _Stop(Exception):
    pass


class _Found(Exception):
    def __init__(self, violation: Violation) -> None:
        self.violation = violation


def optimise(cell: Cell, st: SearchState, margin: Callable[[Policy, Instance, str], float], budget: int,
              recorder: Recorder, tick: Progress) -> Violation | None:
    """Derivative-free minimisation (:data:`OPT_METHOD`) of the margin over
    the log of the positive capacities and demands of each near miss; an
    instance with a margin below ``-MARGIN_TIE`` (a violation, not a tie
    within rounding) goes to the exact check."""
    from scipy.optimize import minimize

    starts = list(st.near)[:max(1, int(budget * OPT_FRACTION) // EVALS_PER_START)]
    while st.opt_start < len(starts) and st.checked < budget:
        _, pos = starts[st.opt_start]
        _, base = cell.at(pos)
        per_start = max(1, (budget - st.checked) // (len(starts) - st.opt_start))
        stop_at = st.checked + per_start
        mask = np.concatenate([base.capacity > 0, (base.demands > 0).ravel()])
        x0 = np.log(np.concatenate([base.capacity, base.demands.ravel()])[mask])

        def unpack(theta: np.ndarray, base: Instance = base, mask: np.ndarray = mask) -> tuple[np.ndarray, np.ndarray]:
            full = np.zeros(mask.size)
            full[mask] = np.exp(theta)
            return full[:base.m], full[base.m:].reshape(base.n, base.m)

        def objective(theta: np.ndarray, base: Instance = base, stop_at: int = stop_at) -> float:
            if st.checked >= min(stop_at, budget):
                raise _Stop
            cap, dem = unpack(theta)
            try:
                inst = Instance.from_arrays(cap, dem, weights=base.weights, max_tasks=base.max_tasks)
            except InstanceError:  # outside the model (e.g. an entry underflowed to 0): not a candidate
                return float(np.inf)
            if cell.policy.supports(inst) is not None or cell.prop.applies(inst) is not None:
                return float(np.inf)
            st.checked += 1
            tick(1)
            mg = safe_margin(margin, cell.policy, inst, cell.mode)
            if mg is None:
                return float(np.inf)
            if mg < -MARGIN_TIE:  # a tie (within rounding) is not worth an exact check
                v = first_violation(cell, list(_exact_versions(cap, dem, base)))
                if v is not None:
                    raise _Found(v)
            return mg

        try:
            bounds = [(v - OPT_LOG_SPAN, v + OPT_LOG_SPAN) for v in x0]
            minimize(objective, x0, method=OPT_METHOD, bounds=bounds, options={"maxfev": per_start})
        except _Stop:
            pass
        except _Found as f:
            return f.violation
        st.opt_start += 1
        recorder.emit(st.to_record(cell.key, "optimise"))
    return None


def _exact_versions(cap: np.ndarray, dem: np.ndarray, base: Instance) -> Iterator[Instance]:
    """Exact instances near float data: rationals with small denominators,
    then the floats as written."""
    w = list(base.weights_exact) if base.weighted else None
    k = list(base.max_tasks_exact) if base.capped else None
    seen: set[str] = set()
    for den in (*EXACT_DENOMINATORS, None):
        def q(v: float, den: int | None = den) -> Fraction:
            f = Fraction(repr(float(v)))
            return f.limit_denominator(den) if den is not None and v > 0 else f

        c = [q(v) for v in cap]
        d = [[q(v) if v > 0 else Fraction(0) for v in row] for row in dem]
        if any(v <= 0 for v in c) or any(not any(row) for row in d):
            continue
        inst = build(c, d, w, k)
        key = inst.describe()
        if key not in seen:
            seen.add(key)
            yield inst


