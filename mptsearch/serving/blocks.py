"""A block-level prefix cache: only whole KV blocks of B tokens are reusable (vLLM's automatic
prefix caching).

A prompt is the concatenation of its chunks' token ids, cut into blocks of B tokens (16 by
default in vLLM). A full block is identified by its tokens *and everything before it* (vLLM
chains each block's hash to its parent's: project vllm-project/vllm, file
``vllm/v1/core/kv_cache_utils.py``), so two prompts share block b exactly when their first
(b+1) B tokens agree; a partial last block is never cached. A request reuses its longest run of
cached leading blocks, at most floor((L - 1) / B) of them for a prompt of L tokens: when every
token hits, the last one is recomputed to get logits (``max_cache_hit_length =
request.num_tokens - 1`` in ``vllm/v1/core/kv_cache_manager.py``, ``get_computed_blocks``).
Freed blocks are evicted least recently used first, a request's tail blocks before its head
(``FreeKVCacheBlockQueue`` in ``kv_cache_utils.py``, freed in reverse order by
``vllm/v1/core/block_pool.py``): here LRU over blocks, deepest first on ties, the same rule as
:class:`.cache.PrefixCache`.

Chunks are opaque token strings: two different chunks are taken to differ in their first
token, so the token prefix two prompts share is the tokens of their common chunk prefix.
With B = 1 and no cap at L - 1 this is :class:`.cache.PrefixCache`.
"""

from __future__ import annotations

import heapq
from typing import Sequence

import numpy as np

from ..instance import InstanceError

__all__ = ["BlockCache", "block_keys"]


def block_keys(weights, seq: Sequence[int], B: int) -> list[tuple]:
    """The content of each full block of ``seq``: a tuple of (chunk, first token, end token)
    segments; block b's identity is this list up to b (its prefix)."""
    out = []
    cur: list = []
    room = B
    for x in seq:
        t, w = 0, int(weights[x])
        while t < w:
            take = min(room, w - t)
            cur.append((x, t, t + take))
            t += take
            room -= take
            if room == 0:
                out.append(tuple(cur))
                cur, room = [], B
    return out


class BlockCache:
    """Prefix cache of whole blocks of ``block_size`` tokens, ``capacity`` tokens in all
    (rounded down to whole blocks; None: unbounded)."""

    def __init__(self, weights: np.ndarray, block_size: int, capacity: int | None):
        if block_size < 1:
            raise InstanceError(f"--block-size must be >= 1, got {block_size}")
        if capacity is not None and capacity < 0:
            raise InstanceError(f"cache capacity must be >= 0 tokens, got {capacity}")
        self.w = [int(v) for v in weights]
        self.B = int(block_size)
        self.cap_blocks = None if capacity is None else capacity // self.B
        self.node: dict = {}  # (parent node, block content) -> node
        self.depth = [0]
        self.cached = [True]
        self.last = [0]
        self.used = 0
        self.step = 0
        self._heap: list = []

    def _path(self, seq):
        path = []
        v = 0
        for content in block_keys(self.w, seq, self.B):
            key = (v, content)
            nxt = self.node.get(key)
            if nxt is None:
                nxt = self.node[key] = len(self.depth)
                self.depth.append(self.depth[v] + 1)
                self.cached.append(False)
                self.last.append(0)
            path.append(nxt)
            v = nxt
        return path

    def match(self, seq: Sequence[int]) -> tuple[int, int]:
        """(cached leading blocks, their tokens) ``seq`` would reuse now."""
        L = sum(self.w[x] for x in seq)
        limit = (L - 1) // self.B if L else 0
        hit = 0
        v = 0
        for content in block_keys(self.w, seq, self.B)[:limit]:
            nxt = self.node.get((v, content))
            if nxt is None or not self.cached[nxt]:
                break
            hit += 1
            v = nxt
        return hit, hit * self.B

    def serve(self, seq: Sequence[int]) -> int:
        """Serve one request; return its prefill (tokens computed)."""
        self.step += 1
        t = self.step
        L = sum(self.w[x] for x in seq)
        path = self._path(seq)
        limit = (L - 1) // self.B if L else 0
        hit = 0
        while hit < min(limit, len(path)) and self.cached[path[hit]]:
            hit += 1
        for v in path:
            if not self.cached[v]:
                self.cached[v] = True
                self.used += 1
            self.last[v] = t
            heapq.heappush(self._heap, (t, -self.depth[v], v))
        if self.cap_blocks is not None:
            while self.used > self.cap_blocks:
                last, _, v = heapq.heappop(self._heap)
                if self.cached[v] and self.last[v] == last:
                    self.cached[v] = False
                    self.used -= 1
        return L - hit * self.B
