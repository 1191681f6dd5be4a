"""Phase 3 of a search: derivative-free optimisation of a property's
numeric violation margin from the closest near misses of the stream; an
instance with a negative margin is made exact and goes to the property's own
exact check (so the margin steers, it never decides).

The optimiser evaluates its candidates in batches, one
:meth:`~analyzer.properties.base.Property.margin_many` call each (a batched
margin costs about what a few single ones do): line searches in the log of
the positive capacities and demands (:func:`descend`), along each
coordinate in turn and then along the sweep's overall move (the
extrapolated direction of Powell, Computer Journal 7(2), 1964), until a
sweep gains nothing. A line search (:func:`line_search`) evaluates
:data:`LINE_POINTS` points of the whole feasible segment at once, closing
in geometrically on the current point from both ends (a near miss is
usually close to the minimum along a line), then zooms into the bracket of
the best point the same way, adding the kinks of the lines through the best
point's neighbours (exact for a piecewise-linear margin, the common case: a
margin is a minimum of ratios) and the vertex of the parabola through them
(:func:`zoom`, :func:`probe`, :func:`kinks`).

The candidates of a batch are counted, and sent to the exact check, in
their order in the batch, as if evaluated one by one: the search stops at
the first violation, after the candidates before it, and at the budget, the
batch cut to the evaluations left. Nothing is random: the same near misses
give the same candidates, whatever the number of workers (the phase runs in
the search's own process).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from models import Instance
from models.tolerances import MARGIN_TIE

from ..properties.base import Violation
from .checkpoint import SearchState
from .checks import first_violation, screenable
from .instance_stream import Cell
from .strategies import build
from .stream import Recorder

#: Share of the budget given to margin optimisation (when a margin exists).
OPT_FRACTION: float = 0.1

#: The optimisation moves each capacity and demand by at most this factor
#: (in log space: ``log(1000)``) from its near-miss value.
OPT_LOG_SPAN: float = math.log(1000.0)

#: Evaluations planned per optimisation start (fewer starts on small budgets).
EVALS_PER_START: int = 60

#: Candidates of one batch of a line search (one ``margin_many`` call).
LINE_POINTS: int = 12

#: A line search stops after this many batches in a row without a gain
#: (each narrows the bracket about ``LINE_POINTS / 2`` times).
LINE_STALL: int = 3

#: Fractions of the way from the best point to each end of its bracket that
#: a zoom evaluates (:func:`probe`).
ZOOM_STEPS: np.ndarray = 4.0 ** -np.arange(1, 5)

#: The same for a line search's first batch, from the current point to
#: each end of the segment (the ends included).
FIRST_STEPS: np.ndarray = 4.0 ** -np.arange(0, 6)

#: A line search stops zooming when its bracket is narrower than this (in
#: log units: far below any rounding of a float instance's entries).
LINE_XTOL: float = 1e-13

#: Denominators tried when an optimised float instance is made exact.
EXACT_DENOMINATORS: tuple[int, ...] = (1, 10, 100, 1000)


Progress = Callable[[int], None]
#: Margins of a batch of points (rows, log space): ``inf`` where there is none.
Objective = Callable[[np.ndarray], np.ndarray]


class _Stop(Exception):
    pass


class _Found(Exception):
    def __init__(self, violation: Violation) -> None:
        self.violation = violation


def optimise(cell: Cell, st: SearchState, budget: int, recorder: Recorder, tick: Progress) -> Violation | None:
    """Minimise the margin over the log of the positive capacities and
    demands of each near miss (:func:`descend`, every candidate counted in
    ``st.checked``), from ``st.opt_start`` on; an instance with a margin
    below ``-MARGIN_TIE`` (a violation, not a tie within rounding) goes to
    the exact check. Returns the first violation, or ``None`` when the starts
    or the budget run out. A checkpoint record follows each start."""
    starts = list(st.near)[:max(1, int(budget * OPT_FRACTION) // EVALS_PER_START)]
    while st.opt_start < len(starts) and st.checked < budget:
        margin0, pos = starts[st.opt_start]
        _, base = cell.at(pos)
        per_start = max(1, (budget - st.checked) // (len(starts) - st.opt_start))
        cands = Candidates(cell, st, base, min(st.checked + per_start, budget), tick)
        x0 = cands.theta0()
        try:
            descend(cands, x0, margin0, x0 - OPT_LOG_SPAN, x0 + OPT_LOG_SPAN)
        except _Stop:
            pass
        except _Found as f:
            return f.violation
        st.opt_start += 1
        recorder.emit(st.to_record(cell.key, "optimise"))
    return None


@dataclass
class Candidates:
    """The candidates near one start ``base``: instances with the
    capacities and positive demands ``exp(theta)`` (zero demands stay 0;
    weights and caps the base's), evaluated a batch at a time by the
    property's ``margin_many``, counted in ``st.checked`` up to ``stop_at``."""

    cell: Cell
    st: SearchState
    base: Instance
    stop_at: int
    tick: Progress

    def __post_init__(self) -> None:
        self.mask = np.concatenate([self.base.capacity > 0, (self.base.demands > 0).ravel()])

    def theta0(self) -> np.ndarray:
        """The start's coordinates: logs of its positive entries."""
        return np.log(np.concatenate([self.base.capacity, self.base.demands.ravel()])[self.mask])

    def instances(self, theta: np.ndarray) -> list[Instance | None]:
        """The float instance of each row of ``theta`` (``None`` where an
        entry left the floats' range: not a candidate). Built with the
        constructor, which trusts its arguments: the data are valid by
        construction (positive where the base is, finite checked here)."""
        base = self.base
        full = np.zeros((theta.shape[0], self.mask.size))
        with np.errstate(over="ignore", under="ignore"):
            full[:, self.mask] = np.exp(theta)
        vals = full[:, self.mask]
        ok = np.all(np.isfinite(vals) & (vals > 0), axis=1).tolist()
        full.setflags(write=False)
        m = base.m
        return [Instance(resources=base.resources, capacity=row[:m], demands=row[m:].reshape(base.n, m),
                         weights=base.weights, max_tasks=base.max_tasks, _user_names=base.users) if good else None
                for row, good in zip(full, ok, strict=True)]

    def __call__(self, theta: np.ndarray) -> np.ndarray:
        """Margins of the rows of ``theta`` (``inf`` where there is none or
        the candidate is not checked: outside the model, unsupported, not
        applicable, past the budget). Raises :class:`_Found` at the first
        violation and :class:`_Stop` once the budget is spent."""
        left = self.stop_at - self.st.checked
        if left <= 0:
            raise _Stop
        out = np.full(theta.shape[0], np.inf)
        insts = self.instances(theta)
        todo = [(k, inst) for k, inst in enumerate(insts) if inst is not None and screenable(self.cell, inst) == "c"]
        cut = len(todo) > left
        todo = todo[:left]
        if todo:
            mg = self.cell.prop.margin_many(self.cell.policy, [inst for _, inst in todo], self.cell.mode)
            out[[k for k, _ in todo]] = np.where(np.isnan(mg), np.inf, mg)
        self._count(todo, out)
        if cut:
            raise _Stop
        return out

    def _count(self, todo: list[tuple[int, Instance]], out: np.ndarray) -> None:
        """Count the evaluated candidates ``todo`` (position in the batch,
        instance) in order; the exact check of each with a margin below
        ``-MARGIN_TIE``, stopping at a violation."""
        done = 0
        for k, inst in todo:
            done += 1
            if out[k] < -MARGIN_TIE:  # a tie (within rounding) is not worth an exact check
                v = first_violation(self.cell, list(_exact_versions(inst.capacity, inst.demands, self.base)))
                if v is not None:
                    self.st.checked += done
                    self.tick(done)
                    raise _Found(v)
        self.st.checked += done
        self.tick(done)


def descend(f: Objective, x: np.ndarray, fx: float, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, float]:
    """Coordinate descent by batched line searches within the box
    ``lo <= x <= hi``: each sweep searches along every coordinate, then
    along the sweep's move; it stops when a sweep gains at most
    ``MARGIN_TIE`` (or ``f`` raises)."""
    eye = np.eye(x.size)
    while True:
        x_begin, f_begin = x, fx
        for u in eye:
            x, fx = line_search(f, x, fx, u, lo, hi)
        if not f_begin - fx > MARGIN_TIE:
            return x, fx
        move = x - x_begin
        x, fx = line_search(f, x, fx, move / np.linalg.norm(move), lo, hi)


def line_search(f: Objective, x: np.ndarray, fx: float, u: np.ndarray, lo: np.ndarray,
                hi: np.ndarray) -> tuple[np.ndarray, float]:
    """The best point of ``f`` on the segment of the box through ``x``
    along ``u``: :func:`probe` of the whole segment, then zooms
    into the best point's bracket (:func:`zoom`) until :data:`LINE_STALL`
    batches in a row gain at most ``MARGIN_TIE``, or at once when a batch
    finds ``f`` flat (every value within ``MARGIN_TIE`` of ``fx``, or none)."""
    a, b = segment(x, u, lo, hi)
    if not b > a:
        return x, fx
    ts, fs = np.zeros(1), np.array([fx])
    new = probe(ts, 0.0, a, b, [], FIRST_STEPS)
    stale = 0
    while new.size:
        vals = f(x + new[:, None] * u)
        gain = fs.min() - vals.min()
        finite = vals[np.isfinite(vals)]
        flat = not (finite.size and float(np.abs(finite - fx).max()) > MARGIN_TIE)
        order = np.argsort(np.concatenate([ts, new]), kind="stable")
        ts, fs = np.concatenate([ts, new])[order], np.concatenate([fs, vals])[order]
        stale = 0 if gain > MARGIN_TIE else stale + 1
        if flat or stale >= LINE_STALL:
            break
        new = zoom(ts, fs)
    k = int(np.argmin(fs))
    return (x + ts[k] * u, float(fs[k])) if fs[k] < fx else (x, fx)  # a tie does not move


def segment(x: np.ndarray, u: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[float, float]:
    """The steps ``t`` with ``lo <= x + t u <= hi``: an interval ``[a, b]``
    around 0 (``x`` in the box)."""
    moving = u != 0
    t1, t2 = (lo - x)[moving] / u[moving], (hi - x)[moving] / u[moving]
    return float(min(0.0, np.minimum(t1, t2).max())), float(max(0.0, np.maximum(t1, t2).min()))


def zoom(ts: np.ndarray, fs: np.ndarray) -> np.ndarray:
    """The next batch of a line search on the sorted points ``ts`` with
    values ``fs``: :func:`probe` of the bracket of the best point (its
    neighbours), with the guesses of :func:`kinks`; empty once the bracket
    is narrower than :data:`LINE_XTOL`."""
    k = int(np.argmin(fs))
    t, left, right = ts[k], ts[max(k - 1, 0)], ts[min(k + 1, ts.size - 1)]
    if not right - left > LINE_XTOL:
        return np.empty(0)
    return probe(ts, t, left, right, [g for g in kinks(ts, fs, k) if left < g < right], ZOOM_STEPS)


def probe(ts: np.ndarray, t: float, left: float, right: float, guess: list[float], steps: np.ndarray) -> np.ndarray:
    """A batch of :data:`LINE_POINTS` steps in ``[left, right]`` around the
    best point ``t``: ``guess``, points closing in on ``t`` geometrically
    from each side (``t + (left - t) * steps`` and the same to the right: a
    minimum far closer to ``t`` than to the bracket's ends, the common case
    of a near miss, is found in one batch), a uniform grid for the rest;
    each once, and none of the points ``ts`` evaluated already."""
    near = np.concatenate([t + (left - t) * steps, t + (right - t) * steps])
    grid = np.linspace(left, right, max(LINE_POINTS - len(guess) - near.size, 0) + 2)[1:-1]
    new = np.sort(np.concatenate([np.array(guess), near, grid]))
    new = new[np.concatenate([[True], new[1:] != new[:-1]])]
    at = np.minimum(np.searchsorted(ts, new), ts.size - 1)
    return new[ts[at] != new]


def kinks(ts: np.ndarray, fs: np.ndarray, k: int) -> list[float]:
    """Guesses of the minimum near the best point ``k``: where the line
    through its two left neighbours meets the line through it and its right
    neighbour, the mirror case, and the vertex of the parabola through the
    best point and its neighbours (finite values only)."""
    out = []
    for a, b, c, d in ((k - 2, k - 1, k, k + 1), (k - 1, k, k + 1, k + 2)):
        if a >= 0 and d < ts.size:
            t = _meet(ts[[a, b]], fs[[a, b]], ts[[c, d]], fs[[c, d]])
            if t is not None:
                out.append(t)
    if 0 < k < ts.size - 1:
        t0, t1, t2 = ts[k - 1:k + 2]
        f0, f1, f2 = fs[k - 1:k + 2]
        den = (t1 - t0) * (f1 - f2) - (t1 - t2) * (f1 - f0)
        num = (t1 - t0) ** 2 * (f1 - f2) - (t1 - t2) ** 2 * (f1 - f0)
        with np.errstate(all="ignore"):
            vertex = t1 - 0.5 * num / den
        if np.isfinite(vertex):
            out.append(float(vertex))
    return out


def _meet(ta: np.ndarray, fa: np.ndarray, tb: np.ndarray, fb: np.ndarray) -> float | None:
    """Where the line through the points ``(ta, fa)`` meets the line
    through ``(tb, fb)``; ``None`` when they are parallel or not finite."""
    with np.errstate(all="ignore"):
        sa, sb = (fa[1] - fa[0]) / (ta[1] - ta[0]), (fb[1] - fb[0]) / (tb[1] - tb[0])
        t = (fb[0] - fa[0] + sa * ta[0] - sb * tb[0]) / (sa - sb)
    return float(t) if np.isfinite(t) else None


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
