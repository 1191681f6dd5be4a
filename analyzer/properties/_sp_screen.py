"""The strategy-proofness screen of many instances at once (Ghodsi et al.,
NSDI 2011, Section 3): every phase of the search of
:class:`~analyzer.properties.strategy_proofness.StrategyProofness` -- the
grid of candidate reports, the compass refinement of each user's best
report and the final re-evaluation -- runs on all the instances of a group
(equal shape and weights; for DRF, asset fairness and every row-wise share
function, equal number of resources, users padded: :func:`group_key`) in
one vectorised fill per phase or round.

Every instance gets exactly the numbers a group of one would give it: its
reports, their fills and every comparison are row-wise computations (a
fill's members do not interact), its random moves come from its own
generator seeded as a group of one seeds it, and its candidates are ranked
within the instance. The property's check is this screen on a group of one,
so the batched screen flags exactly the instances whose check finds a
paying report numerically.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Protocol, cast

import numpy as np

from models import Instance, Policy
from models.filling import FillingPolicy
from models.filling_numeric import fill_shares, last_any, last_max, last_sum

from ._batch import is_filling, numeric_many
from ._common import Evaluator, leontief_tasks_np, numeric_below
from ._lie_reports import report_caps, report_rows, simplex_grid
from ._sp_rank import best_rows
from .base import CONTINUOUS


class LieSearch(Protocol):
    """What the screen reads of its property
    (:class:`~analyzer.properties.strategy_proofness.StrategyProofness`):
    the search settings, their key, and the candidate reports of a user."""

    seed: int
    refine: int
    grid2: int
    grid3: int
    samples: int
    singles: tuple[float, ...]
    scales: tuple[float, ...]

    def params(self) -> tuple[object, ...]: ...

    def _candidates(self, inst: Instance, i: int, rng: np.random.Generator, scaled: bool) -> np.ndarray: ...

#: A paying report: relative gain, user, report row ``(direction, log c)``.
Found = tuple[float, int, np.ndarray]
#: Fills a batch of deviated instances: demands (N, n, m), capacities
#: (N, m), caps (N, n), the group member each row belongs to and the user
#: whose demand differs from that member's; returns the tasks (N, n).
Fill = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class KeyedFill:
    """A :data:`Fill` with what identifies its numbers (the policy and mode
    it fills for), so that margins it computed can be reused."""

    key: tuple[str, str, str]
    run: Fill

    def __call__(self, D: np.ndarray, cap: np.ndarray, Kc: np.ndarray, b: np.ndarray, who: np.ndarray) -> np.ndarray:
        return self.run(D, cap, Kc, b, who)

class Group:
    """Instances with their numeric allocations ``X`` (one row per member),
    screened together: of equal shape ``(n, m)`` and weights, or, for a
    row-wise share function on two or more resources (:func:`group_key`),
    of equal ``m``, the members with fewer users padded to the most
    (:func:`padded`)."""

    def __init__(self, prop: LieSearch, insts: Sequence[Instance], X: Sequence[np.ndarray] | np.ndarray, fill: Fill,
                 scaled: bool, mode: str) -> None:
        self.prop, self.insts, self.fill, self.scaled, self.mode = prop, list(insts), fill, scaled, mode
        n = max(inst.n for inst in insts)
        self.X = padded(X, n, 0.0)
        self.D = padded([inst.demands for inst in insts], n, 1.0)
        self.R = np.stack([inst.capacity for inst in insts]).astype(float)
        self.K = padded([inst.max_tasks for inst in insts], n, 0.0)
        self.scale = np.maximum(np.abs(self.X), 1.0)
        self.users = self.X < self.K  # a capped user cannot gain
        #: What the grid's numbers depend on besides the instance.
        self.key = (prop.params(), scaled, mode, fill_key(fill))

    @cached_property
    def rngs(self) -> list[np.random.Generator]:
        """One generator per member, each seeded as ``default_rng(seed)``
        seeds it (made when first asked for: until then every member's
        generator would draw the same numbers, see :meth:`moves`)."""
        return [np.random.Generator(np.random.PCG64(seeds(self.prop.seed))) for _ in self.insts]

    # ---------------------------------------------------------------- fills
    def true_tasks(self, b: np.ndarray, who: np.ndarray, S: np.ndarray) -> np.ndarray:
        """True tasks of user ``who[k]`` of member ``b[k]`` reporting ``S[k]``
        (a direction and its log-scale, see :func:`~._lie_reports.scaled_reports`)."""
        N = len(S)
        if N == 0:
            return np.empty(0)
        # copies by np.take on flat indices: 3-10x numpy's fancy indexing of these small arrays
        B, n, m = self.D.shape
        user = b * n + who  # the liar among all members' users
        cap = self.R.take(b, axis=0)
        need = self.D.reshape(B * n, m).take(user, axis=0)
        dom = last_max(need / cap)
        dirs = S[:, :m]
        logc = S[:, m]
        if np.count_nonzero(logc):  # scale 1 (exp(0) = 1 exactly) needs no exponential
            dom = dom * np.exp(logc)
        reports = dirs * cap * (dom / last_max(dirs))[:, None]
        true_caps = self.K.take(user)
        liar = np.arange(N) * n + who  # the liar among the deviated instances' users
        D = self.D.take(b, axis=0)
        D.reshape(N * n, m)[liar] = reports
        Kc = self.K.take(b, axis=0)
        if np.isfinite(true_caps).any():  # an uncapped liar reports no cap: its entry stays inf
            Kc.reshape(N * n)[liar] = report_caps(need, reports, true_caps)
        filled = self.fill(D, cap, Kc, b, who)
        return leontief_tasks_np(need, filled.take(liar)[:, None] * reports, true_caps, self.mode)

    def gains(self, b: np.ndarray, who: np.ndarray, S: np.ndarray) -> np.ndarray:
        """Relative gains of the reports (see :meth:`true_tasks`)."""
        user = b * self.D.shape[1] + who
        return (self.true_tasks(b, who, S) - self.X.take(user)) / self.scale.take(user)

    # ----------------------------------------------------------------- grid
    def grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every candidate report of every user who might gain, in member
        and user order: member, user, report row and gain."""
        m = self.D.shape[2]
        if not self.scaled:  # scale 1: all users' candidates at once
            b, who = np.nonzero(self.users)
            if m <= 3:  # no random directions
                S, ok = grid_directions(self.prop, self.D[b, who], self.R[b])
                count = ok.sum(axis=1)
                b, who, S = np.repeat(b, count), np.repeat(who, count), S[ok]
            else:
                b, who, S = self.random_directions(b, who)
            S = np.hstack([S, np.zeros((len(b), 1))])
            return b, who, S, self.gains(b, who, S)
        bs, ws, Ss = [], [], []
        for k, inst in enumerate(self.insts):
            for i in np.flatnonzero(self.users[k]).tolist():
                S = self.prop._candidates(inst, i, self.rngs[k], self.scaled)
                bs.append(np.full(len(S), k))
                ws.append(np.full(len(S), i))
                Ss.append(S)
        if not Ss:
            m = self.D.shape[2]
            return np.empty(0, dtype=int), np.empty(0, dtype=int), np.empty((0, m + 1)), np.empty(0)
        b, who, S = np.concatenate(bs), np.concatenate(ws), np.vstack(Ss)
        return b, who, S, self.gains(b, who, S)

    def random_directions(self, b: np.ndarray, who: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`~.strategy_proofness.StrategyProofness._directions` of the
        users ``who`` of members ``b`` (four or more resources), the same
        numbers: each user's random directions drawn from its member's
        generator in user order, the rest computed for all at once. Returns
        the member, the user and the direction of every kept row."""
        prop, m = self.prop, self.D.shape[2]
        D = self.D[b, who]
        need = D > 0
        singles = single_directions(prop, D, self.R[b])
        blocks: list[np.ndarray] = []
        for u, (k, full) in enumerate(zip(b.tolist(), need.all(axis=1).tolist(), strict=True)):
            blocks.append(self.rngs[k].dirichlet(np.ones(m), size=prop.samples))
            if not full:  # also with the unneeded resources left out
                blocks.append(np.where(need[u], self.rngs[k].dirichlet(np.ones(m), size=prop.samples // 2), 0.0))
            blocks.append(singles[u])
        if not blocks:
            return b, who, np.empty((0, m))
        S = np.vstack(blocks)
        S = S / last_sum(S)[:, None]
        row = np.repeat(np.arange(len(b)), prop.samples + np.where(need.all(axis=1), 0, prop.samples // 2)
                        + singles.shape[1])
        ok = ~last_any(~((S > 0) | ~need[row]))  # a needed resource is never zeroed
        return b[row[ok]], who[row[ok]], S[ok]

    def best_margins(self, grid: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """Per member: minus the largest relative gain on the grid (``inf``
        when no user might gain); ``grid`` is :meth:`grid`'s result when
        already computed."""
        b, _, _, gain = grid if grid is not None else self.grid()
        out = np.full(len(self.insts), -np.inf)
        np.maximum.at(out, b, gain)
        return -out

    # --------------------------------------------------------------- search
    def screen(self) -> list[list[Found]]:
        """Per member, the reports (gain, user, report row) whose true tasks
        beat the truth numerically."""
        b, who, S, gain = grid = self.grid()
        if len(_MARGINS) > MARGIN_MEMO:  # bounded on every write (a search without margins never looks up)
            _MARGINS.clear()
        for inst, mg in zip(self.insts, self.best_margins(grid).tolist(), strict=True):
            _MARGINS[id(inst)] = (inst, self.key, mg)
        if len(b) == 0:
            return [[] for _ in self.insts]
        top, first = best_rows(b * self.D.shape[1] + who, gain)
        fb, fw, fS, fg = [b[top]], [who[top]], [S[top]], [gain[top]]
        if self.prop.refine > 0:
            rg, rS = self.refine(b[first], who[first], S[first])
            fb.append(b[first])
            fw.append(who[first])
            fS.append(rS)
            fg.append(rg)
        cb, cw, cS, cg = np.concatenate(fb), np.concatenate(fw), np.vstack(fS), np.concatenate(fg)
        keep = numeric_below(self.X[cb, cw], self.true_tasks(cb, cw, cS))
        out: list[list[Found]] = [[] for _ in self.insts]
        # per member: its grid reports user by user, then its refined reports (a group of one's order)
        for k in np.flatnonzero(keep[:len(top)]).tolist() + (len(top) + np.flatnonzero(keep[len(top):])).tolist():
            out[int(cb[k])].append((float(cg[k]), int(cw[k]), cS[k]))
        return out

    def refine(self, b: np.ndarray, who: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Compass search with shrinking steps on log-directions (and the
        log-scale when scaled) from each user's best report, every member's
        trial points filled in one batch per round; about ``refine``
        evaluations per user. Returns the gains and report rows reached."""
        prop = self.prop
        m = self.D.shape[2]
        dim = m + 1 if self.scaled else m
        u = np.hstack([np.log(np.maximum(starts[:, :m], 1.0 / (4 * max(prop.grid2, prop.grid3)))), starts[:, m:]])
        cur = self.gains(b, who, report_rows(u))
        moves = np.zeros((2 * dim, m + 1))
        moves[:, :dim] = np.vstack([np.eye(dim), -np.eye(dim)])
        per_round = 2 * dim + m
        step = np.full(len(b), 0.5)
        logs = np.log(np.asarray(prop.scales or (1.0,)))
        lo_hi = (min(0.0, float(logs.min())), max(0.0, float(logs.max())))
        members = np.unique(b)
        rows = np.arange(len(b))
        shared = None if "rngs" in self.__dict__ else np.random.Generator(np.random.PCG64(seeds(prop.seed)))
        for _ in range(max(1, prop.refine // per_round)):
            rand = self.moves(members, m, dim, shared)
            trial = np.concatenate([np.broadcast_to(moves, (len(b), 2 * dim, m + 1)), rand[b]], axis=1)
            U = (u[:, None, :] + step[:, None, None] * trial).reshape(-1, m + 1)
            U[:, m] = np.clip(U[:, m], *lo_hi)  # scales stay in the grid's range (readable reports)
            g = self.gains(np.repeat(b, per_round), np.repeat(who, per_round), report_rows(U)).reshape(len(b),
                                                                                                     per_round)
            best = g.argmax(axis=1)
            better = g[rows, best] > cur
            u = np.where(better[:, None], U.reshape(len(b), per_round, m + 1)[rows, best], u)
            cur = np.where(better, g[rows, best], cur)
            step = np.where(better, step, step / 3)
        return cur, report_rows(u)


    def moves(self, members: np.ndarray, m: int, dim: int, shared: np.random.Generator | None) -> np.ndarray:
        """One round's random moves (len(insts), m, m + 1): each member of
        ``members`` draws ``(m, dim)`` standard normals from its generator.
        ``shared``: no member's generator has been made yet, so all of them
        would draw the same numbers as this fresh one, drawn once."""
        rand = np.zeros((len(self.insts), m, m + 1))
        if shared is not None:
            rand[members, :, :dim] = shared.standard_normal((m, dim))
            return rand
        for k in members.tolist():
            rand[k, :, :dim] = self.rngs[k].standard_normal((m, dim))
        return rand


#: The grid margins (:meth:`Group.best_margins`) of the instances of the last
#: screens, by ``id`` (with the instance itself, so that a reused ``id``
#: never matches, and the search's settings): the search asks for the margin
#: of an instance it has just screened, and gets these numbers, which a
#: group of one would compute again.
_MARGINS: dict[int, tuple[Instance, tuple[object, ...], float]] = {}
#: Entries kept in :data:`_MARGINS` (older ones are dropped).
MARGIN_MEMO: int = 4096


def remembered_margin(inst: Instance, key: tuple[object, ...]) -> float | None:
    """The grid margin the last screens computed for this instance object
    with these settings, or ``None``."""
    hit = _MARGINS.get(id(inst))
    if hit is None or hit[0] is not inst or hit[1] != key:
        return None
    return hit[2]


@lru_cache(maxsize=8)
def seeds(seed: int) -> np.random.SeedSequence:
    """The seed sequence of ``np.random.default_rng(seed)``, made once: a
    generator on it draws the same numbers, at half the cost of making one
    (every member of every group gets its own)."""
    return np.random.SeedSequence(seed)


def padded(rows: Sequence[np.ndarray] | np.ndarray, n: int, value: float) -> np.ndarray:
    """Per-member user arrays (n_k, ...) stacked as floats, each padded to
    ``n`` users with ``value``. A padded user (demand 1, cap 0, weight 1,
    share 1) is frozen at 0 tasks from the start of every filling and adds
    exact zeros after the real users' terms to every sum over users (in
    numpy's order over users, one after the other, on two or more
    resources): the real users' numbers are those of their own members."""
    out = np.full((len(rows), n, *np.shape(rows[0])[1:]), value)
    for k, a in enumerate(rows):
        out[k, :len(a)] = a
    return out


def group_key(policy: Policy, inst: Instance) -> tuple[int, int, bytes]:
    """The group an instance is screened in: its number of resources for a
    row-wise share function (``rowwise_capacity``) on two or more resources
    (users padded, weights per member), else its shape and weights."""
    if getattr(policy, "rowwise_capacity", False) and inst.m >= 2:
        return (0, inst.m, b"")
    return (inst.n, inst.m, inst.weights.tobytes())


def fill_key(fill: Fill) -> object:
    """What identifies a fill's numbers: the policy and mode it fills for."""
    return fill.key if isinstance(fill, KeyedFill) else None


def grid_directions(prop: LieSearch, D: np.ndarray, R: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`~.strategy_proofness.StrategyProofness._directions` of many
    users at once (rows of their demands ``D`` and capacities ``R``; two or
    three resources, so no random directions): every user's candidate
    directions (U, G, m), with the same numbers, and which of them are kept
    (a needed resource is never zeroed)."""
    U, m = D.shape
    need = D > 0
    grid = simplex_grid(m, prop.grid2 if m == 2 else prop.grid3)
    S = np.concatenate([np.broadcast_to(grid, (U, *grid.shape)), single_directions(prop, D, R)], axis=1)
    S = S / last_sum(S)[..., None]
    return S, np.all((S > 0) | ~need[:, None, :], axis=2)


def single_directions(prop: LieSearch, D: np.ndarray, R: np.ndarray) -> np.ndarray:
    """The candidate directions of users with demands ``D`` (U, m) and
    capacities ``R`` that scale one coordinate of the truth by each single
    factor (an unneeded one set to a factor / 4 of the top share), before
    normalisation: (U, m * len(singles), m), row ``j * len(singles) + k``."""
    m = D.shape[1]
    need = D > 0
    truth = D / R
    f = np.asarray(prop.singles, dtype=float)
    j = np.repeat(np.arange(m), len(f))
    fk = np.tile(f, m)
    singles = np.repeat(truth[:, None, :], m * len(f), axis=1)
    singles[:, np.arange(m * len(f)), j] = np.where(need[:, j], truth[:, j] * fk, last_max(truth)[:, None] * fk / 4)
    return singles


def fill_for(ev: Evaluator, insts: Sequence[Instance]) -> KeyedFill:
    """How a group's deviated instances are filled: one vectorised
    progressive filling for the filling family in the continuous setting
    (each member with its own weights, users padded as :class:`Group`
    pads them), otherwise the policy's batch solver or own solver per
    member (:func:`._batch.numeric_many`)."""
    if ev.mode == CONTINUOUS and is_filling(ev.policy):
        policy = cast(FillingPolicy, ev.policy)
        n = max(inst.n for inst in insts)
        W = padded([inst.weights for inst in insts], n, 1.0)
        unweighted = bool((W == 1.0).all())

        def weights(b: np.ndarray) -> np.ndarray:
            """The weights of the deviated instances of members ``b`` (unweighted:
            one row, broadcast by the filling; the same numbers)."""
            return W[:1] if unweighted else W.take(b, axis=0)
        truth: list[np.ndarray] = []  # the members' own shares of one task (padded users: 1), once computed

        def filling(D: np.ndarray, cap: np.ndarray, Kc: np.ndarray, b: np.ndarray, who: np.ndarray) -> np.ndarray:
            if not policy.rowwise_capacity:  # a group of equal shapes (group_key)
                return fill_shares(policy.shares_batch(D, cap), D, cap, weights(b), Kc)[0]
            # a row-wise share function: only the liar's row differs from its member's (same numbers)
            if not truth:
                own = policy.shares_batch(padded([i.demands for i in insts], n, 1.0),
                                          np.stack([i.capacity for i in insts]))
                truth.append(np.where(np.arange(n) < np.array([[i.n] for i in insts]), own, 1.0))
            N, _, m = D.shape
            liar = np.arange(N) * n + who
            c = truth[0].take(b, axis=0)
            c.reshape(N * n)[liar] = policy.shares_batch(D.reshape(N * n, m).take(liar, axis=0)[:, None, :], cap)[:, 0]
            return fill_shares(c, D, cap, weights(b), Kc)[0]

        return KeyedFill(("filling", policy.label, ev.mode), filling)

    def one_by_one(D: np.ndarray, cap: np.ndarray, Kc: np.ndarray, b: np.ndarray, who: np.ndarray) -> np.ndarray:
        out = np.empty(D.shape[:2])
        for k in np.unique(b).tolist():
            sel = b == k
            out[sel] = numeric_many(ev, insts[k], demands=D[sel], caps=Kc[sel])
        return out

    return KeyedFill(("each", ev.policy.label, ev.mode), one_by_one)

