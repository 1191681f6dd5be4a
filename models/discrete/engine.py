"""The discrete engine: :func:`fill` (one allocation from an empty cluster)
and :class:`Engine` (allocation steps on a state that lives across events).

Ghodsi et al., NSDI 2011, Section 4.2 (Algorithm 1) and Section 6.2
(Theorem 7, machines). The loops themselves are :class:`~.run.Run`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np

from ..errors import PolicyError
from ..instance import Instance
from ..limits import check_discrete_size
from ..policy import Policy
from .placements import DEFAULT_PLACEMENT, Placement, get_placement
from .policies import DiscretePolicy, get_discrete_policy, integer_steps
from .result import DiscreteFill
from .run import Run, merge_placed
from .state import EMPTY_SLOT, FillState, IntegerData
from .tie_breaks import TIE_BREAKS

#: Stopping variants: ``stop`` ends at the first chosen task that does not
#: fit (the paper's Algorithm 1); ``skip`` drops that user and goes on.
ON_FULL: tuple[str, ...] = ("stop", "skip")


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
        check_discrete_size(instance)  # SizeLimitError before any array is sized by the run
        pol = get_discrete_policy(policy)
        if tie_break is None:
            tie_break = pol.default_tie_break
        rank_by = TIE_BREAKS.get(tie_break)  # PolicyError naming the closest one
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
        self.rank = rank_by(instance, sizes, np.random.default_rng(seed))

    @property
    def tasks(self) -> np.ndarray:
        """Tasks held per user now."""
        return np.asarray(self.state.tasks, dtype=np.int64)

    @property
    def placed(self) -> list[dict[int, int]]:
        """Per machine, ``user index -> tasks`` running on it now (copies)."""
        return [dict(p) for p in self.state.placed]

    def allocate(self, limit: Sequence[int | None] | None = None) -> DiscreteFill:
        """Hand out the free space from the current state; the result's
        ``runs``, ``failures`` and ``decisions`` are this step's, its
        ``tasks``, ``placed`` and ``free`` the state after it (copies).

        Parameters
        ----------
        limit : sequence of int or None, optional
            The per-step limit: ``limit[i]`` is the most tasks user ``i``
            may be given in this step (``None``: no limit beyond its task
            cap). A user's cap for the step is its instance cap
            ``floor(k_i)`` (Ghodsi et al., NSDI 2011, Section 4.2), lowered
            to the tasks it holds plus ``limit[i]``; a dynamic simulation
            passes the tasks each user still has waiting. Without
            ``limit`` only the instance caps apply.

        Raises
        ------
        PolicyError
            When ``limit`` does not have one entry per user, or an entry is
            not a non-negative whole number or ``None``.

        Examples
        --------
        >>> eng = Engine(Instance.from_dict({"resources": {"cpu": 6},
        ...     "users": {"A": {"demand": {"cpu": 1}}, "B": {"demand": {"cpu": 1}}}}))
        >>> eng.allocate(limit=[1, None]).tasks.tolist()
        [1, 5]
        >>> eng.release("B", 2)
        >>> eng.allocate(limit=[1, 0]).tasks.tolist()
        [2, 3]
        """
        self.state.caps = self._step_caps(limit)
        return self._step(snapshot=True)

    def _step_caps(self, limit: Sequence[int | None] | None) -> tuple[int | None, ...]:
        st = self.state
        caps = st.data.caps
        if limit is None:
            return caps
        if isinstance(limit, (str, bytes)) or len(limit) != st.instance.n:
            raise PolicyError(f"limit: must have one entry per user ({st.instance.n}), got {limit!r}")
        out: list[int | None] = []
        for i, (cap, lim) in enumerate(zip(caps, limit, strict=True)):
            if lim is None:
                out.append(cap)
                continue
            if isinstance(lim, bool) or not isinstance(lim, (int, np.integer)) or lim < 0:
                raise PolicyError(f"limit: entry for user {st.instance.users[i]!r} must be a whole number >= 0 "
                                  f"or None, got {lim!r}")
            top = st.tasks[i] + int(lim)
            out.append(top if cap is None else min(cap, top))
        return tuple(out)

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
        run = Run(state=st, place=self.place, rank=[int(r) for r in self.rank], stop=self.on_full == "stop",
                  record=self.record, final=not snapshot)
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
        rows = run.placed_rows
        placed: list[Mapping[int, int]] | Callable[[], list[Mapping[int, int]]]
        if snapshot:
            placed = [dict(p) for p in st.placed]
        elif rows is not None:
            placed = partial(_merged, st.placed, rows, st.instance.n)  # built on first access
        else:
            placed = st.placed
        free = run.free_out if run.free_out is not None else \
            np.array(st.free, dtype=data.machines.dtype).reshape(data.machines.shape)
        return DiscreteFill(instance=st.instance, policy=pol.label, tie_break=self.tie_break, on_full=self.on_full,
                            placement=self.place.name, tasks=np.asarray(st.tasks, dtype=np.int64),
                            runs=run.recorded() if self.record else None, failures=tuple(run.failures),
                            _placed=placed, free=free, data=data, decisions=run.decisions, rank=self.rank)


def _merged(placed: list[Mapping[int, int]], rows: np.ndarray, n: int) -> list[Mapping[int, int]]:
    """``placed`` with the placement rows ``rows`` merged in (the lazy
    :attr:`DiscreteFill.placed` of a :func:`fill` run)."""
    merge_placed(placed, rows, n)
    return placed


__all__ = ["ON_FULL", "Engine", "fill"]
