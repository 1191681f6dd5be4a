"""numba compilation of fairalloc's kernels, cached on disk.

A kernel is written once as a plain Python function on numpy arrays (and
the helpers it calls); :func:`compiled` returns it compiled with
``numba.njit`` (its helpers too, callees first, so that compiled code
calls compiled helpers), or the function itself when numba is missing or
``FAIRALLOC_NO_NUMBA=1``. Both forms give identical results: the kernels
use integer arithmetic and IEEE ``double`` operations in a fixed order.
Which form a run uses is decided by the size of its work
(:mod:`models.kernels`): numba is imported only when a kernel runs
compiled, so importing :mod:`models` (and ``fairalloc solve``) never
loads it.

Compiled code is cached on disk (numba's ``cache=True``) under a
directory named by a :func:`fingerprint` of everything it was compiled
from: fairalloc's, numba's, numpy's and Python's versions and the source
of every module defining the kernel or a helper, with the constants they
read. numba alone checks only the kernel's own file, so a changed helper
module kept giving the old compiled code. :func:`compile_ahead` compiles
a kernel for given argument types at once and marks it done
(:func:`compiled_before`); a kernel compiled rather than loaded is
announced once per process through the function given to
:func:`set_notice` (by default one line on standard error, terminal or
not, so that a notebook shows it too).
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


def _to_stderr(message: str) -> None:
    """The default notice: one line on standard error."""
    print(f"fairalloc: {message}", file=sys.stderr, flush=True)


_CACHE: dict[Callable[..., Any], Callable[..., Any]] = {}
_NOTICE: list[Callable[[str], None] | None] = [_to_stderr]
#: Suffix of the file marking a kernel compiled for its callers' types (beside its stamp).
_DONE = ".compiled"


def set_notice(callback: Callable[[str], None] | None) -> None:
    """Call ``callback(message)`` (once per process) before kernels are
    compiled rather than loaded from the disk cache; ``None``: say nothing."""
    _NOTICE[0] = callback


def announce(message: str) -> None:
    """Pass ``message`` to the notice callback, the first time only (one
    line per process however many kernels are compiled)."""
    notice, _NOTICE[0] = _NOTICE[0], None
    if notice is not None:
        notice(message)


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


def _options(runtime: bool) -> dict[str, Any]:
    return {} if runtime else {"_nrt": False}


def _environment(kernel: Callable[..., Any], helpers: Sequence[Callable[..., Any]]) -> dict[str, Any]:
    """The globals of every module involved (a copy: the modules keep their Python functions)."""
    env: dict[str, Any] = {}
    for fn in (*helpers, kernel):
        env.update(fn.__globals__)
    return env


def _stamp_path(kernel: Callable[..., Any], helpers: Sequence[Callable[..., Any]], runtime: bool,
                env: dict[str, Any] | None = None) -> Path:
    """The file numba's cache is keyed on for this kernel, in a directory
    named by its :func:`fingerprint` (the file may not exist yet)."""
    env = _environment(kernel, helpers) if env is None else env
    key = fingerprint((*helpers, kernel), env, _options(runtime))
    return cache_root() / "numba" / key / f"{kernel.__module__}.{kernel.__qualname__}.py"


def _stamp_file(path: Path, kernel: Callable[..., Any], helpers: Sequence[Callable[..., Any]]) -> bool:
    """Write the stamp ``path`` (the kernel's sources) unless it exists;
    whether it is new (so the kernel is about to be compiled, not loaded)."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    sources = [f"# {fn.__module__}.{fn.__qualname__}\n{inspect.getsource(fn)}" for fn in (*helpers, kernel)]
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text("# compiled by fairalloc (models/compiled.py) from:\n\n" + "\n".join(sources))
    try:  # never replace another process's stamp: numba keys its cache on the file's time and size
        os.link(tmp, path)
    except FileExistsError:
        return False
    finally:
        tmp.unlink()
    return True


def compiled_before(kernel: Callable[..., Any], helpers: Sequence[Callable[..., Any]] = (), *,
                    runtime: bool = True) -> bool:
    """True when :func:`compile_ahead` compiled this very kernel (same
    fingerprint) into the disk cache: running it compiled loads it."""
    try:
        return _stamp_path(kernel, helpers, runtime).with_suffix(_DONE).exists()
    except OSError:
        return False


_MISSING: list[bool] = [False]  # numba failed to import once: it will not appear later


def numba_available() -> bool:
    """True when numba can be imported and is not disabled (imports it)."""
    if os.environ.get("FAIRALLOC_NO_NUMBA") or _MISSING[0]:
        return False
    try:
        import numba  # noqa: F401
    except ImportError:
        _MISSING[0] = True
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
    """``kernel`` compiled with numba (its ``helpers`` too, callees first),
    or ``kernel`` itself without numba. numba compiles (or loads from the
    disk cache) on the first call, for that call's argument types; a
    compilation is announced (:func:`set_notice`).

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

        opts = _options(runtime)
        env = _environment(kernel, helpers)
        try:
            stamp: Path | None = _stamp_path(kernel, helpers, runtime, env)
            assert stamp is not None
            new = _stamp_file(stamp, kernel, helpers)
            where = f"cached in {stamp.parent.parent}"
        except OSError:  # no writable cache directory: compile in memory, every run
            stamp, new, where = None, True, "not cached: the cache directory is not writable"
        if new:
            announce(f"compiling the fast kernels with numba, once ({where})")
        for h in helpers:  # listed callees first: each compiled helper calls compiled helpers
            env[h.__name__] = numba.njit(cache=stamp is not None, **opts)(_twin(h, env, stamp))
        out = numba.njit(cache=stamp is not None, **opts)(_twin(kernel, env, stamp))
        _CACHE[kernel] = out
    return out


def compile_ahead(kernel: Callable[..., Any], helpers: Sequence[Callable[..., Any]], args: Sequence[Any], *,
                  runtime: bool = True) -> Callable[..., Any]:
    """:func:`compiled` ``kernel``, compiled now (or loaded from the disk
    cache) for the types of ``args`` (``numba.typeof`` of each: dtype,
    dimensions, layout, read-only flag), and marked done
    (:func:`compiled_before`). numba must be available."""
    import numba

    out: Any = compiled(kernel, helpers, runtime=runtime)  # a numba dispatcher
    out.compile(tuple(numba.typeof(a) for a in args))
    try:
        done = _stamp_path(kernel, helpers, runtime).with_suffix(_DONE)
        if done.parent.is_dir():
            done.touch()
    except OSError:  # a cache directory that is not writable: compiled in memory only
        pass
    return out


__all__ = ["announce", "cache_root", "compile_ahead", "compiled", "compiled_before", "fingerprint",
           "numba_available", "set_notice"]
