"""Ranking a lie search's candidate reports (Ghodsi et al., NSDI 2011,
Section 3, strategy-proofness): each would-be liar's best reports, which
go to the exact re-check (:mod:`._sp_screen`)."""

from __future__ import annotations

import numpy as np

#: Candidate reports per user that go to the exact re-check.
KEEP = 3


def best_rows(seg: np.ndarray, gain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of each segment's :data:`KEEP` best gains, segment by
    segment, best first (ties, and ``nan`` gains last, by position), and
    each segment's best row. ``seg`` numbers the segment of each row (one
    per member and user); the grid lists them in order, so each segment's
    rows are contiguous and one stable sort of a (segments, longest) table
    ranks them; otherwise one sort of all rows by segment, gain and
    position (the same rows)."""
    N = len(seg)
    if N and np.all(seg[1:] >= seg[:-1]):
        start = np.flatnonzero(np.r_[True, seg[1:] != seg[:-1]])
        lens = np.diff(np.r_[start, N])
        sid = np.repeat(np.arange(len(start)), lens)
        table = np.full((len(start), int(lens.max())), np.nan)  # padding after every real row, nan included
        table[sid, np.arange(N) - start[sid]] = -gain
        o = np.argsort(table, axis=1, kind="stable")[:, :KEEP]
        return (start[:, None] + o)[o < lens[:, None]], start + o[:, 0]
    pos = np.arange(N)
    order = np.lexsort((pos, -gain, seg))  # within a segment: best first, ties by position
    start = np.flatnonzero(np.r_[True, seg[order][1:] != seg[order][:-1]])
    rank = pos - np.repeat(start, np.diff(np.r_[start, N]))
    return order[rank < KEEP], order[start]
