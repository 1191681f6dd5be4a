"""The arguments every proof takes, checked once for both settings (the
SMT proof of :mod:`analyzer.proving.smt` and the exhaustive one of
:mod:`analyzer.proving.discrete`): the size, the demand domain, the
timeout and the workers."""

from __future__ import annotations

import math
from typing import Any

from models import PolicyError
from models.limits import MAX_TIMEOUT_SECONDS


def validate_size(users: Any, resources: Any, domain: Any, timeout: Any, workers: Any, min_users: int,
                  domains: tuple[str, ...]) -> None:
    """Check the size, domain, timeout and workers of a proof (both settings).

    Raises
    ------
    PolicyError
        Naming the argument (a bad-input error, exit code 2 on the CLI).
    """

    def whole(value: Any, name: str, least: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise PolicyError(f"{name}: must be a whole number >= {least}, got {value!r}")

    whole(users, "users", min_users)
    whole(resources, "resources", 1)
    if workers is not None:
        whole(workers, "workers", 1)
    if domain not in domains:
        raise PolicyError(f"domain: must be one of {', '.join(domains)}, got {domain!r}")
    validate_timeout(timeout)


def validate_timeout(timeout: Any, name: str = "timeout") -> None:
    """Check a proof's timeout: a positive, finite number of seconds that a
    deadline on the clock can hold.

    Raises
    ------
    PolicyError
        Naming ``name`` (a bad-input error, exit code 2 on the CLI).
    """
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0 or math.isinf(timeout):
        raise PolicyError(f"{name}: must be a positive number of seconds, got {timeout!r}")
    if timeout > MAX_TIMEOUT_SECONDS:  # the proof's deadline would overflow the clock (OverflowError)
        raise PolicyError(f"{name}: at most {MAX_TIMEOUT_SECONDS:.3g} seconds, got {timeout:g}")
