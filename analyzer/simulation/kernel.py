"""The compiled event loop of the simulator (Ghodsi et al., NSDI 2011,
Section 7; the engine is described in :mod:`.fast`).

Plain functions on numpy arrays and scalars, compiled with numba when it is
installed (:func:`models.compiled.compiled`; ``FAIRALLOC_NO_NUMBA=1`` disables it)
and otherwise run as they are: the same code either way, so both forms
make the same decisions bit for bit (integer amounts, and float keys
computed by the same IEEE operations in the same order). The state's
layout is in :mod:`.kstore`, the pending events' in :mod:`.kevents`.
"""

from __future__ import annotations

import numpy as np

from . import kevents as ke
from . import kstore as ks
from .kblocked import HELPERS as BLOCKED_HELPERS
from .kblocked import failed, remember_failure, unblock
from .kevents import HELPERS as EVENT_HELPERS
from .kevents import event_pop, event_push, event_rehash, has_room
from .kstore import HELPERS as STORE_HELPERS
from .kstore import (
    first_fit,
    heap_rekey,
    heap_remove,
    key_after,
    memory_at,
    memory_sync,
    push_user,
    set_blocked,
    tree_fix,
    unlink,
)

# return codes of :func:`run`
IDLE, GROW, REPEATS, ROUND_DONE, EVENTS_DONE = range(5)
# phases of :func:`run`
NEXT, EVENTS_PHASE, ROUND = range(3)


# ---------------------------------------------------------------- launches and completions
def _wins(U: np.ndarray, i: int, d: np.ndarray, n: int, den: np.ndarray, form: int, w: float, off: float,
          rank: float, k2: float, r2: float) -> bool:
    k = key_after(U, i, d, n, den, form, w, off)
    return k < k2 or (k == k2 and rank < r2)


def tasks_won(U: np.ndarray, i: int, d: np.ndarray, pend: int, den: np.ndarray, form: int, w: float, off: float,
              rank: float, k2: float, r2: float) -> int:
    """Tasks user ``i`` (just popped) takes before the entry ``(k2, r2)``
    comes first: its first, and each next while its key after the previous
    ones still comes before ``(k2, r2)``; at most ``pend``. The key does not
    decrease with the task count, so a galloping then binary search finds
    the first task it loses."""
    if pend <= 1 or not _wins(U, i, d, 1, den, form, w, off, rank, k2, r2):
        return 1
    lo, hi, step = 1, pend, 1  # task lo is won; hi is the first lost (or pend, a sentinel)
    while lo + step < pend:
        if not _wins(U, i, d, lo + step, den, form, w, off, rank, k2, r2):
            hi = lo + step
            break
        lo += step
        step *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _wins(U, i, d, mid, den, form, w, off, rank, k2, r2):
            lo = mid
        else:
            hi = mid
    return hi


def _slowdown(free: np.ndarray, cap: np.ndarray, over: np.ndarray, pen: np.ndarray, k: int) -> float:
    f = 1.0
    for j in over:
        cj = cap[k, j]
        if cj > 0:
            x = (cj - free[k, j]) / cj - 1.0
            if x > 0:
                f += pen[j] * x
    return f


def _place_events(t: float, s: int, k: int, take: int, first: int, factor: float, si: np.ndarray, sreal: np.ndarray,
                  durs: np.ndarray, work: np.ndarray, et: np.ndarray, ei: np.ndarray, c: np.ndarray) -> None:
    """Completion events of ``take`` tasks of spec ``s`` on machine ``k``
    (task numbers ``first, first + 1, ...``; durations cycle), one per
    duration slot."""
    L, off = si[s, ks.S_DURN], si[s, ks.S_DUR]
    for q in range(min(L, take)):
        n = take // L + (1 if q < take % L else 0) if take >= L else 1
        dur = durs[off + (first + q) % L] * factor
        event_push(et, ei, c, t + dur, ks.COMPLETE, s, k, n)
        for j in range(work.size):
            work[j] += dur * n * sreal[s, j]


def _overcommitted(t: float, s: int, k: int, take: int, first: int, d: np.ndarray, free: np.ndarray,
                   cap: np.ndarray, over: np.ndarray, pen: np.ndarray, si: np.ndarray, sreal: np.ndarray,
                   durs: np.ndarray, work: np.ndarray, et: np.ndarray, ei: np.ndarray, c: np.ndarray) -> None:
    """Put ``take`` tasks of spec ``s`` (demand ``d``) on machine ``k`` one
    at a time, each slowed down by the machine's over-commit just after it
    (as the one-task-per-decision loop does); a run of equal slow-downs
    shares its events (at most one per task: the caller bounds ``take``)."""
    q = 0
    while q < take:
        for j in range(d.size):
            free[k, j] -= d[j]
        f = _slowdown(free, cap, over, pen, k)
        n = 1
        while q + n < take:
            for j in range(d.size):
                free[k, j] -= d[j]
            if _slowdown(free, cap, over, pen, k) != f:
                for j in range(d.size):
                    free[k, j] += d[j]
                break
            n += 1
        _place_events(t, s, k, n, first + q, f, si, sreal, durs, work, et, ei, c)
        q += n


def launch(t: float, i: int, s: int, want: int, need: np.ndarray, free: np.ndarray, cap: np.ndarray,
           tree: np.ndarray, place: np.ndarray, over: np.ndarray, pen: np.ndarray, sd: np.ndarray, si: np.ndarray,
           sf: np.ndarray, sreal: np.ndarray, durs: np.ndarray, U: np.ndarray, used: np.ndarray, work: np.ndarray,
           den: np.ndarray, um: np.ndarray, lam: float, et: np.ndarray, ei: np.ndarray, lt: np.ndarray,
           li: np.ndarray, c: np.ndarray) -> int:
    """Place up to ``want`` tasks of spec ``s`` first fit (lowest machine
    first, as many on a machine as fit); return how many were placed."""
    K, S = c[ks.K_N], c[ks.S_N]
    d = sd[s]
    placed = 0
    free_any = True
    for j in range(need.size):
        if need[j] > 0:
            free_any = False
    k = 0 if free_any else first_fit(tree, S, K, need, 0)
    while placed < want and k >= 0:
        take = want - placed
        for j in range(need.size):
            if need[j] > 0:
                q = free[k, place[j]] // need[j]
                take = min(take, q)
        if over.size:
            _overcommitted(t, s, k, take, si[s, ks.S_STARTED] + placed, d, free, cap, over, pen, si, sreal, durs,
                           work, et, ei, c)
        else:
            for j in range(d.size):
                free[k, j] -= take * d[j]
            _place_events(t, s, k, take, si[s, ks.S_STARTED] + placed, 1.0, si, sreal, durs, work, et, ei, c)
        tree_fix(tree, free, place, S, k)
        placed += take
        if placed < want:
            k = first_fit(tree, S, K, need, k + 1)
    if placed:
        for j in range(d.size):
            U[i, j] += placed * d[j]
            used[j] += placed * d[j]
        memory_sync(U, den, c[ks.FORM], um, i, lam, t)
        si[s, ks.S_PEND] -= placed
        si[s, ks.S_RUN] += placed
        si[s, ks.S_STARTED] += placed
        c[ks.LAUNCHED] += placed
        if np.isnan(sf[s, ks.F_START]):
            sf[s, ks.F_START] = t
        log(t, i, placed, s, si, lt, li, c)
    return placed


def log(t: float, i: int, k: int, s: int, si: np.ndarray, lt: np.ndarray, li: np.ndarray, c: np.ndarray) -> None:
    """Record, when records are on, that spec ``s`` of user ``i`` runs
    ``k`` more tasks from time ``t`` (fewer when ``k < 0``). Changes of one
    spec at one time are one entry, their net count (``si[s, S_LOG]`` is
    the spec's last entry): a round's launches and the completions of one
    time on many machines write a handful of entries, not one per
    decision or machine."""
    if c[ks.RECORD]:
        q = si[s, ks.S_LOG]
        if q >= 0 and lt[q] == t:
            li[q, 1] += k
            return
        n = c[ks.LOG_N]
        lt[n] = t
        li[n, 0], li[n, 1], li[n, 2] = i, k, s
        si[s, ks.S_LOG] = n
        c[ks.LOG_N] = n + 1


def _spec_done(t: float, s: int, si: np.ndarray, sf: np.ndarray, rd: np.ndarray, c: np.ndarray) -> None:
    sf[s, ks.F_DONE] = t
    if si[s, ks.S_FLAGS] & ks.FLAG_REPEAT and not si[s, ks.S_FLAGS] & ks.FLAG_TRUNC:
        rd[c[ks.RD_N]] = s
        c[ks.RD_N] += 1


def events_at(t: float, free: np.ndarray, tree: np.ndarray, place: np.ndarray, sd: np.ndarray, si: np.ndarray,
              sf: np.ndarray, U: np.ndarray, used: np.ndarray, den: np.ndarray, uw: np.ndarray, ur: np.ndarray,
              uh: np.ndarray, ut: np.ndarray, ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray, hk: np.ndarray,
              hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, um: np.ndarray, lam: float, et: np.ndarray,
              ei: np.ndarray, lt: np.ndarray, li: np.ndarray, rd: np.ndarray, chl: np.ndarray, c: np.ndarray) -> bool:
    """Process the events due at ``t``: completions free their machines'
    space, cancellations (``until``) drop a spec's waiting tasks. False
    when the log is full (nothing half done)."""
    while c[ks.EV_N] > 0 and et[0] <= t:
        if c[ks.RECORD] and c[ks.LOG_N] >= lt.size:
            return False
        x = event_pop(et, ei, c)
        s = ei[x, ke.E_SPEC]
        i = si[s, ks.S_USER]
        c[ks.EVENTS] += 1
        if ei[x, ke.E_KIND] == ks.COMPLETE:
            k, cnt = ei[x, ke.E_MACHINE], ei[x, ke.E_COUNT]
            for j in range(sd.shape[1]):
                free[k, j] += cnt * sd[s, j]
                U[i, j] -= cnt * sd[s, j]
                used[j] -= cnt * sd[s, j]
            memory_sync(U, den, c[ks.FORM], um, i, lam, t)
            tree_fix(tree, free, place, c[ks.S_N], k)
            if chl[c[ks.K_N] + k] == 0:
                chl[c[ks.K_N] + k] = 1
                chl[c[ks.CHANGED]] = k
                c[ks.CHANGED] += 1
            log(t, i, -cnt, s, si, lt, li, c)
            si[s, ks.S_RUN] -= cnt
            si[s, ks.S_DONE] += cnt
            c[ks.FINISHED] += cnt
            sf[s, ks.F_LAST] = t
            if si[s, ks.S_PEND] == 0 and si[s, ks.S_RUN] == 0:
                _spec_done(t, s, si, sf, rd, c)
        elif si[s, ks.S_PEND] > 0:  # cancel: no new task of s starts
            si[s, ks.S_PEND] = 0
            si[s, ks.S_FLAGS] |= ks.FLAG_TRUNC
            unlink(si, uh, ut, s)
            if si[s, ks.S_RUN] == 0:
                _spec_done(t, s, si, sf, rd, c)
            set_blocked(ublk, bl, blpos, c, i, False)
        else:
            continue
        push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, um, lam, t, i)
    return True


def round_(t: float, free: np.ndarray, cap: np.ndarray, tree: np.ndarray, place: np.ndarray, over: np.ndarray,
           pen: np.ndarray, sd: np.ndarray, si: np.ndarray, sf: np.ndarray, sreal: np.ndarray, durs: np.ndarray,
           U: np.ndarray, used: np.ndarray, work: np.ndarray, den: np.ndarray, uw: np.ndarray, ur: np.ndarray,
           uh: np.ndarray, ut: np.ndarray, ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray, hk: np.ndarray,
           hr: np.ndarray, hu: np.ndarray, hpos: np.ndarray, um: np.ndarray, lam: float, et: np.ndarray,
           ei: np.ndarray, lt: np.ndarray, li: np.ndarray, fn: np.ndarray, need: np.ndarray, chl: np.ndarray,
           c: np.ndarray) -> bool:
    """A scheduling round (Algorithm 1 of the paper, run when resources
    free up): the user with the smallest key launches tasks of its oldest
    spec, every task it wins before the next user's key at once, first
    fit; a user whose next task fits nowhere is blocked. False when the
    event store or the log needs room first (the round resumes)."""
    unblock(t, free, sd, place, chl, U, den, uw, ur, uh, ublk, bl, blpos, hk, hr, hu, hpos, um, lam, c)
    if lam > 0.0:  # memory moved every waiting user's key since the last round
        heap_rekey(U, den, c, uw, hk, hr, hu, hpos, um, lam, t)
    c[ks.FAIL_N] = 0
    room = c[ks.K_N] * c[ks.LMAX] + 2
    while c[ks.HP_N] > 0:
        if not has_room(et, c, room) or (c[ks.RECORD] and c[ks.LOG_N] >= lt.size):
            return False
        i = hu[0]
        rank = ur[i]
        heap_remove(hk, hr, hu, hpos, c, i)
        s = uh[i]
        c[ks.DECISIONS] += 1
        for j in range(place.size):
            need[j] = sd[s, place[j]]
        pend = si[s, ks.S_PEND]
        want = placed = 0
        if not failed(fn, need, c):
            want = pend if c[ks.HP_N] == 0 else tasks_won(U, i, sd[s], pend, den, c[ks.FORM], uw[i],
                                                          memory_at(um, i, lam, t), rank, hk[0], hr[0])
            if over.size:  # an event per task at most (:func:`_overcommitted`); the rest is won again next
                want = min(want, et.size // 2 - c[ks.EV_N] - 2)
            placed = launch(t, i, s, want, need, free, cap, tree, place, over, pen, sd, si, sf, sreal, durs, U, used,
                            work, den, um, lam, et, ei, lt, li, c)
        if si[s, ks.S_PEND] == 0:
            unlink(si, uh, ut, s)
        if placed < want or placed == 0:  # its next task fits nowhere: blocked until a machine frees space
            remember_failure(fn, need, c)
            set_blocked(ublk, bl, blpos, c, i, True)
        else:
            push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, um, lam, t, i)
    return True


def run(ft: np.ndarray, t_stop: float, until: float, stop_after_events: bool, return_each_round: bool, budget: int,
        free: np.ndarray, cap: np.ndarray, tree: np.ndarray, place: np.ndarray, over: np.ndarray, pen: np.ndarray,
        sd: np.ndarray, si: np.ndarray, sf: np.ndarray, sreal: np.ndarray, durs: np.ndarray, U: np.ndarray,
        used: np.ndarray, work: np.ndarray, den: np.ndarray, uw: np.ndarray, ur: np.ndarray, uh: np.ndarray,
        ut: np.ndarray, ublk: np.ndarray, bl: np.ndarray, blpos: np.ndarray, hk: np.ndarray, hr: np.ndarray,
        hu: np.ndarray, hpos: np.ndarray, um: np.ndarray, lam: float, et: np.ndarray, ei: np.ndarray,
        lt: np.ndarray, li: np.ndarray, tt: np.ndarray, tu: np.ndarray, rd: np.ndarray, fn: np.ndarray,
        need: np.ndarray, chl: np.ndarray, c: np.ndarray) -> int:
    """Advance through event times before ``t_stop`` (and not after
    ``until``): at each, the due events, then a round, then the time and
    the use of every resource are logged. The current time is ``ft[0]``
    and the step's phase ``c[ks.PHASE]`` (``NEXT``, ``EVENTS_PHASE``, ``ROUND``),
    so a call resumes where the last one returned. Returns ``IDLE`` (no
    event before ``t_stop``), ``GROW`` (an array needs room), ``REPEATS``
    (specs to resubmit in ``rd``, before the events go on),
    ``EVENTS_DONE`` (with ``stop_after_events``: arrivals are admitted
    before the round) or ``ROUND_DONE`` (after a round, with
    ``return_each_round``, or every ``budget`` rounds)."""
    m = tu.shape[1]
    if c[ks.REHASH]:
        event_rehash(et, ei, c)
    while True:
        if c[ks.PHASE] == NEXT:
            if c[ks.EV_N] == 0 or et[0] >= t_stop or et[0] > until:
                return IDLE
            ft[0] = max(ft[0], et[0])
            c[ks.PHASE] = EVENTS_PHASE
        t = ft[0]
        if c[ks.PHASE] == EVENTS_PHASE:
            if not events_at(t, free, tree, place, sd, si, sf, U, used, den, uw, ur, uh, ut, ublk, bl, blpos, hk, hr,
                             hu, hpos, um, lam, et, ei, lt, li, rd, chl, c):
                return GROW
            if c[ks.RD_N] > 0:
                return REPEATS
            c[ks.PHASE] = ROUND
            if stop_after_events:
                return EVENTS_DONE
        if c[ks.T_N] >= tt.size:
            return GROW
        if not round_(t, free, cap, tree, place, over, pen, sd, si, sf, sreal, durs, U, used, work, den, uw, ur, uh,
                      ut, ublk, bl, blpos, hk, hr, hu, hpos, um, lam, et, ei, lt, li, fn, need, chl, c):
            return GROW
        n = c[ks.T_N]
        tt[n] = t
        for j in range(m):
            tu[n, j] = used[j]
        c[ks.T_N] = n + 1
        c[ks.ROUNDS] += 1
        c[ks.PHASE] = NEXT
        budget -= 1
        if return_each_round or budget <= 0:
            return ROUND_DONE


def admit(t: float, s: int, cancel_at: float, si: np.ndarray, U: np.ndarray, den: np.ndarray, uw: np.ndarray,
          ur: np.ndarray, uh: np.ndarray, ut: np.ndarray, ublk: np.ndarray, hk: np.ndarray, hr: np.ndarray,
          hu: np.ndarray, hpos: np.ndarray, um: np.ndarray, lam: float, et: np.ndarray, ei: np.ndarray,
          c: np.ndarray) -> None:
    """Queue spec ``s`` (its row filled) behind its user's; a cancel event
    at ``cancel_at`` unless it is NaN (the caller made room)."""
    if c[ks.REHASH]:
        event_rehash(et, ei, c)
    i = si[s, ks.S_USER]
    was_idle = uh[i] < 0
    si[s, ks.S_NEXT], si[s, ks.S_PREV] = -1, ut[i]
    if ut[i] >= 0:
        si[ut[i], ks.S_NEXT] = s
    else:
        uh[i] = s
    ut[i] = s
    if not np.isnan(cancel_at):
        event_push(et, ei, c, cancel_at, ks.CANCEL, s, 0, 0)
    if was_idle and ublk[i] == 0:
        push_user(U, den, c, uw, ur, uh, ublk, hk, hr, hu, hpos, um, lam, t, i)


#: Callees first, for :func:`models.compiled.compiled`.
HELPERS = (*STORE_HELPERS, *EVENT_HELPERS, *BLOCKED_HELPERS, _wins, tasks_won, _slowdown, log, _place_events,
           _overcommitted, launch, _spec_done, events_at, round_)
