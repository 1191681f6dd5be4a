"""Worst-case metrics, one module each; see :mod:`analyzer.worst.metrics.base`."""

from .base import MAX, METRICS, MIN, Measure, Metric, get_metric, register_metric

__all__ = ["MAX", "METRICS", "MIN", "Measure", "Metric", "get_metric", "register_metric"]
