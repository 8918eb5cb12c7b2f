"""The blend model: prefix hits, blends of a cached copy, full recomputes (docs/beyond_prefix.md).

The paper's open problem 4 (Section 9) asks for one optimisation in which the accuracy loss of
position-independent reuse (CacheBlend, CacheClip) and the layout cost are traded off. The
model, stated in full on docs/beyond_prefix.md section 1:

- requests are served one after another in the instance's order (arrival order) against an
  unbounded cache; request i is served in its layout order ``layout[i]``;
- the longest prefix of ``layout[i]`` already in the prefix trie is an exact hit (cost 0, no
  new loss); every further chunk creates a trie *node* v with its *context* P_v, the set of
  chunks before it in ``layout[i]``;
- a node of chunk x is either *full* (cost w(x), loss 0) or a *blend* of an earlier full node u
  of x (cost r w(x), loss w(x) (1 + beta |P_u symmetric-difference P_v|)); the first node of
  every chunk has no earlier copy and is full;
- the objective is cost + price * loss (``price`` is lambda). beta = 0 is the constant
  (proportional) loss model, beta > 0 the context-mismatch model;
- ``per_answer``: a blended node's loss counts once per request through it (every answer that
  reads the approximate KV), not once (docs/beyond_prefix.md, section 7).

Modes are chosen per chunk: the nodes of different chunks do not interact once the layout is
fixed (a blend reads only copies of its own chunk). This module builds the nodes of a layout
and prices them; :mod:`.exact` and :mod:`.heuristic` choose layouts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

from ..instance import Instance, InstanceError
from ..trie import check_layout

__all__ = ["BlendParams", "Node", "BlendResult", "layout_nodes", "price_layout", "chunk_modes", "modes_are_exact",
           "EXACT_MODES_T"]

EXACT_MODES_T = 16  # a chunk with at most this many nodes gets the exact 2^(t-1) mode choice


@dataclass(frozen=True)
class BlendParams:
    """The parameters of the blend model.

    Attributes
    ----------
    r : float
        Recompute fraction of a blend, 0 <= r <= 1 (CacheBlend/CacheClip recompute a small
        fraction of a chunk's tokens).
    price : float
        lambda >= 0, the price of one unit of loss in prefill tokens.
    beta : float
        >= 0, the loss per mismatched context chunk (0: the constant loss model).
    per_answer : bool
        Charge a blended node's loss to every request through it (section 7).
    """

    r: float
    price: float
    beta: float = 0.0
    per_answer: bool = False
    calibration: object = None
    mismatch: str = "chunks"
    isolated: bool = False

    def __post_init__(self):
        for name, v in (("r", self.r), ("price", self.price), ("beta", self.beta)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                raise InstanceError(f"{name} must be a finite number, got {v!r}")
        if not 0.0 <= self.r <= 1.0:
            raise InstanceError(f"the recompute fraction r must lie in [0, 1], got {self.r}")
        if self.price < 0:
            raise InstanceError(f"the loss price lambda must be >= 0, got {self.price}")
        if self.beta < 0:
            raise InstanceError(f"the mismatch coefficient beta must be >= 0, got {self.beta}")
        if self.mismatch not in ("chunks", "tokens"):
            raise InstanceError(f"the mismatch is counted in chunks or tokens, got {self.mismatch!r}")

    @property
    def extended(self) -> bool:
        """A measured loss table, token-weighted mismatch or isolated copies (section 9)."""
        return self.calibration is not None or self.mismatch == "tokens" or self.isolated

    @property
    def c(self) -> float:
        """min(1, r + lambda): what one blended token costs in the constant model (Prop. 2);
        with a loss table, min(1, min_r (r + lambda g(r, 0))), the cheapest blend at mismatch 0."""
        if self.calibration is not None:
            r, g = self.calibration.best(0.0, self.price)
            return min(1.0, r + self.price * g)
        return min(1.0, self.r + self.price)

    def blend_choice(self, d: float, through: int = 1) -> tuple[float, float]:
        """(recompute ratio, loss per token) of a blend at mismatch ``d`` (chunks or tokens) at a
        node ``through`` requests pass: the menu's best ratio with a loss table, else (r, 1 + beta d);
        the loss is multiplied by ``through`` with ``per_answer``."""
        times = through if self.per_answer else 1
        if self.calibration is not None:
            return self.calibration.best(d, self.price, times)
        return self.r, (1.0 + self.beta * d) * times

    def blend_loss(self, w: int, d: float, through: int = 1) -> float:
        """Loss of blending a chunk of weight ``w`` from a copy whose context differs by ``d``
        (chunks, or tokens), at a node ``through`` requests pass (counted only with ``per_answer``)."""
        return w * self.blend_choice(d, through)[1]

    def blend_cost(self, w: int, d: float, through: int = 1) -> float:
        """Prefill cost of that blend: its recompute ratio times w."""
        return w * self.blend_choice(d, through)[0]

    def blend_price(self, w: int, d: float, through: int = 1) -> float:
        """Objective of that blend: its cost r w plus lambda times its loss."""
        r, g = self.blend_choice(d, through)
        return r * w + self.price * w * g


@dataclass(frozen=True)
class Node:
    """One trie node, in creation order: its chunk, its context, the request creating it and
    the number of requests whose sequence passes through it."""

    chunk: int
    context: frozenset
    request: int
    through: int = 1


@dataclass
class BlendResult:
    """A layout priced in the blend model.

    ``objective = cost + price * loss``; ``prefix_cost`` is the same layout's trie cost (every
    node full, the paper's MPT cost); ``modes[j]`` is -1 for a full node j, -2 for a node
    blended from its chunk's isolated copy, else the index of the full node it blends from. ``modes_exact`` is False when some chunk had more than
    :data:`EXACT_MODES_T` nodes with beta > 0 and was priced by forward greedy: ``objective`` is
    then an upper bound on the layout's best price, not the best price.
    """

    objective: float
    cost: float
    loss: float
    prefix_cost: int
    layout: list
    modes: list = field(default_factory=list)
    nodes: list = field(default_factory=list)
    modes_exact: bool = True

    @property
    def blended(self) -> int:
        """Nodes not recomputed fully: blended from a full node (mode >= 0) or from the
        chunk's isolated copy (mode -2)."""
        return sum(1 for s in self.modes if s != -1)


def layout_nodes(layout: Sequence[Sequence[int]]) -> list[Node]:
    """The trie nodes of ``layout`` in creation order when request i is served i-th.

    Runs in O(sum_i |R_i|^2) time (the contexts are materialised).
    """
    root: dict = {}
    made: list[tuple] = []
    count: dict[int, int] = {}
    for i, seq in enumerate(layout):
        node = root
        for p, x in enumerate(seq):
            nxt = node.get(x)
            if nxt is None:
                nxt = node[x] = {}
                made.append((int(x), frozenset(int(y) for y in seq[:p]), i, id(nxt)))
            count[id(nxt)] = count.get(id(nxt), 0) + 1
            node = nxt
    return [Node(x, ctx, i, count[key]) for x, ctx, i, key in made]


def chunk_modes(nodes: Sequence[Node], ids: Sequence[int], w: int, params: BlendParams,
                exact: bool = True, weights=None) -> tuple[float, dict]:
    """The best modes for the nodes ``ids`` (creation order) of one chunk of weight ``w``.

    Returns (objective, {node id: source id or -1}). ``exact`` with at most
    :data:`EXACT_MODES_T` nodes tries every set of full nodes containing the first
    (O(2^(t-1) t^2)); otherwise forward greedy: a node blends from its best earlier full node
    when that is cheaper than w, else it is full. Greedy is exact for beta = 0 (a blend's price
    does not depend on its source, so no full node helps a later one).
    """
    if params.extended:
        return _chunk_modes_extended(nodes, ids, w, params, exact, weights)
    t = len(ids)
    d = [[len(nodes[a].context ^ nodes[b].context) for b in ids] for a in ids]
    price = [[params.blend_price(w, d[a][b], nodes[ids[b]].through) for b in range(t)] for a in range(t)]
    if exact and 1 < t <= EXACT_MODES_T and params.beta > 0:
        best, best_src = math.inf, None
        for mask in range(1 << (t - 1)):
            full = [0] + [j + 1 for j in range(t - 1) if mask >> j & 1]
            fullset = set(full)
            total = w * len(full)
            src = [-1] * t
            for b in range(1, t):
                if b in fullset:
                    continue
                a = min((a for a in full if a < b), key=lambda a: price[a][b])
                src[b] = a
                total += price[a][b]
                if total >= best:
                    break
            if total < best:
                best, best_src = total, src
        return best, {ids[b]: (ids[s] if s >= 0 else -1) for b, s in enumerate(best_src)}
    total = float(w)
    full = [0]
    out = {ids[0]: -1}
    for b in range(1, t):
        a = min(full, key=lambda a: price[a][b])
        if price[a][b] < w:
            out[ids[b]] = ids[a]
            total += price[a][b]
        else:
            out[ids[b]] = -1
            full.append(b)
            total += w
    return total, out


ISOLATED = -2  # the mode of a node blended from its chunk's isolated copy (section 9)


def mismatch(a: frozenset, b: frozenset, params: BlendParams, weights=None) -> float:
    """|a symmetric-difference b| in chunks, or its token count (``params.mismatch == "tokens"``)."""
    diff = a ^ b
    return float(sum(int(weights[y]) for y in diff)) if params.mismatch == "tokens" else float(len(diff))


def _chunk_modes_extended(nodes, ids, w, params, exact, weights):
    """:func:`chunk_modes` for the extended model: the price of a blend from the table (or
    1 + beta d), the mismatch in chunks or tokens, and with ``isolated`` an offline copy of the
    chunk prefilled alone (context {}, never charged) from which every node may blend, the first
    included, so that no node need be full. Exact over every set of full nodes (containing the
    first unless ``isolated``) up to :data:`EXACT_MODES_T` nodes, forward greedy beyond."""
    t = len(ids)
    ctx = [nodes[j].context for j in ids]
    thr = [nodes[j].through for j in ids]
    price = [[params.blend_price(w, mismatch(ctx[a], ctx[b], params, weights), thr[b]) for b in range(t)]
             for a in range(t)]
    iso = [params.blend_price(w, mismatch(frozenset(), ctx[b], params, weights), thr[b]) if params.isolated
           else math.inf for b in range(t)]

    def assign(fullset):
        total, src = 0.0, []
        for b in range(t):
            if b in fullset:
                total += w
                src.append(-1)
                continue
            a = min((a for a in fullset if a < b), key=lambda a: price[a][b], default=None)
            pa = price[a][b] if a is not None else math.inf
            if iso[b] <= pa:
                total += iso[b]
                src.append(ISOLATED)
            else:
                total += pa
                src.append(a)
        return total, src

    if exact and t <= EXACT_MODES_T:
        best = None
        lead = 0 if params.isolated else 1
        for mask in range(1 << (t - lead)):
            fullset = {j + lead for j in range(t - lead) if mask >> j & 1} | (set() if params.isolated else {0})
            cand = assign(fullset)
            if best is None or cand[0] < best[0] - 1e-12:
                best = cand
        total, src = best
    else:
        fullset, src, total = set(), [], 0.0
        for b in range(t):
            a = min(fullset, key=lambda a: price[a][b], default=None)
            pa = price[a][b] if a is not None else math.inf
            if (fullset or params.isolated) and min(pa, iso[b]) < w:  # else full, as a first node is
                if iso[b] <= pa:
                    src.append(ISOLATED)
                    total += iso[b]
                else:
                    src.append(a)
                    total += pa
                continue
            fullset.add(b)
            src.append(-1)
            total += w
    return total, {ids[b]: (ids[s] if s >= 0 else s) for b, s in enumerate(src)}


def modes_are_exact(t: int, params: BlendParams, exact: bool = True) -> bool:
    """Whether :func:`chunk_modes` chooses the best modes for a chunk of ``t`` nodes: always for
    beta = 0 (a blend's price does not depend on its source, so greedy is exact; proof of
    Proposition 2), else only by the exact search, up to :data:`EXACT_MODES_T` nodes."""
    if params.extended:
        return t <= 1 or (exact and t <= EXACT_MODES_T)
    return params.beta == 0 or t <= 2 or (exact and t <= EXACT_MODES_T)


def price_layout(inst: Instance, layout: Sequence[Sequence[int]], params: BlendParams, *,
                 exact_modes: bool = True) -> BlendResult:
    """``layout`` (validated) served in request order, with the best modes per chunk.

    Parameters
    ----------
    inst : Instance
    layout : sequence of sequences
        One order per request, chunk ids.
    params : BlendParams
    exact_modes : bool
        Exact mode choice per chunk (:func:`chunk_modes`) where it has at most
        :data:`EXACT_MODES_T` nodes, greedy beyond; False: greedy everywhere.

    Notes
    -----
    O(sum_i |R_i|^2 + sum_x 2^(t_x - 1) t_x^2) with t_x the nodes of chunk x (greedy:
    O(sum_x t_x^2)).
    """
    layout = check_layout(inst, layout)
    nodes = layout_nodes(layout)
    by_chunk: dict[int, list[int]] = {}
    for j, nd in enumerate(nodes):
        by_chunk.setdefault(nd.chunk, []).append(j)
    modes = [-1] * len(nodes)
    objective = 0.0
    exact = all(modes_are_exact(len(ids), params, exact_modes) for ids in by_chunk.values())
    for x, ids in by_chunk.items():
        val, src = chunk_modes(nodes, ids, int(inst.weights[x]), params, exact_modes, inst.weights)
        objective += val
        for j, s in src.items():
            modes[j] = s
    cost = loss = 0.0
    prefix = 0
    for j, nd in enumerate(nodes):
        w = int(inst.weights[nd.chunk])
        prefix += w
        s = modes[j]
        if s == -1:
            cost += w
        else:
            src = frozenset() if s == ISOLATED else nodes[s].context
            d = mismatch(src, nd.context, params, inst.weights) if params.extended else len(src ^ nd.context)
            cost += params.blend_cost(w, d, nd.through)
            loss += params.blend_loss(w, d, nd.through)
    return BlendResult(objective=cost + params.price * loss, cost=cost, loss=loss, prefix_cost=prefix,
                       layout=[list(s) for s in layout], modes=modes, nodes=nodes, modes_exact=exact)
