"""The outcome of a counterexample search (:class:`SearchResult`) and its
JSON form (see :func:`~analyzer.searching.engine.search`)."""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

from models import Instance
from models.display import html_table, short_repr, to_frame

from ..properties.base import CONTINUOUS, Violation
from .classes import InstanceClass

#: Columns of :meth:`SearchResult.record`, one row per search (and per cell
#: of a property table's ``to_pandas()``).
RECORD_COLUMNS: tuple[str, ...] = ("policy", "property", "holds", "instances", "class", "seed", "budget", "mode",
                                   "counterexample", "exact", "message", "found_in", "seconds")


@dataclass
class SearchResult:
    """The outcome of :func:`search`; in a notebook it shows as a small
    table, and :meth:`to_pandas` gives it as one tidy row.

    Attributes
    ----------
    policy, property : str
        What was searched.
    counterexample : Violation or None
        The shrunk, exactly re-verified counterexample, or ``None``.
    instances : int
        Instances the property was checked on (at most ``budget``, more only
        by the checks spent shrinking, which are counted in ``shrink_checks``).
    generated : int
        Stream positions consumed (including skipped instances).
    unsupported : int
        Instances skipped because the policy does not support them (n/a).
    not_applicable : int
        Instances skipped because the property says nothing about them.
    errors : int
        Instances whose check failed with a solver error (see ``error``).
    found_in : str or None
        Phase that found the counterexample (``grid``, ``random:uniform``,
        ``optimise``...).
    original : Violation or None
        The counterexample as first found, before shrinking.
    complete : bool
        False for a search cut short (interrupted).
    undefined : str or None
        Why the property is not defined in ``mode`` (nothing searched: n/a;
        :meth:`~analyzer.properties.base.Property.undefined_in`).
    """

    policy: str
    property: str
    counterexample: Violation | None
    instances: int
    seed: int
    budget: int
    instance_class: InstanceClass
    mode: str = CONTINUOUS
    seconds: float = 0.0
    generated: int = 0
    unsupported: int = 0
    not_applicable: int = 0
    errors: int = 0
    error: str | None = None
    found_in: str | None = None
    found_at: int | None = None
    original: Violation | None = None
    shrink_checks: int = 0
    complete: bool = True
    undefined: str | None = None

    @builtins.property  # the field ``property`` shadows the builtin in this class body
    def holds(self) -> bool | None:
        """False with a counterexample; True when instances were checked and
        none violated; None (n/a) when nothing could be checked."""
        if self.counterexample is not None:
            return False
        return True if self.instances > 0 else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (round-trips through :meth:`from_dict`)."""
        return {
            "policy": self.policy, "property": self.property, "holds": self.holds,
            "counterexample": None if self.counterexample is None else self.counterexample.to_dict(),
            "instances": self.instances, "seed": self.seed, "budget": self.budget,
            "instance_class": self.instance_class.to_dict(), "mode": self.mode, "seconds": self.seconds,
            "generated": self.generated, "unsupported": self.unsupported, "not_applicable": self.not_applicable,
            "errors": self.errors, "error": self.error, "found_in": self.found_in, "found_at": self.found_at,
            "original": None if self.original is None else self.original.to_dict(),
            "shrink_checks": self.shrink_checks, "complete": self.complete, "undefined": self.undefined,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SearchResult:
        """Inverse of :meth:`to_dict`."""
        keys = ("policy", "property", "instances", "seed", "budget", "mode", "seconds", "generated", "unsupported",
                "not_applicable", "errors", "error", "found_in", "found_at", "shrink_checks", "complete")
        return cls(**{k: d[k] for k in keys}, undefined=d.get("undefined"),
                   instance_class=InstanceClass.from_dict(d["instance_class"]),
                   counterexample=violation_from_dict(d["counterexample"]), original=violation_from_dict(d["original"]))

    # ------------------------------------------------------------ notebooks
    def record(self) -> list[Any]:
        """The result as one tidy row, in the order of :data:`RECORD_COLUMNS`
        (``holds`` is True, False or None for n/a)."""
        v = self.counterexample
        return [self.policy, self.property, self.holds, self.instances, self.instance_class.name, self.seed,
                self.budget, self.mode, None if v is None else v.instance.describe(), None if v is None else v.exact,
                self.undefined if v is None else v.message, self.found_in, self.seconds]

    def to_pandas(self) -> Any:
        """A one-row ``pandas.DataFrame`` (columns :data:`RECORD_COLUMNS`)."""
        return to_frame(RECORD_COLUMNS, [self.record()], "SearchResult.to_pandas()")

    def __repr__(self) -> str:
        outcome = "n/a" if self.holds is None else ("holds" if self.holds else "violated")
        fields: dict[str, Any] = {"policy": self.policy, "property": self.property, "outcome": outcome,
                                  "instances": self.instances, "seed": self.seed}
        if self.counterexample is not None:
            fields["counterexample"] = self.counterexample.instance.describe()
        return short_repr("SearchResult", **fields)

    def _repr_html_(self) -> str:
        rows = [[k, v] for k, v in zip(RECORD_COLUMNS, self.record(), strict=True) if v is not None]
        return html_table(["field", "value"], rows, f"search: {self.policy} / {self.property}")

    def outcome(self) -> dict[str, Any]:
        """The parts of the result that do not depend on timing (equal for
        equal seeds, however the work was split or resumed)."""
        d = self.to_dict()
        d.pop("seconds")
        return d

    def summary(self) -> str:
        """One line: ✗ with the counterexample, or ✓ with the evidence."""
        if self.counterexample is not None:
            return f"✗ {self.counterexample.one_line()}"
        if self.undefined is not None:
            return f"n/a: {self.undefined}"
        if self.instances == 0:
            return f"n/a ({self.unsupported} instances unsupported by {self.policy})"
        return f"✓ no counterexample in {self.instances} instances of class {self.instance_class.name}"


def violation_from_dict(d: dict[str, Any] | None) -> Violation | None:
    """A :class:`Violation` from its ``to_dict`` form."""
    if d is None:
        return None
    return Violation(property=d["property"], policy=d["policy"], instance=Instance.from_dict(d["instance"]),
                     user=d["user"], message=d["message"], deviation=d.get("deviation", {}),
                     before=d.get("before", {}), after=d.get("after", {}), exact=bool(d.get("exact")),
                     mode=d.get("mode", CONTINUOUS))

