"""Plain-words optimality arguments for any exact allocation
(``fairalloc solve --exact --explain``)."""

from __future__ import annotations

from models import Allocation, Policy
from models.filling import FillingPolicy

from .filling_certificate import certify_filling


def explain(policy: Policy, allocation: Allocation) -> list[str]:
    """Lines saying why ``allocation`` is ``policy``'s optimum.

    Filling policies (DRF, asset fairness, ...): the verified stages of
    progressive filling. CEEI: prices and the exact KKT check (or the
    interval enclosure). Otherwise: why there is no certificate.

    Examples
    --------
    >>> from models import Instance, get_policy
    >>> inst = Instance.load("examples/paper_two_users.toml")
    >>> drf = get_policy("drf")
    >>> explain(drf, drf.solve_exact(inst))[0]
    'stage 1: every user rises to dominant share 2/3; cpu saturates; A and B stop'
    """
    cert = allocation.certificate
    if isinstance(policy, FillingPolicy) and allocation.exact:
        return certify_filling(policy, allocation.instance, allocation).explain()
    explainer = getattr(cert, "explain", None)
    if callable(explainer):
        return list(explainer())
    if not allocation.exact:
        return [allocation.message or "no certificate: the numbers are floating point"]
    return [f"no certificate: policy {policy.label!r} attaches none to its exact solution"]


__all__ = ["explain"]
