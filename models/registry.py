"""One small generic registry: names to objects, with lazy loading.

Every pluggable piece of fairalloc is found by name through a
:class:`Registry`: policies, discrete policies, placements, tie-breaks,
properties, output formats, exact solvers. A registry holds what was
registered; the modules that register the built-ins are imported on first
use (``lazy``), so a plain ``fairalloc solve`` imports only what it needs.

Examples
--------
>>> colours = Registry("colour", lazy=())
>>> @colours.register("red")
... def red() -> str:
...     return "#f00"
>>> colours.get("red")()
'#f00'
>>> colours.get("rde")
Traceback (most recent call last):
...
models.registry.UnknownNameError: unknown colour 'rde'; did you mean 'red'? (known: red)
>>> colours.unregister("red")
>>> "red" in colours
False
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from typing import Generic, TypeVar, overload

from .errors import did_you_mean

T = TypeVar("T")
O = TypeVar("O")  # noqa: E741 -- the registered object, in the decorator's signature


class UnknownNameError(LookupError):
    """A name no registry entry has (the message lists the known names and
    the closest one)."""


class Registry(Generic[T]):
    """Names to objects of one kind.

    Parameters
    ----------
    kind : str
        What the entries are, for messages (``"policy"``, ``"output format"``).
    lazy : iterable of str
        Modules or packages that register the built-in entries when
        imported, in order: a lookup of a name not registered yet imports
        them one at a time until the name appears, a listing imports them
        all. A package has each of its public modules (names not starting
        with ``_``) imported.
    error : type of Exception
        The exception raised for an unknown name (an
        :class:`UnknownNameError` by default; e.g. ``PolicyError``, which
        the command line reports as bad input).
    """

    def __init__(self, kind: str, lazy: Iterable[str] = (),
                 error: Callable[[str], Exception] = UnknownNameError) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}
        self._lazy = list(lazy)  # not imported yet
        self._error = error

    # ---------------------------------------------------------------- writing
    @overload
    def register(self, name: str) -> Callable[[O], O]: ...

    @overload
    def register(self, name: str, obj: O) -> O: ...

    def register(self, name: str, obj: object = None) -> object:
        """Add ``obj`` under ``name`` (a later registration replaces an
        earlier one); without ``obj``, a decorator that registers what it
        decorates and returns it unchanged."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"{self.kind}: a name must be a non-empty string, got {name!r}")

        def add(value: O) -> O:
            self._entries[name] = value  # type: ignore[assignment]
            return value

        return add if obj is None else add(obj)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (nothing happens when it is not registered)."""
        self._entries.pop(name, None)

    # ---------------------------------------------------------------- reading
    def load(self, until: str | None = None) -> None:
        """Import the modules registering the built-ins (each once), all of
        them or only until ``until`` is registered."""
        while self._lazy and (until is None or until not in self._entries):
            module = self._lazy.pop(0)
            mod = importlib.import_module(module)
            for info in pkgutil.iter_modules(getattr(mod, "__path__", [])):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{module}.{info.name}")

    def get(self, name: str) -> T:
        """The entry called ``name``.

        Raises
        ------
        Exception
            The registry's ``error`` type, naming the closest known name.
        """
        self.load(until=name)
        try:
            return self._entries[name]
        except KeyError:
            known = self.names()
            raise self._error(f"unknown {self.kind} {name!r}{did_you_mean(str(name), known)} "
                              f"(known: {', '.join(known)})") from None

    def names(self) -> list[str]:
        """Every registered name, sorted (built-ins loaded first)."""
        self.load()
        return sorted(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """``(name, entry)`` pairs, sorted by name (built-ins loaded first)."""
        return [(n, self._entries[n]) for n in self.names()]

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str):
            self.load(until=name)
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"<registry of {len(self._entries)} {self.kind} entries>"
