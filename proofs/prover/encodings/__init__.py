"""SMT encodings of allocation policies: a formula over a symbolic instance
and task variables whose unique solution is the policy's allocation.

Every encoding covers the unweighted, uncapped continuous setting
(Ghodsi et al., NSDI 2011, Sections 4-5); weights and task caps are not
encoded. One module per policy family; an encoding registers with
:func:`register_encoding`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from models import PolicyError
from models.registry import Registry

from ..symbolic import Market


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
    """

    name: str
    normalise: str | None
    formula: Callable[[Market, Sequence[Any], str], list[Any]]


#: The SMT encodings by policy name (one module per family in this package).
ENCODINGS: Registry[Encoding] = Registry("SMT-encoded policy", lazy=(__name__,), error=PolicyError)


def register_encoding(
    name: str, normalise: str | None
) -> Callable[[Callable[..., list[Any]]], Callable[..., list[Any]]]:
    """Decorator registering ``formula`` as the encoding of policy ``name``."""

    def deco(formula: Callable[..., list[Any]]) -> Callable[..., list[Any]]:
        ENCODINGS.register(name, Encoding(name, normalise, formula))
        return formula

    return deco


def encodings() -> dict[str, Encoding]:
    """Every registered encoding by policy name (modules loaded on first use)."""
    return dict(ENCODINGS.items())


def get_encoding(policy: str) -> Encoding:
    """The encoding of ``policy`` (:class:`~models.PolicyError` when there is none)."""
    return ENCODINGS.get(policy)
