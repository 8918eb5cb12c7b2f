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
from typing import Sequence

import numpy as np

from .model import BlendParams, layout_nodes

__all__ = ["NodeTable", "node_table", "price_first", "price_greedy", "best_copy", "frontier", "FrontierPoint"]


@dataclass(frozen=True)
class NodeTable:
    """The trie nodes of a layout in creation order, as arrays.

    ``w[j]`` the weight of node j, ``d_first[j]`` its context difference to the first node of
    its chunk (-1 for first nodes), ``through[j]`` the lines through it, ``tokens`` the
    prefill with no reuse (sum over lines), ``distinct`` = w(U).
    """

    w: np.ndarray
    d_first: np.ndarray
    through: np.ndarray
    tokens: int
    distinct: int
    nodes: list

    @property
    def prefix_cost(self) -> int:
        """The layout's trie cost: every node full (prefix-only serving)."""
        return int(self.w.sum())


def node_table(weights: np.ndarray, rows: Sequence[Sequence[int]]) -> NodeTable:
    """Nodes of the layout ``rows`` (served in order) and their distance to the first copy.

    Notes
    -----
    O(sum_j |L_j|^2) time (the contexts are materialised as sets).
    """
    nodes = layout_nodes(rows)
    first: dict[int, frozenset] = {}
    w = np.empty(len(nodes), dtype=np.int64)
    d = np.empty(len(nodes), dtype=np.int64)
    for j, nd in enumerate(nodes):
        w[j] = weights[nd.chunk]
        ctx = first.get(nd.chunk)
        if ctx is None:
            first[nd.chunk] = nd.context
            d[j] = -1
        else:
            d[j] = len(ctx ^ nd.context)
    tokens = int(sum(int(weights[list(r)].sum()) for r in rows if len(r)))
    distinct = int(sum(int(weights[x]) for x in first))
    through = np.fromiter((nd.through for nd in nodes), dtype=np.int64, count=len(nodes))
    return NodeTable(w, d, through, tokens, distinct, nodes)


def price_first(table: NodeTable, params: BlendParams) -> tuple[float, float]:
    """(cost, loss) of the ``first`` rule: blend node j iff r + lambda (1 + beta d_j) < 1."""
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
    O(N cap) set operations for N nodes.
    """
    copies: dict[int, list] = {}
    cost = loss = 0.0
    for j, nd in enumerate(table.nodes):
        w = float(table.w[j])
        have = copies.get(nd.chunk)
        if have is None:
            copies[nd.chunk] = [nd.context]
            cost += w
            continue
        # the first copy always among the candidates: the rule is never worse than ``first``
        blend, unit = best_copy((have[0], *have[-cap:]), nd.context, params, nd.through)
        if blend:
            cost += params.r * w
            loss += w * unit
        else:
            cost += w
            have.append(nd.context)
    return cost, loss


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
