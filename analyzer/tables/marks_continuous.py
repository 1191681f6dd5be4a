"""``fairalloc table --prove N,M``: upgrade the ✓ cells of a property table
from "no counterexample in K instances" to "proved for n <= N, m <= M"
where :func:`analyzer.prove` proves the property at every size up to
``N x M``, in the class of the cell: weighted and capped when the class
allows weights and caps, and in both demand domains (positive demands,
and zero entries allowed) so that the table says which holds.

Every cell is proved at least up to the size its property speaks from
(:attr:`proofs.prover.properties.Negation.speaks`: population
monotonicity from 3 users), so a "proved" covers a size where the property
constrains the policy; the mark states the sizes it covers (``✓ (proved ≤
3x2)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: The demand domains a cell is proved in, in order.
DOMAIN_ORDER: tuple[str, ...] = ("positive", "zeros")
#: Words for the domains in proof texts.
DOMAIN_WORDS: dict[str, str] = {"positive": "positive demands", "zeros": "zero demands"}


@dataclass
class DomainProof:
    """The prover's outcome for one cell in one demand domain.

    Attributes
    ----------
    domain : {"positive", "zeros"}
    proved : list of (n, m)
        Sizes proved.
    failed : list of (n, m, status)
        Sizes not proved: ``"unknown"``, or ``"skipped"`` after one.
    counterexample : Violation or None
        A counterexample the prover built, re-verified by the checker
        (exactly, or numerically where the policy has no exact solver).
    reason : str
        Why the first failed size is unknown.
    """

    domain: str
    proved: list[tuple[int, int]] = field(default_factory=list)
    failed: list[tuple[int, int, str]] = field(default_factory=list)
    counterexample: Any = None
    reason: str = ""

    @property
    def complete(self) -> bool:
        """Proved at every size asked for."""
        return bool(self.proved) and not self.failed and self.counterexample is None

    def to_dict(self) -> dict[str, Any]:
        return {"domain": self.domain, "complete": self.complete, "proved": [list(s) for s in self.proved],
                "failed": [list(s) for s in self.failed], "reason": self.reason,
                "counterexample": None if self.counterexample is None else self.counterexample.to_dict()}


@dataclass
class CellProof:
    """The prover's outcome for one ✓ cell, per demand domain.

    Attributes
    ----------
    max_users, max_resources : int
        The sizes asked for: every ``n <= max_users``, ``m <= max_resources``
        the property speaks about (the proof goes at least up to the size
        the property speaks from: :attr:`covers` says how far it went).
    weighted, capped : bool
        The class proved: symbolic weights / task caps (the cell's class).
    zeros : bool
        The cell's class allows zero demand entries (then the proof must
        hold in the ``"zeros"`` domain too).
    domains : dict of str to DomainProof
        Outcome per domain tried (positive, then zeros).
    """

    max_users: int
    max_resources: int
    weighted: bool = False
    capped: bool = False
    zeros: bool = False
    domains: dict[str, DomainProof] = field(default_factory=dict)

    @property
    def in_class(self) -> list[str]:
        """The domains the cell's class covers."""
        return list(DOMAIN_ORDER) if self.zeros else ["positive"]

    @property
    def complete(self) -> bool:
        """Proved at every size asked for, in every domain of the class."""
        return all(d in self.domains and self.domains[d].complete for d in self.in_class)

    @property
    def proved(self) -> list[tuple[int, int]]:
        """Sizes proved in every domain of the class."""
        sets = [set(self.domains[d].proved) if d in self.domains else set() for d in self.in_class]
        return sorted(set.intersection(*sets))

    @property
    def covers(self) -> tuple[int, int] | None:
        """The largest ``(n, m)`` of the sizes proved in every domain of the
        class (every size up to it the property applies to was proved when
        :attr:`complete`); ``None`` when none was."""
        sizes = self.proved
        return (max(n for n, _ in sizes), max(m for _, m in sizes)) if sizes else None

    @property
    def class_words(self) -> str:
        """``"unweighted, uncapped"``, ``"weighted, capped"``, ..."""
        return f"{'weighted' if self.weighted else 'unweighted'}, {'capped' if self.capped else 'uncapped'}"

    def mark(self) -> str:
        """The suffix of the ✓: ``"(proved ≤ 3x2)"`` (every size up to 3
        users and 2 resources) for the paper's class, ``"(proved ≤ 2x2:
        zeros, weighted, capped)"`` naming the class covered otherwise,
        ``"; zeros ✗"`` when zero demands (outside the class) refute it;
        ``""`` when nothing was proved."""
        outside = self.domains.get("zeros") if not self.zeros else None
        tail = "; zeros ✗" if outside is not None and outside.counterexample is not None else ""
        top = self.covers
        if not self.complete or top is None:
            return f"({tail[2:]})" if tail else ""
        words = [w for w, on in (("zeros", self.zeros), ("weighted", self.weighted), ("capped", self.capped)) if on]
        return f"(proved ≤ {top[0]}x{top[1]}{': ' + ', '.join(words) if words else ''}{tail})"

    def text(self) -> str:
        """What was proved, per domain: ``"proved for n ≤ 3, m ≤ 3 (z3;
        positive and zero demands, unweighted, uncapped)"``, or each
        domain's outcome."""
        tried = [self.domains[d] for d in DOMAIN_ORDER if d in self.domains]
        if tried and all(not dp.proved and dp.counterexample is None for dp in tried) \
                and len({dp.reason for dp in tried}) == 1 and tried[0].reason:
            return f"not proved: {tried[0].reason}"  # e.g. a policy the prover cannot encode
        done = [d for d in DOMAIN_ORDER if d in self.domains and self.domains[d].complete]
        parts = []
        if done:
            dp = self.domains[done[0]]
            ms = sorted({m for _, m in dp.proved})
            m_text = f"m = {ms[0]}" if len(ms) == 1 else f"m ≤ {ms[-1]}"
            words = " and ".join(DOMAIN_WORDS[d].removesuffix(" demands") for d in done) + " demands"
            parts.append(f"proved for n ≤ {max(n for n, _ in dp.proved)}, {m_text} (z3; {words}, {self.class_words})")
        parts += [self._domain_text(d) for d in DOMAIN_ORDER if d in self.domains and d not in done]
        return "; ".join(parts) if parts else "not proved"

    def _domain_text(self, domain: str) -> str:
        """The outcome in a domain not proved at every size."""
        dp = self.domains[domain]
        where = DOMAIN_WORDS[domain]
        done = ", ".join(f"{n}x{m}" for n, m in dp.proved) or "no size"
        if dp.counterexample is not None:
            outside = "" if domain in self.in_class else ", outside the class"
            return f"{where}: refuted{outside} ({dp.counterexample.one_line()}); proved for {done}"
        why = f" ({dp.reason})" if dp.reason else ""
        if not dp.proved:
            return f"{where}: not proved{why}"
        miss = ", ".join(f"{n}x{m} {s}" for n, m, s in dp.failed)
        return f"{where}: proved for {done} only; not proved: {miss}{why}"

    def to_dict(self) -> dict[str, Any]:
        return {"complete": self.complete, "max_users": self.max_users, "max_resources": self.max_resources,
                "weighted": self.weighted, "capped": self.capped, "zeros": self.zeros,
                "proved": [list(s) for s in self.proved], "mark": self.mark(),
                "domains": {d: p.to_dict() for d, p in self.domains.items()}, "text": self.text()}


def proof_text(proof: CellProof | None) -> str:
    """A cell's proof in words (``""`` without one)."""
    return "" if proof is None else proof.text()


def proof_dict(proof: CellProof | None) -> dict[str, Any]:
    """``{"proof": ...}`` for a cell's JSON (``{}`` without one)."""
    return {} if proof is None else {"proof": proof.to_dict()}


def prove_cells(table: Any, max_users: int, max_resources: int, timeout: float = 60,
                workers: int | None = None) -> None:
    """Attach a :class:`CellProof` to every continuous or dynamic ✓ cell of
    ``table`` (``table.proofs``): each size up to ``max_users x max_resources`` in
    increasing order, in the positive domain and then with zero demands,
    with weights / caps when the cell's class has them, stopping in a
    domain at the first size not proved. A policy or property the prover
    cannot encode gets a proof that says why. Cells of the discrete
    setting are left alone.

    A counterexample the prover finds in the cell's class (re-verified:
    exactly, or numerically for FDS/GFJ at finite ``beta != 1``) is one
    the search missed: the cell becomes a ✗ with it (``found_in ==
    "prove"``), and its proof is kept only when it says which domain
    holds (proved with positive demands, refuted with zeros). One with
    zero demands outside the class leaves the ✓ and is shown in the proof
    (``"zeros ✗"``).

    Parameters
    ----------
    timeout : float
        Seconds per size.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C; the cells proved so far keep their proofs.
    """
    from ..properties.base import CONTINUOUS, DYNAMIC

    for key, cell in table.cells.items():
        if cell.holds is not True or cell.mode not in (CONTINUOUS, DYNAMIC):
            continue
        proof = prove_cell(cell.policy, cell.property, max_users, max_resources, cell.instance_class, timeout,
                           workers, cell.mode)
        found = [proof.domains[d].counterexample for d in proof.in_class
                 if d in proof.domains and proof.domains[d].counterexample is not None]
        if found:
            cell.counterexample, cell.found_in = found[0], "prove"
        if not found or any(dp.complete for dp in proof.domains.values()):  # no "proved" beside a bare ✗
            table.proofs[key] = proof


def prove_cell(policy: str, prop: str, max_users: int, max_resources: int, instance_class: Any = None,
               timeout: float = 60, workers: int | None = None, mode: str = "continuous") -> CellProof:
    """One cell proved at every size up to ``max_users x max_resources``,
    with positive demands and then with zeros (not after a counterexample
    with positive demands, which is one with zeros allowed too), weighted
    and capped as ``instance_class`` (an
    :class:`~analyzer.searching.classes.InstanceClass` or its name). A
    size proved with zeros allowed is proved with positive demands too
    (every positive instance is one with zeros allowed), so it fills in a
    size the positive domain left undecided."""
    from ..searching.classes import InstanceClass

    cls = InstanceClass.parse(instance_class)
    proof = CellProof(max_users, max_resources, weighted=cls.weights, capped=cls.caps, zeros=cls.zeros)
    for domain in DOMAIN_ORDER:
        dp = _prove_domain(policy, prop, proof, domain, timeout, workers, mode)
        proof.domains[domain] = dp
        if dp.counterexample is not None:
            break
    pos, zeros = proof.domains["positive"], proof.domains.get("zeros")
    if zeros is not None and pos.counterexample is None and pos.failed:
        pos.proved = sorted(set(pos.proved) | set(zeros.proved))
        pos.failed = [f for f in pos.failed if f[:2] not in set(zeros.proved)]
        pos.reason = pos.reason if pos.failed else ""
    return proof


def _sizes(prop: str, max_users: int, max_resources: int) -> tuple[list[tuple[int, int]], str]:
    """The sizes to prove ``prop`` at, and why none when it has no negation:
    every size up to ``max_users x max_resources`` and at least up to the
    size the property speaks from, at the only number of resources it
    speaks of when it has one."""
    from models import PolicyError
    from proofs.prover.properties import get_negation

    try:
        neg = get_negation(prop)
    except PolicyError:
        return [], f"{prop}: no SMT negation of this property"
    top_n, top_m = max(max_users, neg.speaks[0]), max(max_resources, neg.speaks[1])
    ms = [neg.resources] if neg.resources is not None else list(range(1, top_m + 1))
    return [(n, m) for n in range(max(neg.min_users, 1), top_n + 1) for m in ms], ""


def _prove_domain(policy: str, prop: str, proof: CellProof, domain: str, timeout: float,
                  workers: int | None, mode: str = "continuous") -> DomainProof:
    """The cell proved size by size in one domain."""
    from models import SizeLimitError
    from proofs.prover.driver import INTERRUPTED
    from proofs.prover.result import COUNTEREXAMPLE, PROVED

    from ..proving.smt import prove

    dp = DomainProof(domain)
    sizes, why = _sizes(prop, proof.max_users, proof.max_resources)
    if why:
        dp.failed, dp.reason = [(proof.max_users, proof.max_resources, "unknown")], why
        return dp
    for k, (n, m) in enumerate(sizes):
        try:
            r = prove(policy, prop, n, m, domain=domain, weighted=proof.weighted, capped=proof.capped,
                      timeout=timeout, workers=workers, mode=mode)
        except SizeLimitError as exc:  # this size and the larger ones stay unproved, with the reason
            dp.failed = [(n, m, "unknown")] + [(a, b, "skipped") for a, b in sizes[k + 1:]]
            dp.reason = str(exc)
            return dp
        if any(c.reason == INTERRUPTED for c in r.cases):  # Ctrl-C: the proofs so far stay in the table
            raise KeyboardInterrupt
        if r.status == COUNTEREXAMPLE and r.counterexample is not None:
            dp.counterexample = r.counterexample
            return dp
        if r.status != PROVED:
            dp.failed = [(n, m, r.status)] + [(a, b, "skipped") for a, b in sizes[k + 1:]]
            dp.reason = r.reason
            return dp
        dp.proved.append((n, m))
    return dp


def checked_sizes(prove: Any, timeout: Any) -> tuple[int, int]:
    """``prove=(N, M)`` and ``prove_timeout`` of
    :func:`analyzer.property_table`, checked before the search.

    Raises
    ------
    PolicyError
        Bad input, naming the argument.
    """
    from models import PolicyError

    ok = (isinstance(prove, tuple | list) and len(prove) == 2
          and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in prove))
    if not ok:
        raise PolicyError(f"prove: expected (N, M), whole numbers >= 1, got {prove!r}")
    from models.limits import MAX_PROVE_ENTRIES, refuse_above

    refuse_above("prove", prove[0] * prove[1], MAX_PROVE_ENTRIES, "demand entries (users x resources) to prove")
    from ..proving.arguments import validate_timeout

    validate_timeout(timeout, "prove_timeout")
    return int(prove[0]), int(prove[1])
