"""The result of a worst-case search: the certified worst instance, its
exact value, the search trace and, when one was proved, the bound."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from models import Allocation, Instance

from ..render import fmt_number
from .search import TracePoint


@dataclass
class Bound:
    """A proved bound: no instance of the size is worse than :attr:`value`.

    Attributes
    ----------
    value : Fraction
        Every instance with ``users`` x ``resources`` in the domain has the
        metric at least (``"min"``) or at most (``"max"``) this value.
    attained : Any
        The worst value of an instance known (the search's or one the prover
        constructed): the truth lies between the two.
    instance : Instance or None
        The instance the prover constructed, when it is worse than the
        search's (re-verified exactly: its value is :attr:`attained`);
        ``None`` when the search's instance attains :attr:`attained`.
    detail : dict
        What attains the value on :attr:`instance` (e.g. the lie).
    steps : list of tuple
        ``(v, status)`` for each bisection query.
    seconds : float
    complete : bool
        False when the bisection stopped (timeout, unknown) before the two
        met within :data:`~models.tolerances.BOUND_BISECTION_TOL`.
    """

    value: Any
    attained: Any
    steps: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    complete: bool = True
    instance: Instance | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"value": str(self.value), "value_float": float(self.value), "attained": str(self.attained),
                "steps": [list(s) for s in self.steps], "seconds": self.seconds, "complete": self.complete,
                "instance": None if self.instance is None else self.instance.to_dict(), "detail": self.detail}


@dataclass
class WorstCase:
    """The worst instance found for (policy, metric) at one size.

    Attributes
    ----------
    value : Fraction, sympy number or float
        The metric on :attr:`instance`, exact when :attr:`exact`.
    instance : Instance
        The certified (shrunk) worst instance.
    allocation : Allocation
        The policy's allocation of it.
    trace : list of TracePoint
        Each improvement of the search (evaluations, seconds, float value, phase).
    bound : Bound or None
        The proved bound, when the metric and policy have an SMT encoding,
        one was asked for and z3 proved something (a bound that proved
        nothing is no bound).
    bound_note : str
        Why :attr:`bound` is ``None`` when a bound was asked for (no
        encoding, z3 unknown or out of time, interrupted); empty otherwise.
    """

    policy: str
    metric: str
    direction: str
    users: int
    resources: int
    domain: str
    seed: int
    value: Any
    exact: bool
    instance: Instance
    allocation: Allocation
    detail: dict[str, Any]
    found: float
    evaluations: int
    seconds: float
    trace: list[TracePoint] = field(default_factory=list)
    bound: Bound | None = None
    interrupted: bool = False
    bound_note: str = ""

    @property
    def value_text(self) -> str:
        return fmt_number(self.value)

    def __repr__(self) -> str:
        bound = "" if self.bound is None else f", bound={fmt_number(self.bound.value)}"
        text = (f"<WorstCase {self.policy} {self.metric} ({self.direction}) at {self.users}x{self.resources}: "
                f"{self.value_text}{' exact' if self.exact else ''}{bound}; {self.instance.describe()}>")
        return text if len(text) <= 400 else text[:396] + "...>"

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy, "metric": self.metric, "direction": self.direction, "users": self.users,
            "resources": self.resources, "domain": self.domain, "seed": self.seed, "value": str(self.value),
            "value_float": float(self.value), "exact": self.exact, "instance": self.instance.to_dict(),
            "tasks": {u: str(t) for u, t in self.allocation.tasks.items()}, "detail": self.detail,
            "search_value": self.found, "evaluations": self.evaluations, "seconds": self.seconds,
            "interrupted": self.interrupted, "bound": None if self.bound is None else self.bound.to_dict(),
            "bound_note": self.bound_note,
            "trace": [[p.evaluations, p.seconds, p.value, p.phase] for p in self.trace],
        }

    def to_pandas(self) -> Any:
        """The search trace: one row per improvement."""
        import pandas as pd

        return pd.DataFrame([vars(p) for p in self.trace], columns=["evaluations", "seconds", "value", "phase"])

    def _repr_html_(self) -> str:
        rows = [("policy", self.policy), ("metric", f"{self.metric} (worst = {self.direction})"),
                ("size", f"{self.users} users x {self.resources} resources, {self.domain} demands"),
                ("worst value", self.value_text + (" (exact)" if self.exact else "")),
                ("instance", self.instance.describe()), ("evaluations", str(self.evaluations))]
        if self.bound is not None:
            rows.append(("proved bound", fmt_number(self.bound.value)))
        body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
        return f"<table>{body}</table>"

    def plot(self, ax: Any = None) -> Any:
        """The best value against evaluations (and the proved bound); returns the Figure."""
        from .plotting import trace_plot

        return trace_plot(self, ax)
