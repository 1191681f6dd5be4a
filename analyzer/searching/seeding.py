"""The generators of many stream positions at once, bit for bit those of
``numpy.random.default_rng(numpy.random.SeedSequence(entropy, spawn_key=(k,)))``.

A search draws the instance at position ``k`` with a generator seeded by
``(seed, cell, k)`` (:mod:`~analyzer.searching.instance_stream`), so that
an instance depends on its position only. Building a ``SeedSequence`` and
a ``PCG64`` per position costs about 60 us, more than many checks of the
instance it draws. Here the seed sequences' hashing (numpy's
``SeedSequence``: ``mix_entropy`` then ``generate_state``, O'Neill's
``seed_seq_fe`` design) runs on a whole chunk of positions as ``uint32``
array arithmetic, and one ``Generator`` is set to each position's PCG64
state in turn (``pcg64_set_seed``: ``state = (inc + initstate) * M + inc``).
The numbers drawn are identical (``tests/test_seeding.py`` compares them
with numpy's own seeding).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

# numpy/random/bit_generator.pyx (SeedSequence) and pcg64.h
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_MULT_L, _MIX_MULT_R = 0xCA01F9DD, 0x4973F715
_XSHIFT = 16
_POOL = 4
_M32 = 0xFFFFFFFF
_M128 = (1 << 128) - 1
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


def generators(entropy: Sequence[int], keys: Sequence[int]) -> Iterator[np.random.Generator]:
    """For each ``k`` of ``keys`` in turn, a generator in the state of
    ``numpy.random.default_rng(numpy.random.SeedSequence(entropy, spawn_key=(k,)))``.

    It is one generator, re-seeded before each yield: use it before
    asking for the next.
    """
    words = state_words(entropy, np.asarray(keys, dtype=np.int64)).tolist()
    gen = np.random.Generator(np.random.PCG64(0))
    bits = gen.bit_generator
    for s0, s1, s2, s3 in words:
        inc = (((s2 << 64) | s3) << 1 | 1) & _M128
        state = ((inc + ((s0 << 64) | s1)) * _PCG_MULT + inc) & _M128
        bits.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": 0,
                      "uinteger": 0}
        yield gen
