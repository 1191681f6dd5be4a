"""fairalloc's user-facing package: solve, check properties, search for
counterexamples, build property tables, compare with discrete scheduling.

>>> from analyzer import Instance, solve
"""

from importlib import import_module as _import_module

#: Public names loaded on first use (module, attribute): importing
#: ``analyzer`` loads nothing but the standard library (the command line's
#: entry point, :mod:`analyzer._entry`, installs its Ctrl-C handling
#: before numpy loads), and ``fairalloc solve`` starts without the search,
#: table and discrete machinery. No module
#: or subpackage of ``analyzer`` bears a public name (``check`` lives in
#: ``checking``, ``search`` in ``searching``): importing it would rebind the
#: attribute to the module (tests/test_public_names.py).
_LAZY: dict[str, tuple[str, str]] = {
    **{name: ("models", name) for name in ("Allocation", "Instance", "InstanceError", "Policy", "PolicyError",
                                           "SolverError", "available", "get_policy", "register")},
    "as_instance": (".api", "as_instance"),
    "solve": (".api", "solve"),
    "Comparison": (".comparison", "Comparison"),
    "check": (".checking", "check"),
    "DynamicRun": (".dynamics.result", "DynamicRun"),
    "dynamic_run": (".dynamics.result", "dynamic_run"),
    "progressive_filling": (".discrete", "progressive_filling"),
    "load_policy_file": (".policy_file", "load_policy_file"),
    "PropertyTable": (".table", "PropertyTable"),
    "property_table": (".table", "property_table"),
    "prove": (".proving", "prove"),
    "search": (".searching.engine", "search"),
    "simulate": (".simulation", "simulate"),
    "load_trace": (".simulation", "load_trace"),
    "worst_case": (".worst.core", "worst_case"),
    "frontier": (".frontiers.core", "frontier"),
}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = getattr(_import_module(module, __name__), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """Exactly the public names, the lazily loaded ones included (tab
    completion): not the submodules that loading them binds here."""
    return sorted(__all__)


__all__ = [
    "Allocation",
    "Comparison",
    "DynamicRun",
    "Instance",
    "InstanceError",
    "Policy",
    "PolicyError",
    "PropertyTable",
    "SolverError",
    "as_instance",
    "available",
    "check",
    "dynamic_run",
    "frontier",
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
