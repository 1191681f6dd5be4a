"""An encoding against its policy's solver on one fixed instance: the
formula, with the instance's numbers as constants, must have the solver's
allocation as its only solution.

:func:`analyzer.prove` runs this before trusting an encoding (a wrong
encoding would otherwise prove whatever its formula satisfies) on seeded
instances in the proof's own normal form (:func:`normal_form`: capacities
1, demand rows normalised as the encoding's cases are), through the very
symbolic market of the proof's cases with every variable pinned to the
instance's numbers (:func:`first_disagreement`); the tests run it on
many.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from models import Instance
from models.tolerances import ENCODING_CHECK_ATOL

from .encodings import Encoding
from .symbolic import Market, market

#: z3's time limit on one question of the cross-check (milliseconds).
CROSSCHECK_TIMEOUT_MS: int = 20000
#: How :func:`disagreement` starts when z3 could not decide a sample.
UNDECIDED = "z3 could not decide"


def normal_form(inst: Instance, normalise: str | None) -> Instance:
    """``inst`` as a case of the proof sees it, with the same bundles:
    each resource scaled to capacity 1 (its demands with it) and, for an
    encoding normalising users (``"max"``/``"sum"``), each demand row
    divided by its largest entry / its sum, the user's task cap multiplied
    by the same number (its tasks scale inversely). Exact arithmetic."""
    R = [Fraction(r) for r in inst.capacity_exact]
    rows = [[Fraction(v) / r for v, r in zip(row, R, strict=True)] for row in inst.demands_exact]
    scale = [max(row) if normalise == "max" else sum(row) if normalise == "sum" else Fraction(1) for row in rows]
    D = [[v / f for v in row] for row, f in zip(rows, scale, strict=True)]
    caps = [None if k is None else Fraction(k) * f for k, f in zip(inst.max_tasks_exact, scale, strict=True)]
    return Instance.from_exact([Fraction(1)] * len(R), D, weights=list(inst.weights_exact), max_tasks=caps)


def case_of(enc: Encoding, inst: Instance) -> tuple[int, ...] | None:
    """The case of the proof holding ``inst`` (in :func:`normal_form`):
    each user's dominant resource (its first entry 1) under max
    normalisation, ``None`` (unsplit) otherwise."""
    if enc.normalise != "max":
        return None
    return tuple(row.index(max(row)) for row in ([Fraction(v) for v in r] for r in inst.demands_exact))


def pins(mk: Market, inst: Instance) -> list[Any]:
    """Every demand, weight and cap term of the symbolic market ``mk``
    pinned to ``inst``'s numbers (an uncapped user of a capped class: a
    cap no feasible allocation reaches, ``1 / max_j d_ij + 1`` with unit
    capacities)."""
    D = [[Fraction(v) for v in row] for row in inst.demands_exact]
    out = [mk.d[i][j] == z3.RealVal(str(v)) for i, row in enumerate(D) for j, v in enumerate(row)]
    if mk.w is not None:
        out += [w == z3.RealVal(str(v)) for w, v in zip(mk.w, inst.weights_exact, strict=True)]
    if mk.cap is not None:
        out += [k == z3.RealVal(str(v if v is not None else 1 / max(row) + 1))
                for k, v, row in zip(mk.cap, inst.max_tasks_exact, D, strict=True)]
    return out


#: One cross-check: an instance in normal form, the solver's exact
#: allocation (or ``None``) and its floats.
Sample = tuple[Instance, "Sequence[Any] | None", Sequence[float]]


class OutOfTime(Exception):
    """The deadline of :func:`first_disagreement` passed: ``decided``
    samples were decided before it."""

    def __init__(self, decided: int) -> None:
        super().__init__(f"out of time after {decided} decided instances")
        self.decided = decided


def first_disagreement(enc: Encoding, samples: Sequence[Sample], domain: str, weighted: bool, capped: bool,
                       deadline: float | None = None) -> tuple[tuple[Instance, str] | None, int]:
    """The first sample (instances in :func:`normal_form`) on which the
    encoding's only solution is not the solver's allocation, and what went
    wrong (``None`` when there is none), and how many samples z3 decided
    (one it cannot decide in :data:`CROSSCHECK_TIMEOUT_MS` is no evidence
    either way: it is skipped and not counted). Each sample goes through
    the symbolic market of the proof's case holding it (the same class
    constraints and normalisation) with its numbers pinned (:func:`pins`);
    an instance outside the class makes the constraints unsatisfiable. The
    formula of a case is built once for all the samples in it (one solver,
    a push/pop per sample). With a ``deadline`` (``time.monotonic()``), no
    query runs past it, and :class:`OutOfTime` is raised when it passes."""
    groups: dict[Any, list[Sample]] = {}
    for sample in samples:
        groups.setdefault(case_of(enc, sample[0]), []).append(sample)
    decided = 0
    for dom, members in groups.items():
        n, m = members[0][0].n, members[0][0].m
        mk, cons = market(n, m, domain, enc.normalise, dom, weighted=weighted, capped=capped)
        xs = [z3.Real(f"x{i}") for i in range(n)]
        s = z3.Solver()
        s.set("timeout", CROSSCHECK_TIMEOUT_MS)
        s.add(*cons, *enc.formula(mk, xs, "c"))
        for inst, x_exact, x in members:
            if deadline is not None:
                left_ms = int((deadline - time.monotonic()) * 1000)
                if left_ms <= 0:
                    raise OutOfTime(decided)
                s.set("timeout", min(CROSSCHECK_TIMEOUT_MS, left_ms))
            s.push()
            s.add(*pins(mk, inst))
            what = _compare(s, xs, x_exact, x)
            s.pop()
            if deadline is not None and what and what.startswith(UNDECIDED) and time.monotonic() >= deadline:
                raise OutOfTime(decided)  # undecided because the deadline cut the query short
            if what and not what.startswith(UNDECIDED):
                return (inst, what), decided
            decided += not what
    return None, decided


def constant_market(inst: Instance, weighted: bool, capped: bool) -> Market:
    """``inst`` as a market of constants (not normalised). An uncapped
    user of a capped market gets a cap no feasible allocation reaches."""
    D, R = inst.demands_exact, inst.capacity_exact
    d = [[z3.RealVal(str(v)) for v in row] for row in D]
    w = [z3.RealVal(str(v)) for v in inst.weights_exact] if weighted else None
    cap = None
    if capped:
        never = [min(Fraction(r) / Fraction(v) for r, v in zip(R, row, strict=True) if v > 0) + 1 for row in D]
        cap = [z3.RealVal(str(k if k is not None else never[i])) for i, k in enumerate(inst.max_tasks_exact)]
    positive = all(v > 0 for row in D for v in row)
    return Market(d, [z3.RealVal(str(r)) for r in R], False, positive, None, w, cap)


def disagreement(enc: Encoding, inst: Instance, x_exact: Sequence[Any] | None, x: Sequence[float],
                 weighted: bool = False, capped: bool = False, domain: str | None = None) -> str | None:
    """``None`` when the encoding's only solution on ``inst`` is the
    solver's allocation (exactly when ``x_exact`` is rational, else within
    :data:`~models.tolerances.ENCODING_CHECK_ATOL`); otherwise what went
    wrong, in words. With a ``domain``, ``inst`` is in the proof's
    :func:`normal_form` and the formula is the proof's own
    (:func:`first_disagreement`); without, the instance's numbers are
    constants (:func:`constant_market`)."""
    if domain is not None:
        xs = [z3.Real(f"x{i}") for i in range(inst.n)]
        s = z3.Solver()
        s.set("timeout", CROSSCHECK_TIMEOUT_MS)
        mk, cons = market(inst.n, inst.m, domain, enc.normalise, case_of(enc, inst), weighted=weighted, capped=capped)
        s.add(*cons, *enc.formula(mk, xs, "c"), *pins(mk, inst))
        return _compare(s, xs, x_exact, x)
    xs = [z3.Real(f"x{i}") for i in range(inst.n)]
    s = z3.Solver()
    s.set("timeout", CROSSCHECK_TIMEOUT_MS)
    s.add(*enc.formula(constant_market(inst, weighted, capped), xs, "c"))
    return _compare(s, xs, x_exact, x)


def _compare(s: Any, xs: Sequence[Any], x_exact: Sequence[Any] | None, x: Sequence[float]) -> str | None:
    """Whether the solver ``s`` (the encoding on one instance) has the
    allocation as its only solution: ``None``, or what went wrong."""
    rational = x_exact is not None and all(isinstance(v, Fraction | int) for v in x_exact)
    if rational:
        assert x_exact is not None
        inside = z3.And([a == z3.RealVal(str(Fraction(b))) for a, b in zip(xs, x_exact, strict=True)])
    else:
        tol = ENCODING_CHECK_ATOL
        inside = z3.And([z3.And(a - float(b) <= tol, float(b) - a <= tol) for a, b in zip(xs, x, strict=True)])
    shown = _show(x_exact if rational else x)
    first = s.check(inside)
    if first == z3.unknown:
        return f"z3 could not decide whether the solver's allocation {shown} satisfies the encoding " \
               f"({s.reason_unknown()})"
    if first != z3.sat:
        return f"the solver's allocation {shown} does not satisfy the encoding"
    answer = s.check(z3.Not(inside))
    if answer == z3.unknown:
        return f"z3 could not decide whether the encoding allows another allocation than the solver's {shown} " \
               f"({s.reason_unknown()})"
    if answer == z3.sat:
        other = _show([s.model().eval(v, model_completion=True) for v in xs])
        return f"the encoding also allows {other} besides the solver's {shown}"
    return None


def _show(x: Sequence[Any] | None) -> str:
    return "(" + ", ".join(str(v) for v in x or ()) + ")"
