"""Known violations and known non-violations of every property by every
registered continuous policy: the self-check corpus (issue 12).

Each :class:`Case` says which policies, which property, on which instance,
whether the property is violated there, and why (a theorem of the paper or
of the cited literature, or a derivation by hand written next to it).
``tests/test_known_cases.py`` runs the checker on every case: a false ✓ or
a false ✗ on a known case fails the build. Every registered continuous
policy x every property has at least one case (checked by that test).

Notation: ``R`` capacities, ``A``/``B``/``C`` users with demand vectors,
``x`` tasks. "Filling argument": for a progressive-filling policy whose
share of one task ``c_i`` depends only on ``d_i`` and ``R`` (DRF, asset,
leximin-tasks, single-resource, slots) and strictly positive demands, every
user uses every resource, so the first saturation freezes everybody:
``x_i = t w_i / c_i`` with ``t = min_j R_j / sum_i (w_i / c_i) d_ij``.
Removing a user lowers every denominator (population monotonicity holds)
and, when ``c_i`` does not depend on ``R`` either (leximin-tasks) or
``x_i = (1/d_i0) min_j R_j / sum_k d_kj / d_k0`` (single-resource on
resource 0), growing any ``R_j`` raises every ``x_i`` (resource
monotonicity holds). Filling policies are Pareto efficient: a user stops
only when a resource it uses is full.

Policies that need more than a plain instance get it from
:func:`prepare`: ``hdrf`` and ``hdrf-naive`` put every user alone in its
own group (both are then weighted DRF: Bhattacharya et al., SoCC 2013, and
``tests/test_policies_hdrf.py::test_singleton_groups_are_weighted_drf``),
``drfh`` gets one machine equal to the pool (its global dominant share is
then the dominant share: Wang, Liang, Li, INFOCOM 2014, Section III), so
DRF's theorems apply to them; cases marked ``raw=True`` are used as given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SI, SP, EF, PE = "sharing-incentive", "strategy-proofness", "envy-freeness", "pareto-efficiency"
SRF, BF, PM, RM = "single-resource-fairness", "bottleneck-fairness", "population-monotonicity", "resource-monotonicity"
BBF = "bottleneck-based-fairness"

#: DRF and the policies that are DRF on the prepared instances.
DRF_LIKE = ("drf", "hdrf", "hdrf-naive", "drfh", "fds:beta=inf")
#: The Eisenberg-Gale program (CEEI, BBF via the market, alpha-fairness at beta = 1:
#: sum log(x_i s_i) = sum log x_i + const).
NASH = ("ceei", "bbf", "fds:beta=1", "gfj:beta=1")
#: Max-min on task counts (GFJ at beta = inf is solved as leximin-tasks).
LEXIMIN = ("leximin-tasks", "gfj:beta=inf")


def spec(R: list[int], D: list[list[Any]], weights: list[Any] | None = None,
         caps: list[Any] | None = None) -> dict[str, Any]:
    """A scenario dict with resources ``r1..`` and users ``A, B, ...``."""
    res = [f"r{j + 1}" for j in range(len(R))]
    users: dict[str, Any] = {}
    for i, row in enumerate(D):
        u: dict[str, Any] = {"demand": dict(zip(res, row, strict=True))}
        if weights is not None:
            u["weight"] = weights[i]
        if caps is not None and caps[i] is not None:
            u["max_tasks"] = caps[i]
        users[chr(ord("A") + i)] = u
    return {"resources": dict(zip(res, R, strict=True)), "users": users}


@dataclass(frozen=True)
class Case:
    """One known answer: ``property`` on ``instance`` is violated (or not)
    by each of ``policies``; ``why`` is the source or the derivation."""

    policies: tuple[str, ...]
    property: str
    instance: dict[str, Any]
    violated: bool
    why: str
    raw: bool = False
    #: Reason for an expected failure today (a fix in another branch).
    xfail: str | None = None
    tags: tuple[str, ...] = field(default=())
    #: The setting checked (``"dynamic"``: ``tests/known_cases_dynamic.py``).
    mode: str = "continuous"


# ------------------------------------------------------------------ instances
#: Ghodsi et al., NSDI 2011, Section 4 (Figure 3): R = <9, 18>, A <1, 4>, B <3, 1>.
#: DRF 3, 2; asset 63/25, 54/25; CEEI 45/11, 18/11 (paper); static 9/4, 3/2;
#: leximin-tasks 9/4, 9/4 (cpu: 4x = 9); single-resource (cpu) 54/13, 18/13
#: (equal cpu, mem full: 4a + a/3 = 18); utilitarian 45/11, 18/11 (the only
#: vertex with both resources full; vertices (9/2, 0) and (0, 3) sum less).
PAPER = spec([9, 18], [[1, 4], [3, 1]])
#: One resource: R = <6>, A <1>, B <2>. Max-min on the resource: 3 units each,
#: x = (3, 3/2) (DRF, asset, CEEI, static, single-resource, FDS at every beta).
#: leximin-tasks: x = (2, 2). utilitarian: x = (6, 0) (A's tasks are cheaper).
#: gfj:beta=2: maximise -1/a - 1/b, a + 2b <= 6: a = sqrt(2) b, a = 6/(1+sqrt 2) ~ 2.485.
ONE = spec([6], [[1], [2]])
#: Slots (4 per machine, the pool is one machine): R = <8>, A <2>, B <3>: a slot
#: is 2 units, A's task takes 1 slot, B's 2; equal slots: a = 2b, 2a + 3b = 8:
#: x = (16/7, 8/7); max-min on the resource would give (2, 4/3).
SLOTTED = spec([8], [[2], [3]])
#: Common dominant resource r2 (Section 6, bottleneck fairness): R = <10, 10>,
#: A <1, 2>, B <1, 4>. Max-min on r2: 2a = 4b, 2a + 4b = 10: (5/2, 5/4).
#: asset: c = (3/10, 5/10), a = 5b/3, 10b/3 + 4b = 10: (25/11, 15/11).
#: Equal task counts (single-resource on r1, leximin-tasks): 6x = 10, x = 5/3.
#: Slots: a slot is <5/2, 5/2>, A 1 slot, B 2: a = 2b, i.e. max-min on r2.
#: Static: slices <5, 5>: (5/2, 5/4), max-min on r2 as well.
SHARED = spec([10, 10], [[1, 2], [1, 4]])
#: Common dominant r1 for slots: R = <8, 8>, A <2, 1>, B <3, 1>; slots <2, 2>:
#: A 1 slot, B 2: a = 2b, 4b + 3b = 8: (16/7, 8/7); max-min on r1: (2, 4/3).
SHARED_SLOTS = spec([8, 8], [[2, 1], [3, 1]])
#: Theorem 4's setting (CEEI is not strategy-proof) on the paper's example:
#: B reporting <3, 4> makes only mem bind: x = (9/4, 9/4) (cpu 9/4 + 27/4 = 9
#: exactly; KKT prices p_cpu = 0, p_mem = 1/9), worth 9/4 true tasks > 18/11.
#: CEEI population monotonicity (found by the search, checked by hand):
#: R = <2, 4>, A <1, 2>, B <1, 1>, C <1, 6>: x = (2/3, 16/15, 4/15) with prices
#: p = 3/8, q = 9/16 (1/a = p + 2q, 1/b = p + q, 1/c = p + 6q; both resources
#: full); without C only cpu binds: x = (1, 1), and B drops from 16/15 to 1.
CEEI_PM = spec([2, 4], [[1, 2], [1, 1], [1, 6]])
#: The paper's example with cpu x 4 (R = <36, 18>): DRF shares 2/9 and 1/12,
#: x_B = 8/3 x_A, mem 4 x_A + 8/3 x_A = 18: A drops from 3 to 27/10.
#: With mem x 4 (R = <9, 72>) asset: c = (1/6, 25/72), x_A = 25/12 x_B, cpu
#: full: B drops from 54/25 to 108/61; CEEI: only cpu binds, a = 3b, B drops
#: from 18/11 to 3/2. Both factors are among those the check tries.
#: Slots resource monotonicity: R = <40>, A <1>, B <11>: slot 10, B 2 slots,
#: a = 2b, a + 11b = 40: a = 80/13; at R x 5/4 = 50 a slot is 25/2 and B's
#: task fits one: a = b = 50/12 < 80/13.
SLOT_RM = spec([40], [[1], [11]])
#: Static partition leaves resources idle: R = <2, 2>, A <1, 2>, B <2, 1>: each
#: gets 1/2 task, cpu and mem 3/2 used: A can be raised alone (not Pareto
#: efficient), and no resource is full, so A has a justified complaint.
IDLE = spec([2, 2], [[1, 2], [2, 1]])
#: Weighted envy: R = <6>, A <1> weight 2, B <1>: weighted DRF x = (4, 2). A's
#: bundle scaled by w_B/w_A = 1/2 is 2 units: B does not envy it (an unweighted
#: comparison would see 4 > 2).
WEIGHTED = spec([6], [[1], [1]], weights=[2, 1])
#: Caps under single-resource fairness: R = <6>, A <1> capped at 1, B <2>:
#: max-min with caps gives (1, 5/2); the static slice gives (1, 3/2).
CAPPED = spec([6], [[1], [2]], caps=[1, None])
#: H-DRF's first example (Bhattacharya et al., SoCC 2013, Section 3): R =
#: <1, 1> (cpu, gpu); n1 <0, 1>; group n2 with n21 <1, 0> and n22 <0, 1>. The
#: naive recursion gives the group <1/2, 1/2> in fixed proportions, so n21
#: runs 1/2 and half the cpus stay idle; H-DRF gives n21 the whole cpu.
HDRF_FIRST = {"resources": {"cpu": 1, "gpu": 1},
              "users": {"n1": {"demand": {"gpu": 1}},
                        "n21": {"demand": {"cpu": 1}, "group": "n2"},
                        "n22": {"demand": {"gpu": 1}, "group": "n2"}}}

#: DRFH's example (Wang, Liang, Li, INFOCOM 2014, Section III; examples/two_servers.toml):
#: R = <14, 14> as a memory-rich server <2, 12> and a cpu-rich one <12, 2>; A <1/5, 1>
#: on the first, B <1, 1/5> on the second, 10 tasks each. Both pooled resources
#: have 2 left, yet each server is full in the resource its user needs.
TWO_SERVERS = {"resources": {"cpu": 14, "mem": 14},
               "users": {"A": {"demand": {"cpu": "1/5", "mem": 1}}, "B": {"demand": {"cpu": 1, "mem": "1/5"}}},
               "machines": [{"count": 1, "cpu": 2, "mem": 12}, {"count": 1, "cpu": 12, "mem": 2}]}

ALL_FILLING_PE = ("drf", "asset", "leximin-tasks", "single-resource", "slots", "hdrf", "hdrf-naive", "drfh")

CASES: tuple[Case, ...] = (
    # ------------------------------------------------------ sharing incentive
    Case((*DRF_LIKE, *NASH, "static"), SI, PAPER, False,
         "DRF and CEEI are sharing-incentive (Ghodsi et al., Table 2; Section 5.2); static gives exactly the slice; "
         "slices give A 9/4 and B 3/2"),
    Case(("asset", "leximin-tasks", "slots", "utilitarian"), SI, PAPER, False,
         "by hand on PAPER: asset (63/25, 54/25), leximin (9/4, 9/4), slots (18/5, 9/5), utilitarian (45/11, 18/11) "
         "are all at least (9/4, 3/2)"),
    Case(("asset",), SI, SHARED, True, "asset gives A 25/11 < 5/2, its tasks on <5, 5> (Table 2: asset is not SI)"),
    Case(("single-resource",), SI, PAPER, True, "single-resource gives B 18/13 < 3/2"),
    Case((*LEXIMIN, "gfj:beta=2"), SI, ONE, True, "A gets 2 (leximin) or 2.485 (gfj:beta=2) < 3, its slice's tasks"),
    Case(("utilitarian",), SI, ONE, True, "utilitarian gives B 0 < 3/2"),
    Case(("slots",), SI, SLOTTED, True, "slots give B 8/7 < 4/3"),
    Case(("static", "drf"), SI, WEIGHTED, False, "weighted slices 4 and 2: static and weighted DRF give exactly them"),
    # ----------------------------------------------------- strategy-proofness
    Case((*DRF_LIKE, "asset", "static"), SP, PAPER, False,
         "DRF and asset are strategy-proof (Ghodsi et al., Table 2, Section 4.1); static gives each user its slice "
         "whatever it reports, and a bundle inside the slice is worth at most the slice"),
    Case(("single-resource", "drf", "ceei", "static"), SP, ONE, False,
         "one resource and a scale-invariant policy: every report is the truth rescaled, same bundle"),
    Case(NASH, SP, PAPER, True, "Theorem 4 (CEEI is not strategy-proof): B reports <3, 4> and runs 9/4 > 18/11 "
         "(derivation at CEEI_PM's comment)"),
    Case(LEXIMIN, SP, ONE, True, "A reports <4>: x = (4 + 2)^-1 * 6 = 1 reported task each, 4 true tasks > 2"),
    Case(("gfj:beta=2",), SP, ONE, True,
         "A reports <c>: a' = b sqrt(2/c), b (sqrt(2c) + 2) = 6, true tasks 6 sqrt(2c) / (sqrt(2c) + 2), "
         "increasing in c: 3.51 at c = 4 > 2.485"),
    Case(("utilitarian",), SP, ONE, True, "B reports <1/2>: B's tasks are now the cheapest, it gets 12 of them, "
         "6 units = 3 true tasks > 0"),
    Case(("slots",), SP, SLOTTED, True, "B reports <2> (one slot): a = b, 4b = 8, b = 2 reported = 4/3 true > 8/7"),
    Case(("leximin-tasks",), SP, spec([10, 20], [[1, 1], [1, 3]]), True,
         "two resources, R = <10, 20>, A <1, 1>, B <1, 3>; truth: a = b, cpu 2x = 10 and mem 4x = 20, x = 5. "
         "A reports <2, 2>: a = b = y, cpu 3y <= 10 binds: y = 10/3, A's bundle <20/3, 20/3> = 20/3 true > 5"),
    # ---------------------------------------------------------- envy-freeness
    Case((*DRF_LIKE, *NASH, "asset", "static", "single-resource", "leximin-tasks", "slots", "utilitarian"),
         EF, PAPER, False,
         "DRF, asset, CEEI are envy-free (Table 2); static: equal slices; by hand on PAPER: single-resource (equal "
         "cpu, B's tasks are cpu-bound), leximin (B with A's <9/4, 9> runs 3/4), slots (B with A's <18/5, 72/5> "
         "runs 6/5 < 9/5; A with B's <27/5, 9/5> runs 9/20), utilitarian = CEEI's allocation"),
    Case((*LEXIMIN, "gfj:beta=2", "utilitarian"), EF, ONE, True,
         "A with B's bundle (4 units, or 2*1.757 for gfj:beta=2, or B with A's 6 units for utilitarian) runs more"),
    Case(("slots",), EF, SLOTTED, True, "B with A's 32/7 units runs 32/21 > 8/7"),
    Case(("drf", "static"), EF, WEIGHTED, False, "weighted bundles: each sees the other's bundle scaled to its own"),
    # ------------------------------------------------------ Pareto efficiency
    Case((*ALL_FILLING_PE, *NASH, "utilitarian", "fds:beta=2", "gfj:beta=2", "fds:beta=inf", "gfj:beta=inf"),
         PE, PAPER, False,
         "filling policies stop users only at a full resource they use; CEEI, utilitarian and alpha-fair "
         "allocations maximise a strictly increasing objective, so no user can be raised alone"),
    Case(("static",), PE, IDLE, True, "both resources have 1/2 left: A can be raised alone"),
    Case(("gfj:beta=16",), PE, spec([1, 8], [[1, 0], [0, 1]]), False,
         "independent resources: any alpha-fair optimum gives A 1 and B 8 (each objective term is increasing)"),
    Case(("static",), PE, ONE, False, "one resource, no caps: the slices use all of it"),
    Case(("hdrf-naive",), PE, HDRF_FIRST, True, "the naive recursion leaves half the cpu idle (SoCC 2013, Section 3)",
         raw=True),
    Case(("drfh",), PE, TWO_SERVERS, False,
         "DRFH is Pareto optimal on its machines (Wang et al., INFOCOM 2014, Section IV): pooled slack is on the "
         "server the other user's tasks do not fit", raw=True),
    Case(("drfh",), BBF, TWO_SERVERS, True,
         "bottleneck-based fairness is defined on one pool (Dolev et al.): no pooled resource is full", raw=True),
    Case(("hdrf",), PE, HDRF_FIRST, False, "H-DRF gives n21 the whole cpu, gpu split 1/2, 1/2: all full",
         raw=True),
    # ---------------------------------------------- single-resource fairness
    Case((*DRF_LIKE, *NASH, "asset", "static", "single-resource", "fds:beta=2"), SRF, ONE, False,
         "Table 2 (DRF, asset, CEEI); static, single-resource: max-min by definition; FDS at any beta "
         "maximises a symmetric concave function of the shares under sum <= 1: equal shares"),
    Case((*LEXIMIN, "gfj:beta=2", "utilitarian"), SRF, ONE, True, "(2, 2), (2.485, 1.757) and (6, 0) != (3, 3/2)"),
    Case(("slots",), SRF, SLOTTED, True, "(16/7, 8/7) != (2, 4/3)"),
    Case(("static",), SRF, CAPPED, True, "static keeps B at 3/2, max-min with caps gives it 5/2"),
    Case(("drf", "asset"), SRF, CAPPED, False, "capped filling: A stops at 1, B fills the rest: (1, 5/2)"),
    # ----------------------------------------------------- bottleneck fairness
    Case((*DRF_LIKE, *NASH, "fds:beta=2", "static", "slots"), BF, SHARED, False,
         "DRF and CEEI are bottleneck fair (Table 2); FDS as for SRF with only r2 binding (the others cannot: "
         "d_ij / R_j <= d_i2 / R_2); static and slots by hand (SHARED's comment)"),
    Case(("asset",), BF, SHARED, True, "Theorem 2 (asset is not bottleneck fair): (25/11, 15/11) != (5/2, 5/4)"),
    Case(("single-resource", *LEXIMIN, "gfj:beta=2", "utilitarian"), BF, SHARED, True,
         "equal task counts (5/3, 5/3); gfj:beta=2 (2.07, 1.46); utilitarian (5, 0): none is (5/2, 5/4)"),
    Case(("slots",), BF, SHARED_SLOTS, True, "(16/7, 8/7) != (2, 4/3)"),
    # ------------------------------------------------ population monotonicity
    Case((*DRF_LIKE, "asset", "static", "single-resource", "slots", *LEXIMIN), PM, PAPER, False,
         "DRF and asset are population monotone on positive demands (Table 2); the filling argument (module "
         "docstring) for single-resource, slots, leximin; static: the others' slices grow"),
    Case(("utilitarian",), PM, ONE, False, "without A, B gets 3 >= 0; without B, A keeps 6"),
    Case(NASH, PM, CEEI_PM, True, "CEEI is not population monotone (Table 2): B 16/15 -> 1 once C leaves"),
    # -------------------------------------------------- resource monotonicity
    Case(DRF_LIKE, RM, PAPER, True, "Theorem 6 (DRF is not resource monotone): cpu x 4, A 3 -> 27/10"),
    Case(("asset", *NASH), RM, PAPER, True,
         "Table 2: mem x 4, asset B 54/25 -> 108/61, CEEI B 18/11 -> 3/2"),
    Case(("static", "single-resource", *LEXIMIN), RM, PAPER, False,
         "static: slices grow with R; the filling argument for leximin-tasks and single-resource"),
    Case(("utilitarian",), RM, ONE, False, "one resource: A takes all of it, B nothing, for every R"),
    Case(("slots",), RM, SLOT_RM, True, "R x 5/4: A 80/13 -> 25/6 (SLOT_RM's comment)"),
    # -------------------------------------------- bottleneck-based fairness
    Case((*NASH, "drf", "asset", "static", "single-resource", "fds:beta=2"), BBF, ONE, False,
         "max-min on one resource: both hold exactly their entitlement 1/2 of the full resource"),
    Case(NASH, BBF, PAPER, False, "a competitive equilibrium from equal incomes is BBF (Gutman and Nisan, AAMAS "
                                  "2012, Section 4)"),
    Case((*DRF_LIKE, "asset", "single-resource"), BBF, PAPER, True,
         "only one resource is full and the user bound by it holds less than 1/2 of it and less than the other: "
         "DRF: A on cpu, 3 < 6; asset: A on cpu, 63/25 < 162/25; single-resource: B on mem, 18/13 < 216/13"),
    Case((*LEXIMIN, "gfj:beta=2", "utilitarian"), BBF, ONE, True,
         "A holds 2 (or 2.485) of 6 < 3 and less than B; utilitarian: B holds 0"),
    Case(("slots",), BBF, SLOTTED, True, "B holds 24/7 of 8 < 4 and less than A's 32/7"),
    Case(("static",), BBF, IDLE, True, "no resource is full: A complains justifiably"),
)


def prepare(policy: str, case: Case) -> dict[str, Any]:
    """The case's scenario in the form ``policy`` needs (module docstring):
    singleton groups (of the user's weight) for the tree policies, one
    machine equal to the pool for DRFH."""
    data: dict[str, Any] = {"resources": dict(case.instance["resources"]),
                            "users": {u: dict(e) for u, e in case.instance["users"].items()}}
    name = policy.partition(":")[0]
    if case.raw:
        return {**case.instance}
    if name in ("hdrf", "hdrf-naive"):
        data["groups"] = {}
        for u, entry in data["users"].items():
            data["groups"][f"g{u}"] = {"weight": entry.pop("weight", 1)}
            entry["group"] = f"g{u}"
    if name == "drfh":
        data["machines"] = [{"count": 1, **data["resources"]}]
    return data
