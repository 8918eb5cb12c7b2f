"""LLM queries over tables: order each row's fields and the rows so a prefix (KV) cache shares
the most (the relational form of the problem; GGR, MLSys 2025, solves it greedily).

A row is a request, a field a chunk labelled (column, value) weighted by its tokens
(:mod:`.model`); the layout methods, the evaluator and the bounds are the serving side's
(:mod:`.layout`, :mod:`.bound`). Files: :mod:`.io`; tokenizers: :mod:`.tokenize`.

>>> from mptsearch.tables import reorder_table
>>> rows = [{"city": "Paris", "country": "France", "q": "Is it big?"},
...         {"city": "Lyon", "country": "France", "q": "Is it big?"},
...         {"city": "Paris", "country": "France", "q": "Is it old?"}]
>>> r = reorder_table(rows, last=["q"])
>>> r.orders[0]          # row 0's prompt columns, in prompt order
['country', 'city', 'q']
>>> r.serve              # serve the rows in this order
[0, 2, 1]
>>> r.prefill, r.given_prefill, r.lower_bound
(18, 24, 18)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..instance import InstanceError
from .io import Table, read_table, write_table
from .layout import METHODS, PORTFOLIO, TableLayout, reorder_model
from .model import DEFAULT_TEMPLATE, TableModel, table_model

__all__ = ["reorder_table", "TableResult", "table_model", "reorder_model", "read_table", "write_table",
           "render_prompts", "METHODS", "PORTFOLIO", "DEFAULT_TEMPLATE", "Table", "TableModel", "TableLayout"]


@dataclass
class TableResult:
    """What :func:`reorder_table` returns.

    ``table``: the rows in serving order, each with its fields in prompt order (a pandas
    DataFrame with a ``_serve_rank`` column when the input was one, else a list of dicts whose
    key order is the prompt order); ``orders[i]``: row i's prompt column names in order;
    ``serve``: row indices in serving order; ``prompts``: the prompt of every row, in serving
    order; the figures of :class:`.layout.TableLayout` in ``layout``."""

    table: object
    orders: list
    serve: list
    prompts: list
    layout: TableLayout

    def __getattr__(self, name):
        return getattr(self.__dict__["layout"], name)


def _as_table(data, columns=None) -> tuple[Table, bool]:
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        cols = [str(c) for c in data.columns]
        if len(set(cols)) != len(cols):
            dup = next(c for c in cols if cols.count(c) > 1)
            raise InstanceError(f"the column {dup!r} is named twice")
        rows = data.astype(object).values.tolist()
        return _table(cols, rows), True
    data = list(data)
    if data and isinstance(data[0], dict):
        cols = list(data[0])
        keys = set(cols)
        for i, rec in enumerate(data):
            if not isinstance(rec, dict) or rec.keys() != keys:
                raise InstanceError(f"row {i}: its keys are not those of row 0")
        return _table([str(c) for c in cols], [[rec[c] for c in cols] for rec in data]), False
    if columns is None:
        raise InstanceError("rows as lists need columns=[...]")
    cols = [str(c) for c in columns]
    for i, r in enumerate(data):
        if len(r) != len(cols):
            raise InstanceError(f"row {i}: {len(r)} fields, but {len(cols)} columns")
    return _table(cols, [list(r) for r in data]), False


def _table(cols: list, rows: list) -> Table:
    from .io import _check_columns, _json_text

    _check_columns(cols, "table")
    if not rows:
        raise InstanceError("the table has no rows")
    texts = [[_json_text(v) for v in col] for col in zip(*rows)]
    return Table(cols, rows, texts)


def render_prompts(model: TableModel, table: Table, layout: TableLayout) -> list[str]:
    """Every row's prompt (its rendered fields in prompt order), in serving order."""
    names = table.columns
    fmt = model.template.format
    return ["".join(fmt(column=names[c], value=table.texts[c][i]) for c in layout.field_orders[i])
            for i in layout.serve.tolist()]


def reorder_table(data, *, columns=None, first=(), last=(), exclude=(), fd="auto", tokenizer="whitespace",
                  template: str = DEFAULT_TEMPLATE, method: str = "portfolio", bound: bool = True,
                  time_limit: float = 10.0, budget: float | None = None) -> TableResult:
    """Reorder a table's fields and rows for a prefix cache.

    Parameters
    ----------
    data : a pandas DataFrame, a list of dicts (one per row), or a list of lists with ``columns``
    first, last : columns whose place is fixed at the start / the end, in that order
    exclude : columns left out of the prompt (kept in the returned table)
    fd : "auto", "none" or a list of column-name groups (:func:`.model.table_model`)
    tokenizer : "whitespace", "chars", "qwen" or a callable text -> token count
    template : how one field is rendered (``{column}``, ``{value}``)
    method : one of :data:`METHODS` (default: the portfolio, the best of all)
    bound, time_limit : compute the lower bound, with the directed-cut program limited to
        ``time_limit`` seconds
    budget : seconds for the whole call (None: no limit): methods whose estimated time does not
        fit what is left are skipped, GGR's rule always runs (:func:`.layout.reorder_model`)

    Returns
    -------
    TableResult
    """
    import time

    start = time.perf_counter()
    table, frame = _as_table(data, columns)
    model = table_model(table, first=first, last=last, exclude=exclude, fd=fd, tokenizer=tokenizer,
                        template=template)
    lay = reorder_model(model, method, bound=bound, time_limit=time_limit, budget=budget, start=start)
    names = table.columns
    orders = [[names[c] for c in row] for row in lay.field_orders.tolist()]
    serve = lay.serve.tolist()
    k = len(names)
    out_rows = []
    for rank, i in enumerate(serve):
        order = list(lay.field_orders[i])
        rest = [c for c in range(k) if c not in set(order)]
        out_rows.append({names[c]: table.rows[i][c] for c in order + rest})
    if frame:
        import pandas as pd

        out = pd.DataFrame([[r[c] for c in names] for r in out_rows], columns=names)
        out["_serve_rank"] = range(len(serve))
        out.index = serve
        out_table = out
    else:
        out_table = out_rows
    return TableResult(out_table, orders, serve, render_prompts(model, table, lay), lay)
