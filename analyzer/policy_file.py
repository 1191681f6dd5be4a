"""Loading a user's policies from a Python file (``--policy-file``).

The file is an ordinary module: it defines policy classes and registers
them with :func:`models.policy.register` (``@register``), exactly as the
built-in policies in :mod:`models.policies` do. See
``examples/new_policy.py``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from pathlib import Path

from models import Policy, PolicyError, available
from models import policy as _policy_registry

_LOADED: dict[Path, list[str]] = {}
#: Module name and source each loaded file was imported under and from
#: (workers of a Dask cluster import the same source under the same name).
_MODULES: dict[Path, tuple[str, str]] = {}


def load_policy_file(path: str | Path) -> list[str]:
    """Import ``path`` and return the names of the policies it registered.

    Loading the same file again is a no-op (returns the same names).

    Raises
    ------
    PolicyError
        One line naming the file: missing or unreadable file, syntax error
        (with the line), an exception while importing (with the line), no
        policy registered, or a name that a different policy already uses.

    Examples
    --------
    >>> load_policy_file("examples/new_policy.py")
    ['drf-asset-mix']
    >>> from analyzer import solve
    >>> solve("examples/paper_two_users.toml", "drf-asset-mix", exact=True).x_exact
    (Fraction(171, 61), Fraction(126, 61))
    >>> forget_policy_file("examples/new_policy.py")
    """
    p = Path(path)
    if not p.is_file():
        raise PolicyError(f"{p}: no such policy file" if not p.exists() else f"{p}: not a file")
    if p.suffix != ".py":
        raise PolicyError(f"{p}: a policy file must be a Python file ending in .py")
    key = p.resolve()
    if key in _LOADED:
        return list(_LOADED[key])
    before = available()
    digest = hashlib.sha1(str(key).encode()).hexdigest()[:10]
    mod_name = f"fairalloc_user_policies_{digest}"
    _import(p, mod_name, before)
    after = available()
    clashes = [n for n in after if n in before and after[n] is not before[n]]
    if clashes:
        _restore(before, mod_name)
        raise PolicyError(f"{p}: policy name {clashes[0]!r} is already taken by another policy; choose another name")
    names = sorted(n for n in after if n not in before)
    if not names:
        _restore(before, mod_name)
        raise PolicyError(f"{p}: defines no policy (decorate a {Policy.__name__} subclass with @register)")
    _LOADED[key] = names
    try:
        _MODULES[key] = (mod_name, p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):  # imported, but not shippable to a cluster: local runs still work
        pass
    return list(names)


def _import(p: Path, mod_name: str, before: dict[str, type[Policy]]) -> None:
    """Import the policy file ``p`` as module ``mod_name``; on any failure
    the registry goes back to ``before`` and a one-line PolicyError names
    the file (and the line, when the error has one)."""
    spec = importlib.util.spec_from_file_location(mod_name, p)
    if spec is None or spec.loader is None:
        raise PolicyError(f"{p}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        _restore(before, mod_name)
        raise PolicyError(f"{p}:{exc.lineno}: syntax error: {exc.msg}") from None
    except PolicyError as exc:
        _restore(before, mod_name)
        raise PolicyError(f"{p}: {exc}") from None
    except Exception as exc:  # the user's code may raise anything; report it in one line
        _restore(before, mod_name)
        line = _user_line(exc, p)
        raise PolicyError(f"{p}{line}: {type(exc).__name__}: {exc}") from None


def loaded_policy_sources() -> list[tuple[str, str, str]]:
    """``(module name, file name, source)`` of every policy file loaded in
    this process, for workers that must know the same policies (see
    :mod:`analyzer.searching.dask_backend`)."""
    return [(_MODULES[key][0], str(key), _MODULES[key][1]) for key in _LOADED if key in _MODULES]


def install_policy_sources(sources: list[tuple[str, str, str]]) -> None:
    """:func:`install_policy_source` for each ``(module name, file name,
    source)`` (run on a Dask scheduler, which unpickles the tasks too)."""
    for mod_name, filename, source in sources:
        install_policy_source(mod_name, filename, source)


def install_policy_source(mod_name: str, filename: str, source: str) -> None:
    """Import a policy file's ``source`` as module ``mod_name`` unless a
    module of that name is loaded already (on a Dask worker, whose file
    system may not hold the file): its ``@register`` decorators register
    the policies there, and pickled policy objects find their classes."""
    if mod_name in sys.modules:
        return
    import types

    module = types.ModuleType(mod_name)
    module.__file__ = filename
    sys.modules[mod_name] = module
    try:
        exec(compile(source, filename, "exec"), module.__dict__)  # noqa: S102 -- the user's own policy file
    except BaseException:
        sys.modules.pop(mod_name, None)
        raise


def forget_policy_file(path: str | Path) -> None:
    """Unregister the policies loaded from ``path`` (tests, notebooks)."""
    key = Path(path).resolve()
    _MODULES.pop(key, None)
    for name in _LOADED.pop(key, []):
        _policy_registry.POLICIES.unregister(name)


def _restore(before: dict[str, type[Policy]], mod_name: str) -> None:
    """Undo a failed load: the registry as it was, the module forgotten."""
    registry = _policy_registry.POLICIES
    for name in registry.names():
        if name not in before:
            registry.unregister(name)
    for name, cls in before.items():
        registry.register(name, cls)
    sys.modules.pop(mod_name, None)


def _user_line(exc: BaseException, path: Path) -> str:
    """``:LINE`` of the deepest frame in the user's file, if any."""
    line = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            line = f":{frame.lineno}"
    return line


__all__ = ["forget_policy_file", "install_policy_source", "install_policy_sources", "load_policy_file",
           "loaded_policy_sources"]
