"""The cell marks of a property table, and the LaTeX and CSV layouts of a
:class:`~analyzer.tables.table.PropertyTable`
(``fairalloc table --format latex|csv``); the table's ``to_latex`` and
``to_csv`` call these."""

from __future__ import annotations

import csv
import io
from typing import Any

from ..formats.latex import latex_escape, latex_table
from .marks_continuous import proof_text

#: Symbols of the three cell states (and of a property undefined in the setting).
HOLDS, VIOLATED, NA, PENDING = "✓", "✗", "n/a", "…"
#: ✓ in LaTeX: ``$\surd$`` needs no package; ``\checkmark`` needs amssymb.
CHECKMARKS: dict[str, str] = {"surd": r"$\surd$", "amssymb": r"\checkmark"}


def table_latex(t: Any, checkmark: str = "surd") -> str:
    r"""LaTeX (booktabs rules) of the property table ``t``: ✓ is ``$\surd$``
    (``checkmark="amssymb"``: ``\checkmark``), ✗ ``$\times$`` with a note
    number whose note, set under the table, is the counterexample; an n/a
    cell of a property undefined in the setting has a note with the reason.

    Examples
    --------
    >>> from analyzer.tables.table import PropertyTable
    >>> table_latex(PropertyTable(["drf"], ["envy-freeness"])).count(r"\dots")
    1
    """

    if checkmark not in CHECKMARKS:
        raise ValueError(f"checkmark must be one of {', '.join(CHECKMARKS)}, got {checkmark!r}")
    symbols = {HOLDS: CHECKMARKS[checkmark], PENDING: r"\dots", VIOLATED: r"$\times$"}
    notes: list[str] = []
    rows = []
    for q in t.properties:
        row = [latex_escape(q)]
        for p in t.policies:
            text, r = t.cell_text(p, q), t.get(p, q)
            if r is not None and (r.counterexample is not None or r.undefined is not None):
                why = r.undefined if r.counterexample is None else r.counterexample.one_line()
                notes.append(f"$^{{{len(notes) + 1}}}$ " + latex_escape(f"{p}, {q}: {why}"))
                head = VIOLATED if r.counterexample is not None else text
                sym = r"$\times" if r.counterexample is not None else latex_escape(head) + "$"
                row.append(f"{sym}^{{{len(notes)}}}${latex_escape(text.removeprefix(head))}")
            else:
                row.append(symbols.get(text, latex_escape(text)))
        rows.append(row)
    held = [r for r in t.cells.values() if r.holds]
    if held:
        counts = sorted({f"{r.instances} instances of class {r.instance_class.name}" for r in held})
        notes.append(f"{CHECKMARKS[checkmark]}: no counterexample in " + latex_escape("; ".join(counts)))
    notes += [latex_escape(f"{p}, {q}: {proof_text(pr)}") for q in t.properties for p in t.policies
              if (pr := t.proof(p, q)) is not None]
    return latex_table(t.title, ["property", *t.policies], rows, notes, raw=True) + "\n"


def table_csv(t: Any) -> str:
    """One row per cell of the property table ``t``: policy, property,
    holds (``true``, ``false``, ``n/a``), instances, class, seed, budget,
    counterexample, exact (verified in exact arithmetic), message (the
    counterexample's, or why the cell is n/a), proof."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["policy", "property", "holds", "instances", "class", "seed", "budget", "counterexample", "exact",
                "message", "proof"])
    for q in t.properties:
        for p in t.policies:
            r = t.get(p, q)
            if r is None:
                w.writerow([p, q, "", "", "", "", "", "", "", "not searched", ""])
                continue
            v = r.counterexample
            holds = "n/a" if r.holds is None else str(r.holds).lower()
            message = (r.undefined or "") if v is None else v.message
            w.writerow([p, q, holds, r.instances, r.instance_class.name, r.seed, r.budget,
                        "" if v is None else v.instance.describe(), "" if v is None else str(v.exact).lower(),
                        message, proof_text(t.proof(p, q))])
    return buf.getvalue()
