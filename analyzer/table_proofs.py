"""``fairalloc table --prove N,M``: upgrade the ✓ cells of a property table
from "no counterexample in K instances" to "proved for n <= N, m <= M"
where :func:`analyzer.prove` proves the property at every size up to
``N x M`` (unweighted, uncapped, continuous, positive demands; see the
result's assumptions).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class CellProof:
    """The prover's outcome for one ✓ cell.

    Attributes
    ----------
    max_users, max_resources : int
        The sizes asked for: every ``n <= max_users``, ``m <= max_resources``
        the property speaks about.
    proved : list of (n, m)
        Sizes proved.
    failed : list of (n, m, status)
        Sizes not proved: ``"unknown"`` (timeout), or ``"skipped"`` after
        one (a counterexample makes the cell a ✗ instead, see
        :func:`prove_cells`).
    domain : str
        The demand domain of the proofs.
    """

    max_users: int
    max_resources: int
    proved: list[tuple[int, int]] = field(default_factory=list)
    failed: list[tuple[int, int, str]] = field(default_factory=list)
    domain: str = "positive"

    @property
    def complete(self) -> bool:
        """Proved at every size asked for."""
        return bool(self.proved) and not self.failed

    def text(self) -> str:
        """``"proved for n ≤ 3, m ≤ 3"`` or which sizes were proved and which not."""
        if self.complete:
            ms = sorted({m for _, m in self.proved})
            m_text = f"m = {ms[0]}" if len(ms) == 1 and ms[0] != self.max_resources else f"m ≤ {self.max_resources}"
            return f"proved for n ≤ {self.max_users}, {m_text} (z3; {self.domain} demands, unweighted, uncapped)"
        done = ", ".join(f"{n}x{m}" for n, m in self.proved) or "no size"
        miss = ", ".join(f"{n}x{m} {s}" for n, m, s in self.failed)
        return f"proved for {done} only; not proved: {miss}"

    def to_dict(self) -> dict[str, Any]:
        return {"complete": self.complete, "max_users": self.max_users, "max_resources": self.max_resources,
                "domain": self.domain, "proved": [list(s) for s in self.proved],
                "failed": [list(s) for s in self.failed], "text": self.text()}


def prove_cells(table: Any, max_users: int, max_resources: int, timeout: float = 60,
                workers: int | None = None) -> None:
    """Attach a :class:`CellProof` to every ✓ cell of ``table`` whose policy
    and property have SMT encodings (``table.proofs``), trying sizes in
    increasing order and stopping at the first one not proved. Cells of
    the discrete setting are left alone (the encodings are continuous);
    a cell whose class allows zero demands is proved in that domain; the
    proofs cover unweighted, uncapped instances whatever the class (the
    text says so).

    A counterexample the prover finds (exactly re-verified, unweighted and
    uncapped, so inside every class) is one the search missed: the cell
    becomes a ✗ with it (``found_in == "prove"``), never a ✓ beside it.

    Parameters
    ----------
    timeout : float
        Seconds per size.
    """
    from proofs.prover.encodings import encodings
    from proofs.prover.properties import negations
    from proofs.prover.result import COUNTEREXAMPLE, PROVED
    from proofs.prover.symbolic import POSITIVE, ZEROS

    from .properties.base import CONTINUOUS
    from .proving import prove

    for key, cell in table.cells.items():
        if (cell.holds is not True or cell.mode != CONTINUOUS or cell.policy not in encodings()
                or cell.property not in negations()):
            continue
        neg = negations()[cell.property]
        domain = ZEROS if cell.instance_class.zeros else POSITIVE  # the cell's class: zero demands or not
        proof = CellProof(max_users, max_resources, domain=domain)
        ms = [neg.resources] if neg.resources is not None else list(range(1, max_resources + 1))
        sizes = [(n, m) for n in range(max(neg.min_users, 1), max_users + 1) for m in ms]
        for k, (n, m) in enumerate(sizes):
            r = prove(cell.policy, cell.property, n, m, domain=domain, timeout=timeout, workers=workers)
            if r.status == COUNTEREXAMPLE and r.counterexample is not None:
                cell.counterexample, cell.found_in = r.counterexample, "prove"
                break
            if r.status != PROVED:
                proof.failed.append((n, m, r.status))
                proof.failed += [(a, b, "skipped") for a, b in sizes[k + 1:]]
                break
            proof.proved.append((n, m))
        if cell.holds:
            table.proofs[key] = proof
