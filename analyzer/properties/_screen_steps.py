"""Running the strategy-proofness screen step by step (Ghodsi et al., NSDI
2011, Section 3): the screen of one instance is a generator that yields
fill requests (the demands and caps of its deviated variants) and receives
their task counts, so that one instance's requests (:func:`drive`) or the
requests of many instances in lockstep (:func:`drive_many`) are filled in
vectorised batches."""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeVar

import numpy as np

from models import Instance
from models.filling import FillingPolicy
from models.filling_numeric import fill_shares

from ._batch import numeric_many
from ._common import Evaluator
from .base import CONTINUOUS

T = TypeVar("T")
#: A paying report: relative gain, user, direction.
Found = tuple[float, int, np.ndarray]
#: A screen step by step: yields fill requests ``(demands (K, n, m), caps
#: (K, n))`` of variants of its instance, receives ``(tasks (K, n), mode)``,
#: returns its result.
Steps = Generator[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, str], T]


def drive(ev: Evaluator, instance: Instance, steps: Steps[T]) -> T:
    """Run a screen of one instance, each request by :func:`._batch.numeric_many`."""
    try:
        D, Kc = next(steps)
        while True:
            D, Kc = steps.send((numeric_many(ev, instance, demands=D, caps=Kc), ev.mode))
    except StopIteration as stop:
        return stop.value


def drive_many(policy: FillingPolicy, instances: list[Instance], steps: list[Steps[T] | None]) -> list[T | None]:
    """Run the screens of many instances in lockstep (a filling policy in
    the continuous setting): every round, the requests of all instances of
    equal shape and weights are filled in one vectorised batch. Each
    instance's shares are computed on its own capacities, and members of a
    fill do not interact, so every instance gets the numbers its own
    :func:`drive` would."""
    out: list[T | None] = [None] * len(instances)
    pending: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def advance(k: int, value: tuple[np.ndarray, str] | None) -> None:
        gen = steps[k]
        assert gen is not None
        try:
            pending[k] = next(gen) if value is None else gen.send(value)
        except StopIteration as stop:
            out[k] = stop.value

    for k, gen in enumerate(steps):
        if gen is not None:
            advance(k, None)
    while pending:
        groups: dict[tuple[int, int, bytes], list[int]] = {}
        for k in pending:
            inst = instances[k]
            groups.setdefault((inst.n, inst.m, inst.weights.tobytes()), []).append(k)
        requests = pending
        pending = {}
        for ks in groups.values():
            D = np.concatenate([requests[k][0] for k in ks]).astype(float)
            caps = np.concatenate([requests[k][1] for k in ks]).astype(float)
            c = np.concatenate([policy.shares_batch(np.asarray(requests[k][0], dtype=float), instances[k].capacity)
                                for k in ks])
            R = np.concatenate([np.broadcast_to(instances[k].capacity, (len(requests[k][0]), instances[k].m))
                                for k in ks])
            x, _ = fill_shares(c, D, R, instances[ks[0]].weights, caps)
            lo = 0
            for k in ks:
                hi = lo + len(requests[k][0])
                advance(k, (x[lo:hi], CONTINUOUS))
                lo = hi
    return out


