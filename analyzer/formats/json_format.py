"""The ``json`` output format: the command's data as strict JSON (see
:func:`analyzer.render.to_json`), or its tables when it has no data.

(The module is not called ``json``: that is the standard library's name.)
"""

from __future__ import annotations

from ..render import to_json
from . import OUTPUT_FORMATS, Document, OutputFormat


@OUTPUT_FORMATS.register("json")
class Json(OutputFormat):
    """``doc.data()``; without data ``{"tables": [...], "notes": [...]}``."""

    description = "JSON data (every number; exact values as strings)"

    def render(self, doc: Document) -> str:
        if doc.data is not None:
            return to_json(doc.data())
        tables = [{"title": t.title, "headers": t.headers, "rows": t.rows} for t in doc.tables]
        return to_json({"tables": tables, "notes": doc.notes})
