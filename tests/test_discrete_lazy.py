"""The lazily built per-machine placements of :func:`models.discrete.fill`
(the compiled first fit leaves its placement rows unmerged until
``DiscreteFill.placed`` is read) and the compiled kernel's array heap: the
same picks, tasks, placements and free space as the eager engine step and
the Python loops (Ghodsi et al., NSDI 2011, Algorithm 1, Section 6.2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from discrete_strategies import random_cluster

from models import Instance, kernels
from models.discrete import EMPTY_SLOT, Engine, fill


@pytest.fixture(autouse=True)
def _compiled_whatever_the_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """These instances are small: the first fit runs compiled all the same (numba permitting)."""
    monkeypatch.setitem(kernels.COMPILE_MIN_WORK, "placements", 0)


def _cluster(rng: np.random.Generator) -> Instance:
    """Machines of a few shapes, fractional demands, some weights and caps."""
    shapes = [[int(v) for v in rng.integers(2, 40, size=2)] for _ in range(int(rng.integers(1, 5)))]
    machines = [{"count": int(rng.integers(1, 30)), "name": f"t{t}", "cpu": s[0], "mem": s[1]}
                for t, s in enumerate(shapes)]
    users: dict[str, Any] = {}
    for i in range(int(rng.integers(1, 30))):
        cpu, mem = int(rng.integers(1, 9)), int(rng.integers(0, 17))
        spec: dict[str, Any] = {"demand": {"cpu": f"{cpu}/4", "mem": f"{mem}/2"}}
        if rng.random() < 0.3:
            spec["weight"] = int(rng.integers(1, 4))
        if rng.random() < 0.3:
            spec["max_tasks"] = int(rng.integers(0, 20))
        users[f"u{i}"] = spec
    tot = {r: sum(m[r] * m["count"] for m in machines) for r in ("cpu", "mem")}
    return Instance.from_dict({"resources": tot, "users": users, "machines": machines})


def _outcome(r: Any) -> tuple[Any, ...]:
    return (r.picks, r.tasks.tolist(), r.failures, r.decisions, r.free.tolist(), r.free.dtype,
            [dict(p) for p in r.placed])


@pytest.mark.parametrize("on_full", ["stop", "skip"])
def test_lazy_placed_equals_the_eager_step(on_full: str) -> None:
    rng = np.random.default_rng(24)
    for trial in range(25):
        inst = _cluster(rng) if trial % 2 else random_cluster(rng, n_max=8, k_max=6, pooled=False)
        lazy = fill(inst, "drf", placement="first-fit", on_full=on_full)
        eager = Engine(inst, "drf", placement="first-fit", on_full=on_full).allocate()
        assert _outcome(lazy) == _outcome(eager), trial
        placed = lazy.placed
        assert type(placed) is list and placed is lazy.placed  # built once, then kept
        for slot in placed:
            assert slot is EMPTY_SLOT or type(slot) is dict
            assert all(type(i) is int and type(c) is int and c > 0 for i, c in slot.items())


def test_compiled_kernel_equals_the_python_loops(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    insts = [_cluster(rng) for _ in range(12)]
    fast = [fill(inst, "drf", placement="first-fit", on_full=on) for inst in insts for on in ("stop", "skip")]
    monkeypatch.setenv("FAIRALLOC_NO_NUMBA", "1")
    slow = [fill(inst, "drf", placement="first-fit", on_full=on) for inst in insts for on in ("stop", "skip")]
    one = [fill(inst, "drf", placement="first-fit", on_full=on, batch=False) for inst in insts
           for on in ("stop", "skip")]
    for a, b, c in zip(fast, slow, one, strict=True):
        assert _outcome(a) == _outcome(b)
        assert (a.picks, a.tasks.tolist(), [dict(p) for p in a.placed]) == \
            (c.picks, c.tasks.tolist(), [dict(p) for p in c.placed])
