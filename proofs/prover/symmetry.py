"""Symmetries of a policy, checked with z3 before a proof's case split
uses them (:mod:`proofs.prover.symbolic`).

A policy maps an instance (capacities ``R``, demand rows ``d_i``, weights
``w_i``, caps ``k_i``) to task counts ``x``. At a size ``n x m`` it is

* **anonymous** (treats users alike) when relabelling the users (their
  rows, weights and caps together) relabels the allocation alike:
  ``P(pi . instance) = pi . P(instance)`` for every permutation ``pi`` of
  the users;
* **neutral** (treats resources alike) when renaming the resources
  (columns of ``d`` and of ``R``) leaves the allocation unchanged.

The properties of Ghodsi et al. (NSDI 2011, Section 3) treat users and
resources alike, so an anonymous policy lets a negation speak of "user 0"
for any user and treat the users it does not distinguish as a multiset,
and a neutral one lets the split identify instances that differ by
renaming resources. Neither is assumed: a policy favouring a user or a
resource is not symmetric, and a reduction under a symmetry it lacks would
skip whole classes of instances.

Both are checked on the generators of the symmetric group, the swap
``(0 1)`` and the cycle ``(0 1 ... k-1)``, which generate every
permutation of ``k`` elements: a map invariant under both is invariant
under all.

* A traced policy (:mod:`proofs.prover.encodings.traced`):
  :func:`share_issue` asks z3 whether the traced shares of one task
  ``c(d, R)`` satisfy ``c(pi d, R) = pi c(d, R)`` (users) and ``c(d sigma,
  R sigma) = c(d, R)`` (resources) for every ``R > 0`` and ``d`` in the
  domain. Progressive filling on the shares, both of its phases (Section
  4), treats users with permuted shares and resources alike, so the
  allocation inherits what the shares have.
* An encoding's formula ``F`` (:func:`formula_issue`): ``F(mk, x)``,
  ``F(pi mk, y)`` and ``y != pi x`` must be unsatisfiable (``F`` has one
  solution, the policy's allocation: :mod:`proofs.prover.crosscheck`). The
  built-in encodings' declarations are tested this way
  (``tests/test_prove_symmetry.py``); an encoding registered outside
  :mod:`proofs.prover.encodings` is checked at every size before a proof
  uses what it declares.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import z3

from .symbolic import Market, market
from .tracing import trace

if TYPE_CHECKING:
    from .encodings import Encoding

#: The two kinds of symmetry.
USERS, RESOURCES = "users", "resources"
#: Milliseconds for each symmetry query.
SYMMETRY_TIMEOUT_MS = 20000
#: The package of the built-in encodings (their declarations are tested).
BUILT_IN = "proofs.prover.encodings"


@dataclass(frozen=True)
class Symmetries:
    """What a proof may reduce by.

    Attributes
    ----------
    users : bool
        Anonymity holds (checked): "user 0" stands for any user.
    resources : bool
        Neutrality holds (checked): resources may be renamed.
    how : str
        How it is known (``"checked by z3 on the traced shares"``, ...).
    """

    users: bool
    resources: bool
    how: str = ""

    def __and__(self, other: Symmetries) -> Symmetries:
        how = self.how if self.how == other.how else "; ".join(h for h in (self.how, other.how) if h)
        return Symmetries(self.users and other.users, self.resources and other.resources, how)

    def words(self, every_user: bool = False) -> str:
        """The reductions in words, for a proof's assumptions (``every_user``:
        the negation's formula names every user in its own place, as the
        dynamic setting's do, so no user symmetry is used)."""
        users = self.users and not every_user
        roles = ("every user keeps its place (the formula names each)" if every_user
                 else "every assignment of users to the property's roles is checked")
        kinds = [w for w, on in (("users", users), ("resources", self.resources)) if on]
        if not kinds:
            return f"none: {roles} and every dominant case is checked"
        text = " and ".join(kinds) + " treated alike"
        if not users:
            text += f"; {roles}"
        if not self.resources:
            text += "; resources keep their names (no renaming)"
        return text + (f" ({self.how})" if self.how else "")


#: No reduction.
NONE = Symmetries(False, False)


def generators(k: int) -> list[tuple[int, ...]]:
    """The swap ``(0 1)`` and the cycle ``(0 1 ... k-1)`` as tuples ``p``
    (position ``i`` of the permuted object is ``p[i]`` of the original);
    none for ``k < 2``."""
    if k < 2:
        return []
    swap = (1, 0, *range(2, k))
    cycle = (*range(1, k), 0)
    return [swap] if k == 2 else [swap, cycle]


def _shown(p: Sequence[int], prefix: str) -> str:
    return "(" + " ".join(f"{prefix}{v}" for v in p) + ")"


def decide(constraints: list[Any], timeout_ms: int | None = None) -> Any:
    """z3's answer (``z3.sat``/``unsat``/``unknown``) on ``constraints``
    (within :data:`SYMMETRY_TIMEOUT_MS` unless ``timeout_ms``)."""
    s = z3.Solver()
    s.set("timeout", SYMMETRY_TIMEOUT_MS if timeout_ms is None else timeout_ms)
    s.add(*constraints)
    return s.check()


def _refuted(answer: Any, subject: str, effect: str) -> str | None:
    """``None`` when z3 proved the symmetry (unsat), else why not: the
    symmetry fails (sat) or z3 could not tell (unknown)."""
    if answer == z3.unsat:
        return None
    if answer == z3.sat:
        return f"{subject} changes {effect}"
    return f"z3 could not decide whether {subject} changes {effect} (timeout)"


def _subject(p: Sequence[int], kind: str) -> str:
    """``"relabelling the users by (u1 u0)"``, ``"renaming the resources by (r1 r0)"``."""
    return (f"relabelling the users by {_shown(p, 'u')}" if kind == USERS
            else f"renaming the resources by {_shown(p, 'r')}")


def share_issue(share: Callable[[Any, Any], Any], n: int, m: int, domain: str, kind: str) -> str | None:
    """``None`` when the share function ``share(demands, capacity)``
    treats ``kind`` (users or resources) alike at ``n x m`` on ``domain``
    (z3 proved it for every ``R > 0``), else why not. Raises
    :class:`~proofs.prover.tracing.Untraceable`."""
    mk, cons = market(n, m, domain, None, None)
    R = [z3.Real(f"R{j}") for j in range(m)]
    cons = cons + [r > 0 for r in R]
    c = trace(share, mk.d, R)
    for p in generators(n if kind == USERS else m):
        if kind == USERS:
            c2 = trace(share, [mk.d[p[i]] for i in range(n)], R)
            differs = z3.Or([c2[i] != c[p[i]] for i in range(n)])
            effect = "the shares of one task beyond relabelling them"
        else:
            c2 = trace(share, [[row[p[j]] for j in range(m)] for row in mk.d], [R[p[j]] for j in range(m)])
            differs = z3.Or([c2[i] != c[i] for i in range(n)])
            effect = "the shares of one task"
        why = _refuted(decide(cons + [differs]), _subject(p, kind), effect)
        if why:
            return why
    return None


def _permuted(mk: Market, p: Sequence[int], kind: str) -> Market:
    """``mk`` with its users (rows, weights, caps, dominant resources) or
    resources (columns, capacities; the dominant resources renamed) permuted
    by ``p``."""

    def pick(v: Sequence[Any] | None) -> list[Any] | None:
        return None if v is None else [v[k] for k in p]

    if kind == USERS:
        rows = pick(mk.dom)
        return Market([mk.d[k] for k in p], mk.R, mk.unit, mk.positive, None if rows is None else tuple(rows),
                      pick(mk.w), pick(mk.cap))
    where = {old: new for new, old in enumerate(p)}
    dom = None if mk.dom is None else tuple(where[j] for j in mk.dom)
    return Market([[row[k] for k in p] for row in mk.d], [mk.R[k] for k in p], mk.unit, mk.positive, dom, mk.w, mk.cap)


def formula_issue(enc: Encoding, n: int, m: int, domain: str, kind: str, weighted: bool = False,
                  capped: bool = False) -> str | None:
    """``None`` when z3 proves that ``enc``'s formula treats ``kind``
    (users or resources) alike on the ``n x m`` instances of ``domain`` a
    proof evaluates it on (capacities 1, rows normalised as the encoding
    says, one query per dominant-resource assignment; symbolic weights /
    caps when asked), else why not."""
    doms: list[tuple[int, ...] | None] = [None]
    if enc.normalise == "max":
        doms = list(itertools.product(range(m), repeat=n))
    x = [z3.Real(f"x{i}") for i in range(n)]
    y = [z3.Real(f"y{i}") for i in range(n)]
    for dom in doms:
        mk, cons = market(n, m, domain, enc.normalise, dom, weighted=weighted, capped=capped)
        base = cons + enc.formula(mk, x, "a")
        for p in generators(n if kind == USERS else m):
            target = [x[k] for k in p] if kind == USERS else list(x)
            differs = z3.Or([y[i] != target[i] for i in range(n)])
            effect = "the allocation beyond relabelling it" if kind == USERS else "the allocation"
            why = _refuted(decide(base + enc.formula(_permuted(mk, p, kind), y, "b") + [differs]), _subject(p, kind),
                           effect)
            if why:
                return why
    return None


def built_in(enc: Encoding) -> bool:
    """Whether ``enc``'s formula comes from this package's encodings (its
    declared symmetries are tested, not re-checked per proof)."""
    return getattr(enc.formula, "__module__", "").startswith(BUILT_IN)


@functools.lru_cache(maxsize=512)
def symmetries(enc: Encoding, sizes: tuple[int, ...], m: int, domain: str, weighted: bool = False,
               capped: bool = False) -> Symmetries:
    """The symmetries a proof may use: those ``enc`` has at every number
    of users in ``sizes`` (the sizes the negation evaluates the policy at)
    with ``m`` resources on ``domain``, as checked (traced shares), tested
    (the built-in declarations) or checked now (a declaration of an
    encoding registered elsewhere)."""
    out: Symmetries | None = None
    for n in sizes:
        if enc.symmetry is not None:
            got = enc.symmetry(n, m, domain)
        elif built_in(enc):
            got = Symmetries(enc.anonymous, enc.neutral, "declared by the encoding, tested with z3")
        else:
            got = Symmetries(
                enc.anonymous and formula_issue(enc, n, m, domain, USERS, weighted, capped) is None,
                enc.neutral and formula_issue(enc, n, m, domain, RESOURCES, weighted, capped) is None,
                "declarations checked by z3 on the encoding's formula")
        out = got if out is None else out & got
    return out or NONE
