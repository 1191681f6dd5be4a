"""The settings a property is checked in, named once for every module of
:mod:`analyzer.properties` (:mod:`analyzer.properties.base` hands them on)."""

#: The settings a property can be checked in: one allocation of continuous
#: or whole tasks (Ghodsi et al., NSDI 2011), or the allocations after every
#: arrival (Kash, Procaccia and Shah, JAIR 51, 2014; :mod:`analyzer.dynamics`).
CONTINUOUS = "continuous"
DISCRETE = "discrete"
DYNAMIC = "dynamic"
MODES: tuple[str, ...] = (CONTINUOUS, DISCRETE, DYNAMIC)
#: The settings of one allocation (a property's default :attr:`Property.modes`).
STATIC_MODES: tuple[str, ...] = (CONTINUOUS, DISCRETE)

__all__ = ["CONTINUOUS", "DISCRETE", "DYNAMIC", "MODES", "STATIC_MODES"]
