"""Instance classes: which instances a search draws from.

The default class is the one Ghodsi et al., NSDI 2011 work in (Sections 3
and 4): strictly positive demand vectors, equal weights, no task caps,
divisible (continuous) tasks. Options widen it: zero demand entries (a user
that does not need some resource), weights (Section 4.3), task caps.

A class has a short readable name used in tables: a ✓ cell reads "no
counterexample in N instances of class C".

What no class draws (so a ✓ says nothing about it): one user (``n >= 2``
everywhere: with one user every property but sharing incentive and Pareto
efficiency is vacuous, and those two are covered for every policy by the
self-check corpus, ``tests/known_cases.py``); more than ``n_max`` users or
``m_max`` resources; machines (the continuous policies except DRFH pool
the cluster; DRFH cells are ``n/a``) and group trees (H-DRF cells are
``n/a``); non-integer data (integers up to 30 are scale-free for the
continuous policies' fairness properties, and exact).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from models import Instance

#: Option names accepted by :meth:`InstanceClass.parse`, in display order.
OPTIONS: tuple[str, ...] = ("zeros", "weights", "caps")


@dataclass(frozen=True)
class InstanceClass:
    """A class of instances for the search.

    Attributes
    ----------
    zeros : bool
        Allow zero demand entries (every user still needs some resource).
    weights : bool
        Allow user weights other than 1 (weighted properties, Section 4.3).
    caps : bool
        Allow finite task caps ``k_i``.
    n_max, m_max : int
        Largest numbers of users and resources drawn by the random strategies.

    Examples
    --------
    >>> InstanceClass().name
    'paper'
    >>> InstanceClass.parse("zeros,weights").name
    'paper+zeros+weights'
    """

    zeros: bool = False
    weights: bool = False
    caps: bool = False
    n_max: int = 5
    m_max: int = 4

    @property
    def name(self) -> str:
        """Readable name: ``paper`` plus the options switched on."""
        extra = [o for o in OPTIONS if getattr(self, o)]
        return "+".join(["paper", *extra])

    @property
    def description(self) -> str:
        """One sentence describing the class."""
        parts = ["zero demand entries allowed" if self.zeros else "strictly positive demands",
                 "weighted" if self.weights else "unweighted",
                 "task caps" if self.caps else "no caps"]
        return ", ".join(parts) + f", n <= {self.n_max}, m <= {self.m_max} (random part)"

    def contains(self, instance: Instance) -> bool:
        """True when ``instance`` belongs to the class."""
        if not self.zeros and not instance.strictly_positive:
            return False
        if not self.weights and instance.weighted:
            return False
        if not self.caps and instance.capped:
            return False
        return True

    @classmethod
    def parse(cls, spec: str | InstanceClass | None) -> InstanceClass:
        """A class from ``None``/``"paper"``/``"default"`` or a comma- or
        plus-separated list of options (``"zeros,weights,caps"``).

        Raises
        ------
        ValueError
            For an unknown option (the CLI turns it into exit code 2).
        """
        if isinstance(spec, InstanceClass):
            return spec
        if spec is None:
            return cls()
        opts: dict[str, bool] = {}
        for raw in str(spec).replace("+", ",").split(","):
            word = raw.strip().lower()
            if word in ("", "paper", "default"):
                continue
            if word == "all":
                opts.update({o: True for o in OPTIONS})
                continue
            if word not in OPTIONS:
                raise ValueError(f"unknown instance class option {word!r} (options: paper, {', '.join(OPTIONS)}, all)")
            opts[word] = True
        return cls(**opts)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict (round-trips through :meth:`from_dict`)."""
        return {"name": self.name, "zeros": self.zeros, "weights": self.weights, "caps": self.caps,
                "n_max": self.n_max, "m_max": self.m_max}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InstanceClass:
        """Inverse of :meth:`to_dict`."""
        return cls(**{k: data[k] for k in ("zeros", "weights", "caps", "n_max", "m_max") if k in data})
