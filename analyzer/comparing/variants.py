"""Production allocators' DRF variants next to the paper's DRF.

* :func:`side_by_side` -- whole tasks per user under every policy on one
  instance (a policy that does not apply shows its reason).
* :func:`find_difference` -- a seeded random sweep over small integer
  instances of one *kind* (a tie, a scarce resource few users need, a
  resource of capacity 0, a group tree, nominal quotas) that stops at the
  first instance on which the policies compared disagree.

The variants themselves are in :mod:`models.variants`; the reference is
Algorithm 1 of Ghodsi et al., NSDI 2011 (Section 4.2) as run by
:func:`analyzer.discrete.progressive_filling`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from models import Instance, PolicyError

from ..discrete import progressive_filling

#: Policies shown by default: the paper's DRF, then the variants.
DEFAULT_POLICIES: tuple[str, ...] = ("drf", "mesos", "mesos:offers=false", "yarn", "volcano", "kueue")


@dataclass(frozen=True)
class Outcome:
    """Tasks per user under one policy, or why the policy does not apply."""

    policy: str
    tasks: tuple[int, ...] | None
    reason: str = ""


def side_by_side(instance: Instance, policies: Sequence[str] = DEFAULT_POLICIES, *, on_full: str = "skip",
                 seed: int = 0) -> list[Outcome]:
    """Run every policy on ``instance`` (discrete, one pool or its machines).

    ``on_full="skip"`` (the default here) lets the others go on when a
    chosen task fits nowhere, as production schedulers do; ``stop`` is the
    paper's pseudo-code. ``seed`` is the random tie-break's.

    Examples
    --------
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> [o.tasks for o in side_by_side(inst, ["drf", "yarn"])]
    [(3, 2), (3, 2)]
    """
    out = []
    for p in policies:
        try:
            r = progressive_filling(instance, p, on_full=on_full, seed=seed)
        except PolicyError as exc:
            out.append(Outcome(p, None, str(exc)))
            continue
        out.append(Outcome(p, tuple(int(v) for v in r.fill.tasks)))
    return out


# ---------------------------------------------------------------------------
# random instances of each kind
# ---------------------------------------------------------------------------
def _base(rng: np.random.Generator, n: int, m: int) -> dict[str, Any]:
    res = ["cpu", "mem", "disk"][:m]
    users = {}
    for i in range(n):
        d = rng.integers(0, 4, size=m)
        if not d.any():
            d[rng.integers(m)] = 1
        users[chr(ord("A") + i)] = {"demand": {r: int(v) for r, v in zip(res, d, strict=True) if v}}
    return {"resources": {r: int(rng.integers(4, 13)) for r in res}, "users": users}


def _tie(rng: np.random.Generator) -> dict[str, Any]:
    return _base(rng, int(rng.integers(2, 4)), 2)


def _scarce(rng: np.random.Generator) -> dict[str, Any]:
    d = _base(rng, int(rng.integers(2, 4)), 2)
    d["resources"]["gpu"] = int(rng.integers(1, 4))
    d["users"]["A"]["demand"]["gpu"] = 1
    d["excluded_resources"] = ["gpu"]
    return d


def _zero(rng: np.random.Generator) -> dict[str, Any]:
    d = _base(rng, int(rng.integers(2, 4)), 2)
    d["resources"]["gpu"] = 0
    d["zero_capacity"] = ["gpu"]
    d["users"]["A"]["demand"]["gpu"] = 1
    return d


def _groups(rng: np.random.Generator) -> dict[str, Any]:
    d = _base(rng, 3, 2)
    names = list(d["users"])
    d["users"][names[0]]["group"] = "g"
    d["users"][names[1]]["group"] = "g"
    if rng.random() < 0.5:
        d["groups"] = {"g": {"weight": 2}}
    return d


def _quota(rng: np.random.Generator) -> dict[str, Any]:
    d = _base(rng, int(rng.integers(2, 4)), 2)
    for spec in d["users"].values():
        spec["quota"] = {r: int(rng.integers(0, c // 2 + 1)) for r, c in d["resources"].items()}
    return d


@dataclass(frozen=True)
class Kind:
    """A family of random instances and the policies whose outcomes are
    compared on it."""

    make: Callable[[np.random.Generator], dict[str, Any]]
    compared: tuple[str, ...]
    help: str
    #: True: the first compared policy must differ from each of the others
    #: (not merely two of them from each other).
    odd_one_out: bool = False

    def differ(self, outcomes: list[Outcome]) -> bool:
        """Whether ``outcomes`` (of :attr:`compared`, in order) disagree."""
        if self.odd_one_out:
            return all(o.tasks != outcomes[0].tasks for o in outcomes[1:])
        return len({o.tasks for o in outcomes}) > 1


#: Kinds of instances :func:`find_difference` draws.
KINDS: dict[str, Kind] = {
    "tie": Kind(_tie, ("drf", "mesos:offers=false", "yarn", "volcano"),
                "small integer instances (2-3 users, 2 resources): equal shares are broken differently"),
    "scarce": Kind(_scarce, ("drf", "mesos:offers=false"),
                   "a scarce gpu only user A needs, excluded from Mesos's fairness"),
    "zero": Kind(_zero, ("drf", "mesos:offers=false", "yarn", "volcano", "kueue"),
                 "a gpu of capacity 0 that user A asks for"),
    "groups": Kind(_groups, ("mesos:offers=false", "volcano"),
                   "two of three users in group g (weight 1 or 2): nested DRF vs H-DRF"),
    "quota": Kind(_quota, ("kueue", "drf", "mesos:offers=false", "yarn", "volcano"),
                  "random nominal quotas: Kueue (counting only use above quota) differs from all the others",
                  odd_one_out=True),
}


@dataclass(frozen=True)
class Found:
    """The first instance of a sweep on which the compared policies
    disagree; ``outcomes`` lists every default policy on it."""

    kind: str
    seed: int
    examined: int
    instance: Instance | None
    outcomes: list[Outcome]


def find_difference(kind: str, seed: int = 0, budget: int = 1000, on_full: str = "skip") -> Found:
    """Draw instances of ``kind`` from ``seed`` until two compared policies
    disagree (different tasks, or one applies and another does not).

    Raises
    ------
    PolicyError
        For an unknown kind.

    Examples
    --------
    >>> f = find_difference("zero", seed=0)
    >>> f.outcomes[0].tasks is None, f.examined
    (True, 1)
    """
    if kind not in KINDS:
        raise PolicyError(f"kind: unknown {kind!r} (known: {', '.join(KINDS)})")
    k = KINDS[kind]
    rng = np.random.default_rng(seed)
    for t in range(1, budget + 1):
        inst = Instance.from_dict({"name": f"variants-{kind}-seed{seed}-{t}", **k.make(rng)})
        outs = side_by_side(inst, k.compared, on_full=on_full)
        if k.differ(outs):
            shown = [*DEFAULT_POLICIES, *(p for p in k.compared if p not in DEFAULT_POLICIES)]
            return Found(kind, seed, t, inst, side_by_side(inst, shown, on_full=on_full))
    return Found(kind, seed, budget, None, [])


__all__ = ["DEFAULT_POLICIES", "KINDS", "Found", "Kind", "Outcome", "find_difference", "side_by_side"]
