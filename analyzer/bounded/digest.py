"""What a bounded proof's verdict depends on, as digests recorded in its
progress file (:mod:`.store`): a run resumed from a file written under any
other definition is refused, so no verdict is ever replayed from another
policy, property, class or version.

* **the policy**: its label and every registered parameter, and the source
  of each module defining a class of the policy object and of its discrete
  form (:func:`models.discrete.get_discrete_policy`): for a built-in, its
  module and the modules of the classes it derives from (the filling
  family, the discrete engine's share); for a ``--policy-file`` policy, the
  file's contents as they were imported;
* **the property**: its name and the source of its class's modules;
* **fairalloc**: its version and a digest of every module of ``models``,
  ``proofs`` and ``analyzer`` (a development checkout keeps its version
  number while its code changes).

The class and the bound are recorded as they are (``Space.to_dict``).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from models import PolicyError

#: The packages whose sources make up fairalloc's own digest.
PACKAGES: tuple[str, ...] = ("models", "proofs", "analyzer")


def definition_digests(policy: Any, prop: Any) -> dict[str, str]:
    """``{"policy_definition": ..., "property_definition": ...,
    "fairalloc": ...}``: the digests a progress file records.

    Raises
    ------
    PolicyError
        When the source of a class the policy or property is made of
        cannot be read (a class typed into an interactive session): its
        definition could change unseen, so a progress file cannot be
        trusted for it.
    """
    from models.discrete import get_discrete_policy

    params = repr(sorted((str(k), repr(v)) for k, v in policy.params.items()))
    objects = [policy, get_discrete_policy(policy)]
    return {
        "policy_definition": _digest([policy.label, params, *_sources(objects, f"policy {policy.label}")]),
        "property_definition": _digest([prop.name, *_sources([prop], f"property {prop.name}")]),
        "fairalloc": fairalloc_digest(),
    }


@functools.lru_cache(maxsize=1)
def fairalloc_digest() -> str:
    """``"0.1.0 sha256:..."``: the version and a digest of the sources of
    :data:`PACKAGES` (once per process)."""
    from ..cli import package_version

    root = Path(__file__).resolve().parents[2]
    files = sorted(p for pkg in PACKAGES for p in (root / pkg).rglob("*.py"))
    parts = [f"{p.relative_to(root)}\n{p.read_text(encoding='utf-8', errors='replace')}" for p in files]
    return f"{package_version()} {_digest(parts)}"


def _sources(objects: Iterable[Any], what: str) -> list[str]:
    """The source of every module defining a class of ``objects`` (their
    classes and the classes those derive from), each once, in a fixed
    order."""
    modules: dict[str, str] = {}
    for obj in objects:
        for cls in type(obj).__mro__:
            name = cls.__module__
            if name in ("builtins", "abc", "typing") or name in modules:
                continue
            modules[name] = _module_source(name, cls, what)
    return [f"{name}\n{source}" for name, source in sorted(modules.items())]


def _module_source(name: str, cls: type, what: str) -> str:
    """The source module ``name`` was imported from: a policy file's text
    as loaded (:mod:`analyzer.policy_file`), else the module's file, else
    the class's own source."""
    from ..policy_file import loaded_policy_sources

    loaded = {mod: source for mod, _, source in loaded_policy_sources()}
    if name in loaded:
        return loaded[name]
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    try:
        if path and Path(path).suffix == ".py":
            return Path(path).read_text(encoding="utf-8", errors="replace")
        return inspect.getsource(cls)
    except (OSError, TypeError):
        raise PolicyError(f"resume: the source of {cls.__qualname__} ({what}) cannot be read, so a progress file "
                          "cannot be checked against its definition; run without resume") from None


def _digest(parts: Iterable[str]) -> str:
    """``"sha256:"`` and the first 16 hex digits of the parts' hash."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", errors="replace")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return "sha256:" + h.hexdigest()[:16]
