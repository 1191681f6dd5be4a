"""The property interface: a named fairness property with a precise
definition and a per-instance check.

Ghodsi et al., NSDI 2011, Section 3 lists the properties; each module of
:mod:`analyzer.properties` implements one of them (or a small family) as a
:class:`Property` subclass registered with :func:`register_property`.

A check works in two steps: a fast numeric screen (floats, the named
tolerances of :mod:`models.tolerances`) finds a candidate deviation (a lie,
a removed user, grown capacities, a better allocation...), then the check
recomputes the original and the deviated instances with
``allocate(..., exact=True)`` and compares exactly. Only a verified
:class:`Violation` is returned; when the policy has no exact solver the
candidate must clear a margin far above solver noise
(:data:`~models.tolerances.NUMERIC_CONFIRM_RTOL`) and the violation says it
is not exact (``exact=False``).

A property may also define ``margin(policy, instance, mode)``: a float that
is negative when the numeric screen sees a violation, used by the search to
steer its optimisation phase (never to decide). Everything the search and
the tables call on a property is declared on :class:`Property`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from models import Allocation, Instance, Policy, PolicyError, get_policy
from models.registry import Registry

# the settings, handed on: a property module imports them from here
from .modes import CONTINUOUS, DISCRETE, DYNAMIC, MODES, STATIC_MODES  # noqa: F401

#: Why a property of one allocation is not checked in the dynamic setting.
STATIC_WHY = "a property of one allocation; the dynamic setting has its own (fairalloc properties: dynamic-*)"


@dataclass
class Violation:
    """A certified counterexample to a property.

    Attributes
    ----------
    property : str
        Property name (``"strategy-proofness"``).
    policy : str
        Policy label.
    instance : Instance
        The instance on which the policy violates the property.
    user : str
        The user harmed (or the one who gains by lying).
    message : str
        One human sentence, e.g. ``"B gets 2 tasks but 1/2 of every
        resource would give it 5/2"``.
    deviation : dict
        What is needed to re-verify: ``{"kind": "lie", "report": {...}}``,
        ``{"kind": "remove", "user": "C"}``, ``{"kind": "add-resources",
        "capacity": {...}}``, ``{"kind": "better-allocation", "tasks": {...}}``
        and so on, with exact numbers as ``"p/q"`` strings.
    before, after : dict
        The quantities compared (exact strings), e.g. tasks before and after.
    exact : bool
        True once re-verified in exact arithmetic.
    mode : str
        ``"continuous"``, ``"discrete"`` or ``"dynamic"``.
    """

    property: str
    policy: str
    instance: Instance
    user: str
    message: str
    deviation: dict[str, Any] = field(default_factory=dict)
    before: dict[str, Any] = field(default_factory=dict)
    after: dict[str, Any] = field(default_factory=dict)
    exact: bool = False
    mode: str = CONTINUOUS

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the instance as a scenario dict)."""
        return {
            "property": self.property,
            "policy": self.policy,
            "mode": self.mode,
            "user": self.user,
            "message": self.message,
            "exact": self.exact,
            "instance": self.instance.to_dict(),
            "deviation": self.deviation,
            "before": self.before,
            "after": self.after,
        }

    def one_line(self) -> str:
        """The instance and the sentence, on one line."""
        return f"{self.instance.describe()} -- {self.message}"


class Property(ABC):
    """A fairness property.

    Subclasses set :attr:`name` (hyphenated, e.g. ``sharing-incentive``),
    :attr:`title`, :attr:`source` (paper and section) and give the precise
    definition for Leontief users in the class docstring.
    """

    name: ClassVar[str]
    title: ClassVar[str] = ""
    source: ClassVar[str] = ""
    #: One-line definition (``fairalloc properties``).
    summary: ClassVar[str] = ""
    #: Position in listings and tables (the paper's Table 2 order; user
    #: properties come after the built-in ones).
    order: ClassVar[int] = 100
    #: Whether the class defines its own :meth:`margin`; set for every
    #: subclass from its definition (the search optimises the margin only
    #: then).
    has_margin: ClassVar[bool] = False
    #: Relative cost of checking one instance (1: one allocation and a few
    #: comparisons); a property table starts its costliest cells first, so
    #: that no long cell starts last and leaves the other workers idle.
    search_cost: ClassVar[float] = 1.0
    #: The settings (:data:`MODES`) the property is defined in; a property
    #: table shows the cells of any other setting as n/a (:meth:`undefined_in`).
    modes: ClassVar[tuple[str, ...]] = STATIC_MODES
    #: Why the property is not defined outside :attr:`modes`.
    undefined_why: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.has_margin = cls.margin is not Property.margin

    def applies(self, instance: Instance) -> str | None:
        """``None`` when the property says something about ``instance``;
        otherwise why it does not (e.g. single-resource fairness needs
        ``m == 1``). A check on such an instance returns ``None``."""
        return None

    def undefined_in(self, mode: str) -> str | None:
        """``None`` when the property is defined in the setting ``mode``;
        otherwise why not (a property table's cell is then n/a, with it)."""
        if mode in self.modes:
            return None
        why = STATIC_WHY if mode == DYNAMIC else self.undefined_why
        return f"not defined in the {mode} setting ({why})"

    def applies_to_shape(self, n: int, m: int) -> bool:
        """False when :meth:`applies` rejects every instance with ``n``
        users and ``m`` resources: the search then skips such stream
        positions without building their instances. The default, True,
        decides nothing; a property whose :meth:`applies` depends on the
        shape overrides both alike."""
        return True

    @abstractmethod
    def check(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> Violation | None:
        """An exactly verified violation on ``instance``, or ``None``."""

    def margin(self, policy: str | Policy, instance: Instance, mode: str = CONTINUOUS) -> float:
        """Numeric violation margin on ``instance``: ``>= 0`` when the
        property holds numerically, ``< 0`` when violated, scaled relative to
        the quantities compared. The search minimises it from its near misses
        (its optimisation phase) and sends an instance with a negative margin
        to :meth:`check`, which alone decides.

        The default, for a property without a margin (:attr:`has_margin`
        false), is ``inf``: nothing to steer by, and the search skips its
        optimisation phase.
        """
        return math.inf

    def screen_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """Which of ``instances`` may violate the property: a boolean mask,
        ``False`` only where :meth:`check` would certainly return ``None``.

        The search screens chunks of instances with it and runs the full
        :meth:`check` on the flagged ones only, so an override must flag at
        least every instance the numeric screen of :meth:`check` flags
        (it may flag more). The default flags everything; properties whose
        screen needs only the policy's numeric allocation override it with
        one vectorised batch solve for the whole chunk
        (:func:`._batch.numeric_batch`). Every instance must be supported
        by ``policy`` and :meth:`applies` to it.

        The default solves the chunk in one batch all the same: the checks
        and margins of its instances then reuse these allocations.
        """
        from ._batch import numeric_batch

        numeric_batch(policy, instances, mode)
        return np.ones(len(instances), dtype=bool)

    def margin_many(self, policy: Policy, instances: Sequence[Instance], mode: str = CONTINUOUS) -> np.ndarray:
        """:meth:`margin` of each of ``instances``, as one float array;
        ``nan`` where the margin is not finite or the policy cannot be
        solved there (a :class:`~models.SolverError` or
        :class:`~models.PolicyError`: the search then skips the instance).

        The search's near misses and its optimisation phase evaluate margins
        through it; an override computes the whole sequence with batched
        solves and must give what :meth:`margin` gives (the margin steers
        the search, it never decides, but the same seed must steer the same
        way whatever the batch). The default calls :meth:`margin` once per
        instance. Every instance must be supported by ``policy`` and
        :meth:`applies` to it.
        """
        from models import SolverError

        out = np.full(len(instances), np.nan)
        for k, inst in enumerate(instances):
            try:
                out[k] = float(self.margin(policy, inst, mode))
            except (SolverError, PolicyError):  # PolicyError: no continuous solution (discrete-only policies)
                continue
        out[~np.isfinite(out)] = np.nan
        return out

    def __repr__(self) -> str:
        return f"<property {self.name}>"


def check_mode(mode: str) -> str:
    """``mode`` itself when it is one of :data:`MODES`.

    Raises
    ------
    PolicyError
        For any other value (a bad-input error, exit code 2 on the CLI).
    """
    if mode not in MODES:
        raise PolicyError(f"mode: must be one of {', '.join(MODES)}, got {mode!r}")
    return mode


def require_defined(prop: Property, mode: str) -> None:
    """Raise when a property of the dynamic setting is asked of a static
    one or the other way round (the static settings keep their own
    messages: a property's check says why it is continuous-only).

    Raises
    ------
    PolicyError
        Naming the property and why (a bad-input error, exit code 2 on the CLI).
    """
    if DYNAMIC in (mode, *prop.modes) and (why := prop.undefined_in(mode)) is not None:
        raise PolicyError(f"property {prop.name!r}: {why}")


def allocate(policy: str | Policy, instance: Instance, mode: str = CONTINUOUS, exact: bool = False) -> Allocation:
    """The allocation a property check compares against, in ``mode``.

    Every property check computes its allocations through this function, so
    that one check serves both settings.

    Parameters
    ----------
    policy : str or Policy
        The policy.
    instance : Instance
        The (original or deviated) instance.
    mode : {"continuous", "discrete"}
        ``"continuous"``: :func:`analyzer.api.solve` (Ghodsi et al., NSDI
        2011, Sections 4-5). ``"discrete"``: whole tasks placed by
        progressive filling (Section 6, Algorithm 1), from
        :func:`analyzer.discrete.progressive_filling`.
    exact : bool
        Ask for exact numbers (continuous mode; discrete task counts are
        whole numbers and exact anyway).

    Raises
    ------
    PolicyError
        For an unknown mode.

    Examples
    --------
    >>> inst = Instance.from_exact([9, 18], [[1, 4], [3, 1]])
    >>> allocate("drf", inst, exact=True).x_exact
    (Fraction(3, 1), Fraction(2, 1))
    """
    if check_mode(mode) == DYNAMIC:
        raise PolicyError("the dynamic setting has one allocation per arrival: analyzer.dynamic_run")
    if mode == CONTINUOUS:
        from ..api import solve

        return solve(instance, policy, exact=exact)
    from ..discrete import progressive_filling

    return progressive_filling(instance, get_policy(policy)).allocation


#: The registered properties by name; the built-in modules of
#: :mod:`analyzer.properties` are imported on first use.
PROPERTIES: Registry[type[Property]] = Registry("property", lazy=(__package__,), error=PolicyError)


def register_property(cls: type[Property]) -> type[Property]:
    """Class decorator adding a property to :data:`PROPERTIES` under its
    name (``PROPERTIES.unregister(name)`` removes it)."""
    return PROPERTIES.register(cls.name, cls)


def available_properties() -> dict[str, type[Property]]:
    """All registered properties by name, in the paper's Table 2 order
    (:attr:`Property.order`, then name); modules are imported on first use."""
    return dict(sorted(PROPERTIES.items(), key=lambda kv: (kv[1].order, kv[0])))


def get_property(spec: str | Property) -> Property:
    """A property object from its name.

    Raises
    ------
    PolicyError
        For an unknown name (a bad-input error, exit code 2 on the CLI).
    """
    if isinstance(spec, Property):
        return spec
    return PROPERTIES.get(str(spec).strip().lower())()
