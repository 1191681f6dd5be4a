"""Discrete progressive filling: whole tasks, one decision at a time.

Ghodsi et al., NSDI 2011, Section 4.2 (Algorithm 1): the scheduler keeps each
user's dominant share; at every step it picks the user with the smallest
(weighted) share and launches one of its tasks if the task fits; the paper's
pseudo-code ends at the first task that does not fit. Section 6.2
(Theorem 7) places tasks on ``K`` machines, one machine at a time.

This module is the pure algorithm; :mod:`analyzer.discrete` compares its
outcome with the continuous solution.

Extension points (all registries are dicts filled by decorators):

* :class:`DiscretePolicy` -- which user gets the next task (one file per
  policy in the package ``models/discrete_policies/``, imported on first
  use, each registering with :func:`register_discrete`). A policy gives a
  per-user *share key* (smaller goes first). A policy whose key is
  ``tasks_i * rate_i`` (every :class:`~models.filling.FillingPolicy`, e.g.
  ``drf`` and ``asset``) declares its exact rates and is *batched*; any
  other key (tuples, keys that depend on other users) runs one decision per
  heap operation. Register new ones with :func:`register_discrete`.
* :class:`Placement` -- on which machine a task goes (``first-fit``,
  ``best-fit``, ``machine-by-machine``); :func:`register_placement`.
* tie-breaking -- a static rank per user used after the key
  (:data:`TIE_BREAKS`, :func:`register_tie_break`).

Arithmetic is exact: every resource is scaled to integers (the least common
multiple of the denominators of its capacity, machine capacities and
demands), so "fits" never depends on rounding, and linear keys are compared
as integers.
"""

from __future__ import annotations

import heapq
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

import numpy as np

from .errors import PolicyError
from .filling import FillingPolicy
from .instance import Instance
from .policy import Policy, get_policy

#: Scaled values below this bound are kept in numpy ``int64`` arrays (else
#: ``object`` arrays of Python ints). Elementwise differences of such values
#: cannot overflow; every sum or product the engine forms in int64 is checked
#: against this bound first, and totals are summed as Python ints.
_INT64_SAFE: int = 2**62
#: A level jump is tried only when at least this many picks may remain
#: (below it, bisection costs more than single decisions).
JUMP_MIN_PICKS: int = 512
#: Stopping variants: ``stop`` ends at the first chosen task that does not
#: fit (the paper's Algorithm 1); ``skip`` drops that user and goes on.
ON_FULL: tuple[str, ...] = ("stop", "skip")
#: The tie-break of the filling policies: the larger task first (the
#: paper's Table 1 starts with B, whose task is the larger dominant share).
DEFAULT_TIE_BREAK: str = "largest-task"


# ---------------------------------------------------------------------------
# exact integer data
# ---------------------------------------------------------------------------
def _lcm_denominators(values: Any) -> int:
    out = 1
    for v in values:
        d = Fraction(v).denominator
        if d != 1:
            out = math.lcm(out, d)
    return out


def _int_array(rows: list[list[int]], shape: tuple[int, int]) -> np.ndarray:
    big = any(abs(v) >= _INT64_SAFE for row in rows for v in row)
    arr = np.empty(shape, dtype=object if big else np.int64)
    for r, row in enumerate(rows):
        arr[r, :] = row
    return arr


@dataclass(frozen=True, eq=False)
class IntegerData:
    """An instance's resources scaled to integers, machine by machine.

    Attributes
    ----------
    scale : tuple of int
        Resource ``j`` is multiplied by ``scale[j]``.
    demands : ndarray, shape (n, m)
        Scaled demand of one task per user (``int64``, or ``object`` of
        Python ints when values are too large).
    machines : ndarray, shape (K, m)
        Scaled capacity of every machine (one row for a pool).
    machine_names : tuple of str
        ``"pool"`` or ``"<type>-<k>"``.
    caps : tuple of int or None
        Whole-task caps (``floor(k_i)``), ``None`` when unbounded.
    pooled : bool
        True when the instance has no ``[[machines]]``.
    """

    scale: tuple[int, ...]
    demands: np.ndarray
    machines: np.ndarray
    machine_names: tuple[str, ...]
    caps: tuple[int | None, ...]
    pooled: bool

    @classmethod
    def of(cls, instance: Instance) -> IntegerData:
        """Scale ``instance`` exactly (a fast path skips Fractions when every
        value is already a whole number)."""
        m = instance.m
        D = instance.demands
        whole = bool(np.all(D == np.floor(D)) and np.all(np.abs(D) < 2**53)) and all(
            float(c).is_integer() for c in instance.capacity
        ) and all(bool(np.all(mt.capacity == np.floor(mt.capacity))) for mt in instance.machines)
        if whole and instance._exact_source:
            # exact values given: whole floats may still hide a fraction (e.g. 2**52 + 1/2)
            dens = {getattr(v, "denominator", 0) for row in instance.demands_exact for v in row}
            dens.update(getattr(c, "denominator", 0) for c in instance.capacity_exact)
            dens.update(getattr(c, "denominator", 0) for mt in instance.machines for c in mt.capacity_exact)
            whole = dens <= {1}
        if whole:
            scale = tuple([1] * m)
            dem = D.astype(np.int64)
        else:
            Dx = instance.demands_exact
            cols = []
            for j in range(m):
                vals = [
                    instance.capacity_exact[j],
                    *(row[j] for row in Dx),
                    *(mt.capacity_exact[j] for mt in instance.machines),
                ]
                cols.append(_lcm_denominators(vals))
            scale = tuple(cols)
            dem = _int_array([[int(row[j] * scale[j]) for j in range(m)] for row in Dx], (instance.n, m))
        if instance.machines:
            types = [[int(mt.capacity_exact[j] * scale[j]) for j in range(m)] for mt in instance.machines]
            counts = [mt.count for mt in instance.machines]
            names = [f"{mt.name or f'm{t}'}-{k}" for t, mt in enumerate(instance.machines) for k in range(mt.count)]
            # one row per machine type, repeated (no per-machine Python rows)
            mach = np.repeat(_int_array(types, (len(types), m)), counts, axis=0)
            pooled = False
        else:
            mach = _int_array([[int(instance.capacity_exact[j] * scale[j]) for j in range(m)]], (1, m))
            names = ["pool"]
            pooled = True
        if mach.dtype != dem.dtype:
            mach, dem = mach.astype(object), dem.astype(object)
        caps = tuple(None if k is None else math.floor(k) for k in instance.max_tasks_exact) \
            if instance.capped else tuple([None] * instance.n)
        return cls(scale=scale, demands=dem, machines=mach, machine_names=tuple(names), caps=caps, pooled=pooled)

    def exact(self, value: int, j: int) -> Fraction:
        """Un-scale a value of resource ``j``."""
        return Fraction(int(value), self.scale[j])

    @cached_property
    def max_task(self) -> np.ndarray:
        """The paper's *max-task* (Section 6.2): the largest demand of each
        resource over all users, scaled, shape (m,)."""
        return self.demands.max(axis=0)


# ---------------------------------------------------------------------------
# state seen by policies and placements
# ---------------------------------------------------------------------------
@dataclass(eq=False)
class FillState:
    """The mutable state of one filling run.

    Attributes
    ----------
    instance : Instance
    data : IntegerData
    tasks : list of int
        Tasks placed so far per user.
    free : list of list of int
        Free (scaled) resources per machine (Python ints: scalar access in
        the decision loop is much faster than on numpy arrays).
    placed : list of mapping
        Per machine, ``user index -> tasks`` placed on it (write through
        :meth:`slot`; an unused machine holds :data:`EMPTY_SLOT`).
    extra : dict
        What a policy keeps from one allocation step to the next on the
        same state (e.g. Mesos's allocation counts; see :class:`Engine`,
        which also keeps ``"released"``: tasks given back per user).
    """

    instance: Instance
    data: IntegerData
    tasks: list[int]
    free: list[list[int]]
    placed: list[Mapping[int, int]]
    extra: dict[str, Any] = field(default_factory=dict)
    _rows: dict[int, tuple[tuple[int, int], ...]] = field(default_factory=dict)

    def demand(self, i: int) -> tuple[tuple[int, int], ...]:
        """``(resource, scaled demand)`` pairs of user ``i``'s positive
        demands (cached)."""
        row = self._rows.get(i)
        if row is None:
            row = tuple((j, int(v)) for j, v in enumerate(self.data.demands[i]) if v > 0)
            self._rows[i] = row
        return row

    def fits_on(self, k: int, i: int) -> int:
        """How many tasks of user ``i`` fit on machine ``k`` now."""
        free = self.free[k]
        return min(free[j] // d for j, d in self.demand(i))

    def put(self, k: int, i: int, count: int) -> None:
        """Place ``count`` tasks of user ``i`` on machine ``k``."""
        free = self.free[k]
        for j, d in self.demand(i):
            free[j] -= d * count
        self.slot(k)[i] = self.placed[k].get(i, 0) + count

    def slot(self, k: int) -> dict[int, int]:
        """Machine ``k``'s ``user -> tasks`` dict, ready to be written (an
        unused machine holds the shared read-only :data:`EMPTY_SLOT`)."""
        slot = self.placed[k]
        if slot is EMPTY_SLOT:
            slot = self.placed[k] = {}
        return slot  # type: ignore[return-value]


#: What an unused machine holds in ``placed`` (no dict per machine until one
#: is written: a cluster of 10^4 machines starts without 10^4 dicts).
EMPTY_SLOT: Mapping[int, int] = MappingProxyType({})


# ---------------------------------------------------------------------------
# policies
# ---------------------------------------------------------------------------
class DiscretePolicy(ABC):
    """Which user gets the next task: the one with the smallest share key.

    Subclasses set :attr:`name` and implement :meth:`key`. A policy whose
    key is exactly ``tasks_i * rate_i`` also returns the rates from
    :meth:`rates`, which lets the engine batch decisions. A key that
    depends on other users' allocations sets :attr:`global_keys`; the engine
    then re-evaluates every key at every decision (O(n) a decision).

    Examples
    --------
    A scheduler that orders by dominant share, then by fewer running tasks
    (a tuple key: not linear, so one heap operation per decision):

    >>> class ShareThenCount(DiscretePolicy):
    ...     name = "share-then-count"
    ...     def key(self, state, i):
    ...         inst, x = state.instance, int(state.tasks[i])
    ...         dom = max(d / c for d, c in zip(inst.demands_exact[i], inst.capacity_exact))
    ...         return (x * dom / inst.weights_exact[i], x)
    >>> _ = register_discrete(ShareThenCount)
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> fill(inst, "share-then-count", placement="best-fit").tasks.tolist()
    [3, 2]
    >>> _ = _DISCRETE.pop("share-then-count")
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    source: ClassVar[str] = ""
    global_keys: ClassVar[bool] = False
    #: The tie-break used when the caller names none (a key of
    #: :data:`TIE_BREAKS`; e.g. a scheduler that orders equal shares by name).
    default_tie_break: ClassVar[str] = DEFAULT_TIE_BREAK

    @property
    def label(self) -> str:
        """Name shown in reports."""
        return self.name

    def supports(self, instance: Instance) -> str | None:
        """``None`` when the policy applies, else the reason it does not."""
        return None

    @abstractmethod
    def key(self, state: FillState, i: int) -> Any:
        """Share key of user ``i`` in ``state`` (smaller goes first).

        Keys of different users must be mutually comparable; ties are broken
        by the run's tie-break rank, never by the key's own type.
        """

    def rates(self, instance: Instance) -> list[Fraction] | None:
        """Exact per-task key increments when ``key == tasks_i * rate_i``."""
        return None

    def drive(self, run: _Run) -> bool:
        """Run a decision loop of the policy's own and return True, or
        return False to use the engine's loops (the default).

        For allocators whose unit of decision is not one task, e.g. Mesos
        offering one machine at a time (:mod:`models.variants.mesos`). The
        loop places tasks with ``run.take(i, count, machine)`` (on a given
        machine) or ``run.place_tasks(i, count)`` (through the placement).
        """
        return False

    def task_sizes(self, instance: Instance) -> list[Fraction]:
        """Size of one task per user, used by the ``largest-task`` and
        ``smallest-task`` tie-breaks: the rates when linear, else the
        weighted dominant share of one task."""
        r = self.rates(instance)
        if r is not None:
            return r
        return [max(Fraction(d) / c for d, c in zip(row, instance.capacity_exact, strict=True)) / w
                for row, w in zip(instance.demands_exact, instance.weights_exact, strict=True)]


class LinearShare(DiscretePolicy):
    """The discrete form of a :class:`~models.filling.FillingPolicy`.

    The key of user ``i`` is its weighted share ``tasks_i * c_i / w_i`` where
    ``c_i`` is the policy's ``share_per_task`` (DRF: dominant share of one
    task, Section 4; asset fairness: aggregate share, Section 5.1).
    """

    def __init__(self, policy: FillingPolicy) -> None:
        self.policy = policy
        self._cache: tuple[Instance, list[Fraction]] | None = None

    @property
    def label(self) -> str:
        return self.policy.label

    @property
    def name(self) -> str:  # type: ignore[override]
        return self.policy.name

    def supports(self, instance: Instance) -> str | None:
        return self.policy.supports(instance)

    def rates(self, instance: Instance) -> list[Fraction]:
        if self._cache is not None and self._cache[0] is instance:
            return self._cache[1]
        c = self.policy._coefficients_exact(instance)
        out = [ci / w for ci, w in zip(c, instance.weights_exact, strict=True)]
        self._cache = (instance, out)
        return out

    def key(self, state: FillState, i: int) -> Fraction:
        return int(state.tasks[i]) * self.rates(state.instance)[i]


DP = TypeVar("DP", bound=type[DiscretePolicy])
_DISCRETE: dict[str, type[DiscretePolicy]] = {}


def register_discrete(cls: DP) -> DP:
    """Class decorator: make a :class:`DiscretePolicy` available by name.

    Filling policies of :mod:`models.policies` need no registration: any of
    them works discretely through :class:`LinearShare`.
    """
    if not cls.name or cls.name != cls.name.lower():
        raise PolicyError(f"discrete policy class {cls.__name__}: name must be a non-empty lower-case word")
    _DISCRETE[cls.name] = cls
    return cls


#: Package whose modules are imported (once) to register discrete-only
#: policies, one per file, like :mod:`models.policies`.
PLUGIN_PACKAGE: str = "models.discrete_policies"
_PLUGINS_LOADED = False


def _load_plugins() -> None:
    """Import every module of :data:`PLUGIN_PACKAGE` when it exists."""
    global _PLUGINS_LOADED
    if _PLUGINS_LOADED:
        return
    _PLUGINS_LOADED = True
    import importlib
    import pkgutil

    try:
        package = importlib.import_module(PLUGIN_PACKAGE)
    except ModuleNotFoundError as exc:
        if exc.name != PLUGIN_PACKAGE:
            raise
        return
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{PLUGIN_PACKAGE}.{info.name}")


def discrete_policies() -> dict[str, type[DiscretePolicy]]:
    """Registered discrete-only policies (filling policies come on top)."""
    _load_plugins()
    return dict(sorted(_DISCRETE.items()))


def get_discrete_policy(spec: str | Policy | DiscretePolicy) -> DiscretePolicy:
    """A discrete policy from a name, a filling policy or a discrete policy.

    Raises
    ------
    PolicyError
        For an unknown name or a policy that is not of the filling family.
    """
    if isinstance(spec, DiscretePolicy):
        return spec
    _load_plugins()
    if isinstance(spec, str) and spec in _DISCRETE:
        return _DISCRETE[spec]()
    pol = get_policy(spec)
    form = getattr(pol, "discrete_form", None)
    if callable(form):  # a discrete-only policy registered as a Policy (models.variants)
        out = form()
        if isinstance(out, DiscretePolicy):
            return out
    if not isinstance(pol, FillingPolicy):
        raise PolicyError(
            f"policy {pol.label!r} has no discrete form (discrete filling needs a per-user share key: "
            f"a filling policy such as drf or asset, or one registered with register_discrete)"
        )
    return LinearShare(pol)


def integer_steps(rates: list[Fraction]) -> list[int]:
    """Rates scaled by the least common multiple of their denominators:
    integers in the same ratios (so keys compare exactly and fast).

    >>> integer_steps([Fraction(2, 9), Fraction(1, 3)])
    [2, 3]
    """
    den = 1
    for r in rates:
        den = math.lcm(den, r.denominator)
    return [r.numerator * (den // r.denominator) for r in rates]


# ---------------------------------------------------------------------------
# tie-breaking
# ---------------------------------------------------------------------------
#: ``name -> f(instance, sizes, rng) -> rank`` (smaller rank wins a tie);
#: ``sizes`` are per-task key increments (integers or Fractions, same order).
TIE_BREAKS: dict[str, Callable[[Instance, Sequence[Any], np.random.Generator], np.ndarray]] = {}
#: One line per tie-break, for ``--help`` and reports.
TIE_BREAK_HELP: dict[str, str] = {}


def register_tie_break(name: str, help: str) -> Callable[[Callable[..., np.ndarray]], Callable[..., np.ndarray]]:
    """Decorator registering a tie-break rank function under ``name``."""
    def deco(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        TIE_BREAKS[name] = fn
        TIE_BREAK_HELP[name] = help
        return fn
    return deco


def _order_to_rank(order: list[int] | np.ndarray) -> np.ndarray:
    rank = np.empty(len(order), dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    return rank


@register_tie_break("largest-task", "the user whose task is the larger share goes first, then input order "
                                    "(reproduces the paper's Table 1: B before A)")
def _tb_largest(inst: Instance, sizes: list[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(sorted(range(inst.n), key=lambda i: (-sizes[i], i)))


@register_tie_break("smallest-task", "the user whose task is the smaller share goes first, then input order")
def _tb_smallest(inst: Instance, sizes: list[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(sorted(range(inst.n), key=lambda i: (sizes[i], i)))


@register_tie_break("index", "input order (first user in the file first)")
def _tb_index(inst: Instance, sizes: list[Any], rng: np.random.Generator) -> np.ndarray:
    return np.arange(inst.n, dtype=np.int64)


@register_tie_break("reverse", "reverse input order (last user in the file first)")
def _tb_reverse(inst: Instance, sizes: list[Any], rng: np.random.Generator) -> np.ndarray:
    return np.arange(inst.n - 1, -1, -1, dtype=np.int64)


@register_tie_break("name", "user names in lexicographic order")
def _tb_name(inst: Instance, sizes: list[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(sorted(range(inst.n), key=lambda i: inst.users[i]))


@register_tie_break("random", "a random order drawn once from the seed")
def _tb_random(inst: Instance, sizes: list[Any], rng: np.random.Generator) -> np.ndarray:
    return _order_to_rank(rng.permutation(inst.n))




# ---------------------------------------------------------------------------
# placement
# ---------------------------------------------------------------------------
class Placement(ABC):
    """Where tasks go. :meth:`place` puts up to ``count`` tasks of user ``i``
    (all identical) and returns how many it placed; fewer than ``count``
    means the next one fits nowhere this strategy would put it.

    Free space only shrinks, so a task that does not fit now never fits
    later; strategies may rely on it.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    #: True when, on a single machine (a pool), a task is placed exactly
    #: when it fits; the engine's level jump relies on it.
    plain_on_one_machine: ClassVar[bool] = True

    def start(self, state: FillState) -> None:  # noqa: B027 -- an optional hook: most placements keep no state
        """Called once before the first decision."""

    @abstractmethod
    def place(self, state: FillState, i: int, count: int) -> int:
        """Place up to ``count`` tasks of user ``i``; return how many."""


PL = TypeVar("PL", bound=type[Placement])
PLACEMENTS: dict[str, type[Placement]] = {}


def register_placement(cls: PL) -> PL:
    """Class decorator: make a :class:`Placement` available by name."""
    PLACEMENTS[cls.name] = cls
    return cls


@register_placement
class FirstFit(Placement):
    """First fit: the lowest-numbered machine with room. Machines fill one
    after the other; a smaller task may still go back to an earlier machine
    (a per-user cursor skips the machines it no longer fits on)."""

    name = "first-fit"
    description = "lowest-numbered machine with room for the task"

    def start(self, state: FillState) -> None:
        self._cursor: dict[int, int] = {}

    def place(self, state: FillState, i: int, count: int) -> int:
        cursor = self._cursor
        k = cursor.get(i, 0)
        machines = state.free
        K = len(machines)
        dem = state.demand(i)
        done = 0
        while done < count and k < K:
            free = machines[k]
            take = count - done
            for j, d in dem:
                take = min(take, free[j] // d)
            if take:
                for j, d in dem:
                    free[j] -= d * take
                slot = state.slot(k)
                slot[i] = slot.get(i, 0) + take
                done += take
            if done < count:
                k += 1
        cursor[i] = k
        return done


@register_placement
class MachineByMachine(Placement):
    """The construction in the proof of Theorem 7 (Section 6.2): fill one
    machine at a time; move to the next machine as soon as the free space
    of the current one is less than a max-task (in some resource). Space
    left behind is never revisited; a machine smaller than the max-task is
    never used."""

    name = "machine-by-machine"
    description = "one machine at a time, leave it when less than a max-task is free (proof of Theorem 7)"
    plain_on_one_machine = False

    def start(self, state: FillState) -> None:
        self._k = 0
        self._max = [int(v) for v in state.data.max_task]

    def place(self, state: FillState, i: int, count: int) -> int:
        K = len(state.free)
        done = 0
        while done < count and self._k < K:
            free = state.free[self._k]
            if any(f < t for f, t in zip(free, self._max, strict=True)):
                self._k += 1
                continue
            # tasks placeable while at least a max-task stays free before each
            room = min((free[j] - self._max[j]) // d for j, d in state.demand(i)) + 1
            take = min(room, count - done)
            state.put(self._k, i, take)
            done += take
        return done


@register_placement
class BestFit(Placement):
    """Best fit: the machine with room whose free space, after the task,
    is smallest (sum over resources of free / cluster capacity); ties go to
    the lowest-numbered machine. Identical tasks keep going to that machine
    until it is full, so a batch costs one scan per machine used."""

    name = "best-fit"
    description = "machine left with the least free space (normalised by cluster capacity)"

    def start(self, state: FillState) -> None:
        total = [sum(int(row[j]) for row in state.data.machines) for j in range(state.instance.m)]
        self._weight = np.array([1.0 / float(v) if v > 0 else 0.0 for v in total])

    def place(self, state: FillState, i: int, count: int) -> int:
        d = state.data.demands[i]
        done = 0
        while done < count:
            free = np.array(state.free, dtype=state.data.machines.dtype)
            ok = np.all(free >= d, axis=1)
            if not ok.any():
                break
            score = (free - d).astype(float) @ self._weight
            score[~ok] = np.inf
            k = int(np.argmin(score))
            take = min(state.fits_on(k, i), count - done)
            state.put(k, i, take)
            done += take
        return done


#: The default placement on machines (a pool has one machine: all agree).
DEFAULT_PLACEMENT: str = "first-fit"


def get_placement(spec: str | Placement) -> Placement:
    """A placement strategy from its name.

    Raises
    ------
    PolicyError
        For an unknown name.
    """
    if isinstance(spec, Placement):
        return spec
    cls = PLACEMENTS.get(spec)
    if cls is None:
        raise PolicyError(f"placement: unknown {spec!r} (known: {', '.join(sorted(PLACEMENTS))})")
    return cls()


# ---------------------------------------------------------------------------
# the result
# ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class DiscreteFill:
    """The outcome of one discrete filling run.

    Attributes
    ----------
    instance : Instance
    policy, tie_break, on_full, placement : str
        The run's settings.
    tasks : ndarray of int64, shape (n,)
        Whole tasks per user.
    runs : tuple of ndarray or None
        Successful picks in order, run-length encoded: ``(users, counts)``
        (``None`` when picks were not recorded).
    failures : tuple of int
        Users whose chosen task did not fit, in order (with ``stop`` at most
        one, the last decision).
    placed : list of mapping
        Per machine, ``user index -> tasks`` (a dict, or the empty
        read-only :data:`EMPTY_SLOT` for a machine nothing was placed on).
    free : ndarray, shape (K, m)
        Scaled free resources per machine at the end.
    data : IntegerData
        The scaling used (:meth:`IntegerData.exact` un-scales).
    decisions : int
        Heap operations made (a batch counts once).
    rank : ndarray of int64, shape (n,)
        The tie-break rank of every user (smaller wins a tie).
    """

    instance: Instance
    policy: str
    tie_break: str
    on_full: str
    placement: str
    tasks: np.ndarray
    runs: tuple[np.ndarray, np.ndarray] | None
    failures: tuple[int, ...]
    placed: list[Mapping[int, int]]
    free: np.ndarray
    data: IntegerData
    decisions: int
    rank: np.ndarray

    @property
    def stopped(self) -> bool:
        """True when the ``stop`` variant ended at a task that did not fit."""
        return self.on_full == "stop" and bool(self.failures)

    @property
    def picks(self) -> list[int]:
        """User index of every successful pick, in order.

        Raises
        ------
        ValueError
            When the run did not record picks.
        """
        if self.runs is None:
            raise ValueError("picks were not recorded (record_picks=False)")
        users, counts = self.runs
        return np.repeat(users, counts).tolist()

    def free_exact(self, k: int) -> tuple[Fraction, ...]:
        """Exact free resources of machine ``k``."""
        return tuple(self.data.exact(v, j) for j, v in enumerate(self.free[k]))


# ---------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------
def fill(
    instance: Instance,
    policy: str | Policy | DiscretePolicy = "drf",
    *,
    tie_break: str | None = None,
    on_full: str = "stop",
    placement: str | Placement = DEFAULT_PLACEMENT,
    seed: int = 0,
    batch: bool = True,
    record_picks: bool = True,
) -> DiscreteFill:
    """Discrete progressive filling (Algorithm 1 of Ghodsi et al., NSDI 2011).

    Repeatedly the user with the smallest share key (ties: smallest
    tie-break rank) is chosen; one task of it is placed. A user at its task
    cap leaves. When the chosen task fits nowhere, ``on_full="stop"`` ends
    the run (the paper's pseudo-code) and ``on_full="skip"`` drops that user
    and goes on.

    Parameters
    ----------
    instance : Instance
        Its ``machines`` are used when given, else one pool.
    policy : str, Policy or DiscretePolicy
        ``"drf"``, ``"asset"``, any filling policy, or a registered
        discrete policy.
    tie_break : str, optional
        A key of :data:`TIE_BREAKS`; by default the policy's
        ``default_tie_break`` (``largest-task`` for filling policies).
    on_full : {"stop", "skip"}
    placement : str or Placement
        A key of :data:`PLACEMENTS`.
    seed : int
        Used by the ``random`` tie-break.
    batch : bool
        Batch consecutive picks of one user (same result, fewer heap
        operations; only for linear keys). ``False`` runs one heap
        operation per decision.
    record_picks : bool
        Keep the order of picks (run-length encoded).

    Returns
    -------
    DiscreteFill

    Examples
    --------
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> r = fill(inst, "drf")
    >>> r.tasks.tolist(), [inst.users[i] for i in r.picks]
    ([3, 2], ['B', 'A', 'A', 'B', 'A'])
    """
    engine = Engine(instance, policy, tie_break=tie_break, on_full=on_full, placement=placement, seed=seed,
                    batch=batch, record_picks=record_picks)
    return engine._step(snapshot=False)


class _Lazy(Sequence[Any]):
    """A list computed on first access (task sizes, which only the
    size-based tie-breaks read)."""

    def __init__(self, make: Callable[[], list[Any]]) -> None:
        self._make = make
        self._items: list[Any] | None = None

    def _get(self) -> list[Any]:
        if self._items is None:
            self._items = self._make()
        return self._items

    def __getitem__(self, i: Any) -> Any:
        return self._get()[i]

    def __len__(self) -> int:
        return len(self._get())


class Engine:
    """The discrete engine with a state that lives across allocation steps.

    :func:`fill` is one step from an empty cluster. A dynamic simulation
    calls :meth:`allocate` at every event instead of re-running from
    scratch: tasks that finish are given back with :meth:`release`, and
    the next :meth:`allocate` hands out the free space by the same policy,
    from the current allocation (keys, caps and per-policy state such as
    Mesos's allocation counts carry over). Every step runs the same loops
    as :func:`fill` (batched runs, the Mesos offer kernel, ...).

    Parameters
    ----------
    instance, policy, tie_break, on_full, placement, seed, batch, record_picks
        As for :func:`fill` (validated once, here).

    Examples
    --------
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": {"cpu": 1, "mem": 4}},
    ...               "B": {"demand": {"cpu": 3, "mem": 1}}}})
    >>> eng = Engine(inst, "drf")
    >>> eng.allocate().tasks.tolist()
    [3, 2]
    >>> eng.release("B", 1)
    >>> step = eng.allocate()
    >>> [inst.users[i] for i in step.picks], step.tasks.tolist()
    (['B'], [3, 2])
    """

    def __init__(self, instance: Instance, policy: str | Policy | DiscretePolicy = "drf", *,
                 tie_break: str | None = None, on_full: str = "stop", placement: str | Placement = DEFAULT_PLACEMENT,
                 seed: int = 0, batch: bool = True, record_picks: bool = True) -> None:
        if on_full not in ON_FULL:
            raise PolicyError(f"on_full: must be one of {', '.join(ON_FULL)}, got {on_full!r}")
        pol = get_discrete_policy(policy)
        if tie_break is None:
            tie_break = pol.default_tie_break
        if tie_break not in TIE_BREAKS:
            raise PolicyError(f"tie_break: unknown {tie_break!r} (known: {', '.join(TIE_BREAKS)})")
        reason = pol.supports(instance)
        if reason is not None:
            raise PolicyError(f"policy {pol.label!r} does not apply: {reason}")
        self.policy, self.tie_break, self.on_full = pol, tie_break, on_full
        self.batch, self.record = batch, record_picks
        self.place = get_placement(placement)
        data = IntegerData.of(instance)
        self.state = FillState(instance=instance, data=data, tasks=[0] * instance.n, free=data.machines.tolist(),
                               placed=[EMPTY_SLOT] * data.machines.shape[0])
        rates = pol.rates(instance)
        self.rates = rates
        self.steps = None if rates is None else integer_steps(rates)
        sizes: Sequence[Any] = self.steps if self.steps is not None else _Lazy(lambda: pol.task_sizes(instance))
        self.rank = TIE_BREAKS[tie_break](instance, sizes, np.random.default_rng(seed))

    @property
    def tasks(self) -> np.ndarray:
        """Tasks held per user now."""
        return np.asarray(self.state.tasks, dtype=np.int64)

    def allocate(self) -> DiscreteFill:
        """Hand out the free space from the current state; the result's
        ``runs``, ``failures`` and ``decisions`` are this step's, its
        ``tasks``, ``placed`` and ``free`` the state after it (copies)."""
        return self._step(snapshot=True)

    def release(self, user: int | str, count: int, machine: int | None = None) -> None:
        """Give back ``count`` running tasks of ``user`` (index or name):
        from ``machine`` when given, else from the highest-numbered
        machines holding its tasks first.

        Raises
        ------
        PolicyError
            For an unknown user or machine, or more tasks than it holds there.
        """
        st = self.state
        i = st.instance.users.index(user) if isinstance(user, str) and user in st.instance.users else user
        if not isinstance(i, int) or not 0 <= i < st.instance.n:
            raise PolicyError(f"release: unknown user {user!r}")
        if machine is not None and not 0 <= machine < len(st.placed):
            raise PolicyError(f"release: unknown machine {machine!r}")
        where = [machine] if machine is not None else [k for k in range(len(st.placed) - 1, -1, -1)
                                                          if st.placed[k].get(i)]
        held = sum(st.placed[k].get(i, 0) for k in where)
        if count < 0 or count > held:
            raise PolicyError(
                f"release: user {st.instance.users[i]!r} holds {held} task(s) there, asked to release {count}"
            )
        left = count
        for k in where:
            got = min(left, st.placed[k].get(i, 0))
            if got:
                st.put(k, i, -got)
                slot = st.slot(k)
                if not slot[i]:
                    del slot[i]
                left -= got
        st.tasks[i] -= count
        released = st.extra.setdefault("released", [0] * st.instance.n)
        released[i] += count

    def _step(self, snapshot: bool) -> DiscreteFill:
        st, pol = self.state, self.policy
        self.place.start(st)
        run = _Run(state=st, place=self.place, rank=[int(r) for r in self.rank], stop=self.on_full == "stop",
                   record=self.record)
        if pol.drive(run):
            pass
        elif pol.global_keys:
            run.scan(pol)
        elif self.steps is not None and self.batch:
            assert self.rates is not None
            run.batched(self.steps, self.rates)
        else:
            run.heap(pol)
        data = st.data
        return DiscreteFill(instance=st.instance, policy=pol.label, tie_break=self.tie_break, on_full=self.on_full,
                            placement=self.place.name, tasks=np.asarray(st.tasks, dtype=np.int64),
                            runs=run.recorded() if self.record else None, failures=tuple(run.failures),
                            placed=[dict(p) for p in st.placed] if snapshot else st.placed,
                            free=np.array(st.free, dtype=data.machines.dtype).reshape(data.machines.shape), data=data,
                            decisions=run.decisions, rank=self.rank)


def _merge_placed(placed: list[Mapping[int, int]], rows: np.ndarray, n: int) -> None:
    """Add placement rows ``(machine, user, tasks)`` to the per-machine
    dicts: pairs summed with numpy, one dict built per machine touched."""
    if not rows.size:
        return
    key = rows[:, 0] * n + rows[:, 1]
    order = np.argsort(key, kind="stable")
    key, count = key[order], rows[order, 2]
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    key, count = key[start], np.add.reduceat(count, start)
    machine, user = np.divmod(key, n)
    cut = np.flatnonzero(np.r_[True, machine[1:] != machine[:-1], True])
    pairs = list(zip(user.tolist(), count.tolist(), strict=True))
    bounds = cut.tolist()
    for k, a, b in zip(machine[cut[:-1]].tolist(), bounds, bounds[1:], strict=False):
        slot = placed[k]
        if slot:
            assert isinstance(slot, dict)
            for i, c in pairs[a:b]:
                slot[i] = slot.get(i, 0) + c
        else:
            placed[k] = dict(pairs[a:b])


@dataclass(eq=False)
class _Run:
    """The decision loops (one object per :func:`fill` call)."""

    state: FillState
    place: Placement
    rank: list[int]
    stop: bool
    record: bool
    pick_users: list[int] = field(default_factory=list)
    pick_counts: list[int] = field(default_factory=list)
    failures: list[int] = field(default_factory=list)
    decisions: int = 0
    chunks: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)

    def _room(self, i: int) -> int | None:
        cap = self.state.data.caps[i]
        return None if cap is None else cap - self.state.tasks[i]

    def _starters(self) -> list[int]:
        return [i for i in range(self.state.instance.n) if self._room(i) != 0]

    def _take(self, i: int, count: int) -> int:
        """Place up to ``count``; record; return how many were placed."""
        got = self.place.place(self.state, i, count)
        if got:
            self._record(i, got)
        return got

    def place_tasks(self, i: int, count: int) -> int:
        """For :meth:`DiscretePolicy.drive` loops: place up to ``count``
        tasks of user ``i`` through the run's placement strategy; record;
        return how many were placed."""
        return self._take(i, count)

    def _record(self, i: int, got: int) -> None:
        self.state.tasks[i] += got
        if self.record:
            if self.pick_users and self.pick_users[-1] == i:
                self.pick_counts[-1] += got
            else:
                self.pick_users.append(i)
                self.pick_counts.append(got)

    def take(self, i: int, count: int, k: int) -> int:
        """Place up to ``count`` tasks of user ``i`` on machine ``k`` itself
        (for :meth:`DiscretePolicy.drive` loops; caps are the caller's
        business); record; return how many were placed."""
        st = self.state
        got = min(count, st.fits_on(k, i))
        if got > 0:
            st.put(k, i, got)
            self._record(i, got)
        return max(got, 0)

    def heap(self, pol: DiscretePolicy) -> None:
        """One heap operation per decision (Algorithm 1 with a binary heap)."""
        st = self.state
        heap = [(pol.key(st, i), self.rank[i], i) for i in self._starters()]
        heapq.heapify(heap)
        while heap:
            _, r, i = heapq.heappop(heap)
            self.decisions += 1
            if not self._take(i, 1):
                self.failures.append(i)
                if self.stop:
                    return
                continue
            if self._room(i) != 0:
                heapq.heappush(heap, (pol.key(st, i), r, i))

    def scan(self, pol: DiscretePolicy) -> None:
        """Keys that depend on everybody: re-evaluate all at each decision."""
        active = self._starters()
        while active:
            i = min(active, key=lambda u: (pol.key(self.state, u), self.rank[u]))
            self.decisions += 1
            if not self._take(i, 1):
                self.failures.append(i)
                active.remove(i)
                if self.stop:
                    return
                continue
            if self._room(i) == 0:
                active.remove(i)

    def batched(self, S: list[int], rates: list[Fraction]) -> None:
        """Linear keys ``tasks_i * S_i`` in exact integers.

        A popped user takes, in one placement call, every pick it would win
        before the next user's key. On a pool, a *level jump* moreover
        allocates at once every pick whose key is below the largest level
        ``L`` at which all of them fit (their total demand is at most the
        free space, so every prefix of them fits too); it is found by
        bisection over ``L`` with vectorised integer arithmetic and repeated
        whenever many single decisions have gone by.
        """
        st = self.state
        if self._compiled_first_fit(S):
            return
        heap = [(st.tasks[i] * S[i], self.rank[i], i) for i in self._starters()]
        heapq.heapify(heap)
        jump = _LevelJump.make(self, S, rates) if len(st.free) == 1 and self.place.plain_on_one_machine else None
        every = 64
        since = every + len(heap)  # jump at once
        tasks, caps, place = st.tasks, st.data.caps, self.place.place
        pop, push = heapq.heappop, heapq.heappush
        record, users, counts = self.record, self.pick_users, self.pick_counts
        while heap:
            if jump is not None and since >= every + len(heap):
                self.pick_users, self.pick_counts = users, counts
                progressed, heap = jump.run(heap)
                users, counts = self.pick_users, self.pick_counts  # a jump flushes them into a chunk
                since = 0
                every = 64 if progressed else 2 * every
                if not heap:
                    break
            _key, r, i = pop(heap)
            self.decisions += 1
            since += 1
            s = S[i]
            x = tasks[i]
            if heap:
                k2, r2, _ = heap[0]
                # picks j >= x of user i with (j*s, r) < (k2, r2)
                want = (k2 // s + 1 if r < r2 else -(-k2 // s)) - x
            else:
                want = self._solo_bound(i)
            cap = caps[i]
            if cap is not None and cap - x < want:
                want = cap - x
            got = place(st, i, want)
            if got:
                tasks[i] = x + got
                if record:
                    if users and users[-1] == i:
                        counts[-1] += got
                    else:
                        users.append(i)
                        counts.append(got)
            if got < want:
                self.failures.append(i)
                if self.stop:
                    break
                continue
            if cap is None or x + got < cap:
                push(heap, ((x + got) * s, r, i))
        self.pick_users, self.pick_counts = users, counts

    def _compiled_first_fit(self, S: list[int]) -> bool:
        """On machines with first fit and numba installed, run
        :func:`models._fill_kernel.first_fit_kernel` (the same decisions as
        the loop of :meth:`batched`, compiled) and return True; else False
        (numba missing, a pool, another placement, or keys that could leave
        int64)."""
        st = self.state
        D = st.data.demands
        if type(self.place) is not FirstFit or len(st.free) < 2 or D.dtype != np.int64:
            return False
        from .compiled import numba_available

        if not numba_available():
            return False
        free = np.array(st.free, dtype=np.int64)
        if int(free.max(initial=0)) * free.shape[0] >= _INT64_SAFE:
            return False
        totals = free.sum(axis=0).tolist()
        for i, s in enumerate(S):
            most = min(totals[j] // d for j, d in st.demand(i)) + 1 + st.tasks[i]
            if most * s >= _INT64_SAFE:
                return False
        from ._fill_kernel import _grow, first_fit_kernel
        from .compiled import compiled

        big = 1 << 62
        caps = np.array([big if c is None else c for c in st.data.caps], dtype=np.int64)
        tasks = np.asarray(st.tasks, dtype=np.int64)
        picks, placed, fails, decisions = compiled(first_fit_kernel, (_grow,))(
            np.asarray(S, dtype=np.int64), np.asarray(self.rank, dtype=np.int64), caps, D, free, tasks,
            np.asarray(self._starters(), dtype=np.int64), self.stop)
        st.tasks[:] = tasks.tolist()
        st.free[:] = free.tolist()
        _merge_placed(st.placed, placed, st.instance.n)
        self.failures.extend(fails.tolist())
        self.decisions += int(decisions)
        if self.record and picks.size:
            self.flush()
            self.chunks.append((picks[:, 0].copy(), picks[:, 1].copy()))
        return True

    def flush(self) -> None:
        """Move the picks recorded one by one into a chunk."""
        if self.pick_users:
            self.chunks.append(
                (np.asarray(self.pick_users, dtype=np.int64), np.asarray(self.pick_counts, dtype=np.int64))
            )
            self.pick_users, self.pick_counts = [], []

    def recorded(self) -> tuple[np.ndarray, np.ndarray]:
        """All picks, run-length encoded."""
        self.flush()
        if not self.chunks:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        users = np.concatenate([c[0] for c in self.chunks])
        counts = np.concatenate([c[1] for c in self.chunks])
        # merge runs of one user split across chunks
        start = np.flatnonzero(np.r_[True, users[1:] != users[:-1]])
        return users[start], np.add.reduceat(counts, start)

    def _solo_bound(self, i: int) -> int:
        """More tasks than user ``i`` alone can ever place (plus one)."""
        st = self.state
        return min(sum(row[j] for row in st.free) // d for j, d in st.demand(i)) + 1


#: Relative distance under which two float keys may hide an exact order
#: different from theirs (float64 keys carry a relative error of a few
#: 1e-16); such neighbours are re-sorted with exact integer keys.
_KEY_NEAR: float = 1e-12


@dataclass(eq=False)
class _LevelJump:
    """Vectorised level jumps on a pool (see :meth:`_Run.batched`).

    The level is searched in floating point (integer keys may exceed
    int64); the counts it gives are then recomputed from an exact integer
    level and checked exactly, so a jump never places a task that the
    one-by-one loop would not place, in the same order.
    """

    run_: _Run
    S: list[int]
    Sf: np.ndarray
    P: np.ndarray
    Q: np.ndarray
    caps: np.ndarray

    @classmethod
    def make(cls, run: _Run, S: list[int], rates: list[Fraction]) -> _LevelJump | None:
        """A jumper, or ``None`` when int64 usage sums could overflow."""
        st = run.state
        D = st.data.demands
        if D.dtype != np.int64:
            return None
        n = st.instance.n
        free_max = max(st.free[0])
        if n * (free_max + 2) * int(D.max()) >= _INT64_SAFE:
            return None
        big = free_max + 2  # no user ever holds more tasks than this on the pool
        caps = np.array([big if c is None else min(c, big) for c in st.data.caps], dtype=np.int64)
        small = all(r.numerator < _INT64_SAFE and r.denominator < _INT64_SAFE for r in rates)
        P = np.array([r.numerator for r in rates] if small else [0] * n, dtype=np.int64)
        Q = np.array([r.denominator for r in rates] if small else [0] * n, dtype=np.int64)
        return cls(run_=run, S=S, Sf=np.array([float(v) for v in S]), P=P, Q=Q, caps=caps)

    def run(self, heap: list[tuple[int, int, int]]) -> tuple[bool, list[tuple[int, int, int]]]:
        """Allocate every pick below the largest fitting level; return
        whether anything was allocated and the rebuilt heap."""
        run = self.run_
        st = run.state
        act = np.fromiter((e[2] for e in heap), dtype=np.int64, count=len(heap))
        x = np.asarray(st.tasks, dtype=np.int64)[act]
        sf = self.Sf[act]
        D = st.data.demands[act]
        free = np.asarray(st.free[0], dtype=np.int64)
        pos = D > 0
        alone = np.where(pos, free // np.where(pos, D, 1), np.iinfo(np.int64).max).min(axis=1)
        top = np.minimum(self.caps[act], x + np.minimum(alone, self.caps[act]) + 1)
        if int((top - x).sum()) < JUMP_MIN_PICKS:
            return False, heap  # few picks remain: single decisions are cheaper
        topf = top.astype(float)

        def fits(cnt: np.ndarray) -> bool:
            return bool(np.all((cnt - x) @ D <= free))

        def approx(level: float) -> np.ndarray:
            return np.maximum(x, np.minimum(topf, np.ceil(level / sf)).astype(np.int64))

        low = min(e[0] for e in heap)  # exact: nothing lies below it
        lo, hi = float(low), float((topf * sf).max()) * 2 + 1
        if fits(approx(hi)):
            lo = hi
        else:
            while hi - lo > max(1.0, lo * _KEY_NEAR):
                mid = (lo + hi) / 2
                if fits(approx(mid)):
                    lo = mid
                else:
                    hi = mid
        # exact counts at an integer level at or below the float one
        S = self.S
        xs, tops, users = x.tolist(), top.tolist(), act.tolist()
        level = max(int(lo), low)
        while True:
            cnt = np.array([max(xi, min(ti, -(-level // S[u]))) for xi, ti, u in zip(xs, tops, users, strict=True)],
                           dtype=np.int64)
            if fits(cnt) or level <= low:
                break
            level = low + (level - low) // 2
        inc = cnt - x
        if not inc.any() or not fits(cnt):
            return False, heap
        grow = np.flatnonzero(inc)
        if run.record:
            run.flush()
            self._record(act[grow], x[grow], inc[grow])
        st.free[0] = [int(v) for v in free - inc @ D]
        slot = st.slot(0)
        for i, c, t in zip(act[grow].tolist(), inc[grow].tolist(), cnt[grow].tolist(), strict=True):
            slot[i] = slot.get(i, 0) + c
            st.tasks[i] = t
        rest = [(t * S[u], run.rank[u], u) for t, u in zip(cnt.tolist(), users, strict=True) if run._room(u) != 0]
        heapq.heapify(rest)
        return True, rest

    def _record(self, who: np.ndarray, first_task: np.ndarray, inc: np.ndarray) -> None:
        """Append the new picks in exact (key, rank) order, run-length
        encoded."""
        run = self.run_
        users = np.repeat(who, inc)
        start = np.repeat(np.cumsum(inc) - inc, inc)
        j = np.repeat(first_task, inc) + (np.arange(users.size) - start)
        rank = np.asarray(run.rank, dtype=np.int64)[users]
        keys = j * self.Sf[users]
        order = np.lexsort((rank, keys))
        if float(keys.max(initial=0.0)) >= 2.0**53 or max(self.S) >= 2**53:
            order = self._exact_order(order, users, j, keys, rank)
        seq = users[order]
        cut = np.flatnonzero(np.r_[True, seq[1:] != seq[:-1]])
        run.chunks.append((seq[cut], np.diff(np.r_[cut, seq.size])))

    def _exact_order(self, order: np.ndarray, users: np.ndarray, j: np.ndarray, keys: np.ndarray,
                     rank: np.ndarray) -> np.ndarray:
        """Repair a float-key order where floats are not exact: neighbours
        with close float keys are compared exactly (``j_a p_a q_b`` against
        ``j_b p_b q_a`` in int64 when it cannot overflow, else in Python
        integers); equal keys are put in rank order."""
        ks = keys[order]
        near = np.flatnonzero(np.diff(ks) <= _KEY_NEAR * np.abs(ks[1:]))
        if not near.size:
            return order
        a, b = users[order[near]], users[order[near + 1]]
        ja, jb = j[order[near]], j[order[near + 1]]
        P, Q = self.P, self.Q
        bound = int(j.max()) * int(P.max()) * int(Q.max())
        if P.any() and bound < _INT64_SAFE:
            equal = ja * P[a] * Q[b] == jb * P[b] * Q[a]
        else:
            S = self.S
            equal = np.array([int(x) * S[int(u)] == int(y) * S[int(v)]
                              for x, u, y, v in zip(ja, a, jb, b, strict=True)], dtype=bool)
        if equal.all():
            # runs of exactly equal keys, each put in rank order
            tie = np.zeros(order.size, dtype=bool)
            tie[near + 1] = True
            group = np.cumsum(~tie)
            return order[np.lexsort((rank[order], group))]
        # close but unequal keys (rare): sort those stretches exactly
        S, R = self.S, self.run_.rank
        edges = np.zeros(order.size + 1, dtype=np.int64)
        np.add.at(edges, near, 1)
        np.add.at(edges, near + 2, -1)
        inside = np.cumsum(edges[:-1]) > 0
        bounds = np.flatnonzero(np.diff(np.r_[0, inside.astype(np.int8), 0]))
        out = order.copy()
        for lo, hi in zip(bounds[::2], bounds[1::2], strict=True):
            seg = out[lo:hi].tolist()
            seg.sort(key=lambda p: (int(j[p]) * S[int(users[p])], R[int(users[p])]))
            out[lo:hi] = seg
        return out


__all__ = [
    "DEFAULT_PLACEMENT",
    "DEFAULT_TIE_BREAK",
    "EMPTY_SLOT",
    "ON_FULL",
    "PLACEMENTS",
    "TIE_BREAKS",
    "TIE_BREAK_HELP",
    "BestFit",
    "DiscreteFill",
    "DiscretePolicy",
    "Engine",
    "FillState",
    "FirstFit",
    "IntegerData",
    "LinearShare",
    "MachineByMachine",
    "Placement",
    "discrete_policies",
    "fill",
    "get_discrete_policy",
    "get_placement",
    "register_discrete",
    "register_placement",
    "register_tie_break",
]
