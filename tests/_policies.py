"""Deliberately unfair or wasteful test policies: serial dictatorship (users in
order take as many tasks as fit) and a static equal split. Used to exercise
property checks that the paper's three policies never violate."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from models import Allocation, Instance, Policy


class SerialDictatorship(Policy):
    """Users in order each take the most tasks that fit (and their cap)."""

    name = "test-dictator"
    description = "serial dictatorship (test only)"

    def solve(self, instance: Instance) -> Allocation:
        a = self.solve_exact(instance)
        return Allocation(instance=instance, x=a.x, policy=self.label)

    def order(self, instance: Instance) -> list[int]:
        """The users in the order they choose."""
        return list(range(instance.n))

    def solve_exact(self, instance: Instance) -> Allocation:
        left = list(instance.capacity_exact)
        xs: list[Fraction] = [Fraction(0)] * instance.n
        for i in self.order(instance):
            d, k = instance.demands_exact[i], instance.max_tasks_exact[i]
            t = min(left[j] / d[j] for j in range(instance.m) if d[j] > 0)
            if k is not None:
                t = min(t, k)
            left = [left[j] - t * d[j] for j in range(instance.m)]
            xs[i] = t
        return Allocation(instance=instance, x=np.array([float(v) for v in xs]), policy=self.label,
                          exact=True, x_exact=tuple(xs))


class BalancedFirst(SerialDictatorship):
    """Serial dictatorship, the most balanced demand (smallest dominant share
    over summed share, a scale-free number) choosing first: manipulable by
    reporting a balanced demand."""

    name = "test-balanced-first"

    def order(self, instance: Instance) -> list[int]:
        def key(i: int) -> tuple[Fraction, int]:
            sh = [d / c for d, c in zip(instance.demands_exact[i], instance.capacity_exact, strict=True)]
            return (max(sh) / sum(sh), i)

        return sorted(range(instance.n), key=key)


class EqualSplit(Policy):
    """Every user runs the tasks of its slice ``w_i / sum(w)`` of every
    resource (capped); leftovers stay idle."""

    name = "test-equal-split"
    description = "static equal split (test only)"

    def solve(self, instance: Instance) -> Allocation:
        a = self.solve_exact(instance)
        return Allocation(instance=instance, x=a.x, policy=self.label)

    def solve_exact(self, instance: Instance) -> Allocation:
        W = sum(instance.weights_exact, Fraction(0))
        xs = []
        for d, w, k in zip(instance.demands_exact, instance.weights_exact, instance.max_tasks_exact, strict=True):
            t = min(w / W * instance.capacity_exact[j] / d[j] for j in range(instance.m) if d[j] > 0)
            xs.append(t if k is None else min(t, k))
        return Allocation(instance=instance, x=np.array([float(v) for v in xs]), policy=self.label,
                          exact=True, x_exact=tuple(xs))
