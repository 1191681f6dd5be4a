"""Leximin by a sequence of LPs: the one implementation.

Leximin (lexicographic max-min) of affine levels is computed stage by stage
(Ghodsi et al., NSDI 2011, Section 4.2 describe DRF as progressive filling,
whose result is this leximin; the LP form is the standard one for max-min
fair allocation, Bertsekas and Gallager, Data Networks, 1992, Section
6.5.2). Stage ``s`` maximises the common level ``t`` of the active entries,
with frozen entries kept at the level they stopped at (up to
:data:`~models.tolerances.LP_LEVEL_RTOL`). An active entry freezes when

* its level constraint has a dual above :data:`~models.tolerances.DUAL_TOL`,
* or it needs a resource whose price (the dual of a capacity row) is above
  that tolerance: by stationarity the entry's dual is its use of the priced
  resources times their prices, which falls below any threshold when the
  use is tiny although the entry cannot rise (the *price-blocking rule*),
* or, when none of these holds, it has the largest dual (every stage
  freezes at least one entry).

Entries may come in phases (later phases wait at 0 until the earlier ones
are frozen: the filling family's zero-share users). :func:`leximin_stages`
runs the sequence for any stage builder; :func:`leximin_lp` is the builder
for affine levels under fixed constraints (DRFH, the utilitarian
tie-break); :meth:`models.filling.FillingPolicy.program` builds stages in
variables rescaled per stage.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .solvers import LP_SOLVERS, solve_problem
from .tolerances import DUAL_TOL, LP_LEVEL_RTOL


@dataclass(frozen=True)
class LeximinStage:
    """One stage LP of :func:`leximin_stages`, unsolved.

    Attributes
    ----------
    problem : cvxpy.Problem
        Maximises ``t``.
    t : cvxpy.Variable
        The common level of the active entries, in units of ``unit``.
    level : cvxpy.Constraint
        ``levels[active] >= t`` (its dual has one entry per active entry).
    prices : cvxpy.Constraint or None
        The capacity rows (``<=``) whose duals are the resource prices.
    blocked_by : callable or None
        For the price-blocking rule: from the priced rows of ``prices``
        (bool, flattened), the active entries that cannot rise (bool, one
        per active entry).
    unit : float
        Scale of ``t``: the level reached is ``t * unit``.
    price_unit : float or ndarray
        Scale of the duals of ``prices`` (one per row when the rows are
        scaled differently): a price is ``dual * price_unit``.
    """

    problem: Any
    t: Any
    level: Any
    prices: Any = None
    blocked_by: Callable[[np.ndarray], np.ndarray] | None = None
    unit: float = 1.0
    price_unit: float | np.ndarray = 1.0


#: Builds stage ``s``: (active entries, frozen mask, levels of the frozen
#: entries, entries of later phases) -> the stage LP.
StageBuilder = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], LeximinStage]


def leximin_stages(n: int, build: StageBuilder, label: str, solvers: Sequence[str] = LP_SOLVERS,
                   dual_tol: float = DUAL_TOL, phases: Sequence[np.ndarray] | None = None
                   ) -> tuple[np.ndarray, list[Any]]:
    """Run the leximin LP sequence (module docstring) over ``n`` entries.

    Parameters
    ----------
    n : int
    build : StageBuilder
    label : str
        For solver error messages (``"drf (stage 3)"``).
    solvers : sequence of str
        The LP solver chain (:func:`models.solvers.solve_problem`).
    dual_tol : float
        Threshold of a positive dual or price.
    phases : sequence of bool arrays, optional
        Entries of each phase, in order (default: one phase of every entry).

    Returns
    -------
    levels : ndarray, shape (n,)
        The level each entry stopped at.
    problems : list of cvxpy.Problem
        The solved stage LPs, in order.
    """
    frozen = np.zeros(n, dtype=bool)
    stop = np.zeros(n)
    problems: list[Any] = []
    for phase in phases if phases is not None else [np.ones(n, dtype=bool)]:
        waiting = np.flatnonzero(~phase & ~frozen)  # later phases hold nothing yet
        while (phase & ~frozen).any():
            act = np.flatnonzero(phase & ~frozen)
            stage = build(act, frozen, stop, waiting)
            solve_problem(stage.problem, f"{label} (stage {len(problems) + 1})", solvers)
            problems.append(stage.problem)
            duals = np.asarray(stage.level.dual_value, dtype=float).reshape(-1)
            blocked = duals > dual_tol
            if stage.prices is not None and stage.blocked_by is not None:
                price = np.asarray(stage.prices.dual_value, dtype=float).reshape(-1) * stage.price_unit
                blocked |= stage.blocked_by(price > dual_tol)
            if not blocked.any():
                blocked[int(np.argmax(duals))] = True
            newly = act[blocked]
            stop[newly] = float(np.asarray(stage.t.value)) * stage.unit
            frozen[newly] = True
    return stop, problems


def leximin_lp(
    levels: Any,
    constraints: Sequence[Any],
    label: str,
    solvers: Sequence[str] = LP_SOLVERS,
    level_rtol: float = LP_LEVEL_RTOL,
    dual_tol: float = DUAL_TOL,
    blocking: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, list[Any]]:
    """Leximin of affine ``levels`` (a cvxpy expression of shape ``(n,)``)
    under ``constraints``, by :func:`leximin_stages`.

    Frozen entries keep their level up to ``level_rtol``. With
    ``blocking``, ``constraints[0]`` holds the capacity rows (``<=``) and
    the price-blocking rule applies: ``blocking(priced)`` (``priced``: bool
    per row of ``constraints[0]``, flattened) marks the entries (all ``n``)
    that cannot rise. Variables hold the last stage's
    solution when this returns. ``level_rtol`` and ``dual_tol`` replace the
    two tolerances (a tighter re-solve,
    :meth:`~models.policy.Policy.solve_tight`).
    """
    import cvxpy as cp

    def build(act: np.ndarray, frozen: np.ndarray, stop: np.ndarray, waiting: np.ndarray) -> LeximinStage:
        t = cp.Variable()
        level = levels[act] >= t
        cons = [*constraints, level]
        if frozen.any():
            fz = np.flatnonzero(frozen)
            cons.append(levels[fz] >= stop[fz] - np.abs(stop[fz]) * level_rtol)
        def blocked_by(priced: np.ndarray) -> np.ndarray:
            assert blocking is not None
            return blocking(priced)[act]

        return LeximinStage(cp.Problem(cp.Maximize(t), cons), t, level,
                            prices=constraints[0] if blocking is not None else None,
                            blocked_by=blocked_by if blocking is not None else None)

    return leximin_stages(int(levels.shape[0]), build, label, solvers, dual_tol)


__all__ = ["LeximinStage", "StageBuilder", "leximin_lp", "leximin_stages"]
