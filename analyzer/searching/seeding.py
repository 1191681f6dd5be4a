"""The draws of many stream positions at once, bit for bit those of
``numpy.random.default_rng(numpy.random.SeedSequence(entropy, spawn_key=(k,)))``.

A search draws the instance at position ``k`` with a generator seeded by
``(seed, property, class, mode, k)`` (:mod:`~analyzer.searching.instance_stream`), so that
an instance depends on its position only. Building a ``SeedSequence`` and
a ``PCG64`` per position costs about 60 us, more than many checks of the
instance it draws. Here the seed sequences' hashing (numpy's
``SeedSequence``: ``mix_entropy`` then ``generate_state``, O'Neill's
``seed_seq_fe`` design) runs on a whole chunk of positions as ``uint32``
array arithmetic (:func:`state_words`), and each position's PCG64 state
follows (``pcg64_set_seed``: ``state = (inc + initstate) * M + inc``).

:func:`draws` then gives, per position, a :class:`Draws` that runs PCG64
(XSL-RR 128/64) and numpy's ``Generator.integers`` (Lemire's bounded
draws), ``random`` and ``uniform`` on Python integers: the same numbers
(``tests/test_seeding.py`` compares them with numpy's own seeding and
draws) without a ``Generator`` call's fixed cost (~12 us for ``integers``
with a ``size``, more than the few numbers a stream instance needs).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np

# numpy/random/bit_generator.pyx (SeedSequence) and pcg64.h
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16
_POOL = 4
_M32 = 0xFFFFFFFF
_M64 = (1 << 64) - 1
_M128 = (1 << 128) - 1
_DOUBLE_UNIT = 1.0 / 9007199254740992.0  # 2**-53, numpy's next_double
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341
#: Largest position seeded here (its spawn key is one 32-bit word).
MAX_KEY: int = _M32


def _words(value: int) -> list[int]:
    """numpy's ``_int_to_uint32_array``: 32-bit words, least significant first."""
    if value < 0:
        raise ValueError(f"seed material must be >= 0, got {value}")
    out = [value & _M32] if value == 0 else []
    while value > 0:
        out.append(value & _M32)
        value >>= 32
    return out


def _hashmix(value: np.ndarray, const: int) -> tuple[np.ndarray, int]:
    value = value ^ np.uint32(const)
    const = (const * _MULT_A) & _M32
    value = value * np.uint32(const)
    return value ^ (value >> np.uint32(_XSHIFT)), const


def _mix(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    r: np.ndarray = np.subtract(np.multiply(x, np.uint32(_MIX_MULT_L), dtype=np.uint32),
                                np.multiply(y, np.uint32(_MIX_MULT_R), dtype=np.uint32), dtype=np.uint32)
    return r ^ (r >> np.uint32(_XSHIFT))


def state_words(entropy: Sequence[int], keys: np.ndarray) -> np.ndarray:
    """``SeedSequence(entropy, spawn_key=(k,)).generate_state(4, np.uint64)``
    for every ``k`` of ``keys`` (each ``0 <= k <=`` :data:`MAX_KEY`): shape
    ``(K, 4)``, dtype ``uint64``."""
    keys = np.asarray(keys, dtype=np.int64)
    if keys.size and (keys.min() < 0 or keys.max() > MAX_KEY):
        raise ValueError(f"stream positions must lie in 0..{MAX_KEY}")
    run = [w for v in entropy for w in _words(int(v))]
    run += [0] * max(0, _POOL - len(run))  # a spawn key pads the run entropy to the pool
    with np.errstate(over="ignore"):
        cols = [np.full(len(keys), w, dtype=np.uint32) for w in run] + [keys.astype(np.uint32)]
        const = _INIT_A
        pool = []
        for i in range(_POOL):
            h, const = _hashmix(cols[i], const)
            pool.append(h)
        for src in range(_POOL):
            for dst in range(_POOL):
                if src != dst:
                    h, const = _hashmix(pool[src], const)
                    pool[dst] = _mix(pool[dst], h)
        for src in range(_POOL, len(cols)):
            for dst in range(_POOL):
                h, const = _hashmix(cols[src], const)
                pool[dst] = _mix(pool[dst], h)
        const = _INIT_B
        out = np.empty((len(keys), 8), dtype=np.uint32)
        for i in range(8):
            v = pool[i % _POOL] ^ np.uint32(const)
            const = (const * _MULT_B) & _M32
            v = v * np.uint32(const)
            out[:, i] = v ^ (v >> np.uint32(_XSHIFT))
    return out[:, 0::2].astype(np.uint64) | (out[:, 1::2].astype(np.uint64) << np.uint64(32))


def _seeded(s0: int, s1: int, s2: int, s3: int) -> tuple[int, int]:
    """PCG64 ``(state, inc)`` of ``generate_state`` words (``pcg64_set_seed``)."""
    inc = (((s2 << 64) | s3) << 1 | 1) & _M128
    return ((inc + ((s0 << 64) | s1)) * _PCG_MULT + inc) & _M128, inc


def draws(entropy: Sequence[int], keys: Sequence[int]) -> Iterator[Draws]:
    """For each ``k`` of ``keys`` in turn, a :class:`Draws` drawing what
    ``numpy.random.default_rng(numpy.random.SeedSequence(entropy, spawn_key=(k,)))``
    draws."""
    for words in state_words(entropy, np.asarray(keys, dtype=np.int64)).tolist():
        yield Draws(*_seeded(*words))


class Draws:
    """The calls of numpy's ``Generator(PCG64)`` the stream's strategies
    make (:meth:`integers`, :meth:`random`, :meth:`uniform`), the same
    numbers and types, from a PCG64 ``(state, inc)``.

    numpy's algorithms (``numpy/random/src``): ``pcg64_random_r`` (step,
    then the XSL-RR output of the new state); ``next_uint32`` hands out a
    64-bit output's low half and keeps the high half for the next call
    (``has_uint32``), which ``next_double`` (``(x >> 11) * 2**-53``) does not
    touch; ``random_bounded_uint64_fill`` draws each number by Lemire's
    method on 32 bits when the range fits, else on 64 bits.
    """

    __slots__ = ("_state", "_inc", "_half")

    def __init__(self, state: int, inc: int) -> None:
        self._state, self._inc, self._half = state, inc, -1

    def _next64(self) -> int:
        s = self._state = (self._state * _PCG_MULT + self._inc) & _M128
        x, rot = ((s >> 64) ^ s) & _M64, s >> 122
        return ((x >> rot) | (x << (64 - rot))) & _M64

    def _next32(self) -> int:
        if self._half >= 0:
            half, self._half = self._half, -1
            return half
        x = self._next64()
        self._half = x >> 32
        return x & _M32

    def _bounded32(self, rng: int, count: int, lo: int) -> list[int]:
        """``count`` numbers on ``0..rng`` (``0 < rng < 2**32 - 1``) plus
        ``lo`` by Lemire's method on ``next_uint32``
        (``buffered_bounded_lemire_uint32``: a draw is kept when the low word
        of ``u * (rng + 1)`` is at least ``2**32 mod (rng + 1)``, else drawn
        again), the PCG64 step inlined."""
        excl = rng + 1
        threshold = (_M32 - rng) % excl
        state, inc, half = self._state, self._inc, self._half
        mult, m128, m64, m32 = _PCG_MULT, _M128, _M64, _M32
        out = []
        for _ in range(count):
            while True:
                if half < 0:
                    state = (state * mult + inc) & m128
                    x, rot = ((state >> 64) ^ state) & m64, state >> 122
                    x = ((x >> rot) | (x << (64 - rot))) & m64
                    m, half = (x & m32) * excl, x >> 32
                else:
                    m, half = half * excl, -1
                if m & m32 >= threshold:
                    break
            out.append(lo + (m >> 32))
        self._state, self._half = state, half
        return out

    def _bounded64(self, rng: int) -> int:
        """A number on ``0..rng`` (``2**32 - 1 <= rng < 2**64 - 1``), as numpy draws it."""
        if rng == _M32:  # the whole 32-bit range: one number as it comes
            return self._next32()
        excl = rng + 1
        threshold = (_M64 - rng) % excl
        m = self._next64() * excl
        while m & _M64 < threshold:
            m = self._next64() * excl
        return m >> 64

    def integers(self, low: int, high: int | None = None,
                 size: int | tuple[int, ...] | None = None) -> int | np.ndarray:
        """``Generator.integers(low, high, size)`` (int64, ``high``
        excluded): a Python int when ``size`` is ``None``."""
        if high is None:
            low, high = 0, low
        lo = int(low)
        rng = int(high) - 1 - lo
        count = 1 if size is None else _count(size)
        if 0 < rng < _M32:
            vals = self._bounded32(rng, count, lo)
        elif rng == 0:
            vals = [lo] * count
        elif _M32 <= rng < _M64:
            vals = [lo + self._bounded64(rng) for _ in range(count)]
        else:
            raise ValueError(f"integers: range {low}..{high} not drawn here")
        if size is None:
            return vals[0]
        return _shaped(np.array(vals, dtype=np.int64), size)

    def random(self, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        """``Generator.random(size)``."""
        return self.uniform(0.0, 1.0, size)

    def uniform(self, low: float, high: float, size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
        """``Generator.uniform(low, high, size)``: ``low + (high - low) *
        next_double`` per number (``random``: ``0 + 1 * next_double``, the
        same double)."""
        lo, span = float(low), float(high) - float(low)
        nxt = self._next64
        if size is None:
            return lo + span * ((nxt() >> 11) * _DOUBLE_UNIT)
        return _shaped(np.array([lo + span * ((nxt() >> 11) * _DOUBLE_UNIT) for _ in range(_count(size))]), size)


def _shaped(a: np.ndarray, size: int | tuple[int, ...]) -> np.ndarray:
    return a if isinstance(size, int) else a.reshape(size)


def _count(size: int | tuple[int, ...]) -> int:
    return size if isinstance(size, int) else math.prod(size)
