"""Repeated rounds with changing demands, as a workload.

The repeated-allocation setting of Karma (Vuppalapati et al., OSDI 2023)
and of Freeman et al. (SIGMETRICS 2018): a fixed pool is allocated again
in every round, and each user asks for a different amount each round;
what a user does not get in a round is not carried over. A rounds file
(TOML or JSON; validated, a bad field exits 2 naming it)::

    name = "Karma's example"
    [rounds]
    length = 1                 # seconds per round (default 1)
    [resources]
    slices = 18                # the pool, the same in every round
    [users.A]
    tasks = [6, 12, 0, 6, 6]   # tasks wanted in each round (one entry per round)
    demand = { slices = 1 }    # one task (default: one unit of the only resource)
    weight = 1                 # optional

It runs in the simulator as a workload (:func:`rounds_body`): one
machine holding the pool; in round ``r`` (from ``r * length`` to
``(r + 1) * length``) each user's tasks of that round arrive at its start,
last the whole round, and those that cannot start then are dropped
(``until`` half a round later); the run ends with the last round. So each
round is the policy's progressive filling of the pool with whole tasks,
capped by the round's demands (Ghodsi et al., NSDI 2011, Section 4.2), and
with a half-life (``drf:half_life=H``, in seconds: rounds times
``length``) each round starts from what the users held before
(:mod:`.memory`). :meth:`.result.SimulationResult.tasks_per_round` gives
the allocation of every round.

A pool whose size changes between rounds is not supported: the
simulator's machines are fixed (a file asking for it is refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models import InstanceError

_TOP_KEYS = {"name", "rounds", "resources", "users", "simulation"}
_USER_KEYS = {"tasks", "demand", "weight"}


def is_rounds(data: Mapping[str, Any]) -> bool:
    """Whether a parsed workload file is a rounds file (it has ``[rounds]``)."""
    return "rounds" in data


def _resources(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, Mapping) or not raw:
        raise InstanceError("resources: must be a table of capacities, e.g. [resources] slices = 18")
    for r, v in raw.items():
        if isinstance(v, list):
            raise InstanceError(f"resources.{r}: one number, the pool of every round (a pool that changes "
                                f"between rounds is not supported: the simulator's machines are fixed)")
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < float("inf"):
            raise InstanceError(f"resources.{r}: must be a number >= 0, got {v!r}")
    return dict(raw)


def _user(u: str, body: Any, resources: dict[str, Any]) -> tuple[list[Any], dict[str, Any], Any]:
    p = f"users.{u}"
    if not isinstance(body, Mapping):
        raise InstanceError(f"{p}: must be a table with tasks = [...] (one entry per round)")
    unknown = set(body) - _USER_KEYS
    if unknown:
        raise InstanceError(f"{p}.{min(unknown)}: unknown key (known: {', '.join(sorted(_USER_KEYS))})")
    tasks = body.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        raise InstanceError(f"{p}.tasks: missing or empty (a list: the tasks wanted in each round)")
    for k, n in enumerate(tasks):
        if isinstance(n, bool) or not isinstance(n, int | float) or n < 0 or n != int(n):
            raise InstanceError(f"{p}.tasks[{k}]: must be a whole number >= 0, got {n!r}")
    if not any(tasks):
        raise InstanceError(f"{p}.tasks: asks for no task in any round")
    if "demand" in body:
        demand = body["demand"]
    elif len(resources) == 1:
        demand = {next(iter(resources)): 1}
    else:
        raise InstanceError(f"{p}.demand: missing (one task's demand, e.g. {{ cpu = 1, mem = 2 }})")
    if not isinstance(demand, Mapping):
        raise InstanceError(f"{p}.demand: must be a table such as {{ cpu = 1, mem = 2 }}")
    for r, v in demand.items():
        if r not in resources:
            raise InstanceError(f"{p}.demand.{r}: unknown resource (known: {', '.join(resources)})")
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < float("inf"):
            raise InstanceError(f"{p}.demand.{r}: must be a number >= 0, got {v!r}")
    if not any(v > 0 for v in demand.values()):
        raise InstanceError(f"{p}.demand: must have a positive entry")
    return [int(n) for n in tasks], dict(demand), body.get("weight", 1)


def rounds_body(data: Mapping[str, Any], name: str = "") -> tuple[dict[str, Any], int, float]:
    """A rounds file as the body of a jobs workload file (module docstring),
    with its number of rounds and their length in seconds
    (:func:`~.workload.workload_from_dict` builds the workload from them).

    Raises
    ------
    InstanceError
        Naming the first bad field.
    """
    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise InstanceError(f"{min(unknown)}: unknown key in a rounds file (known: {', '.join(sorted(_TOP_KEYS))})")
    rounds = data["rounds"]
    if not isinstance(rounds, Mapping) or set(rounds) - {"length"}:  # the count is the lists' length
        raise InstanceError("rounds: must be a table with at most length = SECONDS")
    length = rounds.get("length", 1)
    if isinstance(length, bool) or not isinstance(length, int | float) or not 0 < length < float("inf"):
        raise InstanceError(f"rounds.length: must be a number of seconds > 0, got {length!r}")
    resources = _resources(data.get("resources"))
    users = data.get("users")
    if not isinstance(users, Mapping) or not users:
        raise InstanceError("users: must be a table of [users.NAME] with tasks per round")
    parsed = {u: _user(u, body, resources) for u, body in users.items()}
    count = {len(t) for t, _, _ in parsed.values()}
    if len(count) > 1:
        u = next(u for u, (t, _, _) in parsed.items() if len(t) != max(count))
        raise InstanceError(f"users.{u}.tasks: every user needs one entry per round ({max(count)} rounds)")
    n_rounds = count.pop()
    start = [r * float(length) for r in range(n_rounds + 1)]  # a task lasting start[r+1] - start[r] ends exactly then
    # not empty: _user refuses a user asking for no task in any round
    jobs = [{"user": u, "name": f"{u} round {r + 1}", "arrival": start[r], "tasks": n, "demand": demand,
             "duration": start[r + 1] - start[r], "until": start[r] + float(length) / 2}
            for r in range(n_rounds) for u, (tasks, demand, _) in parsed.items() if (n := tasks[r]) > 0]
    simulation = dict(data.get("simulation", {}))
    simulation.setdefault("until", start[-1])
    body = {"name": data.get("name", name), "machines": [{"count": 1, **resources}], "jobs": jobs,
            "users": {u: {"weight": w} for u, (_, _, w) in parsed.items()}, "simulation": simulation}
    return body, n_rounds, float(length)


__all__ = ["is_rounds", "rounds_body"]
