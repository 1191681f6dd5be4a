"""Single-resource max-min fairness (e.g. CPU-only fair sharing).

Max-min fairness on one resource, ignoring the others when comparing users,
as schedulers that share only CPUs (or only slots) do; the paper uses it as
the baseline that DRF generalises (Ghodsi et al., NSDI 2011, Section 2 and
the single-resource fairness property of Section 4.4; max-min fairness:
Bertsekas and Gallager, Data Networks, 1992, Section 6.5.2). A user's share
is ``x_i d_ij / R_j`` for the chosen resource ``j``, filled progressively
(weighted), and users stop when any resource they use saturates.

Users with no demand for resource ``j`` have share 0 whatever they get:
leximin serves the users of ``j`` first and these users then share the
leftover by DRF (see :meth:`models.filling.FillingPolicy.solve`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..allocation import Allocation
from ..errors import PolicyError
from ..filling import FillingPolicy
from ..instance import Instance
from ..policy import register


@register
class SingleResource(FillingPolicy):
    """Weighted max-min on the share of one named resource.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.load("examples/paper_two_users.toml")  # R <9, 18>, A <1, 4>, B <3, 1>
    >>> SingleResource(resource="cpu").solve_exact(inst).x_exact   # 1*xA = 3*xB, mem fills
    (Fraction(54, 13), Fraction(18, 13))
    """

    name = "single-resource"
    description = "Max-min on the share of one resource (name or index; resource=cpu: CPU-only sharing)"
    source = "Ghodsi et al., NSDI 2011, Sections 2 and 4.4 (single-resource max-min baseline)"
    scale_invariant = True  # the share x_i d_ij / R_j (and the DRF phase) depends on the bundle only
    parameters = {"resource": 0}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        r = self.params["resource"]
        if isinstance(r, bool) or not (isinstance(r, str) and r or isinstance(r, int) and r >= 0):
            raise PolicyError(f"policy {self.name!r}: parameter 'resource' must be a resource name or a column "
                              f"index >= 0, got {r!r}")

    def column(self, instance: Instance) -> int | None:
        """Column of the chosen resource in ``instance`` (None if absent)."""
        r = self.params["resource"]
        if isinstance(r, int):
            return r if r < instance.m else None
        return instance.resources.index(r) if r in instance.resources else None

    def supports(self, instance: Instance) -> str | None:
        base = super().supports(instance)  # capacity 0 (zero_capacity) is rejected there
        if base is not None:
            return base
        if self.column(instance) is None:
            r = self.params["resource"]
            return f"the instance has no resource {r!r}" if isinstance(r, str) else f"the instance has no column {r}"
        return None

    def solve(self, instance: Instance) -> Allocation:
        """Progressive filling (floats), as :meth:`FillingPolicy.solve`.

        Defined here so that batch fillers, which call :meth:`share_per_task`
        without the instance, do not treat this policy as a plain member of
        the family: its share depends on the instance (the resource's column, and is 0 for users that do not use it).
        """
        return super().solve(instance)

    def shares_for(self, instance: Instance, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        j = self.column(instance)
        if j is None:
            raise PolicyError(f"policy {self.label!r}: {self.supports(instance)}")
        return demands[:, j] / capacity[j]

    def share_per_task(self, demands: np.ndarray, capacity: np.ndarray) -> np.ndarray:
        """Share of the resource when it is given as a column index.

        Raises
        ------
        PolicyError
            When the resource is given by name (the instance is needed).
        """
        r = self.params["resource"]
        if not isinstance(r, int):
            raise PolicyError(f"policy {self.label!r}: a resource given by name needs the instance")
        return demands[:, r] / capacity[r]
