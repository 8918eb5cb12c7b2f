"""Blend decisions on a given layout at trace scale, and the loss-saving frontier.

A layout of a serving trace comes from any prefix-only method (agglomerative, production,
popularity: :func:`mptsearch.serving.layout.method_orders`); the lines are served in arrival
order (docs/beyond_prefix.md, section 1.2). Two mode rules:

- ``first``: every chunk keeps one copy, its first node (CacheBlend's one stored copy per
  chunk); a later node v blends from it iff r + lambda (1 + beta d_v) < 1, d_v its context
  difference to that copy. With one source per chunk the rule is exact for the given layout,
  and sweeping lambda walks the frontier (:func:`frontier`);
- ``greedy``: forward greedy over all full nodes of the chunk (at most ``cap`` most recent
  ones tried): a node blends from its best copy when that is cheaper than full, else it is
  full and becomes a copy (:func:`.model.chunk_modes` without the exact search and the t x t
  matrix). Exact for beta = 0 (Proposition 2's proof); node by node never dearer than
  ``first`` (the first copy is always a candidate).
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from .kernels import first_differences, first_prices_ext, greedy_prices, greedy_prices_ext, trie_nodes
from .model import BlendParams

__all__ = ["NodeTable", "node_table", "price_first", "price_greedy", "best_copy", "frontier", "FrontierPoint",
           "model_arrays", "best_copy_ext"]


@dataclass(frozen=True)
class NodeTable:
    """The trie nodes of a layout in creation order, as arrays.

    ``w[j]`` the weight of node j, ``d_first[j]`` its context difference to the first node of
    its chunk (-1 for first nodes), ``through[j]`` the lines through it, ``chunk[j]`` its chunk
    and ``parent[j]`` its parent node (-1: a child of the root; a node's context is the chunks
    on its root path), ``n_chunks`` the number of chunk ids, ``tokens`` the prefill with no
    reuse (sum over lines), ``distinct`` = w(U).
    """

    w: np.ndarray
    d_first: np.ndarray
    through: np.ndarray
    chunk: np.ndarray
    parent: np.ndarray
    n_chunks: int
    tokens: int
    distinct: int

    @property
    def prefix_cost(self) -> int:
        """The layout's trie cost: every node full (prefix-only serving)."""
        return int(self.w.sum())


def _csr(rows) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, seq) of a :class:`mptsearch.serving.sparse.Layout` or of per-line sequences."""
    if hasattr(rows, "indptr") and hasattr(rows, "seq"):
        return np.asarray(rows.indptr, dtype=np.int64), np.asarray(rows.seq, dtype=np.int64)
    lens = np.fromiter((len(s) for s in rows), dtype=np.int64)
    indptr = np.zeros(len(lens) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    seq = np.fromiter((int(x) for s in rows for x in s), dtype=np.int64, count=int(indptr[-1]))
    return indptr, seq


def node_table(weights: np.ndarray, rows) -> NodeTable:
    """Nodes of the layout ``rows`` (served in order) and their distance to the first copy.

    ``rows``: a :class:`mptsearch.serving.sparse.Layout` (read in place) or per-line chunk
    sequences.

    Notes
    -----
    O(P + N depth) time for P positions and N nodes (compiled, :mod:`.kernels`), O(P) memory.
    """
    weights = np.asarray(weights, dtype=np.int64)
    indptr, seq = _csr(rows)
    n = len(weights)
    if len(seq) and (seq.min() < 0 or seq.max() >= n):
        raise ValueError("a chunk id of the layout is outside the weights")
    parent, chunk, through = trie_nodes(indptr, seq, n)
    d, first = first_differences(parent, chunk, n)
    w = weights[chunk]
    tokens = int(weights[seq].sum())
    distinct = int(weights[first >= 0].sum())
    return NodeTable(w, d, through, chunk, parent, n, tokens, distinct)


def model_arrays(params: BlendParams, table: NodeTable) -> tuple:
    """The extended model of ``params`` as the kernels' arrays: (dw, ratios, gptr, gd, gg) with
    ``dw[x]`` what chunk x adds to a mismatch (1, or its tokens with ``mismatch == "tokens"``)
    and the loss table in CSR form (ratios ascending, each ratio's points gd/gg[gptr[j]:gptr[j+1]]
    sorted by mismatch; empty without a table: section 1.2's r and 1 + beta d)."""
    dw = np.ones(table.n_chunks, dtype=np.float64)
    if params.mismatch == "tokens":
        dw[table.chunk] = table.w
    cal = params.calibration
    curves = cal.curves if cal is not None else ()
    ratios = np.array([r for r, _ in curves], dtype=np.float64)
    gptr = np.concatenate(([0], np.cumsum([len(pts) for _, pts in curves], dtype=np.int64))).astype(np.int64)
    gd = np.array([d for _, pts in curves for d, _ in pts], dtype=np.float64)
    gg = np.array([g for _, pts in curves for _, g in pts], dtype=np.float64)
    return dw, ratios, gptr, gd, gg


def _ext_args(table: NodeTable, params: BlendParams) -> tuple:
    dw, ratios, gptr, gd, gg = model_arrays(params, table)
    return (float(params.r), float(params.beta), float(params.price), ratios, gptr, gd, gg), dw


def price_first(table: NodeTable, params: BlendParams) -> tuple[float, float]:
    """(cost, loss) of the ``first`` rule: blend node j iff r + lambda (1 + beta d_j) < 1.

    In the extended model (``params.extended``: a loss table, token mismatch or isolated copies,
    docs/beyond_prefix.md section 9) the one copy of a chunk is its isolated copy when there are
    such copies (every node may blend from it, at mismatch |P_v| or w(P_v)), else its first node;
    a node blends at the table's best ratio for its mismatch iff r_j + lambda g_j(d) < 1
    (:func:`.kernels.first_prices_ext`, O(N depth)).
    """
    if params.extended:
        model, dw = _ext_args(table, params)
        return first_prices_ext(table.parent, table.chunk, table.w, table.through, table.n_chunks, dw,
                                bool(params.isolated), bool(params.per_answer), *model)
    later = table.d_first >= 0
    unit = (1.0 + params.beta * table.d_first) * (table.through if params.per_answer else 1)
    blend = later & (params.r + params.price * unit < 1.0)
    wf = table.w.astype(float)
    cost = float(wf[~blend].sum() + params.r * wf[blend].sum())
    loss = float((wf * unit)[blend].sum())
    return cost, loss


def price_greedy(table: NodeTable, params: BlendParams, cap: int = 32) -> tuple[float, float]:
    """(cost, loss) of the ``greedy`` rule: the first copy and the ``cap`` most recent ones tried.

    Notes
    -----
    O(N cap depth) for N nodes (compiled, :func:`.kernels.greedy_prices`).
    """
    if cap < 1:
        raise ValueError(f"cap must be >= 1, got {cap}")
    if params.extended:  # candidates: also the isolated copy; a table's best ratio (section 9)
        model, dw = _ext_args(table, params)
        return greedy_prices_ext(table.parent, table.chunk, table.w, table.through, table.n_chunks, dw,
                                 bool(params.isolated), bool(params.per_answer), int(cap), *model)
    return greedy_prices(table.parent, table.chunk, table.w, table.through, table.n_chunks, float(params.r),
                         float(params.price), float(params.beta), bool(params.per_answer), int(cap))


def best_copy(copies, context: frozenset, params: BlendParams, through: int = 1) -> tuple[bool, float]:
    """(blend?, loss per token) of a node with ``context`` given the contexts of candidate full
    copies of its chunk (at least one): the copy with the fewest mismatched context chunks d,
    blended iff r + lambda (1 + beta d) (times ``through`` per answer) < 1.

    Notes
    -----
    O(len(copies) times the context size).
    """
    d = min(len(c ^ context) for c in copies)
    unit = (1.0 + params.beta * d) * (through if params.per_answer else 1)
    return params.r + params.price * unit < 1.0, unit


def best_copy_ext(copies, context: frozenset, params: BlendParams, weights) -> tuple[bool, float, float]:
    """(blend?, recompute ratio, loss per token) of a node with ``context`` in the extended
    model (docs/beyond_prefix.md, section 9): its candidate copies are the full ``copies``
    (contexts; possibly none) and, with ``params.isolated``, the chunk's isolated copy (context
    {}); the least mismatch d (chunks or tokens) is priced at the table's best ratio and the node
    blends iff r_j + lambda g_j(d) < 1. O(len(copies) times the context size).
    """
    from .model import mismatch

    ds = [mismatch(c, context, params, weights) for c in copies]
    if params.isolated:
        ds.append(mismatch(frozenset(), context, params, weights))
    r, g = params.blend_choice(min(ds))
    return r + params.price * g < 1.0, r, g


@dataclass(frozen=True)
class FrontierPoint:
    """Blending every later node whose loss per token is at most ``unit_max`` (-1: none): its
    cost and loss. A node's loss per token is 1 + beta d_first (times the lines through it with
    per-answer accounting)."""

    unit_max: float
    cost: float
    loss: float


def frontier(table: NodeTable, r: float, beta: float, per_answer: bool = False) -> list[FrontierPoint]:
    """The loss-cost frontier of the ``first`` rule: the points met as lambda falls from
    (1 - r) to 0, i.e. blending the later nodes in increasing loss per token.

    For one copy per chunk and this layout these points are the lower convex hull of all
    (loss, cost) pairs (a blend saves (1 - r) w for a loss w u, u its loss per token: the saving
    per unit of loss falls with u), so they are optimal for the Lagrangian; between them the
    budget form can do at least as well as the segment (blend a part of the next group).

    Notes
    -----
    O(N log N).
    """
    later = table.d_first >= 0
    u = (1.0 + beta * table.d_first[later]) * (table.through[later] if per_answer else 1)
    w = table.w[later].astype(float)
    base = float(table.w.sum())
    out = [FrontierPoint(-1.0, base, 0.0)]
    if len(u) == 0:
        return out
    saved = (1.0 - r) * w
    loss = w * u
    order = np.argsort(u, kind="stable")
    u, saved, loss = u[order], np.cumsum(saved[order]), np.cumsum(loss[order])
    ends = np.flatnonzero(np.append(u[1:] != u[:-1], True))  # the last node of each level
    for e in ends:
        out.append(FrontierPoint(float(u[e]), base - float(saved[e]), float(loss[e])))
    return out
