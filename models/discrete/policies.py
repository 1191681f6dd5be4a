"""Discrete policies: which user gets the next task.

Ghodsi et al., NSDI 2011, Section 4.2 (Algorithm 1): the scheduler picks the
user with the smallest (weighted) dominant share. A :class:`DiscretePolicy`
gives a per-user *share key* (smaller goes first). Every
:class:`~models.filling.FillingPolicy` (``drf``, ``asset``, ...) works
discretely through :class:`LinearShare` (key ``tasks_i * rate_i``, batched by
the engine); other keys register with :func:`register_discrete` in
:data:`DISCRETE_POLICIES`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from ..errors import PolicyError
from ..filling import FillingPolicy
from ..instance import Instance
from ..policy import Policy, get_policy
from ..registry import Registry
from .tie_breaks import DEFAULT_TIE_BREAK

if TYPE_CHECKING:  # pragma: no cover
    from .run import Run
    from .state import FillState


class DiscretePolicy(ABC):
    """Which user gets the next task: the one with the smallest share key.

    Subclasses set :attr:`name` and implement :meth:`key`. A policy whose
    key is exactly ``tasks_i * rate_i`` also returns the rates from
    :meth:`rates`, which lets the engine batch decisions. A key that
    depends on other users' allocations sets :attr:`global_keys`; the engine
    then re-evaluates every key at every decision (O(n) a decision).

    Examples
    --------
    A scheduler that orders by dominant share, then by fewer running tasks
    (a tuple key: not linear, so one heap operation per decision):

    >>> from models.discrete import fill
    >>> class ShareThenCount(DiscretePolicy):
    ...     name = "share-then-count"
    ...     def key(self, state, i):
    ...         inst, x = state.instance, int(state.tasks[i])
    ...         dom = max(d / c for d, c in zip(inst.demands_exact[i], inst.capacity_exact))
    ...         return (x * dom / inst.weights_exact[i], x)
    >>> _ = register_discrete(ShareThenCount)
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> fill(inst, "share-then-count", placement="best-fit").tasks.tolist()
    [3, 2]
    >>> DISCRETE_POLICIES.unregister("share-then-count")
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    source: ClassVar[str] = ""
    global_keys: ClassVar[bool] = False
    #: The tie-break used when the caller names none (a key of
    #: :data:`TIE_BREAKS`; e.g. a scheduler that orders equal shares by name).
    default_tie_break: ClassVar[str] = DEFAULT_TIE_BREAK

    @property
    def label(self) -> str:
        """Name shown in reports."""
        return self.name

    def supports(self, instance: Instance) -> str | None:
        """``None`` when the policy applies, else the reason it does not."""
        return None

    @abstractmethod
    def key(self, state: FillState, i: int) -> Any:
        """Share key of user ``i`` in ``state`` (smaller goes first).

        Keys of different users must be mutually comparable; ties are broken
        by the run's tie-break rank, never by the key's own type.
        """

    def rates(self, instance: Instance) -> list[Fraction] | None:
        """Exact per-task key increments when ``key == tasks_i * rate_i``."""
        return None

    def drive(self, run: Run) -> bool:
        """Run a decision loop of the policy's own and return True, or
        return False to use the engine's loops (the default).

        For allocators whose unit of decision is not one task, e.g. Mesos
        offering one machine at a time (:mod:`models.variants.mesos`). The
        loop places tasks with ``run.take(i, count, machine)`` (on a given
        machine) or ``run.place_tasks(i, count)`` (through the placement).
        """
        return False

    def task_sizes(self, instance: Instance) -> list[Fraction]:
        """Size of one task per user, used by the ``largest-task`` and
        ``smallest-task`` tie-breaks: the rates when linear, else the
        weighted dominant share of one task."""
        r = self.rates(instance)
        if r is not None:
            return r
        return [max(Fraction(d) / c for d, c in zip(row, instance.capacity_exact, strict=True)) / w
                for row, w in zip(instance.demands_exact, instance.weights_exact, strict=True)]


class LinearShare(DiscretePolicy):
    """The discrete form of a :class:`~models.filling.FillingPolicy`.

    The key of user ``i`` is its weighted share ``tasks_i * c_i / w_i`` where
    ``c_i`` is the policy's ``share_per_task`` (DRF: dominant share of one
    task, Section 4; asset fairness: aggregate share, Section 5.1).
    """

    def __init__(self, policy: FillingPolicy) -> None:
        self.policy = policy
        self._cache: tuple[Instance, list[Fraction]] | None = None

    @property
    def label(self) -> str:
        return self.policy.label

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.policy.name

    def supports(self, instance: Instance) -> str | None:
        return self.policy.supports(instance)

    def rates(self, instance: Instance, demands: Sequence[Sequence[Any]] | None = None,
              capacity: Sequence[Any] | None = None) -> list[Fraction]:
        """Exact per-task key increments; ``demands`` / ``capacity`` replace
        the instance's (a deviated instance, without building it)."""
        plain = demands is None and capacity is None
        if plain and self._cache is not None and self._cache[0] is instance:
            return self._cache[1]
        c = self.policy._coefficients_exact(instance, demands, capacity)
        out = [ci if w == 1 else ci / w for ci, w in zip(c, instance.weights_exact, strict=True)]
        if plain:
            self._cache = (instance, out)
        return out

    def key(self, state: FillState, i: int) -> Fraction:
        return int(state.tasks[i]) * self.rates(state.instance)[i]


DP = TypeVar("DP", bound=type[DiscretePolicy])
#: Discrete-only policies, by name (filling policies need no entry).
DISCRETE_POLICIES: Registry[type[DiscretePolicy]] = Registry("discrete policy", error=PolicyError)


def register_discrete(cls: DP) -> DP:
    """Class decorator: make a :class:`DiscretePolicy` available by name.

    Filling policies of :mod:`models.policies` need no registration: any of
    them works discretely through :class:`LinearShare`.
    """
    if not cls.name or cls.name != cls.name.lower():
        raise PolicyError(f"discrete policy class {cls.__name__}: name must be a non-empty lower-case word")
    return DISCRETE_POLICIES.register(cls.name, cls)


def discrete_policies() -> dict[str, type[DiscretePolicy]]:
    """Registered discrete-only policies (filling policies come on top)."""
    return dict(DISCRETE_POLICIES.items())


def no_discrete_form(spec: str | Policy | DiscretePolicy) -> str | None:
    """Why ``spec`` has no discrete form (:func:`get_discrete_policy`'s
    :class:`~models.PolicyError` message: an unknown name, a policy outside
    the filling family such as CEEI), or ``None`` when it has one.

    >>> no_discrete_form("drf") is None
    True
    >>> no_discrete_form("ceei").startswith("policy 'ceei' has no discrete form")
    True
    """
    try:
        get_discrete_policy(spec)
    except PolicyError as exc:
        return str(exc)
    return None


def get_discrete_policy(spec: str | Policy | DiscretePolicy) -> DiscretePolicy:
    """A discrete policy from a name, a filling policy or a discrete policy.

    Raises
    ------
    PolicyError
        For an unknown name or a policy that is not of the filling family.
    """
    if isinstance(spec, DiscretePolicy):
        return spec
    if isinstance(spec, str) and spec in DISCRETE_POLICIES:
        return DISCRETE_POLICIES.get(spec)()
    pol = get_policy(spec)
    form = getattr(pol, "discrete_form", None)
    if callable(form):  # a discrete-only policy registered as a Policy (models.variants)
        out = form()
        if isinstance(out, DiscretePolicy):
            return out
    if not isinstance(pol, FillingPolicy):
        raise PolicyError(
            f"policy {pol.label!r} has no discrete form (discrete filling needs a per-user share key: "
            f"a filling policy such as drf or asset, or one registered with register_discrete)"
        )
    return LinearShare(pol)


def integer_steps(rates: list[Fraction]) -> list[int]:
    """Rates scaled by the least common multiple of their denominators:
    integers in the same ratios (so keys compare exactly and fast).

    >>> integer_steps([Fraction(2, 9), Fraction(1, 3)])
    [2, 3]
    """
    den = 1
    for r in rates:
        den = math.lcm(den, r.denominator)
    return [r.numerator * (den // r.denominator) for r in rates]


__all__ = ["DISCRETE_POLICIES", "DiscretePolicy", "LinearShare", "discrete_policies", "get_discrete_policy",
           "integer_steps", "register_discrete"]
