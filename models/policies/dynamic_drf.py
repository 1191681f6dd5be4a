"""Dynamic DRF (Kash, Procaccia and Shah, JAIR 51, 2014).

Agents arrive one at a time, ``n`` known in advance. At step ``k`` the
mechanism water-fills the (weighted) dominant shares of the ``k`` agents
present from where step ``k - 1`` left them, under the cap ``k/n`` on the
use of every resource, never taking anything back (the paper's Dynamic
DRF: maximise the smallest dominant share ``M`` subject to ``x_i >= M``,
``x_i >= x_i^{k-1}`` and ``sum_{i <= k} x_i d_ir <= k/n``; the water-filling
also raises the agents that the first saturated resource does not block,
as progressive filling does, which with strictly positive demands -- the
paper's setting -- changes nothing). Weighted: the cap is ``W_k / W``
(:func:`models.dynamic.present_fractions`) and the filled quantity the
dominant share over the weight. Li, Liu, Zhang and Zhang (arXiv
1509.07935) give its ratio against the offline max-min optimum.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..dynamic import DynamicPolicy, batch_arrays, exact_rates, present_fractions
from ..dynamic.floors import fill_from_floors, fill_from_floors_exact
from ..instance import Instance
from ..policy import register


@register
class DynamicDRF(DynamicPolicy):
    """Dynamic DRF: water-filling of dominant shares under the ``k/n`` caps.

    Examples
    --------
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> [tuple(map(str, s)) for s in DynamicDRF().steps_exact(inst)]
    [('9/4', '0'), ('3', '2')]
    """

    name = "dynamic-drf"
    description = "Dynamic DRF: arrivals in user order, dominant shares water-filled under k/n caps, never taken back"
    source = "Kash, Procaccia and Shah, JAIR 51, 2014, Section 4 (Dynamic DRF)"
    scale_invariant = True  # dominant shares depend on the bundle only

    def steps_batch(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                    caps: np.ndarray) -> np.ndarray:
        D, R, w, caps, rates = batch_arrays(demands, capacity, weights, caps)
        K, n, _ = D.shape
        frac = np.cumsum(w, axis=1) / w.sum(axis=1, keepdims=True)
        out = np.zeros((K, n, n))
        x = np.zeros((K, n))
        for k in range(n):  # one step per arrival: the steps depend on each other
            present = np.broadcast_to(np.arange(n) <= k, (K, n))
            x = fill_from_floors(D, R * frac[:, k, None], rates, caps, x, present)
            out[:, k] = x
        return out

    def steps_exact(self, instance: Instance) -> list[tuple[Fraction, ...]]:
        D, R = instance.demands_exact, instance.capacity_exact
        W, caps, rates = instance.weights_exact, instance.max_tasks_exact, exact_rates(instance)
        x = [Fraction(0)] * instance.n
        out = []
        for k, frac in enumerate(present_fractions(list(W))):
            x = fill_from_floors_exact(D, [frac * c for c in R], rates, caps, x,
                                       [i <= k for i in range(instance.n)])
            out.append(tuple(x))
        return out
