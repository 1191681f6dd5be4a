"""Property tables: policies x properties, each cell the outcome of a
counterexample search (Ghodsi et al., NSDI 2011, Table 2 is the table for
asset fairness, CEEI and DRF in the paper's instance class).

A cell is ✓ ("no counterexample in N instances of class C"), ✗ (with the
shrunk, exactly verified counterexample on one line) or n/a (the policy
supports none of the instances searched, or the property or the policy is
not defined in the setting: :func:`undefined`, the reason as evidence).

Examples
--------
>>> t = PropertyTable(["drf"], ["sharing-incentive"], {})
>>> t.cell_text("drf", "sharing-incentive")
'…'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from models import Policy, get_policy
from models.display import html_table, short_repr, to_frame
from models.filling import FillingPolicy

from ..formats import Document, render, render_tables
from ..properties.base import CONTINUOUS, DISCRETE, DYNAMIC, Property, available_properties
from ..render import Table, to_json
from ..searching.classes import InstanceClass
from ..searching.engine import run_cell
from ..searching.instance_stream import Cell, cell_key, make_cell, same_stream
from ..searching.pool import resolve_workers, warm_up, worker_pool
from ..searching.result import RECORD_COLUMNS, SearchResult
from ..searching.stream import Recorder, open_stream, read_records, spooled
from .formats import HOLDS, NA, PENDING, VIOLATED, table_csv, table_latex
from .marks import attach_proofs, checked_options
from .marks_continuous import proof_dict

#: Column order of the paper's Table 2 (other properties follow, by name).
PAPER_ORDER: tuple[str, ...] = ("sharing-incentive", "strategy-proofness", "envy-freeness", "pareto-efficiency",
                                "single-resource-fairness", "bottleneck-fairness", "population-monotonicity",
                                "resource-monotonicity")
#: Instances per cell when no budget is given.
DEFAULT_BUDGET: int = 10_000
#: Suffix of a ✗ whose counterexample is confirmed numerically only.
NUMERIC = "(numeric)"
#: Suffix of a ✓ proved by the SMT prover in the paper's class (others name theirs: "(proved: weighted)").
PROVED = "(proved)"


@dataclass
class PropertyTable:
    """A filled (or partly filled) property table.

    Index it with ``t[policy, property]`` to get the cell's
    :class:`~analyzer.searching.result.SearchResult` (``.holds``,
    ``.counterexample``, ``.instances``, ``.instance_class``).
    """

    policies: list[str]
    properties: list[str]
    cells: dict[str, SearchResult] = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False
    #: SMT proofs of ✓ cells by cell key (``table --prove``, :mod:`analyzer.tables.marks_continuous`).
    proofs: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: tuple[str, str]) -> SearchResult:
        policy, prop = key
        k = cell_key(get_policy(policy).label if policy not in self.policies else policy, prop)
        if k not in self.cells:
            raise KeyError(f"no cell ({policy!r}, {prop!r}) in this table")
        return self.cells[k]

    def get(self, policy: str, prop: str) -> SearchResult | None:
        """The cell, or ``None`` when it was not searched (interrupted)."""
        return self.cells.get(cell_key(policy, prop))

    def proof(self, policy: str, prop: str) -> Any:
        """The cell's :class:`~analyzer.tables.marks_continuous.CellProof` (``.complete``,
        ``.text()``, per domain), or ``None`` when no proof was attempted."""
        return self.proofs.get(cell_key(policy, prop))

    def _evidence(self, policy: str, prop: str, r: SearchResult) -> str:
        """The cell's summary, led by its proof status when one was attempted."""
        pr, s = self.proof(policy, prop), r.summary()  # a ✗ the prover found keeps the domains it proved
        return s if pr is None else f"✓ {pr.text()}; {s[2:]}" if r.holds else f"{s} [{pr.text()}]"

    @property
    def complete(self) -> bool:
        """True when every cell was searched to its budget."""
        return not self.interrupted and all(self.get(p, q) is not None for p in self.policies for q in self.properties)

    # ------------------------------------------------------------ rendering
    def cell_text(self, policy: str, prop: str, detail: bool = False) -> str:
        """``✓``, ``✗``, ``n/a`` or ``…`` (not searched); with ``detail``, the
        evidence too."""
        r = self.get(policy, prop)
        if r is None:
            return PENDING
        if r.holds is None:  # a property undefined in the setting says why in the evidence
            return r.summary() if detail and r.undefined is not None else NA
        if not detail:
            if (cx := r.counterexample) is None:  # holds (a checked cell without a counterexample)
                pr = self.proof(policy, prop)
                mark = "" if pr is None else pr.mark()
                return f"{HOLDS} {mark}" if mark else HOLDS
            # DESIGN: a ✗ is exactly verified; a violation the property could
            # only confirm numerically (no exact solver) is marked as such
            return VIOLATED if cx.exact else f"{VIOLATED} {NUMERIC}"
        return self._evidence(policy, prop, r)

    def _grid(self, detail: bool) -> Table:
        rows = [[q, *(self.cell_text(p, q, detail) for p in self.policies)] for q in self.properties]
        return Table(self.title, ["property", *self.policies], rows)

    @property
    def title(self) -> str:
        classes = sorted({r.instance_class.name for r in self.cells.values()})
        budgets = sorted({r.budget for r in self.cells.values()})
        seeds = sorted({r.seed for r in self.cells.values()})
        modes = sorted({r.mode for r in self.cells.values()} - {CONTINUOUS})  # the default setting goes unsaid
        parts = [f"{', '.join(modes)} setting" if modes else "", f"class {', '.join(classes)}" if classes else "",
                 f"budget {', '.join(map(str, budgets))}" if budgets else "", f"seed {', '.join(map(str, seeds))}"
                 if seeds else ""]
        suffix = "; ".join(p for p in parts if p)
        state = " (interrupted: table so far)" if self.interrupted else ""
        return f"Property table{state}" + (f" ({suffix})" if suffix else "")

    def cell_evidence(self, policy: str, prop: str) -> str:
        """The cell's evidence in one line: its counterexample (instance and
        sentence), or its instance count and class, and its proof."""
        r = self.get(policy, prop)
        if r is None:
            return "not searched"
        skipped = f" [{r.errors} instances skipped: solver error: {r.error}]" if r.errors else ""
        return self._evidence(policy, prop, r) + skipped

    def notes(self) -> list[str]:
        """One line per cell with its evidence (counterexample or count)."""
        return [f"{p} / {q}: {self.cell_evidence(p, q)}" for q in self.properties for p in self.policies]

    def to_text(self) -> str:
        """Terminal table of ✓/✗ plus one line of evidence per cell."""
        return render_tables([self._grid(False)], "text", self.notes())

    def to_markdown(self) -> str:
        """Markdown table; each cell shows its evidence."""
        return render_tables([self._grid(True)], "md")

    def to_latex(self, checkmark: str = "surd") -> str:
        r"""LaTeX table (booktabs rules) of ✓/✗ that compiles without extra
        symbol packages (:func:`analyzer.tables.formats.table_latex`):
        ``checkmark="amssymb"`` writes ✓ as ``\checkmark`` (then
        ``\usepackage{amssymb}``)."""
        return table_latex(self, checkmark)

    def to_csv(self) -> str:
        """One row per cell (:func:`analyzer.tables.formats.table_csv`)."""
        return table_csv(self)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: the cells in order, each a search result."""
        return {
            "policies": self.policies,
            "properties": self.properties,
            "interrupted": self.interrupted,
            "seconds": self.seconds,
            "cells": [
                {**self.cells[cell_key(p, q)].to_dict(), **proof_dict(self.proof(p, q))}
                if cell_key(p, q) in self.cells
                else {"policy": p, "property": q, "holds": None, "searched": False}
                for q in self.properties
                for p in self.policies
            ],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return to_json(self.to_dict())

    def render(self, fmt: str) -> str:
        """Render in a registered output format (:mod:`analyzer.formats`): this class's own text, md, latex
        and csv layouts, :meth:`to_dict` in json, the grid with evidence in any other."""
        own = {"text": self.to_text, "md": self.to_markdown, "latex": self.to_latex, "csv": self.to_csv}
        return render(Document([self._grid(True)], self.notes(), self.to_dict, own), fmt)

    def __str__(self) -> str:
        return self.to_text()

    # ------------------------------------------------------------ notebooks
    def __repr__(self) -> str:
        done = sum(1 for p in self.policies for q in self.properties if self.get(p, q) is not None)
        violated = sum(1 for r in self.cells.values() if r.holds is False)
        return short_repr("PropertyTable", policies=self.policies, properties=len(self.properties),
                          cells=f"{done}/{len(self.policies) * len(self.properties)}", violated=violated,
                          interrupted=self.interrupted)

    def _repr_html_(self) -> str:
        """The ✓/✗ grid, each cell's evidence as its title (shown under the
        pointer), then the evidence of every cell as the terminal prints it:
        a ✗ cell's counterexample (instance and sentence), a ✓ cell's
        instance count and class and, when proved, the sizes proved."""
        grid = self._grid(False)
        evidence = [[p, q, self.cell_evidence(p, q)] for q in self.properties for p in self.policies]
        tips = [[None, *(evidence[i * len(self.policies) + j][2] for j in range(len(self.policies)))]
                for i in range(len(self.properties))]
        return (html_table(grid.headers, grid.rows, grid.title, titles=tips) + "\n"
                + html_table(["policy", "property", "evidence"], evidence, "evidence per cell"))

    def to_pandas(self) -> Any:
        """A tidy ``pandas.DataFrame``: one row per policy x property (the
        columns of :data:`~analyzer.searching.result.RECORD_COLUMNS`; a cell not
        searched has ``holds`` None and no instances)."""
        rows = []
        for q in self.properties:
            for p in self.policies:
                r = self.get(p, q)
                rows.append(r.record() if r is not None else
                            [p, q, None, 0, *([None] * (len(RECORD_COLUMNS) - 4))])
        return to_frame(RECORD_COLUMNS, rows, "PropertyTable.to_pandas()")


def _run_one(cell: Cell, recorder: Recorder, resume: dict[str, Any] | None) -> SearchResult:
    result = run_cell(cell, recorder, resume)
    recorder.emit({"type": "cell", "cell": cell.key, "result": result.to_dict()})
    return result


class TableRun:
    """A property-table computation that can be interrupted: after a
    KeyboardInterrupt, :attr:`table` holds the cells finished so far.

    Parameters are those of :func:`property_table`.
    """

    def __init__(self, policies: Sequence[str | Policy], properties: Sequence[str | Property] | None = None,
                 budget: int = DEFAULT_BUDGET, seed: int = 0, instance_class: InstanceClass | str | None = None,
                 mode: str = CONTINUOUS, out: str | None = None, resume: bool = False, workers: int | None = None,
                 on_cell: Callable[[SearchResult], None] | None = None, scheduler: Any = None) -> None:
        props = list(properties) if properties is not None else default_properties(mode)
        self.cells = [make_cell(p, q, budget, seed, instance_class, mode) for q in props for p in policies]
        pols = list(dict.fromkeys(c.policy.label for c in self.cells))
        names = list(dict.fromkeys(c.prop.name for c in self.cells))
        self.table = PropertyTable(pols, names)
        self.workers = resolve_workers(workers)
        self.scheduler = scheduler
        self.on_cell = on_cell or (lambda r: None)
        cls = InstanceClass.parse(instance_class)
        self.config = {"command": "table", "policies": pols, "properties": names, "budget": int(budget),
                       "seed": int(seed), "class": cls.to_dict(), "mode": mode}
        self.recorder, self.state = open_stream(out, self.config, resume)

    def run(self) -> PropertyTable:
        """Search every cell (finished cells of a resumed run are reused)."""
        t0 = time.perf_counter()
        todo: list[Cell] = []
        for c in self.cells:
            done = self.state.finished.get(c.key)
            if (why := undefined(c)) is not None:  # n/a, nothing to search
                self._add(SearchResult(c.policy.label, c.prop.name, None, 0, c.seed, c.budget, c.cls, c.mode,
                                       undefined=why))
            elif done is not None:
                self._add(SearchResult.from_dict(done))
            else:
                todo.append(c)
        # a row's cells walk one stream, drawn once by the process running them in turn; costly rows and cells
        rows = sorted(same_stream(sorted(todo, key=_cost, reverse=True), self.workers),  # first: no long one last
                      key=lambda r: sum(map(_cost, r)), reverse=True)
        if pooled := min(self.workers, len(rows)) > 1:
            warm_up(todo)
        try:  # a row's finished cells stream to --out or a private spool file until the row's task returns
            with spooled(self.recorder, self.config, pooled and self.scheduler is None) as rec, \
                    worker_pool(min(self.workers, len(rows)), self.scheduler) as (pool, _):
                args = [[(c, rec, self.state.progress.get(c.key)) for c in row] for row in rows]
                ran = ([_run_one(*a)] for row in args for a in row) if pool is None else \
                    pool.imap_unordered(_run_row, args)  # one process: each cell added when done
                try:
                    for result in (r for results in ran for r in results):
                        self._add(result)
                except KeyboardInterrupt:
                    self._collect_streamed(rec)
                    raise
        except KeyboardInterrupt:
            self.table.interrupted = True
            raise
        finally:
            self.table.seconds = time.perf_counter() - t0
        return self.table

    def _collect_streamed(self, recorder: Recorder) -> None:
        """Add cells that workers finished and streamed but whose results had
        not reached this process yet."""
        if recorder.path is None:
            return
        for key, done in read_records(recorder.path).finished.items():
            if key not in self.table.cells and any(c.key == key for c in self.cells):
                self._add(SearchResult.from_dict(done))

    def _add(self, result: SearchResult) -> None:
        self.table.cells[cell_key(result.policy, result.property)] = result
        self.on_cell(result)


def undefined(cell: Cell) -> str | None:
    """Why the cell's property or policy is not defined in its setting (the
    cell is then n/a, with the reason), or ``None``: a property's
    :meth:`~analyzer.properties.base.Property.undefined_in`, a policy of
    whole tasks only (the production variants) in the continuous setting,
    one without a discrete form (CEEI) in the discrete setting."""
    if (why := cell.prop.undefined_in(cell.mode)) is not None:
        return why
    if cell.mode != DISCRETE:  # continuous, or dynamic (a static policy recomputed at every arrival)
        return f"policy {cell.policy.label!r} is defined for whole tasks only" if cell.policy.discrete_only else None
    from models.discrete import no_discrete_form

    return no_discrete_form(cell.policy)  # "policy 'ceei' has no discrete form (...)"


def default_properties(mode: str = CONTINUOUS) -> list[str]:
    """Every registered property of the setting's kind, in the paper's
    Table 2 order first, then by
    :attr:`~analyzer.properties.base.Property.order`: the properties of one
    allocation in the continuous and discrete settings, those of the
    dynamic setting in it."""
    names = [p for p, cls in available_properties().items() if (DYNAMIC in cls.modes) == (mode == DYNAMIC)]
    return [p for p in PAPER_ORDER if p in names] + [p for p in names if p not in PAPER_ORDER]


def _cost(cell: Cell) -> float:
    """A cell's relative cost, known without running it: doubled for a policy without the vectorised filling path."""
    return cell.prop.search_cost * (1 if isinstance(cell.policy, FillingPolicy) else 2)


def _run_row(args: list[tuple[Cell, Recorder, dict[str, Any] | None]]) -> list[SearchResult]:
    return [_run_one(*a) for a in args]


def property_table(policies: Sequence[str | Policy], properties: Sequence[str | Property] | None = None,
                   budget: int = DEFAULT_BUDGET, seed: int = 0, instance_class: InstanceClass | str | None = None,
                   mode: str = CONTINUOUS, out: str | None = None, resume: bool = False,
                   workers: int | None = None, scheduler: Any = None, prove: tuple[int, int] | None = None,
                   prove_timeout: float = 60, prove_bound: int | None = None) -> PropertyTable:
    """Search every (policy, property) cell and tabulate the outcomes.

    Parameters
    ----------
    policies : list of str or Policy
        Columns of the output (``["asset", "ceei", "drf"]``).
    properties : list of str or Property, optional
        Rows of the output; default: every registered property (the paper's Table 2 order).
    budget : int
        Instances checked per cell.
    seed : int
        Master seed; each row's stream is seeded from it and the property's
        name, so a cell's outcome does not depend on the other cells.
    instance_class : InstanceClass or str, optional
        Default: the paper's class.
    mode : str
        ``"continuous"``, ``"discrete"`` or ``"dynamic"`` (default properties:
        that kind's); a property undefined in it is n/a, with the reason.
    out : str, optional
        JSON-lines file to stream results to (:mod:`analyzer.searching.stream`).
    resume : bool
        Continue the run recorded in ``out``.
    workers : int or None
        Processes (``None``: all cores); cells are split between them and
        the table does not depend on their number.
    scheduler : str, distributed.Client or cluster, optional
        A Dask distributed scheduler's address, a connected ``Client`` or a
        cluster object (``LocalCluster``): the cells run on that
        cluster instead of local processes; same table.
    prove, prove_timeout : (int, int) or None, float
        ``(N, M)``: prove every ✓ cell at each size ``n <= N``, ``m <= M``,
        ``prove_timeout`` s each (``table --prove``; :meth:`PropertyTable.proof`):
        with z3 in the continuous setting, exhaustively in the discrete one.
    prove_bound : int, optional
        Required with ``mode="discrete"`` and ``prove``: every integer instance
        within ``1..prove_bound`` (``table --prove-bound K``; :mod:`.table_proofs_discrete`).

    Returns
    -------
    PropertyTable
        Bad arguments raise ``PolicyError`` (naming them) before any search.

    Examples
    --------
    >>> t = property_table(["drf"], ["population-monotonicity", "bottleneck-fairness"], budget=2,
    ...                    mode="discrete", workers=1, prove=(2, 1), prove_bound=2)
    >>> t.cell_text("drf", "population-monotonicity"), t.cell_text("drf", "bottleneck-fairness")
    ('✓ (proved: bound 2)', 'n/a')
    """
    proving = checked_options(prove, prove_bound, prove_timeout, mode)  # before the search
    table = TableRun(policies, properties, budget, seed, instance_class, mode, out, resume, workers,
                     scheduler=scheduler).run()
    if proving is not None:
        attach_proofs(table, *proving, timeout=prove_timeout, workers=workers, scheduler=scheduler)
    return table
