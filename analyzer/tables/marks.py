"""The proofs of a property table's ✓ cells, shared by
:func:`analyzer.tables.table.property_table` (``prove=``, ``prove_bound=``) and
``fairalloc table --prove N,M [--prove-bound K]``: continuous cells are
proved with z3 (:mod:`analyzer.tables.marks_continuous`), discrete ones for every
integer instance within the bound (:mod:`analyzer.tables.marks_discrete`).
"""

from __future__ import annotations

from typing import Any

from models import PolicyError

from ..properties.base import DISCRETE
from .marks_continuous import checked_sizes, prove_cells
from .marks_discrete import prove_discrete_cells


def checked_options(prove: Any, prove_bound: Any, prove_timeout: Any,
                    mode: str) -> tuple[tuple[int, int], int | None] | None:
    """``prove``, ``prove_bound`` and ``prove_timeout`` of
    :func:`~analyzer.tables.table.property_table` checked before the search:
    ``None`` when nothing is to be proved, else the sizes ``(N, M)`` and
    the bound (``None`` for a continuous table).

    Raises
    ------
    PolicyError
        Bad input, naming the argument: a bound without ``prove``, a
        discrete ``prove`` without a bound, a bound not a whole number >= 1.
    """
    if prove is None:
        if prove_bound is not None:
            raise PolicyError("prove_bound: only with prove=(N, M)")
        return None
    sizes = checked_sizes(prove, prove_timeout)
    if prove_bound is None:
        if mode == DISCRETE:
            raise PolicyError("prove_bound: required with mode='discrete' and prove "
                              "(every integer instance in 1..K)")
        return sizes, None
    if isinstance(prove_bound, bool) or not isinstance(prove_bound, int) or prove_bound < 1:
        raise PolicyError(f"prove_bound: must be a whole number >= 1, got {prove_bound!r}")
    return sizes, prove_bound


def attach_proofs(table: Any, sizes: tuple[int, int], bound: int | None, timeout: float,
                  workers: int | None = None, scheduler: Any = None) -> None:
    """Prove the ✓ cells of ``table`` at every size up to ``sizes``:
    continuous cells with z3, discrete ones (with ``bound``) exhaustively
    within it. A counterexample found turns its cell into a ✗.

    Raises
    ------
    KeyboardInterrupt
        On Ctrl-C; the cells proved so far keep their proofs.
    """
    prove_cells(table, *sizes, timeout=timeout, workers=workers)
    if bound is not None:
        prove_discrete_cells(table, *sizes, bound, timeout=timeout, workers=workers, scheduler=scheduler)
