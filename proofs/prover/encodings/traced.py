"""Encodings of user filling policies, built by tracing their share
function: a registered :class:`~models.filling.FillingPolicy` without an
encoding of its own is progressive filling (Ghodsi et al., NSDI 2011,
Sections 4.2 and 4.3) on the shares ``y_i = c_i x_i``, where ``c_i`` is
``share_per_task`` evaluated on symbolic arrays
(:mod:`proofs.prover.tracing`); the bottleneck characterisation of
:mod:`proofs.prover.encodings.filling` (weights and caps included) then
pins the allocation down.

What the encoding assumes, and checks per size and domain before a proof
(:attr:`Encoding.validate`, z3 validity queries on the traced terms):

* no share of one task is negative (the family refuses those);
* the shares are invariant under scaling a resource together with its
  capacity (the prover normalises capacities to 1).

What it may use, checked the same way per size and domain
(:attr:`Encoding.symmetry`, :func:`proofs.prover.symmetry.share_issue`):
whether the shares treat users alike (relabelling the users relabels the
shares) and resources alike (renaming the resources changes no share). A
share favouring a user or reading one column lacks one, and the proof
then checks every user in the property's roles and every dominant case.

A user whose share of one task is 0 (e.g. no CPU demand under a CPU-only
share) is in the family's second phase: the positive-share users fill
first, then the others share the rest by DRF; the formula has both phases
unless z3 shows every share positive on the domain.

No per-user normalisation is assumed (task sizes may matter).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import z3

from models import PolicyError, get_policy
from models.filling import FillingPolicy

from ..symbolic import POSITIVE, ZEROS, Market, market
from ..symmetry import NONE, RESOURCES, USERS, Symmetries, share_issue
from ..tracing import Untraceable, trace
from . import FALLBACKS, Encoding, Unencodable
from .filling import bottleneck, two_phase

#: FillingPolicy methods a traced policy must not override: the encoding
#: models the family's own filling on ``share_per_task``.
_FAMILY_METHODS = ("shares_for", "solve", "solve_exact", "shares_batch", "solve_batch")
#: Seconds for each validity query of :func:`_validate`.
VALIDATE_TIMEOUT_MS = 20000


def _shares(pol: FillingPolicy, mk: Market) -> list[Any]:
    return trace(pol.share_per_task, mk.d, mk.R)


def traced_encoding(label: str) -> Encoding:
    """The encoding of the user filling policy ``label`` (a fallback of
    :func:`~proofs.prover.encodings.get_encoding`).

    Raises
    ------
    Unencodable
        For a policy outside the family, one overriding the family's
        filling, or a share function that cannot be traced.
    """
    try:
        pol = get_policy(label)
    except PolicyError as e:
        raise Unencodable(str(e)) from None
    name = pol.label
    key = (type(pol), name)
    if key not in _CACHE:
        _CACHE[key] = _build(pol, name)
    return _CACHE[key]


#: Traced encodings by policy class and label (one trace per process).
_CACHE: dict[tuple[type, str], Encoding] = {}


def _build(pol: Any, name: str) -> Encoding:
    """:func:`traced_encoding` once ``pol`` is known."""
    if not isinstance(pol, FillingPolicy):
        raise Unencodable(f"{name}: no SMT encoding (not a FillingPolicy, so no share function to trace)")
    changed = [m for m in _FAMILY_METHODS if getattr(type(pol), m) is not getattr(FillingPolicy, m)]
    if changed:
        raise Unencodable(f"{name}: no SMT encoding (it overrides FillingPolicy.{changed[0]}, so tracing "
                          "share_per_task would not model it)")
    try:
        normalise = "max" if _homogeneity_issue(pol, 2, 2, "zeros") is None else None
    except Untraceable as e:
        raise Unencodable(f"{name}: share_per_task cannot be traced on symbolic arrays ({e})") from None

    def formula(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
        c = _shares(pol, mk)
        share = [c[i] * x[i] for i in range(mk.n)]
        if _shares_positive(pol, mk.n, mk.m, POSITIVE if mk.positive else ZEROS):
            return bottleneck(mk, x, share)
        return two_phase(mk, x, share, [c[i] > 0 for i in range(mk.n)], f"{tag}tr")  # positive shares first

    def validate(n: int, m: int, domain: str) -> str | None:
        why = _validate(pol, name, n, m, domain)
        if why is None and normalise is not None:
            issue = _homogeneity_issue(pol, n, m, domain)  # n z3 queries: asked once
            if issue:
                why = f"{name}: {issue} at {n}x{m} (one user's scale cannot be normalised)"
        return why

    formula.__doc__ = f"Progressive filling on the traced shares of {name}."
    return Encoding(name, normalise, formula, weighted=True, capped=True, validate=validate,
                    symmetry=functools.partial(_symmetries, pol))


@functools.lru_cache(maxsize=256)
def _symmetries(pol: FillingPolicy, n: int, m: int, domain: str) -> Symmetries:
    """The symmetries z3 proves of ``pol``'s traced shares at ``n x m`` on
    ``domain`` (none it cannot prove, nor when the shares cannot be traced)."""
    try:
        users = share_issue(pol.share_per_task, n, m, domain, USERS) is None
        resources = share_issue(pol.share_per_task, n, m, domain, RESOURCES) is None
    except Untraceable:
        return NONE
    return Symmetries(users, resources, "checked by z3 on the traced shares")


def _homogeneity_issue(pol: FillingPolicy, n: int, m: int, domain: str) -> str | None:
    """``None`` when scaling one user's demand row by ``s > 0`` multiplies
    its share of one task by ``s`` and leaves the others' unchanged (then
    bundles do not depend on task sizes and the ``"max"`` normalisation
    applies), else what fails. Raises :class:`Untraceable`."""
    mk, cons = market(n, m, domain, None, None)
    R = [z3.Real(f"R{j}") for j in range(m)]
    s = z3.Real("s")
    c = _shares(pol, Market(mk.d, R, False, mk.positive))
    for i in range(n):
        rows = [[v * s for v in row] if k == i else row for k, row in enumerate(mk.d)]
        c2 = _shares(pol, Market(rows, R, False, mk.positive))
        differs = z3.Or([c2[k] != (c[k] * s if k == i else c[k]) for k in range(n)])
        if _possible(cons + [r > 0 for r in R] + [s > 0, differs]):
            return "scaling one user's demand does not scale only its own share"
    return None


def _validate(pol: FillingPolicy, name: str, n: int, m: int, domain: str) -> str | None:
    """Why the traced encoding does not cover ``n x m`` instances of
    ``domain`` (``None`` when it does): a share of one task that can be
    negative, or shares that change when a resource is rescaled."""
    try:
        mk, cons = market(n, m, domain, None, None)
        R = [z3.Real(f"R{j}") for j in range(m)]
        a = [z3.Real(f"a{j}") for j in range(m)]
        general = Market(mk.d, R, False, mk.positive)
        scaled = Market([[mk.d[i][j] * a[j] for j in range(m)] for i in range(n)], [R[j] * a[j] for j in range(m)],
                        False, mk.positive)
        c, c_scaled = _shares(pol, general), _shares(pol, scaled)
    except Untraceable as e:
        return f"{name}: share_per_task cannot be traced at {n}x{m} ({e})"
    positive = cons + [r > 0 for r in R] + [v > 0 for v in a]
    if _possible(positive + [z3.Or([c[i] < 0 for i in range(n)])]):
        return f"{name}: a share of one task can be negative with {domain} demands at {n}x{m}"
    if _possible(positive + [z3.Or([c[i] != c_scaled[i] for i in range(n)])]):
        return f"{name}: shares change when a resource and its capacity are rescaled (capacities cannot be normalised)"
    return None


@functools.lru_cache(maxsize=64)
def _shares_positive(pol: FillingPolicy, n: int, m: int, domain: str) -> bool:
    """Whether every share of one task is ``> 0`` on the domain (then the
    family's second, zero-share phase never happens)."""
    mk, cons = market(n, m, domain, None, None)
    R = [z3.Real(f"R{j}") for j in range(m)]
    c = _shares(pol, Market(mk.d, R, False, mk.positive))
    return not _possible(cons + [r > 0 for r in R] + [z3.Or([v <= 0 for v in c])])


def _possible(constraints: list[Any]) -> bool:
    """Whether z3 finds ``constraints`` satisfiable or cannot rule them out."""
    s = z3.Solver()
    s.set("timeout", VALIDATE_TIMEOUT_MS)
    s.add(*constraints)
    return s.check() != z3.unsat


FALLBACKS.append(traced_encoding)
