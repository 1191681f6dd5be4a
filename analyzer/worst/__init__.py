"""Worst-case search and the price of fairness: optimise over instances for
the worst value of a metric (efficiency, manipulation gain, envy, sharing
incentive, utilization), certify the winner exactly and prove bounds at
small sizes.

>>> from analyzer import worst_case
"""

from .core import worst_case
from .metrics import METRICS, Metric, get_metric, register_metric
from .result import Bound, WorstCase

__all__ = ["METRICS", "Bound", "Metric", "WorstCase", "get_metric", "register_metric", "worst_case"]
