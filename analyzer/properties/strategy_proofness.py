"""Strategy-proofness (Ghodsi et al., NSDI 2011, Section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy

from ._batch import is_filling, numeric_batch
from ._common import Evaluator, as_exact_str, leontief_tasks, leontief_tasks_np, numeric_below, per_resource, show
from ._lie_reports import denominators, exact_report, report_caps, report_rows, scaled_reports, simplex_grid
from ._screen_steps import Found, Steps, drive, drive_many
from .base import CONTINUOUS, Property, Violation, register_property

#: Factors applied to one coordinate of the true demand (inflating or
#: deflating a single resource is the classic lie).
SINGLE_FACTORS: tuple[float, ...] = (0.25, 0.5, 0.75, 4 / 3, 1.5, 2.0, 4.0, 16.0)
#: The same for the light search (one solve per report).
LIGHT_SINGLE_FACTORS: tuple[float, ...] = (0.5, 2.0, 4.0)
#: Factors by which a report is rescaled (beyond 1) for a policy that
#: does not declare :attr:`models.policy.Policy.scale_invariant`: a log grid
#: from 1/64 to 64.
SCALES: tuple[float, ...] = tuple(2.0 ** k for k in range(-6, 7) if k != 0)
#: The same for the light search (one solve per report).
LIGHT_SCALES: tuple[float, ...] = (0.25, 0.5, 2.0, 4.0, 16.0)
#: Candidate reports per user that go to the exact re-check.
_KEEP = 3


@register_property
class StrategyProofness(Property):
    """Strategy-proofness.

    Ghodsi et al., NSDI 2011, Section 3: a user cannot increase its
    allocation by lying about its requirements. For Leontief users: user
    ``i`` with true demand ``d_i`` reports ``d'`` (all other users truthful,
    weights fixed); the policy gives it ``x'`` tasks of ``d'``, i.e. the
    bundle ``x' d'``, worth

    ``t(d') = min(k_i, min_{j: d_ij > 0} x' d'_j / d_ij)``

    true tasks (floored in the discrete setting). The policy is
    strategy-proof on the instance when ``t(d') <= x_i`` for every report.
    A report keeps ``d'_j > 0`` wherever ``d_ij > 0`` (zeroing a needed
    resource yields nothing) and may put ``d'_j = 0`` only where
    ``d_ij = 0`` (then the instance class has zero entries). A capped liar
    reports the cap ``k_i max_{j: d_ij > 0} d_ij / d'_j``, the fewest
    reported tasks whose bundle holds ``k_i`` true tasks, so that the cap
    never stops a lie from paying.

    A report is a direction and a scale. The search runs over directions
    ``d'_j = c s_j R_j`` with ``s`` on the simplex, scaled so that at
    ``c = 1`` one reported task has the dominant share of one true task: a grid
    (``grid2`` steps for two resources, ``grid3`` for three), the truth with
    one coordinate inflated or deflated, and ``samples`` seeded random
    directions beyond three resources; each user's best report is then
    refined by a derivative-free compass search with shrinking steps on
    log-directions (``refine`` evaluations, batched across users).

    The scale ``c`` is searched unless the policy declares
    :attr:`~models.policy.Policy.scale_invariant` (in the continuous
    setting only: whole tasks of another size are another lie for every
    policy). A scale-invariant policy gives the rescaled report ``c d'``
    the tasks ``x'/c``, the same bundle, and leaves the others unchanged, so
    ``t(c d') = t(d')`` and ``c = 1`` loses nothing (a test proves each
    declaration on random instances). For any other policy (leximin on
    tasks, GFJ, utilitarian, slots, every user-written policy) each
    direction is also tried at every scale in :attr:`scales` (a log grid;
    the light search tries the truth's direction at :data:`LIGHT_SCALES`),
    and the refinement moves ``log c`` with the direction; with one
    resource every report is the truth rescaled and the scale is the whole
    search. The best reports are rationalised (denominators up to
    :data:`~models.tolerances.RATIONALIZE_MAX_DENOMINATOR`), written as
    integer vectors when the scale does not matter, and the gain is
    re-verified on the exact deviated instance.

    What the search never tries, and why that is sound or only evidence:
    zeroing a needed resource (the liar then runs nothing); a report of
    another user's weight (weights are not reported); lies by two users at
    once (the property is about unilateral deviations); scales beyond the
    grid and directions between grid points except where the refinement
    goes (evidence only). A check that finds nothing is evidence, not proof.

    Parameters
    ----------
    grid2, grid3 : int
        Grid steps on the simplex of directions for ``m = 2`` and ``m = 3``.
    samples : int
        Random directions per user for ``m > 3``.
    refine : int
        Evaluations of the local refinement per user (0: no refinement).
    seed : int
        Seed of the random directions and refinement moves (same seed, same
        result).
    light : tuple of int
        ``(grid2, grid3, samples, refine)`` used instead when every report
        needs its own solve (policies outside the progressive-filling family,
        such as CEEI, and the discrete setting), with the single-coordinate
        factors :data:`LIGHT_SINGLE_FACTORS`; the filling family's reports
        are filled together in one vectorised batch.
    singles : tuple of float
        Factors applied to one coordinate of the true demand (a zero
        coordinate is set to that factor times a quarter of the largest
        share).
    scales : tuple of float
        Report scales tried besides 1 for policies that are not
        scale-invariant (the light search uses :data:`LIGHT_SCALES` with the
        truth's direction only).

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> StrategyProofness().check("drf", inst) is None
    True
    """

    name = "strategy-proofness"
    title = "Strategy-proofness"
    source = "Ghodsi et al., NSDI 2011, Section 3"
    summary = "no user runs more of its true tasks by reporting another demand vector"
    order = 2

    def __init__(self, grid2: int = 64, grid3: int = 14, samples: int = 64, refine: int = 36, seed: int = 0,
                 light: tuple[int, int, int, int] = (12, 5, 12, 9),
                 singles: tuple[float, ...] = SINGLE_FACTORS, scales: tuple[float, ...] = SCALES) -> None:
        self.grid2, self.grid3, self.samples, self.refine, self.seed = grid2, grid3, samples, refine, seed
        self.light = light
        self.singles = tuple(singles)
        self.scales = tuple(float(c) for c in scales)
        self._light = False

    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        ev = Evaluator(policy, mode)
        if not _searchable(ev, instance):
            return None
        return self._for(ev)._run(ev, instance)

    def _for(self, ev: Evaluator) -> StrategyProofness:
        """This search, or its light version when every report needs its own solve."""
        if ev.mode == CONTINUOUS and is_filling(ev.policy):
            return self
        g2, g3, sa, rf = self.light
        light = StrategyProofness(g2, g3, sa, rf, self.seed, self.light, LIGHT_SINGLE_FACTORS, LIGHT_SCALES)
        light._light = True
        return light

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin (``< 0``: some report on the grid pays):
        minus the largest relative gain of a report (no refinement)."""
        ev = Evaluator(policy, mode)
        if not _searchable(ev, instance):
            return float("inf")
        grid = drive(ev, instance, self._for(ev)._grid(ev, instance, ev.numeric(instance),
                                                        np.random.default_rng(self.seed)))
        return float("inf") if grid is None else -float(np.max(grid[3]))

    def _grid(self, ev: Evaluator, instance: Instance, x: np.ndarray, rng: np.random.Generator
              ) -> Steps[tuple[list[int], np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None]:
        """The users who might gain, and for every candidate report the user
        (``who``), direction (``S``), relative gain and the scales used
        (a generator of fill requests, see :func:`~._screen_steps.drive`)."""
        users = [i for i in range(instance.n) if x[i] < instance.max_tasks[i]]  # a capped user cannot gain
        if not users:
            return None
        scaled = _scaled(ev)
        dirs = [self._candidates(instance, i, rng, scaled) for i in users]
        who = np.concatenate([np.full(len(S), i) for i, S in zip(users, dirs, strict=True)])
        S = np.concatenate(dirs)
        scale = np.maximum(np.abs(x), 1.0)
        gain = ((yield from self._true_tasks(instance, who, S)) - x[who]) / scale[who]
        return users, who, S, gain, scale

    def _run(self, ev: Evaluator, instance: Instance) -> Violation | None:
        x, found = drive(ev, instance, self._screen(ev, instance))
        if not found:
            return None
        xe = ev.verified(instance)
        found.sort(key=lambda f: -f[0])
        for _, i, s in found:
            for den in denominators():
                v = self._verify(ev, instance, xe, i, s, den, integer=ev.mode == CONTINUOUS and not _scaled(ev))
                if v is not None:
                    return v
        return None

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Batched screen (see :meth:`.base.Property.screen_many`): for the
        filling family in the continuous setting the screens of all the
        instances run in lockstep, every round's reports of all instances
        filled in one vectorised batch (the same reports and numbers as one
        instance at a time); otherwise every instance is flagged."""
        ev = Evaluator(policy, mode)
        numeric_batch(ev.policy, instances, ev.mode)
        if ev.mode != CONTINUOUS or not is_filling(ev.policy):
            return np.ones(len(instances), dtype=bool)
        me = self._for(ev)
        gens = [me._screen(ev, inst) if _searchable(ev, inst) else None for inst in instances]
        results = drive_many(ev.policy, list(instances), gens)
        return np.array([r is not None and bool(r[1]) for r in results], dtype=bool)

    def _screen(self, ev: Evaluator, instance: Instance) -> Steps[tuple[np.ndarray, list[Found]]]:
        """The numeric search: the reports (gain, user, direction) whose
        true tasks beat the truth numerically (a generator of fill
        requests, see :func:`~._screen_steps.drive`)."""
        x = ev.numeric(instance)
        rng = np.random.default_rng(self.seed)
        grid = yield from self._grid(ev, instance, x, rng)
        if grid is None:
            return x, []
        users, who, S, gain, scale = grid
        found: list[tuple[float, int, np.ndarray]] = []
        starts = []
        for i in users:
            rows = np.flatnonzero(who == i)
            top = rows[np.argsort(-gain[rows], kind="stable")[:_KEEP]]
            found += [(float(gain[k]), i, S[k]) for k in top]
            starts.append(S[top[0]])
        if self.refine > 0:
            found += yield from self._refine(instance, x, scale, users, np.array(starts), rng, _scaled(ev))
        tol = yield from self._true_tasks(instance, np.array([f[1] for f in found]), np.array([f[2] for f in found]))
        return x, [f for f, t in zip(found, tol, strict=True) if numeric_below(x[f[1]], t)]

    # --------------------------------------------------------------- search
    def _candidates(self, inst: Instance, i: int, rng: np.random.Generator, scaled: bool) -> np.ndarray:
        """Candidate reports of user ``i`` as rows ``(s, log c)``: the
        directions of :meth:`_directions` at scale 1 and, when ``scaled``,
        every direction at every scale of :attr:`scales` (the light search:
        the truth's direction only)."""
        S = self._directions(inst, i, rng)
        rows = [np.hstack([S, np.zeros((len(S), 1))])]
        if scaled and self.scales:
            logs = np.log(np.asarray(self.scales))
            truth = inst.demands[i:i + 1] / inst.capacity
            truth = truth / truth.sum()
            base = truth if self._light else np.vstack([S, truth])
            rows.append(np.hstack([np.repeat(base, len(logs), axis=0), np.tile(logs, len(base))[:, None]]))
        return np.vstack(rows)

    def _directions(self, inst: Instance, i: int, rng: np.random.Generator) -> np.ndarray:
        """Candidate report directions ``s`` (rows on the simplex)."""
        m = inst.m
        need = inst.demands[i] > 0
        truth = inst.demands[i] / inst.capacity
        blocks: list[np.ndarray] = []
        if m <= 3:
            blocks.append(simplex_grid(m, self.grid2 if m == 2 else self.grid3))
        else:
            blocks.append(rng.dirichlet(np.ones(m), size=self.samples))
            if (~need).any():  # also with the unneeded resources left out
                blocks.append(np.where(need, rng.dirichlet(np.ones(m), size=self.samples // 2), 0.0))
        # the truth with coordinate j scaled by each single factor f (an unneeded one set to f/4 of the top)
        f = np.asarray(self.singles, dtype=float)
        singles = np.repeat(np.broadcast_to(truth, (m, m)), len(f), axis=0).copy()  # row j * len(f) + k
        j = np.repeat(np.arange(m), len(f))
        fk = np.tile(f, m)
        singles[np.arange(m * len(f)), j] = np.where(need[j], truth[j] * fk, truth.max() * fk / 4)
        blocks.append(singles)
        S = np.vstack(blocks)
        S = S / S.sum(axis=1, keepdims=True)
        ok = np.all(S[:, need] > 0, axis=1)  # a needed resource is never zeroed
        return S[ok]

    def _true_tasks(self, inst: Instance, who: np.ndarray, S: np.ndarray) -> Steps[np.ndarray]:
        """True tasks of user ``who[k]`` reporting ``S[k]`` (a direction and
        its log-scale, see :func:`~._lie_reports.scaled_reports`; one fill request: the
        deviated demands and caps)."""
        K = len(S)
        if K == 0:
            return np.empty(0)
        reports = scaled_reports(inst, who, S)
        need = inst.demands[who]
        true_caps = inst.max_tasks[who]
        caps = report_caps(need, reports, true_caps)
        rows = np.arange(K)
        D = np.repeat(inst.demands[None, :, :], K, axis=0)
        D[rows, who, :] = reports
        Kc = np.repeat(inst.max_tasks[None, :], K, axis=0)
        Kc[rows, who] = caps
        filled, mode = yield D, Kc
        xi = filled[rows, who]
        return leontief_tasks_np(need, xi[:, None] * reports, true_caps, mode)

    def _refine(self, inst: Instance, x: np.ndarray, scale: np.ndarray, users: list[int],
                starts: np.ndarray, rng: np.random.Generator, scaled: bool) -> Steps[list[Found]]:
        """Compass search with shrinking steps on log-directions (and the
        log-scale when ``scaled``), from each user's best report, all users'
        trial points filled in one batch per round; about :attr:`refine`
        evaluations per user."""
        m = inst.m
        dim = m + 1 if scaled else m
        who = np.array(users)
        u = np.hstack([np.log(np.maximum(starts[:, :m], 1.0 / (4 * max(self.grid2, self.grid3)))), starts[:, m:]])
        cur = ((yield from self._true_tasks(inst, who, report_rows(u))) - x[who]) / scale[who]
        moves = np.zeros((2 * dim, m + 1))
        moves[:, :dim] = np.vstack([np.eye(dim), -np.eye(dim)])
        per_round = 2 * dim + m
        step = np.full(len(users), 0.5)
        logs = np.log(np.asarray(self.scales or (1.0,)))
        lo_hi = (min(0.0, float(logs.min())), max(0.0, float(logs.max())))
        for _ in range(max(1, self.refine // per_round)):
            rand = np.zeros((m, m + 1))
            rand[:, :dim] = rng.standard_normal((m, dim))
            trial_moves = np.vstack([moves, rand])  # (per_round, m + 1)
            U = (u[:, None, :] + step[:, None, None] * trial_moves[None, :, :]).reshape(-1, m + 1)
            U[:, m] = np.clip(U[:, m], *lo_hi)  # scales stay in the grid's range (readable reports)
            W = np.repeat(who, per_round)
            g = (((yield from self._true_tasks(inst, W, report_rows(U))) - x[W]) / scale[W]).reshape(
                len(users), per_round
            )
            best = g.argmax(axis=1)
            better = g[np.arange(len(users)), best] > cur
            u = np.where(better[:, None], U.reshape(len(users), per_round, m + 1)[np.arange(len(users)), best], u)
            cur = np.where(better, g[np.arange(len(users)), best], cur)
            step = np.where(better, step, step / 3)
        return [(float(cur[k]), int(who[k]), report_rows(u[k:k + 1])[0]) for k in range(len(users))]

    # --------------------------------------------------------------- verify
    def _verify(self, ev: Evaluator, inst: Instance, xe: tuple[Any, ...], i: int, s: np.ndarray,
                den: int, integer: bool) -> Violation | None:
        return self.verify_report(ev, inst, xe, i, exact_report(inst, i, s, den, integer))

    def verify_report(self, ev: Evaluator, inst: Instance, xe: tuple[Any, ...], i: int, report: list[Fraction]
                      ) -> Violation | None:
        """The violation when user ``i`` reporting the exact demand
        ``report`` runs more true tasks than ``xe[i]``, verified on the
        exact deviated instance; ``None`` otherwise (also used by
        :func:`analyzer.prove` for a report an SMT solver constructed)."""
        need = inst.demands_exact[i]
        k = inst.max_tasks_exact[i]
        cap = None if k is None else k * max(d / r for d, r in zip(need, report, strict=True) if d > 0)
        D = [list(row) for row in inst.demands_exact]
        D[i] = report
        K = list(inst.max_tasks_exact)
        K[i] = cap
        lie = inst.replace(demands=D, max_tasks=K)
        ye = ev.verified(lie)
        true = leontief_tasks(need, [ye[i] * r for r in report], k, ev.mode)
        if not ev.below(xe[i], true):
            return None
        u = inst.users[i]
        vec = "<" + ", ".join(show(r) for r in report) + ">"
        truth = "<" + ", ".join(show(d) for d in need) + ">"
        return ev.violation(
            self.name, inst, u,
            f"{u} gets {show(xe[i])} tasks; reporting demand {vec} instead of {truth} it would run {show(true)}",
            deviation={"kind": "lie", "user": u, "report": per_resource(inst, report),
                       **({"report_cap": as_exact_str(cap)} if cap is not None else {})},
            before={"tasks": as_exact_str(xe[i])},
            after={"tasks": as_exact_str(true), "reported_tasks": as_exact_str(ye[i])},
        )


def _scaled(ev: Evaluator) -> bool:
    """True when the report scale is part of the search: the policy does
    not declare scale invariance, or whole tasks are counted."""
    return ev.mode != CONTINUOUS or not ev.policy.scale_invariant


def _searchable(ev: Evaluator, instance: Instance) -> bool:
    """False when no report can differ from the truth in effect: one
    resource and a scale-invariant policy in the continuous setting (every
    report is the truth rescaled)."""
    return instance.m > 1 or _scaled(ev)
