"""Tie-breaks of the discrete engine: a static rank per user, used after
the share key (smaller rank wins a tie).

Ghodsi et al., NSDI 2011, Section 4.2: Algorithm 1 picks "the user with the
lowest dominant share" without saying who goes first among equals; the
paper's Table 1 starts with B, whose task is the larger dominant share
(:data:`DEFAULT_TIE_BREAK`). A new tie-break is one function registered
with :func:`register_tie_break`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import PolicyError
from ..instance import Instance
from ..registry import Registry

#: The tie-break of the filling policies: the larger task first (the
#: paper's Table 1 starts with B, whose task is the larger dominant share).
DEFAULT_TIE_BREAK: str = "largest-task"

#: ``f(instance, sizes, rng) -> rank``; ``sizes`` are per-task key
#: increments (integers or Fractions, same order).
RankFunction = Callable[[Instance, Sequence[Any], np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class TieBreak:
    """A registered tie-break: its rank function and one line of help (for
    ``--help`` and reports)."""

    rank: RankFunction
    help: str

    def __call__(self, instance: Instance, sizes: Sequence[Any], rng: np.random.Generator) -> np.ndarray:
        """The rank of every user, shape (n,) (smaller wins a tie)."""
        return self.rank(instance, sizes, rng)


#: Every tie-break, by name.
TIE_BREAKS: Registry[TieBreak] = Registry("tie-break", error=PolicyError)


def register_tie_break(name: str, help: str) -> Callable[[RankFunction], RankFunction]:
    """Decorator registering a tie-break rank function under ``name``
    (the function is returned unchanged)."""
    def deco(fn: RankFunction) -> RankFunction:
        TIE_BREAKS.register(name, TieBreak(rank=fn, help=help))
        return fn
    return deco


def _order_to_rank(order: list[int] | np.ndarray) -> np.ndarray:
    rank = np.empty(len(order), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    return rank


@register_tie_break("largest-task", "the user whose task is the larger share goes first, then input order "
                                    "(reproduces the paper's Table 1: B before A)")
def _tb_largest(inst: Instance, sizes: Sequence[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(sorted(range(inst.n), key=lambda i: (-sizes[i], i)))


@register_tie_break("smallest-task", "the user whose task is the smaller share goes first, then input order")
def _tb_smallest(inst: Instance, sizes: Sequence[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(sorted(range(inst.n), key=lambda i: (sizes[i], i)))


@register_tie_break("index", "input order (first user in the file first)")
def _tb_index(inst: Instance, sizes: Sequence[Any], rng: np.random.Generator) -> np.ndarray:
    return np.arange(inst.n, dtype=np.int64)


@register_tie_break("reverse", "reverse input order (last user in the file first)")
def _tb_reverse(inst: Instance, sizes: Sequence[Any], rng: np.random.Generator) -> np.ndarray:
    return np.arange(inst.n - 1, -1, -1, dtype=np.int64)


@register_tie_break("name", "user names in lexicographic order")
def _tb_name(inst: Instance, sizes: Sequence[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(sorted(range(inst.n), key=lambda i: inst.users[i]))


@register_tie_break("random", "a random order drawn once from the seed")
def _tb_random(inst: Instance, sizes: Sequence[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(rng.permutation(inst.n))


__all__ = ["DEFAULT_TIE_BREAK", "TIE_BREAKS", "RankFunction", "TieBreak", "register_tie_break"]
