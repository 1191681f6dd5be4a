"""Composable hypothesis strategies and checkers for the campaign over every
command and API entry point (tests/test_fuzz_commands.py, issue 28).

Strategies, from small to large:

* names: :func:`policy_specs`, :func:`property_names`, :func:`class_specs`,
  :func:`metric_names`, :func:`seeds`, :func:`budgets` (log-uniform up to
  a tier's maximum, plus 0 and small values);
* data: :func:`degenerate_instances` (small integers with duplicated and
  proportional resources and users, zero entries, caps at 0), the
  1e-9..1e9 :func:`fuzz_strategies.instances`, :func:`machine_scenarios`
  (integer machines whose totals are the capacities),
  :func:`workloads` (simulation workloads, from tiny to far past
  :mod:`models.limits`);
* files: :func:`scenario_files` writes any of them as a scenario file;
* junk: :func:`bad_flags` (a value no flag accepts).

The checkers re-derive what a command printed with a separate entry point
(``check`` on a printed counterexample, ``solve`` on a printed allocation,
feasibility from the printed numbers): the answer shown is the answer the
checker gives.
"""

from __future__ import annotations

import json
import os
import warnings
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from fuzz_strategies import instances
from hypothesis import strategies as st

from models import Instance, available, get_policy
from models.tolerances import CROSSCHECK_RTOL, FEASIBILITY_RTOL

#: The continuous policies, with parameterised forms the README shows.
CONTINUOUS = sorted(p for p in available() if not get_policy(p).discrete_only)
POLICY_SPECS = [*CONTINUOUS, "fds:beta=4", "gfj:beta=inf", "fds:beta=1"]
#: The mechanisms of the dynamic setting and static policies recomputed at every arrival.
DYNAMIC = ["dynamic-drf", "cautious-drf", "recompute:policy=ceei", "drf", "asset"]
#: Policies of the discrete engine (the filling family and the production variants).
DISCRETE = ["drf", "asset", "slots", "mesos", "yarn", "volcano", "kueue"]
#: Policies solved fast enough for large search budgets in the slow tier.
BATCHED = ["drf", "asset", "ceei", "bbf", "slots", "static", "leximin-tasks"]
CLASSES = ["paper", "zeros", "weights", "caps", "zeros,weights", "weights,caps", "all"]
METRICS = ["efficiency", "manipulation-gain", "envy", "sharing-incentive", "utilization", "dynamic-maxmin"]

#: Exit codes the README promises, per command.
EXIT_CODES: dict[str, set[int]] = {
    "solve": {0, 2, 3}, "check": {0, 1, 2, 3}, "search": {0, 1, 2}, "table": {0, 2}, "prove": {0, 1, 2, 3, 4},
    "worst": {0, 2, 3}, "discrete": {0, 2}, "simulate": {0, 2}, "variants": {0, 2}, "plot": {0, 2, 3},
    "dynamic": {0, 2, 3}, "frontier": {0, 2, 3},
}

#: Warnings a user never sees by default (Python's own filters hide them).
HIDDEN_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def property_names() -> st.SearchStrategy[str]:
    from analyzer.properties import available_properties

    return st.sampled_from(sorted(available_properties()))


@st.composite
def modes_and_properties(draw: st.DrawFn, modes: tuple[str, ...] = ("continuous", "discrete", "dynamic")
                         ) -> tuple[str, str]:
    """A setting (``--mode``) and, most of the time, a property defined in
    it (else any property: the refusal path)."""
    from analyzer.properties import available_properties, get_property

    mode = draw(st.sampled_from(modes))
    names = sorted(available_properties())
    fit = [q for q in names if mode in get_property(q).modes]
    return mode, draw(st.sampled_from(fit if draw(st.integers(0, 7)) else names))


def policy_specs(pool: list[str] | None = None) -> st.SearchStrategy[str]:
    return st.sampled_from(pool or POLICY_SPECS)


def class_specs() -> st.SearchStrategy[str]:
    return st.sampled_from(CLASSES)


def metric_names() -> st.SearchStrategy[str]:
    return st.sampled_from(METRICS)


def seeds() -> st.SearchStrategy[int]:
    return st.one_of(st.integers(0, 3), st.integers(0, 2**31 - 1))


def budgets(hi: int) -> st.SearchStrategy[int]:
    """0, small budgets, and log-uniform ones up to ``hi``."""
    return st.one_of(st.integers(0, 5), st.floats(0, np.log10(hi)).map(lambda e: int(10**e)))


@st.composite
def degenerate_instances(draw: st.DrawFn, n_max: int = 6, m_max: int = 4) -> Instance:
    """Small integer instances with the structures that make numerical
    systems singular: resources used in the same proportions by every user
    (a copied or scaled column, with its capacity scaled alike: most of the
    time), copied users, zero entries, tasks larger than a capacity, caps at
    0."""
    n, m = draw(st.integers(1, n_max)), draw(st.integers(1, m_max))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    D = rng.integers(0 if draw(st.integers(0, 3)) == 0 else 1, 4, size=(n, m))
    R = rng.integers(1, 4, size=m)
    if m > 1 and draw(st.integers(0, 3)) > 0:
        a, b = rng.choice(m, 2, replace=False)
        c = int(draw(st.sampled_from([1, 1, 2, 3])))
        D[:, b], R[b] = c * D[:, a], c * R[a]
    if n > 1 and draw(st.booleans()):
        D[-1] = D[0]
    empty = ~(D > 0).any(axis=1)
    D[empty, 0] = 1
    w = rng.integers(1, 4, size=n).tolist() if draw(st.booleans()) else None
    k = [None if v > 3 else int(v) for v in rng.integers(0, 6, size=n)] if draw(st.booleans()) else None
    return Instance.from_exact(R.tolist(), D.tolist(), weights=w, max_tasks=k)


@st.composite
def machine_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """A scenario dict with ``[[machines]]`` (integer shapes, up to three
    types); the capacities are the machines' totals."""
    m = draw(st.integers(1, 3))
    res = [f"r{j}" for j in range(m)]
    types = [{"count": draw(st.integers(1, 6)), **{r: draw(st.integers(1, 8)) for r in res}}
             for _ in range(draw(st.integers(1, 3)))]
    total = {r: sum(t["count"] * t[r] for t in types) for r in res}
    users: dict[str, Any] = {}
    for i in range(draw(st.integers(1, 4))):
        demand = {r: draw(st.integers(0, 9)) for r in res}
        if not any(demand.values()):
            demand[res[0]] = 1
        spec: dict[str, Any] = {"demand": demand}
        if draw(st.booleans()):
            spec["weight"] = draw(st.integers(1, 3))
        if draw(st.booleans()):
            spec["max_tasks"] = draw(st.integers(0, 5))
        users[f"u{i}"] = spec
    return {"resources": total, "users": users, "machines": types}


def scenarios() -> st.SearchStrategy[dict[str, Any]]:
    """Scenario dicts: degenerate small integers, the 1e-9..1e9 range (with
    weights, caps, one user, one resource, oversized tasks), machines."""
    wide = instances(n=st.integers(1, 4), m=st.integers(1, 3)).map(lambda i: i.to_dict())
    return st.one_of(degenerate_instances().map(lambda i: i.to_dict()), wide, machine_scenarios())


@st.composite
def workloads(draw: st.DrawFn) -> dict[str, Any]:
    """A simulation workload dict: a few machine types (up to 10^9
    machines) and jobs, durations from 0.5 s to 1000 s, task counts from 1
    to 10^12, repeated jobs, stop times up to 10^12 (the largest sizes are
    refused by :mod:`models.limits`)."""
    machines = [{"count": draw(st.sampled_from([1, 2, 4, 10, 10**9])), "cpu": draw(st.integers(1, 8)),
                 "mem": draw(st.integers(1, 16))} for _ in range(draw(st.integers(1, 2)))]
    jobs = []
    for _ in range(draw(st.integers(1, 3))):
        job: dict[str, Any] = {
            "user": f"u{draw(st.integers(0, 2))}", "arrival": draw(st.sampled_from([0, 0, 5, 30.5])),
            "tasks": draw(st.sampled_from([1, 3, 20, 200, 10**12])),
            "demand": {"cpu": draw(st.integers(0, 3)), "mem": draw(st.integers(1, 4))},
            "duration": draw(st.sampled_from([0.5, 1, 7.5, 60, 1000, [1, 2, 3]])),
        }
        if draw(st.booleans()):
            job["until"] = draw(st.sampled_from([10, 100]))
        if draw(st.integers(0, 4)) == 0:
            job["repeat"] = True
        jobs.append(job)
    out: dict[str, Any] = {"name": "fuzz", "machines": machines, "jobs": jobs}
    until = draw(st.sampled_from([None, 50, 300, 1e12]))
    if until is not None or any(j.get("repeat") for j in jobs):
        out["simulation"] = {"until": 300 if until is None else until}
    return out


def bad_flags() -> st.SearchStrategy[str]:
    """Values no numeric or name flag accepts."""
    return st.sampled_from(["-1", "x", "", "1e400", "nan", "1.5", "0x10", "--", "drf,", ",", "9" * 40])


# ------------------------------------------------------------------ files
def write_scenario(tmp: Path, data: dict[str, Any], name: str = "s.json") -> Path:
    path = tmp / name
    path.write_text(json.dumps(data, default=_plain))
    return path


def _plain(v: Any) -> Any:
    if isinstance(v, Fraction):
        return f"{v.numerator}/{v.denominator}" if v.denominator != 1 else v.numerator
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(f"not JSON: {v!r}")


# ------------------------------------------------------------ running one
@contextmanager
def every_warning() -> Iterator[list[warnings.WarningMessage]]:
    """Record every warning raised inside (the ones Python would show a user)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield seen


def shown(seen: list[warnings.WarningMessage]) -> list[str]:
    """The recorded warnings a user would see."""
    return [f"{w.category.__name__}: {w.message} ({w.filename}:{w.lineno})" for w in seen
            if not issubclass(w.category, HIDDEN_WARNINGS)]


def run_cli(capfd: Any, argv: list[str]) -> tuple[int, str, str]:
    """``fairalloc argv`` in this process: exit code, stdout, stderr (file
    descriptors included, so a C library's banner is caught), after
    checking the contract every command shares: no exception escapes
    (:func:`analyzer.cli.main` returns), the exit code is one the README
    promises for the command, an error is one line, nothing but fairalloc's
    own lines reaches stderr, and no warning reaches the user."""
    from analyzer.cli.main import main

    capfd.readouterr()
    with every_warning() as seen:
        code = main(argv)
    out, err = capfd.readouterr()
    command = argv[0]
    assert code in EXIT_CODES[command], (argv, code, err[-2000:])
    assert "Traceback" not in err and "Traceback" not in out, (argv, err[-3000:])
    lines = err.splitlines()
    assert all(ln.startswith("fairalloc: ") for ln in lines), (argv, err[-2000:])
    if code == 2 or (code == 3 and not (command == "prove" and out.strip())):  # prove prints "unknown" (3)
        assert len(lines) == 1 and lines[0].startswith("fairalloc: error: "), (argv, err)
    else:
        assert all(ln.startswith("fairalloc: warning: ") for ln in lines), (argv, err)
    assert shown(seen) == [], (argv, shown(seen))
    log(json.dumps({"argv": argv, "code": code, "err": err.strip()[:200]}))
    return code, out, err


def log(line: str) -> None:
    """Append ``line`` to ``$FAIRALLOC_FUZZ_LOG`` when set (what the
    campaign ran, one line per case)."""
    if os.environ.get("FAIRALLOC_FUZZ_LOG"):
        with open(os.environ["FAIRALLOC_FUZZ_LOG"], "a", encoding="utf-8") as f:
            f.write(line + "\n")


# --------------------------------------------------------------- checkers
def exact(v: Any) -> Fraction:
    """A number as printed in JSON: ``"45/11"`` or a float or int."""
    return Fraction(v) if isinstance(v, str) else Fraction(float(v))


def assert_violation_reproduces(cx: dict[str, Any], mode: str = "continuous") -> None:
    """A printed counterexample: the instance it prints violates the
    property under the policy, by a fresh ``check`` (exactly when printed
    exact)."""
    from analyzer import check

    inst = Instance.from_dict(cx["instance"])
    v = check(cx["policy"], inst, cx["property"], mode=cx.get("mode", mode))
    assert v is not None, ("a printed counterexample that check does not confirm", cx)
    if cx.get("exact"):
        assert v.exact, cx


def assert_proof_consistent(result: dict[str, Any], policy: str, prop: str, mode: str, users: int, resources: int,
                            domain: str, weighted: bool, capped: bool) -> None:
    """A printed proof: of the sizes, domain, weights and caps asked for
    (not another run's), and no concrete instance of that class violates
    the property by a fresh ``check`` (20 small-integer instances drawn from
    a generator seeded by the case)."""
    from analyzer import check

    assert result["status"] == "proved", result
    assert (result["users"], result["resources"], result["domain"]) == (users, resources, domain), result
    assumed = result["assumptions"]
    assert ("unweighted" in assumed["weights"]) == (not weighted), assumed
    assert (assumed["caps"] == "none") == (not capped), assumed
    seed = zlib.crc32(f"{policy}|{prop}|{mode}|{users}|{resources}|{domain}|{weighted}|{capped}".encode())
    rng = np.random.default_rng(seed)
    low = 0 if domain == "zeros" else 1
    for _ in range(20):
        dem = rng.integers(low, 10, size=(users, resources))
        dem[dem.sum(axis=1) == 0, 0] = 1  # each user needs some resource
        cap = rng.integers(1, 31, size=resources)
        w = [int(v) for v in rng.integers(1, 4, size=users)] if weighted else None
        k = [int(v) for v in rng.integers(1, 6, size=users)] if capped else None
        inst = Instance.from_exact(cap.tolist(), dem.tolist(), weights=w, max_tasks=k)
        v = check(policy, inst, prop, mode=mode)
        assert v is None, ("a proved property that check refutes", result, inst.describe())


def assert_allocation_feasible(inst: Instance, users: dict[str, Any], exact_numbers: bool) -> None:
    """Printed tasks per user: non-negative, within caps, feasible (exactly
    when printed exact, else within FEASIBILITY_RTOL)."""
    tasks = [users[u]["tasks"] for u in inst.users]
    if exact_numbers:
        x = [exact(t) for t in tasks]
        assert all(v >= 0 for v in x)
        for j, cap in enumerate(inst.capacity_exact):
            assert sum(xi * row[j] for xi, row in zip(x, inst.demands_exact, strict=True)) <= cap
        return
    xf = np.array([float(t) for t in tasks])
    assert np.all(np.isfinite(xf)) and np.all(xf >= 0), xf
    usage = xf @ inst.demands
    assert np.all(usage <= inst.capacity * (1 + FEASIBILITY_RTOL)), (usage, inst.capacity)
    assert np.all(xf <= inst.max_tasks * (1 + FEASIBILITY_RTOL) + FEASIBILITY_RTOL)


def assert_same_tasks(printed: dict[str, Any], x: Any, users: tuple[str, ...]) -> None:
    """Printed task counts equal ``x`` (exactly, or to CROSSCHECK_RTOL)."""
    for u, want in zip(users, x, strict=True):
        got = printed[u]
        if isinstance(got, str) or isinstance(want, Fraction):
            assert exact(got) == Fraction(want) or abs(float(exact(got)) - float(want)) <= CROSSCHECK_RTOL * (
                1 + abs(float(want))), (u, got, want)
        else:
            assert abs(float(got) - float(want)) <= CROSSCHECK_RTOL * (1 + abs(float(want))), (u, got, want)


def json_of(out: str) -> Any:
    def reject(name: str) -> Any:
        raise AssertionError(f"bare {name} in JSON output")

    return json.loads(out, parse_constant=reject)


Checker = Callable[[Any], None]
