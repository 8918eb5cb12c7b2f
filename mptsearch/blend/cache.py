"""Blends in a finite LRU prefix cache: ``mptsearch simulate --blend`` (docs/beyond_prefix.md).

The requests are served in a given order (the order :func:`mptsearch.serving.cache.simulate`
chose for its schedule) through the same LRU prefix cache
(:class:`mptsearch.serving.cache.PrefixCache`). The cache's contents do not depend on the
modes: a blended node stores the KV of all its tokens, as a full one does, and is evicted by
the same LRU rule, so the cache evolves as in the prefix-only run and only the price of the
computed nodes changes. Serving request j:

- its longest cached prefix is an exact hit (cost 0, no loss, even through blended nodes:
  the loss is charged once, to the computation that blended, as in section 1.2);
- every later position computes a node v of chunk x with context P(v). Its candidate copies
  are the nodes of x that are *cached when the request starts* and were *computed full* in
  their current stay in the cache (a copy is a full node, never a blended one); the first such
  copy and the ``cap`` most recent ones are tried (the greedy rule of
  :func:`.heuristic.price_greedy`). v blends from the copy with the fewest mismatched context
  chunks d when r + lambda (1 + beta d) < 1: cost r w(x), loss w(x) (1 + beta d); otherwise it
  is full (cost w(x)) and becomes a copy;
- **a chunk whose every full copy was evicted has no copy: its node is recomputed fully**
  (cost w(x), no loss), exactly as the first node of a chunk is, and becomes the new copy. A
  node evicted and computed again is a new computation: it pays again (cost, and loss if it
  blends again).

In the extended model (section 9: a loss table, token mismatch, isolated copies) a blend takes
the table's best ratio for its mismatch, and the isolated copy of a chunk (prefilled alone,
offline) is kept outside the prefix cache: it is never evicted and is a candidate of every
node, so with isolated copies no node is left without a copy.

With an unbounded cache and arrival order the result equals :func:`.trace.price_rows` with the
greedy rule on the same layout (nothing is evicted; tested). Token-level caches only (the
block-level cache of :mod:`mptsearch.serving.blocks` is not modelled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .heuristic import best_copy, best_copy_ext
from .model import BlendParams

__all__ = ["BlendSim", "simulate_blend"]


@dataclass(frozen=True)
class BlendSim:
    """One blended serving of a trace through a finite cache.

    ``prefill``: the prefix-only prefill of the same serving (every computed node full; equal
    to :func:`mptsearch.serving.cache.simulate`'s); ``cost`` and ``loss``: with blends;
    ``computed`` nodes computed (hits excluded), ``blended`` of them blended, ``no_copy`` of
    them full for want of a cached full copy, ``evicted_copy`` of those because every earlier
    full copy of the chunk had been evicted (the rest are a chunk's first computation), and
    ``evicted_copy_tokens`` their tokens.
    """

    prefill: int
    cost: float
    loss: float
    computed: int
    blended: int
    no_copy: int
    evicted_copy: int
    evicted_copy_tokens: int


def simulate_blend(weights, seqs: Sequence[Sequence[int]], order: Sequence[int], capacity: int | None,
                   params: BlendParams, cap: int = 32) -> BlendSim:
    """Serve ``seqs[j]`` for j in ``order`` through an LRU prefix cache of ``capacity`` tokens
    (None: unbounded) with blends priced by ``params`` (see the module docstring).

    Notes
    -----
    O(L log L) for the cache (L the total sequence length) plus O(sum_j |L_j|^2) for the
    contexts and O(N cap) set operations for the N computed nodes. Per-answer accounting is
    not modelled (``params.per_answer`` is refused).
    """
    from ..instance import InstanceError
    from ..serving.cache import PrefixCache

    if params.per_answer:
        raise InstanceError("simulate --blend charges the loss once per blended computation (no per-answer)")
    w = [int(v) for v in weights]
    cache = PrefixCache(weights, capacity)
    ctx: dict[int, frozenset] = {}       # node id -> context of its current computation
    stamp: dict[int, int] = {}           # node id -> number of its computations so far
    copies: dict[int, list] = {}         # chunk -> [(node id, stamp)] computed full, in order
    seen: set[int] = set()               # chunks computed at least once
    prefill = computed = blended = no_copy = evicted = evicted_tokens = 0
    cost = loss = 0.0
    for j in order:
        seq = seqs[j]
        node, _ = cache.match(seq)
        h = cache.depth[node]
        modes = []
        for p in range(h, len(seq)):
            x = seq[p]
            live = [(u, s) for u, s in copies.get(x, ()) if cache.cached[u] and stamp[u] == s]
            copies[x] = live
            context = frozenset(seq[:p])
            blend, ratio = False, params.r
            cand = (live[0], *live[-cap:]) if live else ()
            if params.extended and (live or params.isolated):
                blend, ratio, unit = best_copy_ext([ctx[u] for u, _ in cand], context, params, weights)
            elif live:
                blend, unit = best_copy([ctx[u] for u, _ in cand], context, params)
            if not live and not params.isolated:  # isolated copies live outside the cache
                evicted += x in seen
                evicted_tokens += w[x] if x in seen else 0
                no_copy += 1
            seen.add(x)
            computed += 1
            prefill += w[x]
            if blend:
                blended += 1
                cost += ratio * w[x]
                loss += w[x] * unit
            else:
                cost += w[x]
            modes.append((context, blend))
        cache.serve(seq)
        v = node
        for p in range(h, len(seq)):  # the nodes just computed: children of the hit node down
            v = cache.children[v][seq[p]]
            context, blend = modes[p - h]
            ctx[v] = context
            stamp[v] = stamp.get(v, 0) + 1
            if not blend:
                copies.setdefault(seq[p], []).append((v, stamp[v]))
    return BlendSim(prefill, cost, loss, computed, blended, no_copy, evicted, evicted_tokens)
