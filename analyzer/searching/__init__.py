"""Counterexample search: instance strategies, the search loop, shrinking,
margin optimisation, streaming and resuming. See
:mod:`analyzer.searching.engine`."""

from .classes import InstanceClass
from .engine import search
from .result import SearchResult, violation_from_dict
from .shrinking import shrink
from .strategies import Strategy, grid, log_uniform, near_ties, one_of, random_strategies, shared_dominant, uniform

__all__ = [
    "InstanceClass",
    "SearchResult",
    "Strategy",
    "grid",
    "log_uniform",
    "near_ties",
    "one_of",
    "random_strategies",
    "search",
    "shared_dominant",
    "shrink",
    "uniform",
    "violation_from_dict",
]
