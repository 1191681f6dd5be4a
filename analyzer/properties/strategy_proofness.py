"""Strategy-proofness (Ghodsi et al., NSDI 2011, Section 3)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from models import Instance, Policy
from models.filling_numeric import last_any, last_sum

from ._batch import is_filling, numeric_batch
from ._common import Evaluator, as_exact_str, leontief_tasks, per_resource, show
from ._lie_reports import denominators, exact_report, lie_instance, simplex_grid
from ._margins import allocations, batch_fill
from ._sp_screen import Group, fill_for, fill_key, group_key, remembered_margin, single_directions
from .base import CONTINUOUS, STATIC_MODES, Property, Violation, register_property

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
    search_cost = 5.0  # hundreds of reports filled per instance

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
        fill = fill_for(ev, [instance])
        known = remembered_margin(instance, (self._for(ev).params(), _scaled(ev), ev.mode, fill_key(fill)))
        if known is not None:  # the screen of this instance has just computed it
            return known
        return float(self._group(ev, [instance], ev.numeric(instance)[None]).best_margins()[0])

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each instance: the grid margins a screen has just
        computed, else the grids of all the instances of a group
        (:func:`~._sp_screen.group_key`) filled together
        (:class:`~._sp_screen.Group`: each instance gets the numbers of a
        group of one); see :meth:`.base.Property.margin_many`."""
        out = np.full(len(instances), np.nan)
        if not instances or mode not in STATIC_MODES:  # no allocation to lie about: no margin, as in margin
            return out
        ev = Evaluator(policy, mode)
        key = (self._for(ev).params(), _scaled(ev), ev.mode, fill_key(fill_for(ev, instances[:1])))
        lockstep = ev.mode == CONTINUOUS and is_filling(ev.policy)
        todo = []
        for k, inst in enumerate(instances):
            if _searchable(ev, inst):
                known = remembered_margin(inst, key)
                if known is None:
                    todo.append(k)
                else:
                    out[k] = known
        groups: dict[tuple[int, int, bytes], list[tuple[int, np.ndarray]]] = {}
        for k, x in zip(todo, allocations(ev.policy, [instances[k] for k in todo], ev.mode), strict=True):
            if x is not None:
                inst = instances[k]  # padded users only for a vectorised filling (fill_for)
                group = group_key(ev.policy, inst) if lockstep else (inst.n, inst.m, inst.weights.tobytes())
                groups.setdefault(group, []).append((k, x))
        for members in groups.values():
            ks = [k for k, _ in members]
            insts, X = [instances[k] for k in ks], [x for _, x in members]
            fill = fill_for(ev, insts) if lockstep else batch_fill(ev, insts)  # one solve of every member's reports
            out[ks] = Group(self._for(ev), insts, X, fill, _scaled(ev), ev.mode).best_margins()
        out[~np.isfinite(out)] = np.nan
        return out

    def params(self) -> tuple[object, ...]:
        """Everything the search's numbers depend on besides the policy,
        mode and instance."""
        return (self.grid2, self.grid3, self.samples, self.refine, self.seed, self.light, self.singles, self.scales,
                self._light)

    def _group(self, ev: Evaluator, instances: Sequence[Instance], X: Sequence[np.ndarray] | np.ndarray) -> Group:
        """The search of this property (or its light version) on instances of
        one group (:func:`~._sp_screen.group_key`) with numeric allocations
        ``X`` (one row per instance)."""
        return Group(self._for(ev), instances, X, fill_for(ev, instances), _scaled(ev), ev.mode)

    def _run(self, ev: Evaluator, instance: Instance) -> Violation | None:
        found = self._group(ev, [instance], ev.numeric(instance)[None]).screen()[0]
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
        filling family in the continuous setting the searches of all the
        instances of one group (:func:`~._sp_screen.group_key`) run together
        (:class:`~._sp_screen.Group`: every phase's reports of all of them
        filled in one vectorised batch, each instance getting the numbers
        of its own check); otherwise every instance is flagged."""
        ev = Evaluator(policy, mode)
        xs = numeric_batch(ev.policy, instances, ev.mode)
        if ev.mode != CONTINUOUS or not is_filling(ev.policy):
            return np.ones(len(instances), dtype=bool)
        flags = np.zeros(len(instances), dtype=bool)
        groups: dict[tuple[int, int, bytes], list[int]] = {}
        for k, inst in enumerate(instances):
            if _searchable(ev, inst):
                groups.setdefault(group_key(ev.policy, inst), []).append(k)
        for ks in groups.values():
            members = [instances[k] for k in ks]
            X = [x if (x := xs[k]) is not None else ev.numeric(instances[k]) for k in ks]
            found = self._group(ev, members, X).screen()
            flags[ks] = [bool(f) for f in found]
        return flags

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
        blocks: list[np.ndarray] = []
        if m <= 3:
            blocks.append(simplex_grid(m, self.grid2 if m == 2 else self.grid3))
        else:
            blocks.append(rng.dirichlet(np.ones(m), size=self.samples))
            if (~need).any():  # also with the unneeded resources left out
                blocks.append(np.where(need, rng.dirichlet(np.ones(m), size=self.samples // 2), 0.0))
        # the truth with coordinate j scaled by each single factor f (an unneeded one set to f/4 of the top)
        blocks.append(single_directions(self, inst.demands[i][None, :], inst.capacity[None, :])[0])
        S = np.vstack(blocks)
        S = S / last_sum(S)[:, None]
        ok = ~last_any(~(S[:, need] > 0))  # a needed resource is never zeroed
        return S[ok]

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
        lie, cap = lie_instance(inst, i, report)
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
