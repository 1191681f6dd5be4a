"""No float sneaks into an exact path (issue 12).

Every registered policy with an exact solver (its own ``solve_exact`` or one
in :data:`proofs.EXACT_SOLVERS`), and the parameterised built-ins at several
parameter values, is solved exactly on seeded small-integer instances
(weights, caps including 0, zero demand entries, unused resources). Every
number must be a Fraction or an exact sympy number (no Float atom) whose
rational parts have small denominators -- a float converted to a Fraction
has a denominator 2^k with k around 50 -- and must agree with the numeric
solve. The ``--explain`` certificate must hold and print exact numbers too.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from analyzer import Instance, solve
from models import get_policy
from models.policy import available
from models.tolerances import CROSSCHECK_RTOL
from proofs import EXACT_SOLVERS, explain
from tests.exact_instances import small_integer_instances

#: A float turned into a Fraction has a denominator 2^k (k about 50), and its
#: shortest decimal one 2^a 5^b: such denominators above this are float-derived.
#: (Exact answers on the test data have small denominators; rigorous root
#: isolating intervals in CEEI certificates have large odd ones.)
FLOAT_DENOMINATOR = 2**30

#: Parameter values tried for the parameterised built-ins.
PARAMETERS: dict[str, list[str]] = {
    "slots": ["slots=1", "slots=3", "slots=4", "slots=5", "slots=7", "slots=12"],
    "single-resource": ["resource=0", "resource=1", "resource=2"],
    "fds": ["beta=inf"],
    "gfj": ["beta=inf"],
}

#: Instances per policy variant (smaller for the sympy-based CEEI programs).
COUNT = 30
HEAVY = {"ceei", "bbf"}
#: Policies defined on a group tree (users get groups).
GROUPED = {"hdrf", "hdrf-naive"}


def _specs() -> list[str]:
    out = []
    for name, cls in available().items():
        if cls.discrete_only:
            continue
        variants = [f"{name}:{p}" for p in PARAMETERS.get(name, [])] or [name]
        out += [v for v in variants if get_policy(v).has_exact or name in EXACT_SOLVERS]
    return out


SPECS = _specs()


def _rationals(v: Any) -> list[Fraction]:
    """The rational numbers an exact value is built from (raises on a float)."""
    if isinstance(v, Fraction):
        return [v]
    if isinstance(v, int) and not isinstance(v, bool):
        return [Fraction(v)]
    import sympy

    assert isinstance(v, sympy.Basic), f"not an exact number: {v!r} ({type(v).__name__})"
    assert not v.atoms(sympy.Float), f"float inside an exact number: {v}"
    return [Fraction(int(r.p), int(r.q)) for r in v.atoms(sympy.Rational)]


def _float_derived(den: int) -> bool:
    """A denominator of the form 2^a 5^b above :data:`FLOAT_DENOMINATOR`."""
    rest = den
    for p in (2, 5):
        while rest % p == 0:
            rest //= p
    return rest == 1 and den > FLOAT_DENOMINATOR


def _small(values: list[Fraction], where: str) -> None:
    for r in values:
        assert not _float_derived(r.denominator), f"{where}: denominator {r.denominator} is float-derived"


@pytest.mark.parametrize("spec", SPECS)
def test_exact_results_are_exact_and_agree_with_the_numeric_solve(spec: str) -> None:
    name = spec.partition(":")[0]
    pol = get_policy(spec)
    solved = 0
    for inst in small_integer_instances(seed=2012, count=COUNT, max_users=3 if name in HEAVY else 4,
                                        groups=name in GROUPED):
        if pol.supports(inst) is not None:
            continue
        alloc = solve(inst, pol, exact=True)
        if not alloc.exact:  # an interval enclosure beyond exact reach: not an exact result
            continue
        assert alloc.x_exact is not None and len(alloc.x_exact) == inst.n
        for user, v in zip(inst.users, alloc.x_exact, strict=True):
            _small(_rationals(v), f"{spec} {user} on {inst.to_dict()}")
        exact_floats = np.array([float(v) for v in alloc.x_exact])
        np.testing.assert_allclose(solve(inst, pol).x, exact_floats, rtol=CROSSCHECK_RTOL,
                                   atol=CROSSCHECK_RTOL, err_msg=f"{spec} on {inst.to_dict()}")
        _certificate_is_exact(pol, alloc, spec, inst)
        solved += 1
    assert solved >= COUNT // 3, f"{spec}: only {solved} exact solves"


def _certificate_is_exact(pol: Any, alloc: Any, spec: str, inst: Instance) -> None:
    lines = explain(pol, alloc)
    cert = alloc.certificate
    if hasattr(cert, "holds"):
        assert cert.holds, (spec, inst.to_dict(), lines)
    text = "\n".join(lines)
    assert not re.search(r"\d\.\d{7,}", text), f"{spec}: a long decimal in the certificate: {text}"
    for num, den in re.findall(r"(\d+)/(\d+)", text):
        assert not _float_derived(int(den)), f"{spec}: {num}/{den} in the certificate"


def test_every_exact_policy_is_covered() -> None:
    names = {s.partition(":")[0] for s in SPECS}
    expected = {n for n, c in available().items() if not c.discrete_only
                and (c().has_exact if not c.parameters else True) or n in EXACT_SOLVERS}
    assert expected - {"fds", "gfj"} <= names
    assert {"slots", "utilitarian", "bbf", "ceei", "single-resource"} <= names


def test_slots_exact_at_three_slots_is_a_small_fraction() -> None:
    # issue 12: 3 slots gave 54043195528445949/72057594037927936 instead of 3/4
    inst = Instance.from_dict({"resources": {"cpu": 6, "mem": 6},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 1}}, "B": {"demand": {"cpu": 2}}}})
    alloc = solve(inst, "slots:slots=3", exact=True)
    assert all(isinstance(v, Fraction) and v.denominator < 100 for v in alloc.x_exact)


def test_utilitarian_gives_exactly_zero_where_the_optimum_does() -> None:
    # every optimum gives C nothing (it needs 3 of r0 per task, A and B 1):
    # the tie-break may not hand C the slack of the total
    inst = Instance.from_dict({"resources": {"r0": 10, "r1": 4},
                               "users": {"A": {"demand": {"r0": 1, "r1": 1}}, "B": {"demand": {"r0": 1}},
                                         "C": {"demand": {"r0": 3}, "weight": 2}}})
    x = solve(inst, "utilitarian").x
    assert x[2] == 0.0
    exact = solve(inst, "utilitarian", exact=True)
    assert exact.x_exact == (Fraction(4), Fraction(6), Fraction(0))
    np.testing.assert_allclose(x, [4, 6, 0], rtol=1e-9)


def test_bbf_has_the_exact_ceei_path() -> None:
    inst = Instance.from_dict({"resources": {"cpu": 12, "mem": 10},
                               "users": {"A": {"demand": {"cpu": 1, "mem": 2}, "weight": 2},
                                         "B": {"demand": {"cpu": 3, "mem": 1}},
                                         "C": {"demand": {"cpu": 1}, "max_tasks": 2}}})
    b, c = solve(inst, "bbf", exact=True), solve(inst, "ceei", exact=True)
    assert b.exact and b.certificate.holds and b.x_exact == c.x_exact


def test_utilitarian_is_feasible_on_tiny_capacities() -> None:
    # LP tolerances are absolute (~1e-7): on a capacity of 4e-9 the unscaled
    # tie-break gave A and B the whole capacity each
    inst = Instance.from_dict({"resources": {"r0": "4/1000000000", "r1": 1},
                               "users": {"A": {"demand": {"r0": 1}}, "B": {"demand": {"r0": 1}, "weight": 3},
                                         "C": {"demand": {"r1": 1}}}})
    alloc = solve(inst, "utilitarian")
    assert alloc.max_violation() <= 1e-9
    assert solve(inst, "utilitarian", exact=True).x_exact == (Fraction(1, 10**9), Fraction(3, 10**9), Fraction(1))
    np.testing.assert_allclose(alloc.x, [1e-9, 3e-9, 1], rtol=1e-7, atol=0)
