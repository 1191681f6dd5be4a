"""``fairalloc table --mode discrete --prove N,M --prove-bound K``: upgrade
the ✓ cells of the discrete table from "no counterexample in so many
instances" to "proved for every integer instance within the bound K", at
every size ``n <= N`` (``n >= 2``), ``m <= M``
(:func:`analyzer.proving.discrete.prove_discrete`: exhaustive, exact, the
cell's class: zero demands, weights and caps when the class has them).

A counterexample the enumeration finds (exactly re-verified, inside the
cell's class) is one the search missed: the cell becomes a ✗ with it
(``found_in == "prove"``), as with the SMT proofs (:mod:`.table_proofs`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..proving.bounded.space import Space


@dataclass
class DiscreteCellProof:
    """The exhaustive check's outcome for one ✓ cell of the discrete table.

    Attributes
    ----------
    space : Space
        The largest size asked for (``users``, ``resources``), the bound and
        the cell's class (zero demands, weights in ``1..K``, caps in
        ``0..K`` or none).
    proved : list of (n, m)
        Sizes proved.
    failed : list of (n, m, reason)
        Sizes not proved (unknown: why), and the ones skipped after.
    deviations : str
        For strategy-proofness and resource monotonicity, the deviations
        decided (every report / growth within the bound).
    """

    space: Space
    proved: list[tuple[int, int]] = field(default_factory=list)
    failed: list[tuple[int, int, str]] = field(default_factory=list)
    deviations: str = ""

    @property
    def complete(self) -> bool:
        """Proved at every size asked for."""
        return bool(self.proved) and not self.failed

    def mark(self) -> str:
        """The suffix of the ✓: ``"(proved: bound 4)"``, with the class's
        zeros, weights and caps named (``"(proved: bound 2, weighted)"``);
        ``""`` when not proved at every size."""
        if not self.complete:
            return ""
        sp = self.space
        words = [f"bound {sp.bound}"] + [w for w, on in (("zeros", sp.domain == "zeros"),
                                                         ("weighted", sp.weighted), ("capped", sp.capped)) if on]
        return f"(proved: {', '.join(words)})"

    def text(self) -> str:
        """``"proved for n ≤ 2, m ≤ 2, every integer instance within the
        bound 4 (...)"`` or which sizes were proved and which not."""
        sp = self.space
        K = sp.bound
        extra = [w for w, on in ((f"weights in 1..{K}", sp.weighted), (f"caps in 0..{K} or none", sp.capped)) if on]
        scope = f"{sp.domain} demands, " + (", ".join(extra) if extra else "unweighted, uncapped")
        scope += f"; deviations: {self.deviations}" if self.deviations else ""
        if self.complete:
            return (f"proved for n ≤ {sp.users}, m ≤ {sp.resources}, every integer instance within "
                    f"the bound {K} (exhaustive; {scope})")
        done = ", ".join(f"{n}x{m}" for n, m in self.proved) or "no size"
        miss = ", ".join(f"{n}x{m} {s}" for n, m, s in self.failed)
        return f"proved within the bound {K} for {done} only; not proved: {miss}"

    def to_dict(self) -> dict[str, Any]:
        sp = self.space
        return {"complete": self.complete, "max_users": sp.users, "max_resources": sp.resources,
                "bound": sp.bound, "domain": sp.domain, "weighted": sp.weighted, "capped": sp.capped,
                "proved": [list(s) for s in self.proved], "failed": [list(s) for s in self.failed],
                "deviations": self.deviations, "mark": self.mark(), "text": self.text()}


def prove_discrete_cells(table: Any, max_users: int, max_resources: int, bound: int, timeout: float = 60,
                         workers: int | None = None, scheduler: Any = None) -> None:
    """Attach a :class:`DiscreteCellProof` to every ✓ cell of the discrete
    setting in ``table`` (``table.proofs``), sizes in increasing order,
    stopping at the first one not proved; a counterexample turns the cell
    into a ✗. Ctrl-C (a proof ended as interrupted) stops the whole loop
    with ``KeyboardInterrupt``, the cells proved so far kept.

    Parameters
    ----------
    timeout : float
        Seconds per size.
    """
    from proofs.prover.result import COUNTEREXAMPLE, PROVED

    from ..properties.base import DISCRETE
    from ..proving.discrete import INTERRUPTED, prove_discrete

    for key, cell in table.cells.items():
        if cell.holds is not True or cell.mode != DISCRETE:
            continue
        cls = cell.instance_class
        sp = Space(max_users, max_resources, bound, "zeros" if cls.zeros else "positive", bool(cls.weights),
                   bool(cls.caps))
        proof = DiscreteCellProof(sp)
        sizes = [(n, m) for n in range(2, max_users + 1) for m in range(1, max_resources + 1)]
        for k, (n, m) in enumerate(sizes):
            r = prove_discrete(cell.policy, cell.property, n, m, bound=bound, domain=sp.domain,
                               weighted=sp.weighted, capped=sp.capped, timeout=timeout, workers=workers,
                               scheduler=scheduler)
            if r.status == COUNTEREXAMPLE:
                cell.counterexample, cell.found_in = r.counterexample, "prove"
                break
            if any(c.reason == INTERRUPTED for c in r.cases):
                raise KeyboardInterrupt
            proof.deviations = r.assumptions.get("deviations", "")
            if r.status != PROVED:
                proof.failed.append((n, m, r.reason or r.status))
                proof.failed += [(a, b, "skipped") for a, b in sizes[k + 1:]]
                break
            proof.proved.append((n, m))
        if cell.holds:
            table.proofs[key] = proof
