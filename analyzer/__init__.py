"""fairalloc's user-facing package: solve, check properties, search for
counterexamples, build property tables, compare with discrete scheduling.

>>> from analyzer import Instance, solve
"""

from importlib import import_module
from typing import Any

from models import (
    Allocation,
    Instance,
    InstanceError,
    Policy,
    PolicyError,
    SolverError,
    available,
    get_policy,
    register,
)

from .api import as_instance, solve

#: Public names loaded on first use (module, attribute): ``fairalloc solve``
#: then starts without the search, table and discrete machinery. No module
#: or subpackage of ``analyzer`` bears a public name (``check`` lives in
#: ``checking``, ``search`` in ``searching``): importing it would rebind the
#: attribute to the module (tests/test_public_names.py).
_LAZY: dict[str, tuple[str, str]] = {
    "check": (".checking", "check"),
    "progressive_filling": (".discrete", "progressive_filling"),
    "load_policy_file": (".policy_file", "load_policy_file"),
    "PropertyTable": (".table", "PropertyTable"),
    "property_table": (".table", "property_table"),
    "prove": (".proving", "prove"),
    "search": (".searching.engine", "search"),
    "simulate": (".simulation", "simulate"),
    "load_trace": (".simulation", "load_trace"),
    "worst_case": (".worst.core", "worst_case"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = getattr(import_module(module, __name__), attr)
    globals()[name] = value
    return value


__all__ = [
    "Allocation",
    "Instance",
    "InstanceError",
    "Policy",
    "PolicyError",
    "PropertyTable",
    "SolverError",
    "as_instance",
    "available",
    "check",
    "get_policy",
    "load_policy_file",
    "load_trace",
    "progressive_filling",
    "property_table",
    "prove",
    "register",
    "search",
    "simulate",
    "solve",
    "worst_case",
]
