"""Policies the prover cannot encode, and why: their definitions need data
the symbolic instances (one pooled cluster of ``n`` users and ``m``
resources, :mod:`proofs.prover.symbolic`) do not have, so on those
instances the policies are undefined (they refuse them) and there is
nothing to prove; :func:`analyzer.prove` answers "unknown" with the reason.
"""

from __future__ import annotations

from . import register_unencodable

#: DRFH (Wang, Liang, Li, INFOCOM 2014, Section III) is max-min on global
#: dominant shares under every server's own capacities.
register_unencodable("drfh", "DRFH is defined on machine types (per-server capacities, Wang et al., INFOCOM 2014, "
                             "Section III); the prover's instances are one pooled cluster without machines, on which "
                             "the policy refuses to allocate")
#: H-DRF and its naive recursion (Bhattacharya et al., SoCC 2013, Section 4)
#: fill a weighted tree of user groups.
for _name in ("hdrf", "hdrf-naive"):
    register_unencodable(_name, f"{_name} is defined on a tree of weighted user groups (Bhattacharya et al., "
                                "SoCC 2013, Section 4); the prover's instances have no groups, on which the policy "
                                "refuses to allocate")
