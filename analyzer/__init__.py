"""fairalloc's user-facing package: solve, check properties, search for
counterexamples, build property tables, compare with discrete scheduling.

>>> from analyzer import Instance, solve
"""

import sys
from importlib import import_module
from types import ModuleType
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
#: then starts without the search, table and discrete machinery.
_LAZY: dict[str, tuple[str, str]] = {
    "check": (".check", "check"),
    "progressive_filling": (".discrete", "progressive_filling"),
    "load_policy_file": (".policy_file", "load_policy_file"),
    "PropertyTable": (".table", "PropertyTable"),
    "property_table": (".table", "property_table"),
    "prove": (".proving", "prove"),
    "search": (".search.engine", "search"),
    "simulate": (".simulation", "simulate"),
    "load_trace": (".simulation", "load_trace"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = getattr(import_module(module, __name__), attr)
    if name != "search":
        globals()[name] = value
    return value


class _Package(ModuleType):
    """``analyzer.search`` is the function :func:`~analyzer.search.engine.search`,
    not the subpackage of the same name (which stays importable as
    ``analyzer.search.engine`` etc. through ``sys.modules``): importing the
    subpackage would otherwise set the attribute to the module."""

    @property
    def search(self) -> Any:
        return __getattr__("search")

    @search.setter
    def search(self, value: Any) -> None:
        pass  # the import system recording the subpackage; sys.modules keeps it


sys.modules[__name__].__class__ = _Package

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
]
