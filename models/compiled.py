"""Optional numba compilation of the discrete engine's kernels.

A kernel is written once as a plain Python function on numpy arrays (and
the helpers it calls); :func:`compiled` returns it compiled with
``numba.njit`` when numba is installed (``pip install fairalloc[fast]``),
else the function itself. numba is imported on the first call only, so
importing :mod:`models` (and ``fairalloc solve``) never loads it. Both
forms give identical results: the kernels use integer arithmetic and IEEE
``double`` operations in a fixed order. ``FAIRALLOC_NO_NUMBA=1`` forces
the Python form.

Compiled code is cached on disk (numba's ``cache=True``) under a
directory named by a :func:`fingerprint` of everything it was compiled
from: fairalloc's, numba's, numpy's and Python's versions and the source
of every module defining the kernel or a helper, with the constants they
read. numba alone checks only the kernel's own file, so a changed helper
module kept giving the old compiled code. The first use of a kernel
compiles it (seconds) and calls the function given to :func:`set_notice`
once per process (the command line prints one line); later runs load it.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import CodeType
from typing import Any

_CACHE: dict[Callable[..., Any], Callable[..., Any]] = {}
_NOTICE: list[Callable[[str], None] | None] = [None]


def set_notice(callback: Callable[[str], None] | None) -> None:
    """Call ``callback(message)`` (once per process) before a kernel is
    compiled rather than loaded from the disk cache; ``None``: say nothing."""
    _NOTICE[0] = callback


def cache_root() -> Path:
    """Where compiled kernels are kept: ``$FAIRALLOC_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/fairalloc``, else ``~/.cache/fairalloc``."""
    if os.environ.get("FAIRALLOC_CACHE_DIR"):
        return Path(os.environ["FAIRALLOC_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fairalloc"


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "none"


def _codes(code: CodeType) -> list[CodeType]:
    """``code`` and the code objects nested in it."""
    out = [code]
    for c in code.co_consts:
        if isinstance(c, CodeType):
            out += _codes(c)
    return out


def fingerprint(functions: Sequence[Callable[..., Any]], env: dict[str, Any], options: dict[str, Any],
                package_version: str | None = None) -> str:
    """A hash of what compiled code depends on: the versions of fairalloc
    (``package_version``, default: the installed one), numba, numpy and
    Python, the compile ``options``, the whole source file of every module
    defining one of ``functions``, their names, and the values of the plain
    constants (numbers, strings, tuples) they read from ``env`` (numba
    freezes globals into the code)."""
    h = hashlib.sha256()
    versions = (package_version if package_version is not None else _version("fairalloc"),
                _version("numba"), _version("numpy"), sys.version, repr(sorted(options.items())))
    h.update(repr(versions).encode())
    files = sorted({inspect.getfile(fn) for fn in functions})
    for f in files:
        h.update(f.encode() + b"\0" + Path(f).read_bytes())
    for fn in functions:
        h.update(f"{fn.__module__}.{fn.__qualname__}".encode())
        for code in _codes(fn.__code__):
            for name in sorted(set(code.co_names)):
                value = env.get(name)
                if isinstance(value, int | float | str | bytes | tuple | bool):
                    h.update(f"{name}={value!r}".encode())
    return h.hexdigest()[:20]


def _stamp_file(kernel: Callable[..., Any], helpers: Sequence[Callable[..., Any]], key: str) -> tuple[Path, bool]:
    """The file numba's cache is keyed on for this kernel (its directory
    named by the fingerprint ``key``), and whether it is new (so the
    kernel is about to be compiled, not loaded)."""
    folder = cache_root() / "numba" / key
    path = folder / f"{kernel.__module__}.{kernel.__qualname__}.py"
    if path.exists():
        return path, False
    folder.mkdir(parents=True, exist_ok=True)
    sources = [f"# {fn.__module__}.{fn.__qualname__}\n{inspect.getsource(fn)}" for fn in (*helpers, kernel)]
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text("# compiled by fairalloc (models/compiled.py) from:\n\n" + "\n".join(sources))
    try:  # never replace another process's stamp: numba keys its cache on the file's time and size
        os.link(tmp, path)
    except FileExistsError:
        return path, False
    finally:
        tmp.unlink()
    return path, True


def numba_available() -> bool:
    """True when numba can be imported and is not disabled."""
    if os.environ.get("FAIRALLOC_NO_NUMBA"):
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def _twin(fn: Callable[..., Any], env: dict[str, Any], stamp: Path | None) -> Callable[..., Any]:
    """``fn`` with globals ``env`` (same code, name and module), its code
    attributed to ``stamp`` (where numba keeps and checks its cache)."""
    import types

    code = fn.__code__ if stamp is None else fn.__code__.replace(co_filename=str(stamp))
    twin = types.FunctionType(code, env, fn.__name__, fn.__defaults__, fn.__closure__)
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
        try:
            stamp: Path | None
            stamp, new = _stamp_file(kernel, helpers, fingerprint((*helpers, kernel), env, opts))
            where = f"cached in {stamp.parent.parent}"
        except OSError:  # no writable cache directory: compile in memory, every run
            stamp, new, where = None, True, "not cached: the cache directory is not writable"
        if new and _NOTICE[0] is not None:
            notice, _NOTICE[0] = _NOTICE[0], None
            notice(f"compiling the fast kernels with numba, once ({where})")
        for h in helpers:
            env[h.__name__] = numba.njit(cache=stamp is not None, **opts)(_twin(h, env, stamp))
        out = numba.njit(cache=stamp is not None, **opts)(_twin(kernel, env, stamp))
        _CACHE[kernel] = out
    return out


__all__ = ["cache_root", "compiled", "fingerprint", "numba_available", "set_notice"]
