"""The self-check corpus (issue 12): every property checker on known
violations and known non-violations of every registered continuous policy
(``tests/known_cases.py``, each case with its source or derivation).

A false ✓ (a known violation not found) or a false ✗ (a violation reported
where the property provably holds) fails the build; so does a registered
continuous policy x property without any case.
"""

from __future__ import annotations

import warnings

import pytest

from analyzer import Instance, check
from analyzer.properties import available_properties
from models import available
from tests.known_cases import CASES as STATIC_CASES
from tests.known_cases import Case, prepare
from tests.known_cases_dynamic import DYNAMIC_CASES, static_cases

#: The corpus: the static cases, the dynamic mechanisms' static cases and the
#: dynamic setting's (tests/known_cases_dynamic.py).
CASES = STATIC_CASES + static_cases(STATIC_CASES) + DYNAMIC_CASES

PARAMS = [
    pytest.param(policy, case, id=f"{policy}|{case.property}|{'violated' if case.violated else 'holds'}|{k}",
                 marks=[pytest.mark.xfail(reason=case.xfail, strict=True)] if case.xfail else [])
    for k, case in enumerate(CASES) for policy in case.policies
]


@pytest.mark.parametrize(("policy", "case"), PARAMS)
def test_known_case(policy: str, case: Case) -> None:
    inst = Instance.from_dict(prepare(policy, case))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = check(policy, inst, case.property, mode=case.mode)
    if case.violated:
        assert v is not None, f"false ✓: {policy} {case.property} ({case.why})"
        assert v.property == case.property
    else:
        assert v is None, f"false ✗: {policy} {case.property}: {v.message} ({case.why})"


def test_every_policy_and_property_has_a_case() -> None:
    covered = {(p.partition(":")[0], c.property) for c in CASES for p in c.policies}
    policies = [name for name, cls in available().items() if not cls.discrete_only]
    missing = [(p, q) for p in policies for q in available_properties() if (p, q) not in covered]
    assert not missing, f"policy x property without a known case: {missing}"
