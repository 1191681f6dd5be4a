"""Single-resource max-min fairness (:mod:`models.policies.single_resource`;
Ghodsi et al., NSDI 2011, Sections 2 and 4.4) as a formula: weighted,
capped max-min on the share ``x_i d_ir / R_r`` of the chosen resource
``r``, by bottlenecks (:func:`.filling.bottleneck`).

The policy fills in two phases: the users of ``r`` (``d_ir > 0``) first,
the others at 0; then the users without ``r`` share what is left by DRF
(max-min on weighted dominant shares), the first ones frozen. Each phase
is its own bottleneck condition: in the first, saturation is judged on the
first users' usage alone; in the second, on the total. With every demand
positive there is no second phase.

The resource is a column index (the parameter ``resource``); a resource
given by name has no column in a symbolic instance and is not encoded.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from models import get_policy

from ..symbolic import Market
from . import Encoding, register_encoding_factory
from .filling import bottleneck, two_phase


def column_filling(r: int) -> Callable[[Market, Sequence[Any], str], list[Any]]:
    """The two-phase filling on the share of column ``r``."""

    def formula(mk: Market, x: Sequence[Any], tag: str) -> list[Any]:
        share = [mk.d[i][r] / mk.R[r] * x[i] for i in range(mk.n)]
        if mk.positive:
            return bottleneck(mk, x, share)
        return two_phase(mk, x, share, [mk.d[i][r] > 0 for i in range(mk.n)], f"{tag}sr")

    formula.__doc__ = f"Two-phase max-min on the share of column {r}, then DRF."
    return formula


def encode(params: dict[str, Any]) -> Encoding | str:
    """The encoding for the policy's ``resource`` parameter (default 0)."""
    pol = get_policy("single-resource", **params)  # PolicyError for a bad parameter (bad input)
    r = pol.params["resource"]
    if not isinstance(r, int):
        return (f"{pol.label}: the resource is given by name ({r!r}); the symbolic instances have columns only "
                "(give its column index, e.g. resource=0)")

    def validate(n: int, m: int, domain: str) -> str | None:
        return None if r < m else f"{pol.label}: instances with {m} resources have no column {r}"

    return Encoding(pol.label, "max", column_filling(r), weighted=True, capped=True, validate=validate,
                    anonymous=True)  # not neutral: it favours column r


register_encoding_factory("single-resource", encode)
