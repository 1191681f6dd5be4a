"""Check one fairness property of one policy on one instance."""

from __future__ import annotations

from typing import Any

from models import Policy, PolicyError, get_policy

from .api import as_instance
from .properties.base import CONTINUOUS, DYNAMIC, Property, Violation, check_mode, get_property, require_defined


def check(
    policy: str | Policy,
    instance: Any,
    property: str | Property,
    mode: str = CONTINUOUS,
) -> Violation | None:
    """A verified violation of ``property`` by ``policy`` on ``instance``, or
    ``None`` when none was found.

    Parameters
    ----------
    policy : str or Policy
        A registered policy name (``"drf"``) or object.
    instance : Instance, dict or path
        The scenario.
    property : str or Property
        A property name (``"strategy-proofness"``; see ``fairalloc
        properties``) or object.
    mode : {"continuous", "discrete", "dynamic"}
        The setting (Ghodsi et al., NSDI 2011, Sections 4-5 or 6), or the
        dynamic one (Kash, Procaccia and Shah, JAIR 51, 2014): users arrive
        in the user order, a static policy is recomputed at every arrival.

    Returns
    -------
    Violation or None
        ``None`` also when the property does not apply to the instance (e.g.
        single-resource fairness with two resources); see
        :meth:`Property.applies`.

    Raises
    ------
    PolicyError
        For an unknown policy, property or mode, a property of one setting
        checked in the other (static and dynamic), or a policy that does
        not apply to the instance.

    Examples
    --------
    >>> from analyzer import Instance, check
    >>> inst = Instance.from_exact([30, 30], [[1, 3], [1, 1]])
    >>> check("asset", inst, "sharing-incentive").message
    'u1 gets 12 tasks; 1/2 of every resource would give it 15'
    >>> check("drf", inst, "sharing-incentive") is None
    True
    """
    inst = as_instance(instance)
    pol = get_policy(policy)
    prop = get_property(property)
    check_mode(mode)
    require_defined(prop, mode)
    if mode == DYNAMIC and pol.discrete_only:
        raise PolicyError(f"policy {pol.label!r} is defined for whole tasks only: it has no dynamic run")
    reason = pol.supports(inst)
    if reason is not None:
        raise PolicyError(f"policy {pol.label!r} does not apply: {reason}")
    if prop.applies(inst) is not None:
        return None
    return prop.check(pol, inst, mode)
