"""Several policies on one instance: what ``solve(instance, ["drf", "ceei"])``
returns, side by side as ``fairalloc solve --policy drf,ceei`` shows them
(Ghodsi et al., NSDI 2011, Sections 4 and 5 compare DRF, asset fairness
and CEEI this way)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from models import Allocation, Instance
from models.allocation import _plain as plain_number
from models.display import HTML_MAX_ROWS, html_table, to_frame

#: The longest repr of a comparison (characters).
REPR_MAX_CHARS: int = 400


@dataclass(frozen=True, eq=False)
class Comparison(Mapping[str, Allocation]):
    """One :class:`~models.Allocation` per policy, in the order asked for,
    keyed by the policy's label (``comparison["drf"]``).

    Attributes
    ----------
    instance : Instance
        The scenario every policy solved.
    allocations : tuple of Allocation
        One per policy, in order.

    Examples
    --------
    >>> from analyzer import solve
    >>> c = solve("examples/paper_two_users.toml", ["drf", "asset"], exact=True)
    >>> c.policies
    ['drf', 'asset']
    >>> str(c["asset"].tasks["A"])
    '63/25'
    """

    instance: Instance
    allocations: tuple[Allocation, ...]

    # ------------------------------------------------------------ mapping
    def __getitem__(self, policy: str) -> Allocation:
        for a in self.allocations:
            if a.policy == policy:
                return a
        raise KeyError(f"no policy {policy!r} in this comparison (policies: {', '.join(self.policies)})")

    def __iter__(self) -> Iterator[str]:
        return iter(self.policies)

    def __len__(self) -> int:
        return len(self.allocations)

    @property
    def policies(self) -> list[str]:
        """The policies' labels, in order."""
        return [a.policy for a in self.allocations]

    @property
    def exact(self) -> bool:
        """Whether every allocation is exact."""
        return all(a.exact for a in self.allocations)

    # ------------------------------------------------------------ output
    def __repr__(self) -> str:
        inst = self.instance
        head = (f"Comparison(policies={self.policies!r}, users={inst.n}, resources={inst.m}, "
                f"exact={self.exact}")
        if inst.n <= 4:
            tasks = {a.policy: {u: _plain(a, i) for i, u in enumerate(inst.users)} for a in self.allocations}
            full = f"{head}, tasks={tasks!r})"
            if len(full) <= REPR_MAX_CHARS:
                return full
        return head + ")"

    def _repr_html_(self) -> str:
        inst = self.instance
        n = min(inst.n, HTML_MAX_ROWS)
        head = ["user", *[f"{p}: tasks" for p in self.policies], *[f"{p}: dominant share" for p in self.policies]]
        rows = [[inst.users[i], *[_plain(a, i) for a in self.allocations],
                 *[float(a.dominant_shares[i]) for a in self.allocations]] for i in range(n)]
        caption = (f"{', '.join(self.policies)} on {inst.name or 'the instance'}: {inst.n} users, {inst.m} resources"
                   + (" (exact)" if self.exact else ""))
        util = html_table(["resource", "capacity", *self.policies],
                          [[r, float(inst.capacity[j]), *[float(a.utilization[j]) for a in self.allocations]]
                           for j, r in enumerate(inst.resources)], "utilization per resource")
        return html_table(head, rows, caption, total=inst.n) + "\n" + util

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per policy x user x resource,
        the columns of :meth:`models.Allocation.to_pandas` (and of
        ``fairalloc solve --format csv``)."""
        tidy = [a.tidy() for a in self.allocations]
        return to_frame(tidy[0][0], [row for _, rows in tidy for row in rows], owner="Comparison.to_pandas()")

    def plot(self, ax: Any = None) -> Any:
        """The policies' shares side by side (Ghodsi et al., Figures 3 and 4),
        into ``ax`` when given; returns the matplotlib ``Figure``."""
        from .plotting import plot_allocations

        return plot_allocations(self.instance, list(self.allocations), ax=ax)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict, as ``fairalloc solve --format json`` writes it."""
        return {"instance": self.instance.to_dict(), "allocations": [a.to_dict() for a in self.allocations]}


def _plain(a: Allocation, i: int) -> Any:
    """User ``i``'s tasks as :class:`~models.Allocation`'s repr shows them."""
    value = a.tasks[a.instance.users[i]]
    return plain_number(value) if a.exact else float(value)


__all__ = ["Comparison"]
