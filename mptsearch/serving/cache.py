"""A prefix (KV) cache of C tokens with LRU eviction, and the schedules served against it.

Requests are served one after another. The cache holds a prefix-closed set of trie nodes
(every cached node's parent is cached); serving a sequence reuses its longest cached prefix
and computes the rest (the *prefill*), then every node of the sequence is marked used at the
current step. While the cached tokens exceed C, the least recently used node is evicted, the
deepest first on ties, as block-level prefix caches in serving engines do. A node's last use is
never earlier than any of its descendants', so that node is always a leaf and the cache stays
prefix-closed.

Schedules (the order in which the requests are served):

- ``arrival``: as they arrive;
- ``dfs``: the DFS (lexicographic) order of the layout's trie, over the whole stream;
- ``window``: arrivals taken in blocks of W, each block in DFS order;
- ``lpm``: SGLang's longest-prefix-match policy: each block of W waiting requests is served
  in decreasing order of the tokens of its longest cached prefix, at the time the block is
  scheduled (ties: arrival order); with more than ``lpm_fcfs_above`` waiting requests (128 in
  SGLang) it is first-come-first-served instead, as SGLang turns the prefix matching off for
  long queues (project sgl-project/sglang, ``python/sglang/srt/managers/schedule_policy.py``,
  ``_determine_active_policy``);
- ``dfs-weight``: SGLang's DFS_WEIGHT policy: each waiting request of the block hangs at the
  cache-tree node of its longest cached prefix; a node's weight is the number of waiting
  requests below it; the tree is walked depth first visiting heavier children first, and a
  node's own requests are served after its children's.

With ``block_size`` B > 1 the cache is vLLM's block-level one (:mod:`.blocks`): only whole
blocks of B tokens are reused.

**Theorem 7** (paper, Section 8): served in ``dfs`` order with C = the largest request's
tokens, the prefill equals the layout's trie cost, the unbounded-cache optimum, exactly.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..instance import InstanceError
from .trace import sequences_cost

__all__ = ["PrefixCache", "SimResult", "SCHEDULES", "simulate", "dfs_order", "theorem7",
           "window_capacity_table"]

SCHEDULES = ("arrival", "dfs", "window", "lpm", "dfs-weight")
SGLANG_LPM_FCFS_ABOVE = 128


class PrefixCache:
    """A prefix cache over chunk sequences with ``capacity`` tokens (None: unbounded)."""

    def __init__(self, weights: np.ndarray, capacity: int | None):
        if capacity is not None and capacity < 0:
            raise InstanceError(f"cache capacity must be >= 0 tokens, got {capacity}")
        self.w = [int(v) for v in weights]
        self.capacity = capacity
        # node 0 is the root (the empty prefix, always present, weight 0)
        self.children: list[dict] = [{}]
        self.parent = [-1]
        self.depth = [0]
        self.chunk = [-1]
        self.cached = [True]
        self.last = [0]
        self.used = 0
        self.step = 0
        self._heap: list = []

    def match(self, seq: Sequence[int]) -> tuple[int, int]:
        """(deepest cached node on ``seq``'s path, tokens of that cached prefix)."""
        node, hit = 0, 0
        for x in seq:
            nxt = self.children[node].get(x)
            if nxt is None or not self.cached[nxt]:
                break
            node, hit = nxt, hit + self.w[x]
        return node, hit

    def serve(self, seq: Sequence[int]) -> int:
        """Serve one request; return its prefill (tokens not found as a cached prefix)."""
        self.step += 1
        t = self.step
        node, prefill = 0, 0
        path = []
        for x in seq:
            nxt = self.children[node].get(x)
            if nxt is None:
                nxt = len(self.parent)
                self.children[node][x] = nxt
                self.children.append({})
                self.parent.append(node)
                self.depth.append(self.depth[node] + 1)
                self.chunk.append(x)
                self.cached.append(False)
                self.last.append(0)
            if not self.cached[nxt]:
                self.cached[nxt] = True
                self.used += self.w[x]
                prefill += self.w[x]
            path.append(nxt)
            node = nxt
        for v in path:
            self.last[v] = t
            heapq.heappush(self._heap, (t, -self.depth[v], v))
        if self.capacity is not None:
            while self.used > self.capacity:
                last, _, v = heapq.heappop(self._heap)
                if self.cached[v] and self.last[v] == last:
                    self.cached[v] = False
                    self.used -= self.w[self.chunk[v]]
        return prefill


@dataclass(frozen=True)
class SimResult:
    """Total prefill, the unbounded-cache cost of the same sequences, and the serving order."""

    prefill: int
    unbounded: int
    order: list

    @property
    def excess(self) -> float:
        """prefill / unbounded - 1 (the excess over the unbounded-cache optimum)."""
        return self.prefill / self.unbounded - 1.0


def dfs_order(seqs: Sequence[Sequence[int]], rows: Sequence[int] | None = None) -> list[int]:
    """The rows (default: all) in a DFS preorder of the trie of ``seqs`` (lexicographic,
    a prefix before its extensions; ties keep the given order)."""
    rows = range(len(seqs)) if rows is None else rows
    return sorted(rows, key=lambda j: tuple(seqs[j]))


def _lpm_block(cache: PrefixCache, seqs, block):
    hits = [cache.match(seqs[j])[1] for j in block]
    return [block[i] for i in sorted(range(len(block)), key=lambda i: -hits[i])]


def _dfs_weight_block(cache: PrefixCache, seqs, block):
    at: dict[int, list[int]] = {}
    weight: dict[int, int] = {}
    for j in block:
        node = cache.match(seqs[j])[0]
        at.setdefault(node, []).append(j)
        while node >= 0:
            weight[node] = weight.get(node, 0) + 1
            node = cache.parent[node]
    out: list[int] = []
    # children before the node's own requests; heavier children first (ties: chunk id)
    stack = [(0, False)]
    while stack:
        v, expanded = stack.pop()
        if expanded:
            out.extend(at.get(v, ()))
            continue
        stack.append((v, True))
        kids = [c for c in cache.children[v].values() if c in weight]
        kids.sort(key=lambda c: (-weight[c], cache.chunk[c]))
        for c in reversed(kids):
            stack.append((c, False))
    return out


def simulate(weights: np.ndarray, seqs: Sequence[Sequence[int]], capacity: int | None,
             schedule: str = "arrival", window: int = 1, *, block_size: int = 1,
             lpm_fcfs_above: int | None = None) -> SimResult:
    """Serve the sequences (chunk ids, arrival order) against a :class:`PrefixCache`.

    Parameters
    ----------
    weights : int array, token count of every chunk id
    seqs : the requests' chunk orders (a layout), in arrival order
    capacity : cache size in tokens, or None for an unbounded cache
    schedule : one of :data:`SCHEDULES`
    window : W, the block of arrivals the ``window``, ``lpm`` and ``dfs-weight`` schedules reorder
    block_size : B; B > 1 reuses whole blocks of B tokens only (:class:`.blocks.BlockCache`)
    lpm_fcfs_above : ``lpm`` serves a block of more waiting requests than this in arrival
        order (SGLang: :data:`SGLANG_LPM_FCFS_ABOVE`); None: never

    Notes
    -----
    O(L log L) time for L the total sequence length (heap-based LRU), plus O(W L) for ``lpm`` and
    ``dfs-weight``, which match each waiting request against the cache once per block.
    """
    if schedule not in SCHEDULES:
        raise InstanceError(f"unknown schedule {schedule!r}; use one of {', '.join(SCHEDULES)}")
    if window < 1:
        raise InstanceError(f"window must be >= 1, got {window}")
    m = len(seqs)
    if block_size > 1:
        if schedule == "dfs-weight":
            raise InstanceError("dfs-weight models SGLang's token-level radix cache: use --block-size 1")
        from .blocks import BlockCache

        cache = BlockCache(weights, block_size, capacity)
    else:
        cache = PrefixCache(weights, capacity)
    if schedule == "dfs":
        blocks, window = [list(range(m))], m
    else:
        blocks = [list(range(s, min(m, s + window))) for s in range(0, m, window)]
    order: list[int] = []
    prefill = 0
    for block in blocks:
        if schedule in ("dfs", "window"):
            block = dfs_order(seqs, block)
        elif schedule == "lpm" and (lpm_fcfs_above is None or len(block) <= lpm_fcfs_above):
            block = _lpm_block(cache, seqs, block)
        elif schedule == "dfs-weight":
            block = _dfs_weight_block(cache, seqs, block)
        for j in block:
            prefill += cache.serve(seqs[j])
        order.extend(block)
    return SimResult(prefill, sequences_cost(weights, seqs), order)


def theorem7(weights: np.ndarray, seqs: Sequence[Sequence[int]]) -> tuple[int, int, int]:
    """(DFS-order prefill with C = largest request's tokens, unbounded-cache cost, C).

    Theorem 7 says the first two are equal for every layout."""
    cap = max(int(sum(int(weights[x]) for x in s)) for s in seqs)
    r = simulate(weights, seqs, cap, "dfs")
    return r.prefill, r.unbounded, cap


def window_capacity_table(weights: np.ndarray, seqs: Sequence[Sequence[int]],
                          windows: Sequence[int], capacity_factors: Sequence[float | None],
                          schedule: str = "window") -> np.ndarray:
    """Excess over the unbounded optimum, rows = windows W, columns = capacities given as
    multiples of the largest request's tokens (None = unbounded)."""
    cap1 = max(int(sum(int(weights[x]) for x in s)) for s in seqs)
    out = np.zeros((len(windows), len(capacity_factors)))
    for a, W in enumerate(windows):
        for b, f in enumerate(capacity_factors):
            cap = None if f is None else int(round(f * cap1))
            out[a, b] = simulate(weights, seqs, cap, schedule, int(W)).excess
    return out
