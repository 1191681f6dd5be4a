import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Hypothesis profiles for the fuzz tests (tests/test_fuzz*.py): "fuzz" is the
# bounded default run (a few seconds per test, derandomized so that the
# default suite is reproducible); "fuzz-slow" is the large profile, used by
# the copies of the fuzz tests marked `slow` (run with `-m slow`).
try:
    from hypothesis import HealthCheck, settings
except ImportError:  # pragma: no cover - hypothesis is a dev dependency
    pass
else:
    _FUZZ_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                    HealthCheck.large_base_example,                     HealthCheck.function_scoped_fixture]
    settings.register_profile("fuzz", max_examples=25, deadline=None, derandomize=True,
                              suppress_health_check=_FUZZ_HEALTH)
    settings.register_profile("fuzz-slow", max_examples=600, deadline=None, suppress_health_check=_FUZZ_HEALTH)


# A policy with no SMT encoding and no share function to trace (the
# prover's "unknown with a reason" path): registered for one test.
import pytest  # noqa: E402

from models import Allocation, Instance  # noqa: E402
from models.policy import POLICIES, Policy  # noqa: E402


class _Opaque(Policy):
    """A policy with no encoding and no share function to trace."""

    name = "opaque-test-policy"

    def solve(self, instance: Instance) -> Allocation:
        raise NotImplementedError("never solved in these tests")


@pytest.fixture
def opaque():
    """The registered name of a policy the prover cannot encode."""
    POLICIES.register(_Opaque.name, _Opaque)
    yield _Opaque.name
    POLICIES.unregister(_Opaque.name)
