"""Results in notebooks: short reprs, HTML tables and pandas frames.

Every result type of fairalloc (:class:`~models.Allocation`, the property
table, a search result, a discrete result, the simulator's result) shows
itself the same way, with the helpers here:

* ``__repr__``: one short line (:func:`short_repr`), never a dump of arrays;
* ``_repr_html_``: a small HTML table (:func:`html_table`), which Jupyter
  shows instead of the repr;
* ``to_pandas()``: a tidy long table, one row per observation (per user x
  resource, per policy x property, ...), built by :func:`to_frame`. pandas
  is imported only there, and its absence is a clear ImportError.

:class:`LabelledArray` is a numpy array that knows the names along its axes
(users, resources), so ``alloc.shares["A", "cpu"]`` and
``alloc.shares.to_pandas()`` work while every array operation is unchanged.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

#: Rows an HTML table shows before it says how many more there are.
HTML_MAX_ROWS: int = 40

#: Axis names of :class:`LabelledArray` and the instance attribute holding
#: their labels.
AXES: dict[str, str] = {"user": "users", "resource": "resources"}
#: Rows and columns the repr of a :class:`LabelledArray` shows before it
#: says how many more there are.
REPR_MAX_ROWS: int = 12
REPR_MAX_COLUMNS: int = 8


def require_pandas(owner: str) -> Any:
    """The pandas module, or an ImportError that says how to get it.

    Parameters
    ----------
    owner : str
        What asked for it, for the message (``"Allocation.to_pandas()"``).
    """
    try:
        import pandas
    except ImportError:
        raise ImportError(f"{owner} needs pandas, which is not installed: pip install pandas") from None
    return pandas


def to_frame(columns: Sequence[str], rows: Sequence[Sequence[Any]], owner: str) -> Any:
    """A ``pandas.DataFrame`` of ``rows`` (tidy: one observation a row)."""
    pd = require_pandas(owner)
    return pd.DataFrame([list(r) for r in rows], columns=list(columns))


def cell_text(value: Any) -> str:
    """A cell as text: floats with 6 significant digits, exact numbers as
    ``p/q``, booleans and ``None`` plainly."""
    if value is None:
        return ""
    if isinstance(value, float | np.floating):
        return f"{float(value):.6g}"
    return str(value)


def html_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], caption: str | None = None,
               max_rows: int = HTML_MAX_ROWS, total: int | None = None,
               titles: Sequence[Sequence[str | None]] | None = None) -> str:
    """An escaped HTML ``<table>``; beyond ``max_rows`` rows, a last row says
    how many were left out. ``total``: the number of rows in all when
    ``rows`` holds only the first ones (a caller need not build rows that
    are not shown). ``titles``: per cell (same layout as ``rows``), a text
    shown when the pointer rests on the cell (``None``: none).

    Examples
    --------
    >>> print(html_table(["user", "tasks"], [["A", 3], ["B<", 2.0]], caption="drf"))
    <table>
    <caption>drf</caption>
    <thead><tr><th>user</th><th>tasks</th></tr></thead>
    <tbody>
    <tr><td>A</td><td>3</td></tr>
    <tr><td>B&lt;</td><td>2</td></tr>
    </tbody>
    </table>
    """
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in headers) + "</tr></thead>")
    out.append("<tbody>")
    for k, row in enumerate(rows[:max_rows]):
        tips = titles[k] if titles is not None else [None] * len(row)
        out.append("<tr>" + "".join(_td(c, t) for c, t in zip(row, tips, strict=True)) + "</tr>")
    left = (len(rows) if total is None else total) - min(len(rows), max_rows)
    if left > 0:
        out.append(f'<tr><td colspan="{len(headers)}">… {left} more rows '
                   "(to_pandas() has them all)</td></tr>")
    out += ["</tbody>", "</table>"]
    return "\n".join(out)


def _td(value: Any, title: str | None) -> str:
    """One escaped cell, with a ``title`` attribute when given."""
    attr = "" if title is None else ' title="' + html.escape(title) + '"'
    return f"<td{attr}>{html.escape(cell_text(value))}</td>"


def short_repr(kind: str, **fields: Any) -> str:
    """``Kind(a=1, b='x')``: the one-line repr of a result."""
    return f"{kind}(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"


class LabelledArray(np.ndarray):
    """A numpy array whose axes are named ``"user"`` or ``"resource"``, with
    the names taken from an :class:`~models.Instance` (looked up only when
    used, so a 10^6-user array costs nothing extra).

    It is an ``ndarray`` (every existing use keeps working); in addition a
    name indexes it (``a["A"]``, ``a["A", "cpu"]``, ``a[:, "mem"]``), and
    :meth:`to_pandas` returns a Series or DataFrame with the names as index
    and columns. Elementwise arithmetic keeps the labels; a reduction gives
    a plain number or ndarray; views, slices and copies are unlabelled.

    Examples
    --------
    >>> from models import Instance
    >>> inst = Instance.from_dict({"resources": {"cpu": 9, "mem": 18},
    ...     "users": {"A": {"demand": [1, 4]}, "B": {"demand": [3, 1]}}})
    >>> s = LabelledArray.wrap(inst.demands / inst.capacity, inst, ("user", "resource"))
    >>> float(s["B", "cpu"])
    0.3333333333333333
    >>> s["A"].dims
    ('resource',)
    """

    dims: tuple[str, ...] | None
    _instance: Any

    @classmethod
    def wrap(cls, values: np.ndarray, instance: Any, dims: tuple[str, ...]) -> LabelledArray:
        """A labelled view of ``values`` (no copy)."""
        arr = np.asarray(values)
        if arr.ndim != len(dims) or any(d not in AXES for d in dims):
            raise ValueError(f"dims {dims} do not fit an array of shape {arr.shape}")
        out = arr.view(cls)
        out.dims, out._instance = dims, instance
        return out

    def __array_finalize__(self, obj: Any) -> None:
        # views, slices, transposes, fancy indexing, copies: no labels (they
        # might no longer fit); elementwise ufuncs get them in __array_wrap__
        self.dims, self._instance = None, None

    def __array_wrap__(self, arr: Any, context: Any = None, return_scalar: bool = False) -> Any:
        # a reduction to one number is a plain scalar; an elementwise result
        # of this array's shape keeps its labels; anything else is plain
        if return_scalar:
            return arr[()]
        if arr.shape != self.shape or self.dims is None:
            return np.asarray(arr)
        out = arr.view(LabelledArray)
        out.dims, out._instance = self.dims, self._instance
        return out

    def __reduce__(self) -> Any:  # keep the labels through pickle (process pools, Dask)
        cls, args, state = cast(tuple[Any, Any, Any], super().__reduce__())
        return cls, args, (state, self.dims, self._instance)

    def __setstate__(self, state: Any) -> None:
        base, self.dims, self._instance = state
        super().__setstate__(base)

    def labels(self, axis: int) -> tuple[str, ...]:
        """The names along ``axis`` (``ValueError`` for an unlabelled array)."""
        if self.dims is None:
            raise ValueError("this array has no labels (it is the result of an operation that changed its shape)")
        return tuple(getattr(self._instance, AXES[self.dims[axis]]))

    def _position(self, axis: int, name: str) -> int:
        assert self.dims is not None
        index = self._instance.user_index if self.dims[axis] == "user" else \
            {r: j for j, r in enumerate(self._instance.resources)}
        try:
            return int(index[name])
        except KeyError:
            raise KeyError(f"no {self.dims[axis]} named {name!r}") from None

    def __getitem__(self, key: Any) -> Any:
        keys = key if isinstance(key, tuple) else (key,)
        if self.dims is None or not any(isinstance(k, str) for k in keys):
            return super().__getitem__(key)
        pos = tuple(self._position(a, k) if isinstance(k, str) else k for a, k in enumerate(keys))
        out = np.asarray(self)[pos]
        kept = tuple(d for d, k in zip(self.dims, keys + (slice(None),) * (self.ndim - len(keys)), strict=True)
                     if isinstance(k, slice) and k == slice(None))
        if isinstance(out, np.ndarray) and out.ndim == len(kept) and out.ndim:
            return LabelledArray.wrap(out, self._instance, kept)
        return out.item() if isinstance(out, np.generic) else out

    def _label(self, axis: int, k: int) -> str:
        """The name of position ``k`` along ``axis`` (without building every user name)."""
        assert self.dims is not None
        if self.dims[axis] == "resource":
            return str(self._instance.resources[k])
        names = self._instance._user_names
        return str(names[k]) if names is not None else f"u{k}"

    def _grid(self, rows: int, cols: int) -> tuple[list[str], list[list[Any]], int, int]:
        """Headers and the first ``rows`` x ``cols`` cells (with row labels),
        and how many rows and columns are left out."""
        assert self.dims is not None
        values = np.asarray(self)
        if self.ndim == 1:
            n = min(values.shape[0], rows)
            return [self.dims[0], "value"], [[self._label(0, i), values[i]] for i in range(n)], values.shape[0] - n, 0
        n, k = min(values.shape[0], rows), min(values.shape[1], cols)
        head = [self.dims[0], *(self._label(1, j) for j in range(k))]
        body = [[self._label(0, i), *values[i, :k].tolist()] for i in range(n)]
        return head, body, values.shape[0] - n, values.shape[1] - k

    def __repr__(self) -> str:
        if self.dims is None or self.ndim not in (1, 2):
            return super().__repr__()
        head, body, more_rows, more_cols = self._grid(REPR_MAX_ROWS, REPR_MAX_COLUMNS)
        cells = [head] + [[cell_text(c) for c in row] for row in body]
        widths = [max(len(str(r[j])) for r in cells) for j in range(len(head))]
        lines = ["  ".join(str(c).ljust(w) if j == 0 else str(c).rjust(w) for j, (c, w) in
                           enumerate(zip(r, widths, strict=True))).rstrip() for r in cells]
        if more_cols:
            lines[0] += f"  … {more_cols} more {self.dims[1]}s"
        if more_rows:
            lines.append(f"… {more_rows:,} more {self.dims[0]}s")
        return f"LabelledArray({' x '.join(self.dims)}, shape={self.shape})\n" + "\n".join(lines)

    def _repr_html_(self) -> str:
        if self.dims is None or self.ndim not in (1, 2):
            return "<pre>" + html.escape(repr(self)) + "</pre>"
        head, body, more_rows, more_cols = self._grid(HTML_MAX_ROWS, 4 * REPR_MAX_COLUMNS)
        caption = " x ".join(self.dims) + (f" (first {len(head) - 1} of {self.shape[1]} {self.dims[1]}s)"
                                           if more_cols else "")
        return html_table(head, body, caption, total=len(body) + more_rows)

    def to_pandas(self) -> Any:
        """A ``pandas.Series`` (1-D) or ``DataFrame`` (2-D, users x
        resources) named by the labels."""
        pd = require_pandas("LabelledArray.to_pandas()")
        values = np.asarray(self)
        if self.ndim == 1:
            index = self.labels(0)
            assert self.dims is not None
            return pd.Series(values, index=pd.Index(index, name=self.dims[0]))
        if self.ndim == 2:
            rows, cols = self.labels(0), self.labels(1)
            assert self.dims is not None  # labels() raised otherwise
            return pd.DataFrame(values, index=pd.Index(rows, name=self.dims[0]),
                                columns=pd.Index(cols, name=self.dims[1]))
        raise ValueError(f"to_pandas() needs a 1-D or 2-D array, got {self.ndim}-D")


__all__ = ["HTML_MAX_ROWS", "REPR_MAX_COLUMNS", "REPR_MAX_ROWS", "LabelledArray", "cell_text", "html_table",
           "require_pandas", "short_repr", "to_frame"]
