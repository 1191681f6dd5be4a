"""An adversarial corpus (issue 27, item 5): policies that break anonymity,
neutrality, homogeneity or depend on the number of users
(:mod:`tests.adversarial_policies`), traced and with encodings of their
own. The prover never says PROVED where an exact search finds a
counterexample, every counterexample it gives is confirmed by ``check``,
and it still proves what is true."""

from __future__ import annotations

import pytest

from analyzer import check, prove, search
from analyzer.searching.classes import InstanceClass
from proofs.prover.properties import negations
from tests.adversarial_policies import ENCODED, TRACED, adversaries  # noqa: F401

pytest.importorskip("z3")
#: Every test runs with the adversarial policies registered.
pytestmark = pytest.mark.usefixtures("adversaries")

#: Every adversarial policy by name, but the one refusing a lone user (the
#: search stops at the first instance it refuses; its own test is in
#: ``tests/test_prove_symmetry.py``).
NAMES = [cls.name for cls in (*TRACED, *ENCODED) if cls.name != "adv-negative-alone"]


def _domain(v: object) -> str:
    return "zeros" if (v.instance.demands == 0).any() else "positive"  # type: ignore[attr-defined]


def _sweep(policy: str, props: list[str], budget: int) -> int:
    """For each property: the search's counterexample (sizes up to 3 x 2,
    zero demands allowed) is never PROVED at its size, and the prover's
    own counterexamples at 2 x 2 are confirmed by ``check``. Returns how
    many verdicts were compared."""
    compared = 0
    for prop in props:
        found = search(policy, prop, budget=budget, seed=0, workers=1,
                       instance_class=InstanceClass(zeros=True, n_max=3, m_max=2)).counterexample
        if found is not None and found.instance.n >= negations()[prop].min_users:
            r = prove(policy, prop, found.instance.n, found.instance.m, domain=_domain(found), workers=1)
            assert r.status != "proved", (policy, prop, found.one_line())
            compared += 1
        for domain in ("positive", "zeros"):
            r = prove(policy, prop, 2, 2, domain=domain, workers=1)
            if r.status == "counterexample":
                again = check(policy, r.counterexample.instance, prop)
                assert again is not None and again.exact, (policy, prop, domain)
                compared += 1
    return compared


@pytest.mark.parametrize("policy", ["adv-by-index", "adv-one-column", "adv-by-index-encoded"])
def test_prover_never_proves_what_the_search_refutes(policy: str) -> None:
    assert _sweep(policy, ["sharing-incentive", "envy-freeness", "bottleneck-fairness"], budget=60) >= 3


@pytest.mark.slow
@pytest.mark.parametrize("policy", NAMES)
def test_prover_never_proves_what_the_search_refutes_every_property(policy: str) -> None:
    assert _sweep(policy, sorted(negations()), budget=200) >= 1


@pytest.mark.parametrize(("n", "domain"), [(2, "positive"), (2, "zeros"), (3, "zeros")])
def test_envy_freeness_of_a_weighted_dominant_share_is_proved(n: int, domain: str) -> None:
    # resources weighted 1 and 3: not neutral, so no case is identified with its renamed copy, and yet
    # filling on a monotone, homogeneous share of the bundle is envy-free
    r = prove("adv-weighted-drf", "envy-freeness", n, 2, domain=domain, workers=1)
    assert r.status == "proved", r.reason
    assert "resources keep their names" in r.assumptions["symmetries"]
    assert len(r.cases) == 2 ** n  # every dominant assignment (users 0, 1 in the roles, user 2 free)


def test_true_properties_of_a_non_anonymous_share_are_still_proved() -> None:
    # favouring user 0 keeps the allocation efficient: Pareto efficiency holds for every user in the role
    r = prove("adv-by-index", "pareto-efficiency", 3, 2, domain="zeros", workers=1)
    assert r.status == "proved" and len({c.label.split(";")[0] for c in r.cases}) == 3


def test_non_homogeneous_share_is_proved_without_normalising_task_sizes() -> None:
    from proofs.prover.encodings import get_encoding

    assert get_encoding("adv-squared").normalise is None
    r = prove("adv-squared", "pareto-efficiency", 2, 2, workers=1)
    assert r.status == "proved" and r.assumptions["user scale normalisation"].startswith("none")
    assert prove("adv-squared", "envy-freeness", 2, 1, workers=1).status == "counterexample"


def test_share_depending_on_n_is_checked_at_both_sizes() -> None:
    # DRF with three users, asset fairness with two: population monotonicity compares them
    r = prove("adv-by-count", "population-monotonicity", 3, 2, domain="zeros", workers=1)
    assert r.status == "counterexample"
    assert check("adv-by-count", r.counterexample.instance, "population-monotonicity") is not None
