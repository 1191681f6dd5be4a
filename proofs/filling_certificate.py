"""Verified certificates for the progressive-filling (leximin) policies.

Ghodsi et al., NSDI 2011, Sections 4.2 and 5.1: DRF and asset fairness are
computed by progressive filling; every user's weighted share rises at the
same rate and a user stops when a resource it uses saturates (or, with task
caps, when it reaches its cap). The exact filling
(:func:`models.filling.fill_exact`) returns its events as
:class:`~models.filling.Stage` records; this module turns them into a
certificate checked in rational arithmetic.

The argument that the result is max-min fair on (weighted) shares is the
*bottleneck* one: an allocation is max-min fair when every user either holds
its cap or has a bottleneck resource ``j`` -- one it uses, that is exhausted,
and on which no other user has a higher level. To raise such a user, some
other user of ``j`` would have to shrink, and that user is no richer. The
certificate checks, in Fractions:

* feasibility: ``sum_i x_i d_ij <= R_j`` and ``0 <= x_i <= k_i``;
* the stage structure: levels strictly increase, each user stops at the
  level of its stage, the resources named saturate at that stage;
* for each user stopped by a resource: that resource is its bottleneck;
* for each user stopped by its cap: ``x_i = k_i``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from models import Allocation, Instance
from models.allocation import exact_str
from models.filling import FillingPolicy, Stage

from .checks import Check, Verified, feasibility_checks, join_names


def share_name(policy: FillingPolicy, weighted: bool) -> str:
    """Name of the quantity a filling policy equalises (``"dominant share"``)."""
    base = policy.share_label
    return f"weighted {base}" if weighted else base


@dataclass(frozen=True)
class StageCertificate:
    """One verified stage of progressive filling.

    Attributes
    ----------
    index : int
        1-based stage number.
    level : Fraction
        The common (weighted) share reached.
    rising : tuple of str
        Users active during the stage (they rise to ``level``).
    saturated : tuple of str
        Resources exhausted at this stage.
    capped : tuple of str
        Users stopped by their task cap.
    blocked : dict
        User stopped by a resource -> its bottleneck resource.
    phase : int
        1: filling of the policy's share; 2: users whose share of one task
        is 0 share the leftover by DRF (level: weighted dominant share).
    """

    index: int
    level: Fraction
    rising: tuple[str, ...]
    saturated: tuple[str, ...]
    capped: tuple[str, ...]
    blocked: dict[str, str]
    phase: int = 1

    def sentence(self, quantity: str, everyone: bool) -> str:
        """``"stage 1: every user rises to dominant share 2/3; cpu saturates; A and B stop"``."""
        who = "every user" if everyone else f"users {join_names(self.rising)}" if len(self.rising) > 1 \
            else f"user {self.rising[0]}"
        rise = "rises" if everyone or len(self.rising) == 1 else "rise"
        parts = [f"stage {self.index}: {who} {rise} to {quantity} {exact_str(self.level)}"]
        if self.saturated:
            verb = "saturates" if len(self.saturated) == 1 else "saturate"
            parts.append(f"{join_names(self.saturated)} {verb}")
        stopped = list(self.blocked) + [u for u in self.capped if u not in self.blocked]
        stop = f"{join_names(stopped)} " + ("stops" if len(stopped) == 1 else "stop")
        if self.capped:
            stop += f" ({join_names(self.capped)} at {'its' if len(self.capped) == 1 else 'their'} task cap)"
        parts.append(stop)
        return "; ".join(parts)


@dataclass(frozen=True)
class FillingCertificate(Verified):
    """Exact certificate that a filling allocation is max-min fair.

    Attributes
    ----------
    policy : str
        Policy label.
    quantity : str
        The share being equalised, in words.
    users : tuple of str
        All user names.
    stages : tuple of StageCertificate
        The verified stages.
    checks : tuple of Check
        Every condition checked in Fractions.
    """

    policy: str
    quantity: str
    users: tuple[str, ...]
    stages: tuple[StageCertificate, ...]
    checks: tuple[Check, ...]
    phase2_quantity: str = "dominant share"

    def phase_quantity(self, phase: int) -> str:
        """The quantity filled in ``phase`` (1: the policy's share, 2: DRF's)."""
        return self.quantity if phase == 1 else self.phase2_quantity

    def explain(self) -> list[str]:
        """The stages in plain words, the bottleneck argument and the verdict."""
        lines: list[str] = []
        for st in self.stages:
            if st.phase == 2 and (not lines or self.stages[st.index - 2].phase == 1):
                lines.append(f"phase 2: users whose {self.quantity} is 0 whatever they get share the rest by "
                             f"{self.phase2_quantity} (DRF)")
            lines.append(st.sentence(self.phase_quantity(st.phase), everyone=len(st.rising) == len(self.users)))
        for st in self.stages:
            for u, r in st.blocked.items():
                who = "no user of" if st.phase == 1 else "no phase-2 user of"
                lines.append(f"  {u} cannot rise: {r} is exhausted and {who} {r} has a higher "
                             f"{self.phase_quantity(st.phase)} than {exact_str(st.level)}")
        if self.quantity.startswith("weighted "):
            base = self.quantity.removeprefix("weighted ")
            lines.append(f"  ({self.quantity} = {base} / weight)")
        ok = sum(c.holds for c in self.checks)
        lines.append(f"exact check: {ok}/{len(self.checks)} conditions hold -> "
                     + ("max-min fair (bottleneck argument verified in rationals)" if self.holds
                        else "NOT verified"))
        return lines


def certify_filling(policy: FillingPolicy, instance: Instance, allocation: Allocation | None = None
                    ) -> FillingCertificate:
    """Verify an exact filling allocation and describe its stages.

    Parameters
    ----------
    policy : FillingPolicy
        The policy (DRF, asset fairness, or any filling policy).
    instance : Instance
        The problem.
    allocation : Allocation, optional
        An exact allocation of ``policy`` whose ``certificate`` is the Stage
        list of :func:`models.filling.fill_exact`; computed when omitted.

    Returns
    -------
    FillingCertificate

    Examples
    --------
    >>> from models import Instance, get_policy
    >>> inst = Instance.load("examples/paper_two_users.toml")
    >>> cert = certify_filling(get_policy("drf"), inst)
    >>> cert.holds, cert.explain()[0]
    (True, 'stage 1: every user rises to dominant share 2/3; cpu saturates; A and B stop')
    """
    if allocation is None or not allocation.exact or not _is_stage_list(allocation.certificate):
        allocation = policy.solve_exact(instance)
    assert allocation.x_exact is not None
    f = _Filled.of(policy, instance, [Fraction(v) for v in allocation.x_exact])
    checks = feasibility_checks(instance, f.x, f.usage)
    out: list[StageCertificate] = []
    seen: set[int] = set()
    previous = {1: Fraction(-1), 2: Fraction(-1)}
    for s, st in enumerate(allocation.certificate, start=1):
        t = Fraction(st.level)
        checks.append(Check(f"stage {s}: level rises", t > previous[st.phase],
                            f"{exact_str(previous[st.phase])} -> {exact_str(t)}"))
        previous[st.phase] = t
        stage_checks, cert = f.stage(s, st, seen)
        checks += stage_checks
        out.append(cert)
        seen.update(int(i) for i in st.frozen)
    checks.append(Check("every user stops at some stage", set(f.remaining) <= seen))
    weighted = "weighted " if instance.weighted else ""
    return FillingCertificate(policy=allocation.policy, quantity=share_name(policy, instance.weighted),
                              users=instance.users, stages=tuple(out), checks=tuple(checks),
                              phase2_quantity=f"{weighted}dominant share")


@dataclass(frozen=True)
class _Filled:
    """An exact filling allocation and what its stages are checked against.

    Phase 1 fills the policy's share; users whose share of one task is 0
    hold level 0 there and share the leftover by DRF in phase 2: ``levels``
    and ``members`` are by phase.
    """

    instance: Instance
    x: list[Fraction]
    usage: list[Fraction]
    levels: dict[int, list[Fraction]]
    members: dict[int, list[int]]
    remaining: list[int]  # users capped at zero never rise: they are in no stage

    @classmethod
    def of(cls, policy: FillingPolicy, instance: Instance, x: list[Fraction]) -> _Filled:
        D, R, w, k = instance.demands_exact, instance.capacity_exact, instance.weights_exact, instance.max_tasks_exact
        c = policy._coefficients_exact(instance)
        n, m = instance.n, instance.m
        dom = [max(D[i][j] / R[j] for j in range(m)) for i in range(n)]
        return cls(instance=instance, x=x,
                   usage=[sum((x[i] * D[i][j] for i in range(n)), Fraction(0)) for j in range(m)],
                   levels={1: [x[i] * c[i] / w[i] for i in range(n)], 2: [x[i] * dom[i] / w[i] for i in range(n)]},
                   members={1: [i for i in range(n) if c[i] != 0], 2: [i for i in range(n) if c[i] == 0]},
                   remaining=[i for i in range(n) if not (k[i] is not None and k[i] == 0)])

    def stage(self, s: int, st: Stage, seen: set[int]) -> tuple[list[Check], StageCertificate]:
        """The checks of stage ``s`` (its saturated resources are exhausted,
        each frozen user stops at the stage's level, at its cap or behind a
        bottleneck) and its plain-words record."""
        inst, k = self.instance, self.instance.max_tasks_exact
        users, resources, D, R = inst.users, inst.resources, inst.demands_exact, inst.capacity_exact
        t, level, group = Fraction(st.level), self.levels[st.phase], self.members[st.phase]
        capped = {int(i) for i in st.capped}
        checks = [Check(f"stage {s}: {resources[j]} is exhausted", self.usage[j] == R[j]) for j in st.saturated]
        blocked: dict[str, str] = {}
        for i in (int(i) for i in st.frozen):
            checks.append(Check(f"stage {s}: {users[i]} takes part in phase {st.phase}", i in group))
            checks.append(Check(f"stage {s}: {users[i]} stops at level {exact_str(t)}", level[i] == t,
                                f"its level is {exact_str(level[i])}"))
            if i in capped:
                checks.append(Check(f"stage {s}: {users[i]} holds its cap", k[i] is not None and self.x[i] == k[i]))
                continue
            bottleneck = _bottleneck(i, D, R, self.usage, level, group)
            checks.append(Check(f"stage {s}: {users[i]} has a bottleneck resource", bottleneck is not None,
                                "" if bottleneck is None else resources[bottleneck]))
            if bottleneck is not None:
                blocked[users[i]] = resources[bottleneck]
        rising = [i for i in self.remaining if i not in seen and i in group]
        return checks, StageCertificate(index=s, level=t, rising=tuple(users[i] for i in rising),
                                        saturated=tuple(resources[j] for j in st.saturated),
                                        capped=tuple(users[i] for i in sorted(capped)), blocked=blocked,
                                        phase=st.phase)


def _bottleneck(i: int, D: Any, R: Any, usage: list[Fraction], level: list[Fraction], group: list[int]
                ) -> int | None:
    """A resource user ``i`` uses that is exhausted and on which no user of
    ``i``'s phase has a higher level than ``i`` (smallest index), or ``None``.

    In phase 1 every user not in the phase has level 0 in the policy's
    share, so it is never richer; in phase 2 (share 0 for everyone in it)
    the users of phase 1 hold a positive share and giving up any of it
    would lower the leximin vector, so only phase-2 users can give.
    """
    for j in range(len(R)):
        if D[i][j] > 0 and usage[j] == R[j] and all(level[k] <= level[i] for k in group if D[k][j] > 0):
            return j
    return None


def _is_stage_list(cert: Any) -> bool:
    return isinstance(cert, list | tuple) and all(isinstance(s, Stage) for s in cert)


__all__ = ["FillingCertificate", "StageCertificate", "certify_filling", "share_name"]
