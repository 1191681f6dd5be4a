"""A name -> object registry whose entries live in the modules of one
package, imported on first use (the encodings of policies and of
properties)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import Generic, TypeVar

from models import PolicyError

T = TypeVar("T")


class Registry(Generic[T]):
    """Entries registered by the modules of package ``package``.

    Parameters
    ----------
    package : str
        Dotted name of the package whose modules register entries.
    path : iterable of str
        The package's ``__path__``.
    what : str
        What a key names, for errors (``"policy"``).
    """

    def __init__(self, package: str, path: Iterable[str], what: str) -> None:
        self.package, self.path, self.what = package, list(path), what
        self._entries: dict[str, T] = {}
        self._loaded = False

    def add(self, name: str, entry: T) -> None:
        self._entries[name] = entry

    def all(self) -> dict[str, T]:
        """Every entry by name (the package's modules imported on first use)."""
        if not self._loaded:
            self._loaded = True
            for info in pkgutil.iter_modules(self.path):
                importlib.import_module(f"{self.package}.{info.name}")
        return dict(self._entries)

    def get(self, name: str) -> T:
        """The entry ``name``.

        Raises
        ------
        PolicyError
            When there is none (a bad-input error).
        """
        known = self.all()
        if name not in known:
            raise PolicyError(f"{self.what} {name!r} has no SMT encoding (encoded: {', '.join(sorted(known))})")
        return known[name]
