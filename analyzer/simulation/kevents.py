"""The kernel's pending events (:mod:`.kernel`; Ghodsi et al., NSDI 2011,
Section 7: tasks finish and jobs are cancelled at given times), taken in
the order ``(time, kind, sequence)``: earliest time first, at one time
completions before cancellations, and within a kind in the order they
were pushed.

Events at one time share a *bucket*: a FIFO list per kind. A 4-ary heap
holds the buckets by time, so it holds as many entries as there are
distinct pending times (on the Alibaba trace, whose times are whole
seconds, about a thousand for about 100,000 events) and taking the next
event is a list step, not a heap pop. A hash table (open addressing,
linear probing) finds the bucket of a time when an event is pushed. The
order of the events taken is exactly that of a heap of the events by
``(time, kind, sequence)``.

Layout for a capacity of ``n`` events (``n = et.size // 2``; ``ei`` has
``n`` rows, column-major so that a column is contiguous):

* ``et[p]``, ``p < c[NB]``: the time of the bucket ``ei[p, H_BUCKET]`` at
  heap position ``p`` (``et[0]`` is the earliest pending time);
  ``et[n + b]``: the time of bucket ``b``;
* ``ei[x, E_KIND:E_COUNT + 1]``: the payload of event slot ``x`` (kind,
  spec, machine, count); ``ei[x, E_NEXT]``: the next slot of its list;
* ``ei[b, B_HEAD + 2 k]``, ``ei[b, B_HEAD + 2 k + 1]``: the first and
  last slot of bucket ``b``'s list of kind ``k`` (-1: empty);
* ``ei[0 : n - c[EV_N], E_FREE]`` and ``ei[0 : n - c[NB], B_FREE]``: the
  stacks of free slots and free buckets;
* ``ei[h, X_BUCKET]``: the hash table (a bucket or -1), at most about
  half full (:func:`has_room`); it is rebuilt by the kernel
  (:func:`event_rehash`) after the arrays grew (``c[REHASH]``).

Plain functions on numpy arrays and scalars, compiled with the kernel or
run as they are; the hash of a time uses IEEE operations only, so both
forms build the same table.
"""

from __future__ import annotations

import math

import numpy as np

from .kstore import EV_N, NB, REHASH, SEQ

H_BUCKET, E_FREE, B_FREE, E_KIND, E_SPEC, E_MACHINE, E_COUNT, E_NEXT, B_HEAD, X_BUCKET = 0, 1, 2, 3, 4, 5, 6, 7, 8, 12
EVENT_COLUMNS = 13
#: Fractional part of the golden ratio: Fibonacci hashing of a time.
_GOLDEN = 0.6180339887498949
#: Times from this magnitude on (and NaN) all start at slot 0 (``floor`` stays exact below it).
_HASHED = 2.0 ** 52


def has_room(et: np.ndarray, c: np.ndarray, k: int) -> bool:
    """Whether ``k`` more events fit with the hash table at most half full
    (there are never more buckets than events)."""
    n = et.size // 2
    return c[EV_N] + k <= n and 2 * (c[NB] + k) <= n


def _home(when: float, size: int) -> int:
    """The hash slot where the search for time ``when`` starts (equal times,
    ``0.0`` and ``-0.0`` included, share it)."""
    if not abs(when) < _HASHED:  # NaN, infinite or past exact integers: one chain
        return 0
    y = when * _GOLDEN
    h = int((y - math.floor(y)) * size)
    return h if h < size else 0


def _hash_insert(ei: np.ndarray, when: float, b: int) -> None:
    size = ei.shape[0]
    h = _home(when, size)
    while ei[h, X_BUCKET] >= 0:
        h = h + 1 if h + 1 < size else 0
    ei[h, X_BUCKET] = b


def _hash_delete(et: np.ndarray, ei: np.ndarray, b: int) -> None:
    """Remove bucket ``b`` from the table, shifting back the entries after
    it whose search passes its slot (no tombstones)."""
    size, n = ei.shape[0], et.size // 2
    i = _home(et[n + b], size)
    while ei[i, X_BUCKET] != b:
        i = i + 1 if i + 1 < size else 0
    j = i
    while True:
        j = j + 1 if j + 1 < size else 0
        e = ei[j, X_BUCKET]
        if e < 0:
            break
        k = _home(et[n + e], size)
        if (i < k <= j) if i <= j else (k > i or k <= j):
            continue  # its search starts after the hole: it stays
        ei[i, X_BUCKET] = e
        i = j
    ei[i, X_BUCKET] = -1


def event_rehash(et: np.ndarray, ei: np.ndarray, c: np.ndarray) -> None:
    """Rebuild the hash table from the heap's buckets (after the arrays grew)."""
    for h in range(ei.shape[0]):
        ei[h, X_BUCKET] = -1
    n = et.size // 2
    for p in range(c[NB]):
        b = ei[p, H_BUCKET]
        _hash_insert(ei, et[n + b], b)
    c[REHASH] = 0


def _bucket(et: np.ndarray, ei: np.ndarray, c: np.ndarray, when: float) -> int:
    """The bucket of time ``when``, made (and put on the heap) if there is none."""
    size, n = ei.shape[0], et.size // 2
    h = _home(when, size)
    while True:
        b = ei[h, X_BUCKET]
        if b < 0:
            break
        if et[n + b] == when:
            return b
        h = h + 1 if h + 1 < size else 0
    nb = c[NB]
    b = ei[n - nb - 1, B_FREE]
    c[NB] = nb + 1
    ei[h, X_BUCKET] = b
    et[n + b] = when
    for q in range(B_HEAD, B_HEAD + 4):
        ei[b, q] = -1
    p = nb
    while p > 0:
        q = (p - 1) >> 2
        if not when < et[q]:
            break
        et[p], ei[p, H_BUCKET] = et[q], ei[q, H_BUCKET]
        p = q
    et[p], ei[p, H_BUCKET] = when, b
    return b


def event_push(et: np.ndarray, ei: np.ndarray, c: np.ndarray, when: float, kind: int, spec: int, machine: int,
               count: int) -> None:
    """Push an event (the caller made room: ``c[EV_N] < et.size // 2``) at
    the end of its time's list of its kind."""
    n = c[EV_N]
    x = ei[et.size // 2 - n - 1, E_FREE]
    c[EV_N] = n + 1
    c[SEQ] += 1
    ei[x, E_KIND], ei[x, E_SPEC], ei[x, E_MACHINE], ei[x, E_COUNT] = kind, spec, machine, count
    ei[x, E_NEXT] = -1
    b = _bucket(et, ei, c, when)
    head = B_HEAD + 2 * kind
    tail = ei[b, head + 1]
    if tail < 0:
        ei[b, head] = x
    else:
        ei[tail, E_NEXT] = x
    ei[b, head + 1] = x


def _drop_top(et: np.ndarray, ei: np.ndarray, c: np.ndarray, b: int) -> None:
    """Remove the earliest bucket ``b`` (empty now) from the table and the heap."""
    _hash_delete(et, ei, b)
    nb = c[NB] - 1
    c[NB] = nb
    ei[et.size // 2 - nb - 1, B_FREE] = b
    t, y = et[nb], ei[nb, H_BUCKET]
    p = 0
    while True:
        a = 4 * p + 1
        if a >= nb:
            break
        best = a
        for q in range(a + 1, min(a + 4, nb)):
            if et[q] < et[best]:
                best = q
        if not et[best] < t:
            break
        et[p], ei[p, H_BUCKET] = et[best], ei[best, H_BUCKET]
        p = best
    if nb > 0:
        et[p], ei[p, H_BUCKET] = t, y


def event_pop(et: np.ndarray, ei: np.ndarray, c: np.ndarray) -> int:
    """Remove the first event; return its slot (read its payload before the next push)."""
    b = ei[0, H_BUCKET]
    head = B_HEAD if ei[b, B_HEAD] >= 0 else B_HEAD + 2
    x = ei[b, head]
    nxt = ei[x, E_NEXT]
    ei[b, head] = nxt
    if nxt < 0:
        ei[b, head + 1] = -1
    n = c[EV_N] - 1
    c[EV_N] = n
    ei[et.size // 2 - n - 1, E_FREE] = x
    if ei[b, B_HEAD] < 0 and ei[b, B_HEAD + 2] < 0:
        _drop_top(et, ei, c, b)
    return x


def grown(et: np.ndarray, ei: np.ndarray, c: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``et`` and ``ei`` with room for at least ``n`` pending events
    (doubling; as they are when they have it): new slots and buckets go
    on their free stacks, bucket times move to the second half of the new
    ``et``, and ``c[REHASH]`` asks the kernel to rebuild the hash table.
    Plain numpy, called from Python between kernel calls."""
    old, size, nb = et.size // 2, int(c[EV_N]), int(c[NB])
    if old >= n:
        return et, ei
    new = max(n, 2 * old)
    et2 = np.zeros(2 * new)
    et2[:old], et2[new: new + old] = et[:old], et[old:]
    ei2 = np.full((new, EVENT_COLUMNS), -1, dtype=np.int64, order="F")  # column-major: a column is contiguous
    ei2[:old] = ei
    ei2[old - size: new - size, E_FREE] = np.arange(old, new)
    ei2[old - nb: new - nb, B_FREE] = np.arange(old, new)
    c[REHASH] = 1
    return et2, ei2


#: Callees first (:func:`grown` is not compiled).
HELPERS = (has_room, _home, _hash_insert, _hash_delete, event_rehash, _bucket, event_push, _drop_top, event_pop)
