"""SMT encodings of fairness properties, negated: a formula that is
satisfiable exactly when the policy violates the property on some instance
of the given size and domain.

Each module encodes one property (Ghodsi et al., NSDI 2011, Sections 3 and
6; the definitions of :mod:`analyzer.properties`, unweighted and uncapped)
and registers it with :func:`register_negation`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import z3

from models import PolicyError
from models.registry import Registry

from ..encodings import Encoding
from ..symbolic import Case, Market, market


@dataclass
class Query:
    """One satisfiability question.

    Attributes
    ----------
    constraints : list
        z3 constraints; satisfiable iff a counterexample exists in the case.
    witness : dict
        Terms whose model values describe the counterexample:
        ``"demands"`` (n x m, capacities 1) and, by property, ``"report"``
        (the liar's reported demand) or ``"capacity"`` (grown capacities).
    """

    constraints: list[Any]
    witness: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Negation:
    """A property's negation.

    Attributes
    ----------
    name : str
        Property name (``"strategy-proofness"``).
    roles : callable
        ``roles(n) -> (fixed, free)``: the users the formula distinguishes
        by default, in role order (e.g. the victim, then the envied user),
        and the others. For a policy that treats users alike (checked:
        :mod:`proofs.prover.symmetry`) the default users stand for any and
        the others are interchangeable; otherwise the split assigns every
        tuple of distinct users to the roles (:class:`Case`).
    extra_rows : int
        Further demand rows with their own dominant resource (a report).
    build : callable
        ``build(encoding, n, m, domain, case, *, weighted=False,
        capped=False) -> Query`` (symbolic weights / task caps when set);
        ``case`` is a :class:`Case` (a bare dominant-resource tuple or
        ``None`` means the default roles).
    min_users : int
        Smallest number of users the formula can be built for.
    resources : int or None
        The only number of resources the property speaks about (``1`` for
        single-resource fairness); at other sizes no allocation violates it
        (:func:`analyzer.prove` says "vacuous").
    weighted, capped : bool
        The negation uses the checker's weighted / capped definition (so a
        query with symbolic weights / caps asks the right question).
    speaks : (int, int)
        The smallest size (users, resources) at which the property
        constrains a policy that wastes nothing: at a smaller size every
        Pareto-efficient allocation satisfies it (for Pareto efficiency
        itself: every size speaks), so a proof there says little about the
        policy (population monotonicity at 2 users only asks what a lone
        user gets). ``table --prove`` proves every cell at least at this
        size; ``tests/test_prove_vacuity.py`` checks each declaration with
        z3.
    smaller : bool
        The formula also evaluates the policy with one user fewer (the one
        leaving): the encoding must hold, and the symmetries be checked, at
        ``n - 1`` users too.
    every_user : bool
        The formula itself quantifies over every user, each in its own
        place (the dynamic setting tells users apart by their arrival): the
        split assigns no roles, and no user symmetry reduces it.
    """

    name: str
    roles: Callable[[int], tuple[list[int], list[int]]]
    extra_rows: int
    build: Callable[..., Query]
    min_users: int = 1
    resources: int | None = None
    weighted: bool = False
    capped: bool = False
    speaks: tuple[int, int] = (2, 1)
    smaller: bool = False
    every_user: bool = False

    def covers(self, weighted: bool, capped: bool) -> str | None:
        """``None`` when the negation speaks of the class, else the reason."""
        missing = [w for w, asked, has in (("weights", weighted, self.weighted), ("caps", capped, self.capped))
                   if asked and not has]
        return None if not missing else f"{self.name}: the negation is not encoded with {' and '.join(missing)}"

    def sizes(self, n: int) -> tuple[int, ...]:
        """The numbers of users the formula evaluates the policy at."""
        return (n, n - 1) if self.smaller and n > 1 else (n,)

    def default_case(self, n: int, dom: tuple[int, ...] | None = None) -> Case:
        """The case with the default users in the roles."""
        return Case(dom, tuple(self.roles(n)[0]))


#: ``distinguished`` for :func:`register_negation` when the formula
#: quantifies over every user itself (:attr:`Negation.every_user`): more
#: users than any proof has.
EVERY_USER = 1 << 16

#: The negated properties by name (one module each in this package).
NEGATIONS: Registry[Negation] = Registry("SMT-encoded property", lazy=(__name__,), error=PolicyError)


def register_negation(
    name: str,
    distinguished: int,
    extra_rows: int = 0,
    min_users: int = 1,
    last_distinguished: bool = False,
    resources: int | None = None,
    weighted: bool = False,
    capped: bool = False,
    speaks: tuple[int, int] = (2, 1),
) -> Callable[[Callable[..., Query]], Callable[..., Query]]:
    """Decorator registering ``build`` as the negation of property ``name``.

    The formula distinguishes users ``0 .. distinguished - 1`` by default
    (and the last user when ``last_distinguished``, e.g. the one leaving:
    then it also evaluates the policy without that user); ``build`` reads
    the users actually in the roles from its case (``case.roles``).
    """

    def roles(n: int) -> tuple[list[int], list[int]]:
        fixed = list(range(min(distinguished, n)))
        if last_distinguished and n - 1 not in fixed:
            fixed.append(n - 1)
        return fixed, [i for i in range(n) if i not in fixed]

    def deco(build: Callable[..., Query]) -> Callable[..., Query]:
        def with_case(enc: Encoding, n: int, m: int, domain: str, case: Case | tuple[int, ...] | None,
                      **cls: bool) -> Query:
            if not isinstance(case, Case):
                case = Case(case, tuple(roles(n)[0]))
            return build(enc, n, m, domain, case, **cls)

        with_case.__doc__ = build.__doc__
        NEGATIONS.register(name, Negation(name, roles, extra_rows, with_case, min_users, resources, weighted, capped,
                                          speaks, last_distinguished, distinguished >= EVERY_USER))
        return build

    return deco


def negations() -> dict[str, Negation]:
    """Every registered negation by property name."""
    return dict(NEGATIONS.items())


def get_negation(prop: str) -> Negation:
    """The negation of ``prop`` (:class:`~models.PolicyError` when there is none)."""
    return NEGATIONS.get(prop)


def allocated(enc: Encoding, n: int, m: int, domain: str, dom: tuple[int, ...] | None, *,
              weighted: bool = False, capped: bool = False) -> tuple[Market, list[Any], list[Any]]:
    """The symbolic instance (``R = 1``; symbolic weights / caps when
    ``weighted`` / ``capped``), its task variables ``x`` and the
    constraints saying that ``x`` is the policy's allocation on it."""
    mk, cons = market(n, m, domain, enc.normalise, dom, weighted=weighted, capped=capped)
    x = [z3.Real(f"x{i}") for i in range(n)]
    return mk, x, cons + enc.formula(mk, x, "a")


def tasks(prefix: str, n: int) -> list[Any]:
    """Task variables of a deviated instance."""
    return [z3.Real(f"{prefix}{i}") for i in range(n)]


def witness(mk: Market, case: Case | None = None, **extra: Any) -> dict[str, Any]:
    """The witness terms of a counterexample on ``mk``: its demands, its
    weights and caps when symbolic, ``extra`` vectors (a report, grown
    capacities) and, when the case names them, the users in the roles
    (``"roles"``, as constants)."""
    out: dict[str, Any] = {"demands": mk.d, **extra}
    if case is not None and case.named:
        out["roles"] = [z3.RealVal(u) for u in case.roles]
    if mk.w is not None:
        out["weights"] = mk.w
    if mk.cap is not None:
        out["caps"] = mk.cap
    return out


def below_cap(mk: Market, x: Sequence[Any], i: int) -> Any:
    """``x_i < k_i`` (``True`` when uncapped)."""
    return z3.BoolVal(True) if mk.cap is None else x[i] < mk.cap[i]


def waterfilled(mk: Market, b: int, tag: str) -> tuple[list[Any], list[Any]]:
    """Weighted max-min with caps on resource ``b`` (the reference of
    bottleneck and single-resource fairness): ``z_i = min(k_i, t w_i /
    d_ib)`` with the largest level ``t`` keeping ``sum_i z_i d_ib <= R_b``
    (every user at its cap when that leaves capacity over). Needs
    ``d_ib > 0`` for every user. Returns ``z`` and its constraints (they
    determine ``z`` uniquely)."""
    z = [z3.Real(f"{tag}z{i}") for i in range(mk.n)]
    t = z3.Real(f"{tag}t")
    cons = [t >= 0, mk.load(z, b) <= mk.R[b]]
    for i in range(mk.n):
        free = z[i] * mk.d[i][b] == t * mk.weight(i)
        if mk.cap is None:
            cons.append(free)
        else:
            cons.append(z3.Or(z3.And(free, z[i] <= mk.cap[i]),
                              z3.And(z[i] == mk.cap[i], mk.cap[i] * mk.d[i][b] <= t * mk.weight(i))))
    everyone_capped = z3.BoolVal(False) if mk.cap is None else z3.And([z[i] == mk.cap[i] for i in range(mk.n)])
    cons.append(z3.Or(mk.saturated(z, b), everyone_capped))
    return z, cons
