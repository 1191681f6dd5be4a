"""Symbolic instances for the SMT prover: demand matrices of z3 reals, the
domain and normalisation constraints, and the case split on dominant
resources.

Normalisations (each stated where it is used, each exact):

* **capacities 1.** Every encoded policy is invariant under scaling one
  resource: multiplying ``R_j`` and every ``d_ij`` by ``c > 0`` leaves the
  tasks unchanged (Ghodsi et al., NSDI 2011, Section 4: shares ``x_i d_ij /
  R_j`` are unchanged), and so are the properties. A formula over ``R = 1``
  therefore covers every capacity vector.
* **one user's scale** (policies whose bundles do not depend on the size of
  a task, :attr:`~proofs.prover.encodings.Encoding.normalise`): scaling
  ``d_i`` by ``c`` divides ``x_i`` by ``c`` and leaves every bundle
  ``x_i d_i`` unchanged; every encoded property compares bundles through
  task counts of the same user, so the verdict is unchanged. ``"max"``
  fixes ``max_j d_ij = 1`` (with a case split on the resource reaching it:
  the dominant resource), ``"sum"`` fixes ``sum_j d_ij = 1``.
* **weights and caps** (``weighted=True`` / ``capped=True``): every user
  gets a symbolic weight ``w_i > 0`` / task cap ``k_i >= 0``. Scaling a
  demand row by ``c`` divides ``x_i`` by ``c`` and the cap must be divided
  with it; as the cap is a free positive variable the normalised instance
  is still covered exactly. An uncapped user (``k_i = inf``) is covered by
  a finite cap larger than every task count the formula speaks of (every
  allocation is feasible, so bounded), so symbolic finite caps cover every
  mix of capped and uncapped users.

Symmetries (each used only where it holds: :mod:`proofs.prover.symmetry`
says which the policy has, checked):

* **resources alike** (neutrality: renaming resources renames nothing
  else in the allocation). Every domain and property treats resources
  alike, so for a neutral policy instances that differ by renaming
  resources are one case (:func:`dominant_cases`).
* **users alike** (anonymity: relabelling users, with their weights and
  caps, relabels the allocation). Every property treats users alike, so
  for an anonymous policy "user 0" in a negation stands for any user and
  the users the property does not distinguish are a multiset; otherwise
  every assignment of users to the distinguished roles is a case of its own
  (:class:`Case`).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

POSITIVE = "positive"
ZEROS = "zeros"
#: Demand domains: every entry ``> 0``, or ``>= 0`` with a positive entry per row.
DOMAINS: tuple[str, ...] = (POSITIVE, ZEROS)


@dataclass
class Market:
    """One symbolic instance: demands ``d`` (n x m z3 terms), capacities
    ``R`` (m terms) and what is known about them.

    Attributes
    ----------
    unit : bool
        ``R_j = 1`` for every resource.
    positive : bool
        Every ``d_ij > 0`` is asserted.
    dom : tuple of int or None
        When set, row ``i`` has ``d[i][dom[i]] = 1 >= d[i][j]`` (max
        normalisation with a known dominant resource).
    w : list or None
        Symbolic weights ``w_i > 0`` (z3 reals) of a weighted query, else
        ``None`` (every weight 1). Weighted filling max-mins ``y_i / w_i``
        (Ghodsi et al., NSDI 2011, Section 4.3).
    cap : list or None
        Symbolic task caps ``k_i >= 0`` (z3 reals; 0 is allowed, as in
        :class:`models.Instance`) of a capped query, else ``None`` (no caps).
    """

    d: list[list[Any]]
    R: list[Any]
    unit: bool
    positive: bool
    dom: tuple[int, ...] | None = None
    w: list[Any] | None = None
    cap: list[Any] | None = None

    @property
    def n(self) -> int:
        return len(self.d)

    @property
    def m(self) -> int:
        return len(self.R)

    def uses(self, i: int, j: int) -> Any:
        """``d_ij > 0`` (``True`` in the positive domain)."""
        return z3.BoolVal(True) if self.positive else self.d[i][j] > 0

    def load(self, x: Sequence[Any], j: int) -> Any:
        """``sum_i x_i d_ij``."""
        return z3.Sum([x[i] * self.d[i][j] for i in range(self.n)])

    def feasible(self, x: Sequence[Any]) -> list[Any]:
        """``x >= 0`` and ``sum_i x_i d_ij <= R_j``."""
        return [xi >= 0 for xi in x] + [self.load(x, j) <= self.R[j] for j in range(self.m)]

    def saturated(self, x: Sequence[Any], j: int) -> Any:
        return self.load(x, j) == self.R[j]

    def weight(self, i: int) -> Any:
        """``w_i`` (the constant 1 when unweighted)."""
        return z3.RealVal(1) if self.w is None else self.w[i]

    def capped_tasks(self, x: Sequence[Any]) -> list[Any]:
        """``x_i <= k_i`` for every user (empty when uncapped)."""
        return [] if self.cap is None else [x[i] <= self.cap[i] for i in range(self.n)]

    def at_cap(self, x: Sequence[Any], i: int) -> Any:
        """``x_i = k_i`` (``False`` when uncapped)."""
        return z3.BoolVal(False) if self.cap is None else x[i] == self.cap[i]

    def without(self, r: int) -> Market:
        """The instance with user ``r`` gone (same capacities)."""
        keep = [i for i in range(self.n) if i != r]
        dom = None if self.dom is None else tuple(self.dom[i] for i in keep)
        return Market([self.d[i] for i in keep], self.R, self.unit, self.positive, dom,
                      _pick(self.w, keep), _pick(self.cap, keep))

    def with_row(self, i: int, row: list[Any], dom: int | None, cap: Any = None) -> Market:
        """The instance with row ``i`` replaced (a report; ``cap``, when
        given, replaces user ``i``'s task cap: a report's scale moves it)."""
        d = [list(r) for r in self.d]
        d[i] = row
        doms = None if self.dom is None or dom is None else tuple(dom if k == i else v for k, v in enumerate(self.dom))
        caps = self.cap if self.cap is None or cap is None else [cap if k == i else v for k, v in enumerate(self.cap)]
        return Market(d, self.R, self.unit, self.positive, doms, self.w, caps)

    def with_capacity(self, R: list[Any]) -> Market:
        return Market(self.d, R, False, self.positive, None, self.w, self.cap)


def _pick(values: list[Any] | None, keep: list[int]) -> list[Any] | None:
    return None if values is None else [values[i] for i in keep]


def demand_row(name: str, m: int, domain: str, normalise: str | None, dom: int | None) -> tuple[list[Any], list[Any]]:
    """A row of demand terms and its constraints.

    Parameters
    ----------
    name : str
        Prefix of the variable names.
    domain : {"positive", "zeros"}
    normalise : {"max", "sum", None}
        ``"max"`` needs ``dom``: the entry ``dom`` is the constant 1 and
        the others are ``<= 1``.
    """
    row: list[Any] = [z3.RealVal(1) if j == dom and normalise == "max" else z3.Real(f"{name}_{j}") for j in range(m)]
    cons: list[Any] = []
    for j, v in enumerate(row):
        if domain == POSITIVE:
            cons.append(v > 0)
        else:
            cons.append(v >= 0)
        if normalise == "max" and j != dom:
            cons.append(v <= 1)
    if domain == ZEROS:
        cons.append(z3.Or([v > 0 for v in row]))
    if normalise == "sum":
        cons.append(z3.Sum(row) == 1)
    return row, cons


def market(n: int, m: int, domain: str, normalise: str | None, dom: tuple[int, ...] | None, *,
           weighted: bool = False, capped: bool = False) -> tuple[Market, list[Any]]:
    """A symbolic instance with ``R = 1`` and its constraints (symbolic
    weights ``w{i} > 0`` when ``weighted``, task caps ``k{i} >= 0`` when
    ``capped``)."""
    rows, cons = [], []
    for i in range(n):
        row, c = demand_row(f"d{i}", m, domain, normalise, None if dom is None else dom[i])
        rows.append(row)
        cons += c
    known = dom if normalise == "max" else None
    w = [z3.Real(f"w{i}") for i in range(n)] if weighted else None
    cap = [z3.Real(f"k{i}") for i in range(n)] if capped else None
    cons += [v > 0 for v in w or []] + [v >= 0 for v in cap or []]
    return Market(rows, [z3.RealVal(1)] * m, True, domain == POSITIVE, known, w, cap), cons


@dataclass(frozen=True)
class Case:
    """One case of a proof's split.

    Attributes
    ----------
    dom : tuple of int or None
        The dominant resource of every row (users by index, then the extra
        rows, e.g. a report), or ``None`` for a query not split by dominant
        resources.
    roles : tuple of int
        The users playing the negation's distinguished roles, in the order
        the negation names them (the victim first; see
        :class:`proofs.prover.properties.Negation`).
    named : bool
        The split enumerates role assignments (the policy is not known to
        treat users alike), so the label names the users.
    """

    dom: tuple[int, ...] | None
    roles: tuple[int, ...] = ()
    named: bool = False

    def label(self, n: int) -> str:
        """``"dominant r0,r1; report r0"``, ``"roles u1,u0; dominant
        r1,r0"`` when the roles are named, ``"all"`` for an unsplit query."""
        parts = ["roles " + ",".join(f"u{u}" for u in self.roles)] if self.named else []
        if self.dom is not None:
            parts.append("dominant " + ",".join(f"r{j}" for j in self.dom[:n]))
            if len(self.dom) > n:
                parts.append("report " + ",".join(f"r{j}" for j in self.dom[n:]))
        return "; ".join(parts) or "all"


@functools.lru_cache(maxsize=256)
def dominant_cases(m: int, fixed: tuple[int, ...], free: tuple[int, ...], extra: int,
                   neutral: bool) -> list[tuple[int, ...]]:
    """Dominant-resource assignments up to symmetry.

    Rows are ``fixed`` users (distinguished by the property, or every user
    of a policy not known to treat users alike), ``free`` users
    (interchangeable: the caller passes them only for a policy that treats
    users alike, checked) and ``extra`` further rows (e.g. a report),
    listed in that order of positions ``fixed + free + extra``. The free
    users are a multiset (their dominant resources sorted); when
    ``neutral`` (the policy treats resources alike, checked, and every
    property and domain does) resources are interchangeable too and each
    assignment is replaced by the least, over resource permutations, of
    (fixed rows, sorted free rows, extra rows). Without ``neutral`` every
    resource keeps its name: an instance and its resource-renamed copy are
    different cases. The distinct canonical forms are returned as tuples
    indexed by row position (users by index, extras after ``n``).
    """
    n = len(fixed) + len(free)
    out: set[tuple[int, ...]] = set()
    for head in itertools.product(range(m), repeat=len(fixed)):
        for bag in itertools.combinations_with_replacement(range(m), len(free)):  # free users: a multiset
            for tail in itertools.product(range(m), repeat=extra):
                f, s, e = min((tuple(p[v] for v in head), tuple(sorted(p[v] for v in bag)), tuple(p[v] for v in tail))
                              for p in _renamings(m, (*head, *bag, *tail), neutral))
                dom = [0] * (n + extra)
                for k, u in enumerate(fixed):
                    dom[u] = f[k]
                for k, u in enumerate(free):
                    dom[u] = s[k]
                for k in range(extra):
                    dom[n + k] = e[k]
                out.add(tuple(dom))
    return sorted(out)


def _renamings(m: int, rows: tuple[int, ...], neutral: bool) -> list[dict[int, int]]:
    """The resource renamings :func:`dominant_cases` minimises over: none
    (the identity) unless ``neutral``; else the ``u!`` maps of the ``u``
    resources ``rows`` use onto ``0 .. u-1`` (the least image compresses
    the labels, which lowers every entry and keeps their order), which
    stand for all ``m!`` permutations."""
    if not neutral:
        return [{j: j for j in range(m)}]
    used = sorted(set(rows))
    return [dict(zip(used, order, strict=True)) for order in itertools.permutations(range(len(used)))]


def to_fraction(value: Any, digits: int = 40) -> Fraction:
    """A z3 model value as a Fraction: exact for rationals, a decimal
    approximation with ``digits`` digits for algebraic numbers (the caller
    re-verifies exactly)."""
    if z3.is_rational_value(value):
        return Fraction(value.numerator_as_long(), value.denominator_as_long())
    if z3.is_algebraic_value(value):
        return to_fraction(value.approx(digits))
    raise ValueError(f"not a numeral: {value}")


def evaluate(model: Any, terms: Any) -> Any:
    """Nested lists of terms evaluated in ``model`` as Fractions."""
    if isinstance(terms, list | tuple):
        return [evaluate(model, t) for t in terms]
    return to_fraction(model.eval(terms, model_completion=True))
