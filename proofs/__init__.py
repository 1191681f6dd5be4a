"""Exact arithmetic: rational solutions, optimality certificates and symbolic
derivations. Depends on :mod:`models` only.

:data:`EXACT_SOLVERS` (a :class:`~models.registry.Registry`) maps a policy
name to the exact solver that :func:`analyzer.api.solve` uses for
``exact=True``; policies not registered use their own
:meth:`~models.policy.Policy.solve_exact` (the filling policies: rational
progressive filling). A new exact solver plugs in with
``EXACT_SOLVERS.register(name, solver)``.
"""

from __future__ import annotations

from collections.abc import Callable

from models import Allocation, Instance, Policy
from models.registry import Registry

from .ceei_exact import CEEIEnclosure, KKTCertificate, solve_ceei_exact
from .checks import Check
from .explain import explain
from .filling_certificate import FillingCertificate, StageCertificate, certify_filling
from .utilitarian_exact import UtilitarianCertificate, solve_utilitarian_exact

#: Exact solvers living in proofs, by policy name.
EXACT_SOLVERS: Registry[Callable[[Policy, Instance], Allocation]] = Registry("exact solver")
EXACT_SOLVERS.register("ceei", solve_ceei_exact)
# BBF is the CEEI program with budgets = weights (Gutman and Nisan, AAMAS 2012, Section 4)
EXACT_SOLVERS.register("bbf", solve_ceei_exact)
EXACT_SOLVERS.register("utilitarian", solve_utilitarian_exact)

__all__ = ["EXACT_SOLVERS", "CEEIEnclosure", "Check", "FillingCertificate", "KKTCertificate", "StageCertificate",
           "UtilitarianCertificate", "certify_filling", "explain", "solve_ceei_exact", "solve_utilitarian_exact"]
