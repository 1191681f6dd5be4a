"""Output formats: one module each, found by name in :data:`OUTPUT_FORMATS`.

Every command that takes ``--format`` builds a :class:`Document` (its
tables, notes and structured data) and calls :func:`render`; the
``--format`` choices are the registry's names. A new output format is one
new module in this package (or anywhere, e.g. a test or a ``--policy-file``)
that registers an :class:`OutputFormat`::

    from analyzer.formats import Document, OUTPUT_FORMATS, OutputFormat

    @OUTPUT_FORMATS.register("tsv")
    class Tsv(OutputFormat):
        description = "tab-separated values"

        def render(self, doc: Document) -> str:
            ...

Built-ins: ``text`` (:mod:`.text`), ``md`` (:mod:`.markdown`), ``latex``
(:mod:`.latex`), ``csv`` (:mod:`.csv_format`) and ``json``
(:mod:`.json_format`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from models.registry import Registry

from ..render import Table


@dataclass
class Document:
    """What a command prints, in the forms an output format may use.

    Attributes
    ----------
    tables : list of Table
        The result as titled tables (text, md, latex and csv render these).
    notes : list of str
        Remarks printed after the tables.
    data : callable, optional
        Returns the result as JSON-ready data (called only by the formats
        that write it, e.g. ``json``; without it ``json`` writes the tables
        and notes).
    own : mapping of str to callable
        A command's own rendering for some formats, by format name (e.g. the
        sentence ``fairalloc check`` prints in ``text``): used instead of
        the format's generic layout.
    """

    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    data: Callable[[], Any] | None = None
    own: Mapping[str, Callable[[], str]] = field(default_factory=dict)


class OutputFormat:
    """One output format: renders a :class:`Document` as text."""

    #: One line for ``--help``.
    description: ClassVar[str] = ""

    def render(self, doc: Document) -> str:
        """``doc`` as this format's text (ending with a newline)."""
        raise NotImplementedError


#: Output formats by name; the built-ins are the public modules of this package.
OUTPUT_FORMATS: Registry[type[OutputFormat]] = Registry("output format", lazy=(__name__,))


def render(doc: Document, fmt: str) -> str:
    """``doc`` in the output format called ``fmt`` (the command's own
    rendering for that format, when it has one).

    Raises
    ------
    models.registry.UnknownNameError
        For a format nobody registered.
    """
    own = doc.own.get(fmt)
    return own() if own is not None else OUTPUT_FORMATS.get(fmt)().render(doc)


def render_tables(tables: list[Table], fmt: str, notes: list[str] | None = None) -> str:
    """Tables and trailing notes in the output format called ``fmt``.

    Examples
    --------
    >>> print(render_tables([Table("T", ["user", "tasks"], [["A", 3]])], "text"), end="")
    T
    user    tasks
    ------  -------
    A       3
    """
    return render(Document(tables=tables, notes=list(notes or [])), fmt)


def format_names() -> list[str]:
    """The registered format names, the usual ones first (``text`` is the
    default of every command)."""
    names = OUTPUT_FORMATS.names()
    first = [n for n in ("text", "md", "latex", "csv", "json") if n in names]
    return first + [n for n in names if n not in first]


__all__ = ["OUTPUT_FORMATS", "Document", "OutputFormat", "format_names", "render", "render_tables"]
