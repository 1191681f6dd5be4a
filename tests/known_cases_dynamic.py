"""Known answers of the dynamic setting (issue 32): the properties of
Kash, Procaccia and Shah ("No Agent Left Behind", JAIR 51, 2014) for
every registered continuous policy, and the static properties for the
dynamic mechanisms; merged into the self-check corpus of
``tests/known_cases.py`` by ``tests/test_known_cases.py``.

Notation as in ``tests/known_cases.py``; users arrive in the order A, B,
C, ...; "step k" is the k-th arrival. Two facts used below:

* **A lone user.** With one user present every static policy listed here
  gives it all it can run on the whole cluster (each is Pareto efficient
  for one user; static's slice is then the whole cluster): on PAPER A runs
  9/2 (mem 18 full). A static policy recomputed at every arrival (the
  "lifted" policy; ``recompute:policy=P`` is DRF's by default) then holds
  the policy's static allocation after the last arrival.
* **Two users, strictly positive demands, no weights or caps.** Both
  dynamic mechanisms end at DRF's allocation. Dynamic DRF: after step 1
  A's dominant share is 1/2 (its dominant resource reaches the cap 1/2);
  at step 2 B rises to A's level 1/2, where every resource is used by at
  most (delta_Ar + delta_Br) / 2 <= 1 (demands normalised by the dominant
  entry, ``delta <= 1``), so both rise on together as DRF does from level
  1/2, which DRF's own level (at least 1/2, sharing incentive) passes.
  Cautious DRF: at step 2 nobody is still to arrive, so its level is the
  first saturation of the common level, DRF's with positive demands. The
  static checks deviate to two-user positive instances again (a lie, grown
  capacities) or to one user (population monotonicity: the lone user gets
  everything under both), so every DRF case on such an instance holds for
  both mechanisms (:func:`static_cases`).
"""

from __future__ import annotations

from tests.known_cases import DRF_LIKE, LEXIMIN, NASH, ONE, PAPER, SHARED, SLOTTED, Case, spec

DSI, DEF, DPO = "dynamic-sharing-incentive", "dynamic-envy-freeness", "dynamic-pareto-optimality"
DSP, IRR = "dynamic-strategy-proofness", "irrevocability"
#: The dynamic mechanisms.
DYNAMIC = ("dynamic-drf", "cautious-drf")
#: Every static policy, lifted (recomputed at every arrival).
LIFTED = (*DRF_LIKE, *NASH, "asset", "static", "single-resource", "slots", *LEXIMIN, "utilitarian", "fds:beta=2",
          "gfj:beta=2", "recompute:policy=drf")
#: Lifted policies that are envy-free on PAPER (the static EF case of ``tests/known_cases.py``).
EF_ON_PAPER = (*DRF_LIKE, *NASH, "asset", "static", "single-resource", "leximin-tasks", "slots", "utilitarian",
               "recompute:policy=drf")

#: Cautious DRF wastes what it reserves: R = <10, 10>, A <10, 1>, B <1, 10>, C <5, 5>.
#: Normalised demands A (1, 1/10), B (1/10, 1). Step 2 reserves the level M for C
#: on every resource: M (1 + 1/10 + 1) <= 1, M = 10/21; A and B run 10/21 tasks,
#: cpu use 100/21 + 10/21 = 110/21 < 2/3 * 10 = 140/21 (and mem alike): A alone
#: could run (140/21 - 110/21) / 10 = 1/7 more within the step's budget.
RESERVE = spec([10, 10], [[10, 1], [1, 10], [5, 5]])
#: Dynamic DRF with zero demands is manipulable (found by the search, checked by
#: hand): R = <1, 1, 2>, A <0, 1, 0>, B <1, 0, 1>, C <0, 1, 1>, D <0, 0, 1>.
#: Truthful: step 3 (budget <3/4, 3/4, 3/2>) C rises until mem (r2) holds 3/4
#: (A 1/2, C 1/4) and is blocked; B, not using r2, rises on to 3/4 (r1 full).
#: Step 4: D fills from 0; C ends at 5/12. If C reports <1, 1, 1> it also uses r1,
#: so at step 3 B stays at 1/2; at step 4 C gets 1/2 reported task, the bundle
#: <1/2, 1/2, 1/2>, worth 1/2 of its true tasks > 5/12 (B's irrevocable early gain
#: on r3 is what C pays for when it tells the truth).
ZEROS_LIE = spec([1, 1, 2], [[0, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 1]])
#: Lifted utilitarian on ONE: A alone takes all 6; then (6, 0). B envies A, but A
#: arrived first and holds what it held when B arrived: the envy is excused.
#: Lifted utilitarian on R = <6>, A <2>, B <1>, C <3>: alone A runs 3; with B
#: (B's tasks are cheaper) (0, 6); with C (0, 6, 0): after C arrives, C envies B
#: (B's 6 units run 2 of C's tasks), B arrived before C but held 6 already when
#: C arrived -- excused; A envies B (B's bundle runs 3 of A's tasks > 0) and B
#: arrived after A: not excused.
CHEAP_LATE = spec([6], [[2], [1], [3]])


def static_cases(cases: tuple[Case, ...]) -> tuple[Case, ...]:
    """The static cases of DRF on two-user, strictly positive, unweighted,
    uncapped instances, for the dynamic mechanisms and ``recompute``
    (module docstring: both end at DRF's allocation there; recompute's is
    DRF's on every instance)."""
    out = []
    for c in cases:
        if "drf" not in c.policies or c.mode != "continuous" or c.raw:
            continue
        users = c.instance["users"].values()
        plain = len(users) == 2 and all("weight" not in u and "max_tasks" not in u for u in users) \
            and all(float(v) > 0 for u in users for v in u["demand"].values()) \
            and len({r for u in users for r in u["demand"]}) == len(c.instance["resources"])
        names = ("recompute:policy=drf", *DYNAMIC) if plain else ("recompute:policy=drf",)
        out.append(Case(names, c.property, c.instance, c.violated,
                        "as for DRF (tests/known_cases_dynamic.py docstring): " + c.why))
    return tuple(out)


DYNAMIC_CASES: tuple[Case, ...] = (
    # --------------------------------------------------------- irrevocability
    Case(LIFTED, IRR, PAPER, True,
         "alone A runs 9/2 with mem full; with B every policy gives B tasks (PAPER's comment), which need mem"),
    Case(DYNAMIC, IRR, PAPER, False,
         "by construction (floors never taken back; cautious: a level that never falls); steps (9/4), (3, 2)"),
    # ---------------------------------------------- dynamic sharing incentive
    Case((*DRF_LIKE, *NASH, "static", "asset", "leximin-tasks", "slots", "utilitarian", "recompute:policy=drf",
          *DYNAMIC), DSI, PAPER, False,
         "step 1: A runs 9/2 (lifted) or 9/4 (dynamic) >= 9/4, its slice; step 2: the static allocation, at least "
         "the slices (9/4, 3/2) (static SI case on PAPER), or DRF's (3, 2)"),
    Case(("fds:beta=2",), DSI, ONE, False, "step 1: A runs 6 >= 3; step 2: equal shares (3, 3/2), the slices"),
    Case(("asset",), DSI, SHARED, True, "step 2 is asset's static allocation: A 25/11 < 5/2"),
    Case(("single-resource",), DSI, PAPER, True, "step 2: B 18/13 < 3/2"),
    Case((*LEXIMIN, "gfj:beta=2"), DSI, ONE, True, "step 2: A 2 (leximin) or 2.485 (gfj:beta=2) < 3"),
    Case(("utilitarian",), DSI, ONE, True, "step 2: B 0 < 3/2"),
    Case(("slots",), DSI, SLOTTED, True, "step 2: B 8/7 < 4/3"),
    # ------------------------------------------------ dynamic envy-freeness
    Case((*EF_ON_PAPER, *DYNAMIC), DEF, PAPER, False,
         "one user at step 1; at step 2 the static allocation, envy-free on PAPER (static EF case), or DRF's"),
    Case(("fds:beta=2",), DEF, ONE, False, "step 2: equal shares of the one resource, nobody envies"),
    Case((*LEXIMIN, "gfj:beta=2"), DEF, ONE, True,
         "step 2: A envies B (4 or 3.51 units run more than A's 2 or 2.485) and B arrived after A"),
    Case(("utilitarian",), DEF, ONE, False,
         "(6), then (6, 0): B envies A, excused (A arrived first and has received nothing since)"),
    Case(("utilitarian",), DEF, CHEAP_LATE, True, "after C arrives A envies B, who arrived after A"),
    # --------------------------------------------- dynamic Pareto optimality
    Case(LIFTED, DPO, PAPER, True, "step 1: A alone holds mem 18, more than the step's budget 1/2 of it"),
    Case(DYNAMIC, DPO, PAPER, False,
         "step 1: A's mem 9 fills the budget 9 (A uses mem); step 2: DRF's allocation, cpu full, both use it"),
    Case(("cautious-drf",), DPO, RESERVE, True, "step 2: A could run 1/7 more within the budget"),
    # ------------------------------------------ dynamic strategy-proofness
    Case((*DRF_LIKE, "asset", "static", "recompute:policy=drf", *DYNAMIC), DSP, PAPER, False,
         "lifted: a lone user's truthful bundle is the most that fits, and step 2 is the static policy, "
         "strategy-proof (static SP case on PAPER); dynamic: at step 1 the lone user's level is 1/2 whatever it "
         "reports, and step 2 is DRF's allocation of the reports"),
    Case(("single-resource", "fds:beta=2"), DSP, ONE, False,
         "one resource and a scale-invariant policy: every report is the truth rescaled, same bundle"),
    Case(NASH, DSP, PAPER, True, "step 2 is CEEI: B reports <3, 4> and runs 9/4 > 18/11 (Theorem 4)"),
    Case(LEXIMIN, DSP, ONE, True, "step 2: A reports <4> and runs 4 true tasks > 2"),
    Case(("gfj:beta=2",), DSP, ONE, True, "step 2: A reports <4> and runs 3.51 > 2.485 (static SP case)"),
    Case(("utilitarian",), DSP, ONE, True, "step 2: B reports <1/2> and runs 3 true tasks > 0"),
    Case(("slots",), DSP, SLOTTED, True, "step 2: B reports <2> and runs 4/3 > 8/7"),
    Case(("dynamic-drf",), DSP, ZEROS_LIE, True, "C reports <1, 1, 1> and runs 1/2 > 5/12 after D arrives"),
)
DYNAMIC_CASES = tuple(Case(c.policies, c.property, c.instance, c.violated, c.why, mode="dynamic")
                      for c in DYNAMIC_CASES)
