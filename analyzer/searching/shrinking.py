"""Shrinking a counterexample, the way hypothesis shrinks a failing example:
try simpler instances in a fixed order and keep the first that still
violates the property, until none does.

Simpler means, in this order: fewer users, fewer resources, no weights or
caps, every column of capacities and demands divided by its gcd (a change
of resource units), then smaller integers entry by entry (non-integer data
is first scaled and rounded to integers). Every candidate is judged by the
property's own exact check, so the shrunk instance is a certified
counterexample too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from fractions import Fraction

from models import Instance

from .classes import InstanceClass
from .strategies import build

#: Largest number of candidate checks one shrink may spend.
SHRINK_CHECKS: int = 400
#: Scale factors tried when turning fractional data into integers.
INTEGER_SCALES: tuple[int, ...] = (1, 2, 3, 4, 6, 10, 12, 100)


def size(instance: Instance) -> tuple[int, int, int, int, Fraction, Fraction, Fraction]:
    """Order in which shrinking makes progress: users, resources, fractional
    data, weights and caps, largest entry, sum of entries (smaller is
    simpler)."""
    vals = [*instance.capacity_exact, *(v for row in instance.demands_exact for v in row)]
    fractional = int(any(v.denominator != 1 for v in vals))
    extras = int(instance.weighted) + int(instance.capped)
    side = sum(instance.weights_exact, Fraction(0)) + sum((k for k in instance.max_tasks_exact if k is not None),
                                                           Fraction(0))
    return instance.n, instance.m, fractional, extras, max(vals), sum(vals, Fraction(0)), side


def _data(
    inst: Instance,
) -> tuple[list[Fraction], list[list[Fraction]], list[Fraction] | None, list[Fraction | None] | None]:
    w = list(inst.weights_exact) if inst.weighted else None
    k = list(inst.max_tasks_exact) if inst.capped else None
    return list(inst.capacity_exact), [list(r) for r in inst.demands_exact], w, k


def _make(cap: list, dem: list, w: list | None, k: list | None) -> Instance | None:
    if any(not any(v != 0 for v in row) for row in dem) or any(c <= 0 for c in cap):
        return None
    try:
        return build(cap, dem, w, k)
    except ValueError:
        return None


Data = tuple[list[Fraction], list[list[Fraction]], list[Fraction] | None, list[Fraction | None] | None]


def _fewer_users(d: Data) -> Iterator[Instance]:
    cap, dem, w, k = d
    for i in range(len(dem) if len(dem) > 1 else 0):
        yield from _some(cap, dem[:i] + dem[i + 1:], _drop(w, i), _drop(k, i))


def _fewer_resources(d: Data) -> Iterator[Instance]:
    cap, dem, w, k = d
    for j in range(len(cap) if len(cap) > 1 else 0):
        yield from _some(cap[:j] + cap[j + 1:], [r[:j] + r[j + 1:] for r in dem], w, k)


def _plainer(d: Data) -> Iterator[Instance]:
    cap, dem, w, k = d
    if w is not None:
        yield from _some(cap, dem, None, k)
    if k is not None:
        yield from _some(cap, dem, w, None)


def _integer_columns(d: Data) -> Iterator[Instance]:
    """Fractional data scaled and rounded; integer columns divided by their
    gcd, then divided by large factors and rounded."""
    cap, dem, w, k = d
    m = len(cap)
    if not all(v.denominator == 1 for v in [*cap, *(x for r in dem for x in r)]):
        for s in INTEGER_SCALES:
            yield from _some([_round(c * s, 1) for c in cap], [[_round(x * s, 0) for x in r] for r in dem], w, k)
        return
    for j in range(m):
        g = math.gcd(int(cap[j]), *(int(r[j]) for r in dem))
        if g > 1:
            yield from _some([c / g if jj == j else c for jj, c in enumerate(cap)],
                             [[x / g if jj == j else x for jj, x in enumerate(r)] for r in dem], w, k)
    for j in range(m):
        top = max(cap[j], *(r[j] for r in dem))
        for div in _divisors(top):
            yield from _some([_round(c / div, 1) if jj == j else c for jj, c in enumerate(cap)],
                             [[(_round(x / div, 1) if x > 0 else x) if jj == j else x for jj, x in enumerate(r)]
                              for r in dem], w, k)


def _smaller_entries(d: Data) -> Iterator[Instance]:
    """One entry at a time: 0 (demands), 1, 2, quarters, halves, minus one."""
    cap, dem, w, k = d
    if not all(v.denominator == 1 for v in [*cap, *(x for r in dem for x in r)]):
        return
    for j in range(len(cap)):
        for v in _smaller(cap[j], 1):
            yield from _some([v if jj == j else c for jj, c in enumerate(cap)], dem, w, k)
    for i in range(len(dem)):
        for j in range(len(cap)):
            for v in _smaller(dem[i][j], 0):
                new = [list(r) for r in dem]
                new[i][j] = v
                yield from _some(cap, new, w, k)
    if w is not None:
        for i in range(len(w)):
            for v in _smaller(w[i], 1):
                yield from _some(cap, dem, [v if ii == i else x for ii, x in enumerate(w)], k)
    if k is not None:
        for i in range(len(k)):
            ki = k[i]
            if ki is not None:
                for v in _smaller(ki, 0):
                    yield from _some(cap, dem, w, [v if ii == i else x for ii, x in enumerate(k)])


#: The shrink passes, simplest change first.
STAGES: tuple[Callable[[Data], Iterator[Instance]], ...] = (
    _fewer_users, _fewer_resources, _plainer, _integer_columns, _smaller_entries)


def candidates(inst: Instance) -> Iterator[Instance]:
    """Simpler instances than ``inst``, simplest first (all stages)."""
    d = _data(inst)
    for stage in STAGES:
        yield from stage(d)


def _some(cap: list, dem: list, w: list | None, k: list | None) -> Iterator[Instance]:
    inst = _make(cap, dem, w, k)
    if inst is not None:
        yield inst


def _drop(v: list | None, i: int) -> list | None:
    return None if v is None else v[:i] + v[i + 1:]


def _round(v: Fraction, least: int) -> Fraction:
    return Fraction(max(least, round(v)))


def _divisors(top: Fraction) -> list[Fraction]:
    """Factors to divide a column by: large ones first (1 is excluded)."""
    out = [top]
    while out[-1] > 2:
        out.append(Fraction(math.ceil(out[-1] / 2)))
    out.append(Fraction(3, 2))
    return [d for d in dict.fromkeys(out) if d > 1]


def _smaller(v: Fraction, least: int) -> list[Fraction]:
    """Smaller integer values to try for ``v``, smallest first."""
    out: list[Fraction] = []
    for c in (least, 1, 2, v // 4, v // 2, (3 * v) // 4, v - 1):
        c = Fraction(c)
        if least <= c < v and c not in out:
            out.append(c)
    return out


def shrink(instance: Instance, still_fails: Callable[[Instance], object | None], cls: InstanceClass | None = None,
           max_checks: int = SHRINK_CHECKS) -> tuple[Instance, object | None, int]:
    """Shrink ``instance`` while ``still_fails`` returns a violation.

    The stages of :data:`STAGES` run in order; after an accepted candidate
    the same stage continues on the smaller instance, and the whole sequence
    repeats until a full pass changes nothing (or the check budget is spent).

    Parameters
    ----------
    instance : Instance
        A counterexample.
    still_fails : callable
        ``still_fails(candidate)`` returns a violation object or ``None``.
    cls : InstanceClass, optional
        Candidates outside the class are skipped (a shrunk counterexample
        stays in the class searched).
    max_checks : int
        Budget of calls to ``still_fails``.

    Returns
    -------
    (instance, violation, checks)
        The smallest failing instance found, its violation (``None`` only if
        no candidate was accepted, then the caller's violation stands) and
        the number of checks spent.
    """
    best, found, checks = instance, None, 0
    seen: set[str] = set()
    changed = True
    while changed and checks < max_checks:
        changed = False
        for stage in STAGES:
            progress = True
            while progress and checks < max_checks:
                progress = False
                for cand in stage(_data(best)):
                    key = cand.describe()
                    if key in seen or (cls is not None and not cls.contains(cand)) or size(cand) >= size(best):
                        continue
                    seen.add(key)
                    checks += 1
                    v = still_fails(cand)
                    if v is not None:
                        best, found, progress, changed = cand, v, True, True
                        break
                    if checks >= max_checks:
                        break
    return best, found, checks
