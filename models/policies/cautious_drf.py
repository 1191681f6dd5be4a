"""Cautious DRF: envy-free at every step, whatever arrives later.

The second mechanism of Kash, Procaccia and Shah (JAIR 51, 2014) trades
dynamic Pareto optimality for full envy-freeness at every step (their
Section 5, "CAUTIOUS LP"). The paper's text was not available when this
was written; the definition here is derived from the property it keeps
and is documented in ``docs/dynamic.md``: at step ``k`` every present user
gets the same weighted dominant share level ``M_k`` (stopping only at its
task cap), the largest level at which the present users *and* a reserve
of ``M_k`` of every resource per unit of weight still to arrive fit:

``sum_{i <= k} min(w_i M_k, s_i) delta_ir + M_k (W - W_k) <= 1`` for every ``r``,

``delta_ir = (d_ir / R_r) / max_l (d_il / R_l)`` the user's demand in
dominant-share units and ``s_i`` its dominant share at its cap. Any later
user, whatever its demand, can be given the level ``M_k`` (it uses at most
``M_k`` of every resource per unit weight), so equal levels -- hence no
envy -- can always be kept; the arriving user takes at most the reserve it
replaces (``delta <= 1``), so ``M_k`` never decreases and nothing is taken
back. Unlike Dynamic DRF the level stops at the first saturated resource
even for users that do not use it (raising them could make a later user
envious), which is why the mechanism is not dynamically Pareto optimal.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..dynamic import DynamicPolicy, batch_arrays, exact_rates, present_fractions
from ..filling import fill_exact
from ..filling_numeric import fill_levels
from ..instance import Instance
from ..policy import register


@register
class CautiousDRF(DynamicPolicy):
    """Cautious DRF: one common level, a reserve for the users to come.

    Examples
    --------
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]], users=["A", "B"])
    >>> [tuple(map(str, s)) for s in CautiousDRF().steps_exact(inst)]
    [('9/4', '0'), ('3', '2')]
    """

    name = "cautious-drf"
    description = "cautious dynamic DRF: one common dominant share, with a reserve for the users still to arrive"
    source = "after Kash, Procaccia and Shah, JAIR 51, 2014, Section 5 (cautious mechanism; see docs/dynamic.md)"
    scale_invariant = True  # dominant shares depend on the bundle only

    def steps_batch(self, demands: np.ndarray, capacity: np.ndarray, weights: np.ndarray,
                    caps: np.ndarray) -> np.ndarray:
        D, R, w, k_caps, rates = batch_arrays(demands, capacity, weights, caps)
        K, n, _ = D.shape
        later = w.sum(axis=1, keepdims=True) - np.cumsum(w, axis=1)  # weight still to arrive after step k
        # the reserve: one more "user" demanding all of every resource per task, at rate W - W_k
        Dr = np.concatenate([D, R[:, None, :]], axis=1)
        out = np.zeros((K, n, n))
        prev = np.zeros((K, n))
        for k in range(n):  # one step per arrival
            present = np.arange(n) <= k
            r = np.concatenate([rates, np.where(later[:, k:k + 1] > 0, later[:, k:k + 1], 1.0)], axis=1)
            c = np.concatenate([np.where(present, k_caps, 0.0), np.where(later[:, k:k + 1] > 0, np.inf, 0.0)],
                               axis=1)
            _, rounds, _ = fill_levels(Dr, R, r, c)
            # the first saturation (caps reached before it included); 0 when nobody can rise
            level = np.where(rounds[0].live, rounds[0].level, 0.0) if rounds else np.zeros(K)
            x = np.where(present, np.minimum(level[:, None] * rates, k_caps), 0.0)
            prev = np.maximum(prev, x)  # the level never decreases; only float noise could
            out[:, k] = prev
        return out

    def steps_exact(self, instance: Instance) -> list[tuple[Fraction, ...]]:
        D, R = instance.demands_exact, instance.capacity_exact
        W, caps, rates = list(instance.weights_exact), instance.max_tasks_exact, exact_rates(instance)
        n = instance.n
        total = sum(W, Fraction(0))
        out = []
        for k, frac in enumerate(present_fractions(W)):
            later = total - frac * total
            Dr = [list(row) for row in D] + [list(R)]
            r = [*rates, later if later > 0 else Fraction(1)]
            c = [caps[i] if i <= k else Fraction(0) for i in range(n)] + [None if later > 0 else Fraction(0)]
            _, stages = fill_exact(Dr, R, r, c)
            level = next((st.level for st in stages if st.saturated), stages[-1].level if stages else Fraction(0))
            rise = [level * rates[i] if i <= k else Fraction(0) for i in range(n)]
            out.append(tuple(v if (cap := caps[i]) is None else min(v, cap) for i, v in enumerate(rise)))
        return out
