"""The fairness-efficiency frontier of a policy family: along a numeric
parameter, the certified worst value of a metric and each property's
prover status (:func:`analyzer.frontier`).

>>> from analyzer import frontier
"""

from .core import frontier
from .result import Frontier, FrontierPoint

__all__ = ["Frontier", "FrontierPoint", "frontier"]
