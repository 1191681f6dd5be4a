"""The reports a would-be liar tries, as numbers and as exact vectors
(Ghodsi et al., NSDI 2011, Section 3, strategy-proofness): a report is a
direction ``s`` on the simplex and a log-scale ``log c``, written
``d'_j = c s_j R_j`` scaled so that at ``c = 1`` one reported task has the
dominant share of one true task."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from itertools import product

import numpy as np

from models import Instance
from models.filling_numeric import last_max, last_sum
from models.tolerances import RATIONALIZE_MAX_DENOMINATOR


@lru_cache(maxsize=16)
def simplex_grid(m: int, G: int) -> np.ndarray:
    """All points ``a / G`` of the simplex with integer ``a`` (read-only)."""
    pts = [(*a, G - sum(a)) for a in product(range(G + 1), repeat=m - 1) if sum(a) <= G]
    grid = np.array(pts, dtype=float) / G
    grid.setflags(write=False)
    return grid


def _simplex(u: np.ndarray) -> np.ndarray:
    """Rows of log-directions mapped to the simplex (softmax)."""
    e = np.exp(u - last_max(u)[:, None])
    return e / last_sum(e)[:, None]


def report_rows(u: np.ndarray) -> np.ndarray:
    """Rows ``(log-direction, log c)`` mapped to report rows ``(s, log c)``."""
    return np.hstack([_simplex(u[:, :-1]), u[:, -1:]])


def denominators() -> list[int]:
    """Rationalisation denominators, coarse (readable) first."""
    out, d = [], 10
    while d < RATIONALIZE_MAX_DENOMINATOR:
        out.append(d)
        d *= 10
    return [*out, RATIONALIZE_MAX_DENOMINATOR]


def report_caps(need: np.ndarray, reports: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """The liar's reported cap: ``k_i max_{j: d_ij > 0} d_ij / d'_j`` (rows)."""
    if not np.isfinite(caps).any():  # nobody capped (the common case): nothing to compute
        return np.full(np.broadcast_shapes(np.shape(caps), np.broadcast_shapes(need.shape, reports.shape)[:-1]), np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = last_max(np.where(need > 0, need / np.where(reports > 0, reports, 1.0), 0.0))
        return np.where(np.isfinite(caps), caps * ratio, np.inf)


def lie_instance(inst: Instance, i: int, report: list[Fraction]) -> tuple[Instance, Fraction | None]:
    """The exact instance in which user ``i`` reports ``report``, and the
    liar's reported cap ``k_i max_{j: d_ij > 0} d_ij / d'_j`` (the same true
    tasks; ``None`` when uncapped). Machines, extensions and the name are
    kept (:meth:`~models.Instance.replace`)."""
    need = inst.demands_exact[i]
    k = inst.max_tasks_exact[i]
    cap = None if k is None else k * max(d / r for d, r in zip(need, report, strict=True) if d > 0)
    D = [list(row) for row in inst.demands_exact]
    D[i] = list(report)
    K = list(inst.max_tasks_exact)
    K[i] = cap
    return inst.replace(demands=D, max_tasks=K), cap


def scaled_reports(inst: Instance, who: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Reports ``d'_j = c s_j R_j`` from rows ``(s, log c)``, scaled so that
    at ``c = 1`` one reported task has the dominant share of one true task."""
    m = inst.m
    dom = (inst.demands[who] / inst.capacity[None, :]).max(axis=1)
    D = S[:, :m]
    return D * inst.capacity[None, :] * (dom * np.exp(S[:, m]) / D.max(axis=1))[:, None]


def exact_report(inst: Instance, i: int, s: np.ndarray, den: int, integer: bool) -> list[Fraction]:
    """Report row ``(s, log c)`` as an exact report. When ``integer`` (the
    scale does not matter: a scale-invariant policy in the continuous
    setting) ``s`` is rationalised with denominators up to ``den``,
    ``d'_j = s_j R_j`` scaled to the true task's dominant share (see
    :func:`scaled_reports`) and rescaled to coprime integers for
    readability; otherwise every coordinate of the float report is
    rationalised with denominators up to ``den``. Needed resources stay
    positive; unneeded ones may be zero."""
    need = inst.demands_exact[i]
    if not integer:
        report = scaled_reports(inst, np.array([i]), np.asarray(s, dtype=float)[None, :])[0]
        q = [Fraction(float(v)).limit_denominator(den) for v in report]
        return [v if v > 0 or d == 0 else Fraction(1, den) for v, d in zip(q, need, strict=True)]
    fs = []
    for j, sj in enumerate(s[:inst.m]):
        f = Fraction(float(sj)).limit_denominator(den)
        if f <= 0:
            f = Fraction(1, den) if need[j] > 0 else Fraction(0)
        fs.append(f)
    dom = max(d / c for d, c in zip(need, inst.capacity_exact, strict=True))
    top = max(fs)
    return coprime_integers([f * c * dom / top for f, c in zip(fs, inst.capacity_exact, strict=True)])


def coprime_integers(row: list[Fraction]) -> list[Fraction]:
    """``row`` times a positive factor: coprime integers (a zero row stays
    zero)."""
    lcm = math.lcm(*(v.denominator for v in row))
    ints = [int(v * lcm) for v in row]
    g = math.gcd(*ints) or 1
    return [Fraction(v // g) for v in ints]
