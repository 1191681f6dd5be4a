"""Fairness properties, one module each; see :mod:`analyzer.properties.base`."""

from .base import (
    CONTINUOUS,
    DISCRETE,
    MODES,
    PROPERTIES,
    Property,
    Violation,
    allocate,
    available_properties,
    check_mode,
    get_property,
    register_property,
)

__all__ = [
    "CONTINUOUS",
    "DISCRETE",
    "MODES",
    "PROPERTIES",
    "Property",
    "Violation",
    "allocate",
    "available_properties",
    "check_mode",
    "get_property",
    "register_property",
]
