"""SMT encodings of allocation policies: a formula over a symbolic instance
and task variables whose unique solution is the policy's allocation.

Every encoding covers the unweighted, uncapped continuous setting
(Ghodsi et al., NSDI 2011, Sections 4-5); one that also honours the
symbolic weights ``mk.w`` (Section 4.3) or task caps ``mk.cap`` says so
(:attr:`Encoding.weighted`, :attr:`Encoding.capped`). One module per policy
family; an encoding registers with :func:`register_encoding`, a
parameterised family with :func:`register_encoding_factory`, and a policy
that cannot be encoded with :func:`register_unencodable` (the prover then
answers "unknown" with the reason, never a silent ✓).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from models import PolicyError
from models.policy import parse_policy_spec
from models.registry import Registry

from ..symbolic import Market
from ..symmetry import Symmetries


class Unencodable(PolicyError):
    """A known policy (or parameter value) the prover cannot encode; the
    message is the reason (:func:`analyzer.prove` reports it as status
    ``"unknown"``, not as bad input)."""


@dataclass(frozen=True)
class Encoding:
    """A policy as a formula.

    Attributes
    ----------
    name : str
        The registered policy name.
    normalise : {"max", "sum", None}
        The per-user scale normalisation the policy allows (see
        :mod:`proofs.prover.symbolic`); ``None`` when task sizes matter.
    formula : callable
        ``formula(market, x, tag) -> list of z3 constraints`` that hold
        exactly when ``x`` is the policy's allocation on ``market``
        (``tag`` prefixes auxiliary variable names).
    weighted : bool
        The formula honours the symbolic weights ``market.w``.
    capped : bool
        The formula honours the symbolic task caps ``market.cap``.
    validate : callable or None
        ``validate(n, m, domain) -> None | reason``: why the formula does
        not cover instances of that size and domain (checked by
        :func:`analyzer.prove` before solving; ``None``: it covers all).
    anonymous, neutral : bool
        The policy treats users alike / resources alike
        (:mod:`proofs.prover.symmetry`); the default is neither. The
        built-in encodings' declarations are tested with z3; those of an
        encoding registered elsewhere are checked with z3 before a proof
        uses them.
    symmetry : callable or None
        ``symmetry(n, m, domain) -> Symmetries``: the symmetries checked at
        that size and domain (a traced policy's, by z3 on its shares);
        when set it replaces the declarations.
    """

    name: str
    normalise: str | None
    formula: Callable[[Market, Sequence[Any], str], list[Any]]
    weighted: bool = False
    capped: bool = False
    validate: Callable[[int, int, str], str | None] | None = None
    anonymous: bool = False
    neutral: bool = False
    symmetry: Callable[[int, int, str], Symmetries] | None = None

    def covers(self, weighted: bool, capped: bool) -> str | None:
        """``None`` when the encoding covers the class, else the reason."""
        missing = [w for w, asked, has in (("weighted", weighted, self.weighted), ("capped", capped, self.capped))
                   if asked and not has]
        if not missing:
            return None
        covers = [w for w, has in (("weighted", self.weighted), ("capped", self.capped)) if has]
        only = " and ".join(covers) if covers else "unweighted, uncapped"
        return f"{self.name}: encoding covers {only} instances only (not {' and '.join(missing)})"


#: A parameterised family: ``factory(params) -> Encoding`` or the reason
#: (a str) the parameter values cannot be encoded.
Factory = Callable[[dict[str, Any]], "Encoding | str"]

#: The SMT encodings by policy name (one module per family in this package).
ENCODINGS: Registry[Encoding] = Registry("SMT-encoded policy", lazy=(__name__,), error=PolicyError)
#: Encoding factories of parameterised policies, by policy name.
FACTORIES: Registry[Factory] = Registry("SMT-encoded policy family", lazy=(__name__,), error=PolicyError)
#: Why a policy cannot be encoded, by policy name.
UNENCODABLE: Registry[str] = Registry("unencodable policy", lazy=(__name__,), error=PolicyError)
#: What each factory made, by factory and parameters.
_MADE: dict[tuple[Factory, str], Encoding | str] = {}
#: Fallbacks tried, in order, for a policy with no entry above (e.g. the
#: tracer of user filling policies): ``fallback(label) -> Encoding``, raising
#: :class:`Unencodable` when it does not apply.
FALLBACKS: list[Callable[[str], Encoding]] = []


def register_encoding(
    name: str, normalise: str | None, *, weighted: bool = False, capped: bool = False, anonymous: bool = False,
    neutral: bool = False,
) -> Callable[[Callable[..., list[Any]]], Callable[..., list[Any]]]:
    """Decorator registering ``formula`` as the encoding of policy ``name``
    (``weighted``/``capped``: whether it honours ``mk.w``/``mk.cap``;
    ``anonymous``/``neutral``: whether the policy treats users / resources
    alike, see :class:`Encoding`)."""

    def deco(formula: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
        ENCODINGS.register(name, Encoding(name, normalise, formula, weighted, capped, anonymous=anonymous,
                                          neutral=neutral))
        return formula

    return deco


def register_encoding_factory(name: str, factory: Factory) -> Factory:
    """Register the encodings of the parameterised policy ``name``:
    ``get_encoding("name:k=v")`` calls ``factory({"k": v})``."""
    return FACTORIES.register(name, factory)


def register_unencodable(name: str, reason: str) -> None:
    """Record that policy ``name`` cannot be encoded, and why."""
    UNENCODABLE.register(name, reason)


def encodings() -> dict[str, Encoding]:
    """Every registered (unparameterised) encoding by policy name (modules
    loaded on first use)."""
    return dict(ENCODINGS.items())


def encodable(policy: str) -> bool:
    """Whether :func:`get_encoding` gives ``policy`` an encoding."""
    try:
        get_encoding(policy)
    except PolicyError:
        return False
    return True


def get_encoding(policy: str) -> Encoding:
    """The encoding of ``policy`` (a name, optionally with ``:k=v``
    parameters, as :func:`models.get_policy` takes it).

    Raises
    ------
    Unencodable
        For a policy (or parameter value) that cannot be encoded; the
        message says why.
    PolicyError
        For a malformed label.
    """
    name, params = parse_policy_spec(policy)
    ENCODINGS.load()
    if name in FACTORIES:
        factory = FACTORIES.get(name)
        key = (factory, repr(sorted(params.items())))
        if key not in _MADE:  # one encoding per label: the per-encoding caches (cross-check, symmetries) then hit
            _MADE[key] = factory(params)
        made = _MADE[key]
        if isinstance(made, str):
            raise Unencodable(made)
        return made
    if name in UNENCODABLE:
        raise Unencodable(f"{name}: {UNENCODABLE.get(name)}")
    if name in ENCODINGS:
        if params:
            raise Unencodable(f"{name}: the encoding covers the policy without parameters, got {policy!r}")
        return ENCODINGS.get(name)
    reasons = []
    for fallback in FALLBACKS:
        try:
            return fallback(policy)
        except Unencodable as e:
            reasons.append(str(e))
    raise Unencodable("; ".join(reasons) or f"{name}: no SMT encoding")
