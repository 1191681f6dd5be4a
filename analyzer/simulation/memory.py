"""Usage memory: who goes next depends on what each user held in the past.

DRF (Ghodsi et al., NSDI 2011, Section 4) orders users by what they hold
now. Production schedulers added memory after users who had filled a
cluster kept their place once a newcomer arrived: Volcano's ``fairshare``
plugin (volcano-sh/volcano#5160, after #4165: resource-seconds decayed by
``2^(-elapsed / halfLife)``, ``fairshare.halfLifeMinutes``), Kueue's
admission fair sharing (KEP-4136: ``usage <- (1 - A) usage + A current``
every sampling interval, ``A = 1 - 0.5^(sampling / usageHalfLifeTime)``),
AWS Batch's ``shareDecaySeconds``.

**What is remembered.** With half-life ``h`` and ``lambda = ln 2 / h``,
user ``i``'s memory at time ``t`` is the exponential average of its share
over the past,

    M_i(t) = integral from -inf to t of lambda e^(-lambda (t - tau)) s_i(tau) dtau,

where ``s_i`` is the policy's own (unweighted) share of what ``i`` holds:
DRF's dominant share ``max_j a_ij / R_j``. A user who held share ``s``
for much longer than ``h`` remembers ``s``; the memory of a past share
halves every ``h`` seconds. It is Kueue's average in the limit of a short
sampling interval (``A -> lambda * sampling``), and ``lambda`` times
Volcano's decayed resource-seconds (``M_i`` orders users as those do).
The simulator's shares are constant between events, so it is computed
exactly: over ``dt`` seconds holding ``s``,
``M <- s + e^(-lambda dt) (M - s)``; a new user starts at 0.

**How it orders users.** ``policy:half_life=h`` orders users by

    key_i(t) = (s_i(t) + M_i(t)) / w_i

(weight ``w_i``), smaller first, ties as without memory: the policy's
current share plus its memory. Launching a task changes ``s_i`` at once
and ``M_i`` only as time goes on, so a round hands out tasks as DRF does,
from levels raised by each user's past (progressive filling from floors
``M_i``). Two users who always held the same share remember the same: the
order is DRF's. A user who held the whole cluster (``M = 1``) yields to a
newcomer (``M = 0``) until the newcomer's share exceeds its own by the
difference of their memories; with two users on a full cluster that
difference halves every ``h / 2`` seconds. ``half_life=0`` is memoryless
(``M_i = s_i``: DRF's order exactly) and warns (:class:`MemorylessWarning`;
a zero ``usageHalfLifeTime`` silently turns Kueue's admission fair sharing
off, kubernetes-sigs/kueue#11134). Ordering by ``M_i`` alone, as Kueue
and Volcano do, would hand every free task to the user with the smallest
memory until the memories cross (Kueue adds an entry penalty for that
reason); adding the current share keeps DRF's response within a round.

**The production variants** (:mod:`models.variants`) refuse a half-life:
each models a part of its scheduler that orders users by what they hold
now, and says so (``memory_note``). Kueue's ``usageHalfLifeTime`` belongs
to admission fair sharing, which orders the LocalQueues inside one
ClusterQueue, not the cohort fair sharing between ClusterQueues that the
``kueue`` variant models; Volcano's decayed usage is another plugin than
the ``drf`` plugin modelled. A zero ``usageHalfLifeTime`` or
``halfLifeMinutes`` is refused as the other keys are.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

from models import PolicyError, get_policy
from models.policy import POLICIES, parse_policy_spec

#: The half-life key of a policy (seconds), for every policy but the production variants.
HALF_LIFE_KEY: str = "half_life"


class MemorylessWarning(UserWarning):
    """A half-life of 0: the memory is the current share, the order the policy's own."""


@dataclass(frozen=True)
class Memory:
    """A usage half-life given with a policy (see the module docstring).

    Attributes
    ----------
    key : str
        The key as typed (``half_life``).
    half_life : float
        Seconds (> 0).
    """

    key: str
    half_life: float

    @property
    def rate(self) -> float:
        """``ln 2 / half_life`` (per second)."""
        return math.log(2.0) / self.half_life


#: Half-life keys of the production schedulers, refused with the variant's
#: reason (:attr:`models.variants._common.VariantPolicy.memory_note`).
SCHEDULER_KEYS: frozenset[str] = frozenset({"usageHalfLifeTime", "halfLifeMinutes", "shareDecaySeconds"})


def _seconds(key: str, raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw) or raw < 0:
        raise PolicyError(f"{key}: must be a number of seconds >= 0, got {raw!r}")
    return float(raw)


def split_memory(spec: str) -> tuple[str, Memory | None]:
    """``spec`` without its half-life key, and the half-life (``None``
    without one, or for a half-life of 0, which warns: memoryless).

    Raises
    ------
    PolicyError
        For a bad value, or a half-life key given to a production variant
        (with the variant's reason) or a scheduler's own key given to a
        filling policy (naming ``half_life``).
    """
    name, params = parse_policy_spec(spec)
    cls = POLICIES.get(name)
    given = [k for k in params if k in SCHEDULER_KEYS | {HALF_LIFE_KEY} and k not in getattr(cls, "parameters", {})]
    if not given:
        return spec, None
    key = given[0]
    note = getattr(cls, "memory_note", None)
    if note is not None:
        raise PolicyError(f"policy {name!r}: {key} is not one of its keys (no usage memory: {note}; DRF with "
                          f"memory is drf:{HALF_LIFE_KEY}=SECONDS)")
    if key != HALF_LIFE_KEY:
        raise PolicyError(f"policy {name!r}: {key} is not one of its keys (its usage memory is {HALF_LIFE_KEY}=)")
    seconds = _seconds(key, params[key])
    head, _, rest = spec.strip().partition(":")
    kept = [p for p in rest.split(",") if p.partition("=")[0].strip() != key]
    out = head + (":" + ",".join(kept) if kept else "")
    if seconds == 0.0:
        warnings.warn(f"{name}: {key}=0 is memoryless: the order is {name}'s own, as without {key}",
                      MemorylessWarning, stacklevel=3)
        return out, None
    get_policy(out)  # the rest of the spec is checked as a policy
    return out, Memory(key=key, half_life=seconds)


__all__ = ["HALF_LIFE_KEY", "SCHEDULER_KEYS", "Memory", "MemorylessWarning", "split_memory"]
