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

__all__ = ["PrefixCache", "SimResult", "SCHEDULES", "simulate", "dfs_order", "theorem7",
           "window_capacity_table", "compile_kernels"]

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


def _csr(seqs) -> tuple[np.ndarray, np.ndarray]:
    """(indptr, seq) of a :class:`.sparse.Layout` or of a list of chunk-id sequences."""
    if hasattr(seqs, "indptr") and hasattr(seqs, "seq"):
        return np.asarray(seqs.indptr, dtype=np.int64), np.asarray(seqs.seq, dtype=np.int32)
    lens = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    indptr = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(lens, out=indptr[1:])
    seq = np.fromiter((x for s in seqs for x in s), dtype=np.int32, count=int(indptr[-1]))
    return indptr, seq


def simulate(weights: np.ndarray, seqs, capacity: int | None,
             schedule: str = "arrival", window: int = 1, *, block_size: int = 1,
             lpm_fcfs_above: int | None = None) -> SimResult:
    """Serve the sequences (chunk ids, arrival order) against a :class:`PrefixCache`.

    Parameters
    ----------
    weights : int array, token count of every chunk id
    seqs : the requests' chunk orders (a layout: a :class:`.sparse.Layout` or a list of
        sequences), in arrival order
    capacity : cache size in tokens, or None for an unbounded cache
    schedule : one of :data:`SCHEDULES`
    window : W, the block of arrivals the ``window``, ``lpm`` and ``dfs-weight`` schedules reorder
    block_size : B; B > 1 reuses whole blocks of B tokens only (:class:`.blocks.BlockCache`)
    lpm_fcfs_above : ``lpm`` serves a block of more waiting requests than this in arrival
        order (SGLang: :data:`SGLANG_LPM_FCFS_ABOVE`); None: never

    Notes
    -----
    Compiled (:mod:`._cache_kernels`): the layout's trie is built once, then the cache state is
    kept per trie node, so a block-level cache costs what a token-level one does. O(L log L)
    time for L the total sequence length (heap-based LRU), plus O(W L) for ``lpm`` and
    ``dfs-weight``, which match each waiting request against the cache once per block. The
    same prefill and order as serving one request at a time through :class:`PrefixCache` or
    :class:`.blocks.BlockCache` (``tests/naive.py`` keeps that loop; the tests compare).
    """
    from ._cache_kernels import ARRIVAL, DFS, DFS_WEIGHT, LPM, WINDOW, block_units, serve_all, trie_nodes
    from .sparse import lex_rank

    if schedule not in SCHEDULES:
        raise InstanceError(f"unknown schedule {schedule!r}; use one of {', '.join(SCHEDULES)}")
    if window < 1:
        raise InstanceError(f"window must be >= 1, got {window}")
    if block_size < 1:
        raise InstanceError(f"--block-size must be >= 1, got {block_size}")
    if capacity is not None and capacity < 0:
        raise InstanceError(f"cache capacity must be >= 0 tokens, got {capacity}")
    if block_size > 1 and schedule == "dfs-weight":
        raise InstanceError("dfs-weight models SGLang's token-level radix cache: use --block-size 1")
    w = np.asarray(weights, dtype=np.int64)
    indptr, seq = _csr(seqs)
    m = len(indptr) - 1
    lex = lex_rank(indptr, seq)
    node_of, parent, depth, chunk, _ = trie_nodes(indptr, seq, lex)
    unbounded = int(w[chunk[1:]].sum())
    B = int(block_size)
    units = block_units(parent, chunk, w, B) if B > 1 else w[np.maximum(chunk, 0)] * (chunk >= 0)
    cap = -1 if capacity is None else int(capacity) // B
    line_tokens = np.add.reduceat(w[seq], indptr[:-1]) if len(seq) else np.zeros(m, dtype=np.int64)
    code = {"arrival": ARRIVAL, "dfs": DFS, "window": WINDOW, "lpm": LPM, "dfs-weight": DFS_WEIGHT}[schedule]
    if schedule == "dfs":
        pre = lex
    elif schedule == "window":
        rank = np.empty(m, dtype=np.int64)
        rank[lex] = np.arange(m, dtype=np.int64)
        pre = np.lexsort((rank, np.arange(m, dtype=np.int64) // window))
    else:
        pre = np.arange(m, dtype=np.int64)
    fcfs = -1 if lpm_fcfs_above is None else int(lpm_fcfs_above)
    prefill, order = serve_all(indptr, node_of, parent, depth, chunk, units, line_tokens, cap, B, code,
                               int(min(window, max(m, 1))), fcfs, pre.astype(np.int64))
    return SimResult(int(prefill), unbounded, order.tolist())


def compile_kernels() -> None:
    """Compile (or load from numba's on-disk cache) the kernels of :func:`simulate`, every
    schedule at token and block level, on a three-request trace (milliseconds once compiled)."""
    w = np.array([3, 5, 2], dtype=np.int64)
    seqs = [(0, 1), (0, 2), (1,)]
    for schedule in SCHEDULES:
        for B in (1, 2):
            if not (B > 1 and schedule == "dfs-weight"):
                simulate(w, seqs, 8, schedule, 2, block_size=B, lpm_fcfs_above=1)


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
