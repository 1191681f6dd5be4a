"""The ``latex`` output format: booktabs tables, the notes in small type
under the last one."""

from __future__ import annotations

from . import OUTPUT_FORMATS, Document, OutputFormat
from ._grid import cells

#: Characters LaTeX treats specially, and how to write them in text.
_LATEX_SPECIAL: dict[int, str] = str.maketrans({
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}"})


@OUTPUT_FORMATS.register("latex")
class Latex(OutputFormat):
    """One ``table`` environment per table."""

    description = "LaTeX tables (booktabs)"

    def render(self, doc: Document) -> str:
        out: list[str] = []
        for k, t in enumerate(doc.tables):
            last = k == len(doc.tables) - 1
            out += [latex_table(t.title, t.headers, cells(t), doc.notes if last else []), ""]
        return "\n".join(out).rstrip() + "\n"


def latex_escape(text: str) -> str:
    r"""``text`` safe in LaTeX text mode (one pass, so an inserted
    ``\textbackslash{}`` is not escaped again; ``<``/``>`` would print as
    ``¡``/``¿`` in the default font encoding).

    >>> print(latex_escape("R=<1, 1> & 50% a_b \\x{}"))
    R=\textless{}1, 1\textgreater{} \& 50\% a\_b \textbackslash{}x\{\}
    """
    return text.translate(_LATEX_SPECIAL)


def latex_table(title: str, headers: list[str], rows: list[list[str]], notes: list[str] | None = None,
                raw: bool = False) -> str:
    r"""A LaTeX ``table`` with booktabs rules (``\usepackage{booktabs}``)
    and the notes set in small type under the tabular, where a reader of
    the paper sees them (not as ``%`` comments). ``raw`` cells are LaTeX
    already (not escaped).

    Examples
    --------
    >>> print(latex_table("T", ["a", "b_c"], [["1", "50%"]], ["a note"]))
    % needs \usepackage{booktabs}
    \begin{table}[ht]
    \centering
    \caption{T}
    \begin{tabular}{ll}
    \toprule
    a & b\_c \\
    \midrule
    1 & 50\% \\
    \bottomrule
    \end{tabular}
    \par\smallskip{\footnotesize a note\par}
    \end{table}
    """
    cell = (lambda c: c) if raw else latex_escape
    body = [
        r"% needs \usepackage{booktabs}",
        r"\begin{table}[ht]",
        r"\centering",
        f"\\caption{{{latex_escape(title)}}}",
        f"\\begin{{tabular}}{{{'l' * len(headers)}}}",
        r"\toprule",
        " & ".join(latex_escape(h) for h in headers) + r" \\",
        r"\midrule",
    ]
    body += [" & ".join(cell(c) for c in row) + r" \\" for row in rows]
    body += [r"\bottomrule", r"\end{tabular}"]
    if notes:
        body.append(r"\par\smallskip{\footnotesize " + r"\par ".join(cell(n) for n in notes) + r"\par}")
    body.append(r"\end{table}")
    return "\n".join(body)
