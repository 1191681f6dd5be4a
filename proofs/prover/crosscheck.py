"""An encoding against its policy's solver on one fixed instance: the
formula, with the instance's numbers as constants, must have the solver's
allocation as its only solution.

:func:`analyzer.prove` runs this on a few seeded instances before trusting
an encoding (a wrong encoding would otherwise prove whatever its formula
satisfies), and the tests run it on many.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from models import Instance
from models.tolerances import ENCODING_CHECK_ATOL

from .encodings import Encoding
from .symbolic import Market


def constant_market(inst: Instance, weighted: bool, capped: bool) -> Market:
    """``inst`` as a market of constants (not normalised). An uncapped
    user of a capped market gets a cap no feasible allocation reaches."""
    D, R = inst.demands_exact, inst.capacity_exact
    d = [[z3.RealVal(str(v)) for v in row] for row in D]
    w = [z3.RealVal(str(v)) for v in inst.weights_exact] if weighted else None
    cap = None
    if capped:
        never = [min(Fraction(r) / Fraction(v) for r, v in zip(R, row, strict=True) if v > 0) + 1 for row in D]
        cap = [z3.RealVal(str(k if k is not None else never[i])) for i, k in enumerate(inst.max_tasks_exact)]
    positive = all(v > 0 for row in D for v in row)
    return Market(d, [z3.RealVal(str(r)) for r in R], False, positive, None, w, cap)


def disagreement(enc: Encoding, inst: Instance, x_exact: Sequence[Any] | None, x: Sequence[float],
                 weighted: bool = False, capped: bool = False) -> str | None:
    """``None`` when the encoding's only solution on ``inst`` is the
    solver's allocation (exactly when ``x_exact`` is rational, else within
    :data:`~models.tolerances.ENCODING_CHECK_ATOL`); otherwise what went
    wrong, in words."""
    mk = constant_market(inst, weighted, capped)
    xs = [z3.Real(f"x{i}") for i in range(inst.n)]
    s = z3.Solver()
    s.set("timeout", 20000)
    s.add(*enc.formula(mk, xs, "c"))
    rational = x_exact is not None and all(isinstance(v, Fraction | int) for v in x_exact)
    if rational:
        assert x_exact is not None
        inside = z3.And([a == z3.RealVal(str(Fraction(b))) for a, b in zip(xs, x_exact, strict=True)])
    else:
        tol = ENCODING_CHECK_ATOL
        inside = z3.And([z3.And(a - float(b) <= tol, float(b) - a <= tol) for a, b in zip(xs, x, strict=True)])
    shown = _show(x_exact if rational else x)
    first = s.check(inside)
    if first == z3.unknown:
        return f"z3 could not decide whether the solver's allocation {shown} satisfies the encoding " \
               f"({s.reason_unknown()})"
    if first != z3.sat:
        return f"the solver's allocation {shown} does not satisfy the encoding"
    answer = s.check(z3.Not(inside))
    if answer == z3.unknown:
        return f"z3 could not decide whether the encoding allows another allocation than the solver's {shown} " \
               f"({s.reason_unknown()})"
    if answer == z3.sat:
        other = _show([s.model().eval(v, model_completion=True) for v in xs])
        return f"the encoding also allows {other} besides the solver's {shown}"
    return None


def _show(x: Sequence[Any] | None) -> str:
    return "(" + ", ".join(str(v) for v in x or ()) + ")"
