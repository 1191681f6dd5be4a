"""Optional numba compilation of the discrete engine's kernels.

A kernel is written once as a plain Python function on numpy arrays (and
the helpers it calls); :func:`compiled` returns it compiled with
``numba.njit`` when numba is installed (``pip install fairalloc[fast]``),
else the function itself. numba is imported on the first call only, so
importing :mod:`models` (and ``fairalloc solve``) never loads it. Both
forms give identical results: the kernels use integer arithmetic and IEEE
``double`` operations in a fixed order. ``FAIRALLOC_NO_NUMBA=1`` forces
the Python form.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

_CACHE: dict[Callable[..., Any], Callable[..., Any]] = {}


def numba_available() -> bool:
    """True when numba can be imported and is not disabled."""
    if os.environ.get("FAIRALLOC_NO_NUMBA"):
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _twin(fn: Callable[..., Any], env: dict[str, Any]) -> Callable[..., Any]:
    """``fn`` with globals ``env`` (same code, name and module)."""
    import types

    twin = types.FunctionType(fn.__code__, env, fn.__name__, fn.__defaults__, fn.__closure__)
    twin.__module__, twin.__qualname__ = fn.__module__, fn.__qualname__
    return twin


def compiled(kernel: Callable[..., Any], helpers: Sequence[Callable[..., Any]] = (), *,
             runtime: bool = True) -> Callable[..., Any]:
    """``kernel`` compiled with numba (its ``helpers`` too, callees first,
    so that compiled code calls compiled helpers), or ``kernel`` itself
    without numba.

    ``runtime=False`` compiles without numba's runtime (``_nrt=False``):
    for kernels that allocate nothing, whose compiled helpers pass arrays
    to each other; with the runtime every such call pays an atomic
    reference count per array (half of the simulator's event loop).
    """
    if not numba_available():
        return kernel
    out = _CACHE.get(kernel)
    if out is None:
        import numba

        opts: dict[str, Any] = {} if runtime else {"_nrt": False}
        # the globals of every module involved, with each helper replaced by its compiled form (in a
        # copy: the modules keep their Python functions); helpers are listed callees first
        env: dict[str, Any] = {}
        for fn in (*helpers, kernel):
            env.update(fn.__globals__)
        for h in helpers:
            env[h.__name__] = numba.njit(cache=True, **opts)(_twin(h, env))
        out = numba.njit(cache=True, **opts)(_twin(kernel, env))
        _CACHE[kernel] = out
    return out


__all__ = ["compiled", "numba_available"]
