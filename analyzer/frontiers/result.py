"""The result of :func:`analyzer.frontier`: one point per parameter value,
as a table (every output format), a tidy frame, a notebook table and a
plot."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from models.display import html_table, short_repr, to_frame

from ..render import Table, fmt_number


@dataclass
class FrontierPoint:
    """One member of the family.

    Attributes
    ----------
    value : float
        The parameter's value (``inf`` included).
    label : str
        The member as a policy name (``"fds:beta=0.25"``).
    worst : WorstCase
        The certified worst instance of the metric (:func:`analyzer.worst_case`).
    proofs : dict
        Property name -> :class:`~proofs.prover.result.ProofResult`; its
        ``status`` is the prover's (``"proved"``, ``"counterexample"``,
        ``"unknown"``, ...).
    """

    value: float
    label: str
    worst: Any
    proofs: dict[str, Any] = field(default_factory=dict)

    def status(self, prop: str) -> str:
        return str(self.proofs[prop].status)


def value_text(v: float) -> str:
    """A parameter value as typed: ``0.25``, ``1``, ``inf``."""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


@dataclass
class Frontier:
    """A policy family along one parameter: worst metric and proved properties.

    Attributes
    ----------
    policy, param, metric, direction : str
        The family, the parameter varied, the metric and its worst side.
    properties : tuple of str
    users, resources, seed : int
    points : list of FrontierPoint
        In the order the values were given.
    interrupted : bool
        Ctrl-C stopped it: :attr:`points` holds the values finished.
    """

    policy: str
    param: str
    metric: str
    direction: str
    properties: tuple[str, ...]
    users: int
    resources: int
    seed: int
    points: list[FrontierPoint] = field(default_factory=list)
    interrupted: bool = False

    def __getitem__(self, value: Any) -> FrontierPoint:
        """The point of a parameter value (``f[0.25]``, ``f["inf"]``)."""
        want = float(value)
        for p in self.points:
            if p.value == want:
                return p
        raise KeyError(value)

    def tidy(self) -> tuple[list[str], list[list[Any]]]:
        """Columns and rows of :meth:`to_pandas`."""
        cols = [self.param, self.metric, *self.properties]
        return cols, [[p.value, float(p.worst.value), *(p.status(q) for q in self.properties)] for p in self.points]

    def to_pandas(self) -> Any:
        """One row per value: the parameter, the worst metric (float) and
        each property's prover status."""
        return to_frame(*self.tidy(), owner="Frontier.to_pandas()")

    def table(self) -> Table:
        heads = [self.param, f"worst {self.metric}", "exact", "instance", *self.properties]
        rows = [[value_text(p.value), fmt_number(p.worst.value), "yes" if p.worst.exact else "no",
                 p.worst.instance.describe(), *(p.status(q) for q in self.properties)] for p in self.points]
        return Table(f"{self.policy} along {self.param}: worst {self.metric} ({self.direction}) and proofs at "
                     f"{self.users} users x {self.resources} resources", heads, rows)

    def to_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "param": self.param, "metric": self.metric, "direction": self.direction,
                "properties": list(self.properties), "users": self.users, "resources": self.resources,
                "seed": self.seed, "interrupted": self.interrupted,
                "points": [{self.param: value_text(p.value), "policy": p.label, "worst": p.worst.to_dict(),
                            "proofs": {q: p.proofs[q].to_dict() for q in self.properties}} for p in self.points]}

    def __repr__(self) -> str:
        values = ", ".join(f"{value_text(p.value)}: {float(p.worst.value):.4g}" for p in self.points)
        proved = {q: sum(p.status(q) == "proved" for p in self.points) for q in self.properties}
        return short_repr("Frontier", policy=self.policy, param=self.param, metric=self.metric,
                          values=values, proved={q: f"{k} of {len(self.points)}" for q, k in proved.items()})

    def _repr_html_(self) -> str:
        t = self.table()
        return html_table(t.headers, t.rows, caption=t.title)

    def plot(self, ax: Any = None) -> Any:
        """The worst metric against the parameter, each property's status
        marked at each value; returns the Figure."""
        from .plotting import frontier_plot

        return frontier_plot(self, ax)
