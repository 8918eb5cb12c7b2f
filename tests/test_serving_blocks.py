"""Block-level prefix cache (vLLM automatic prefix caching) against a brute-force token twin,
and SGLang's LPM -> FCFS fallback."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.instance import InstanceError
from mptsearch.serving.blocks import BlockCache
from mptsearch.serving.cache import PrefixCache, simulate


def twin_prefill(weights, seqs, B, cap_blocks):
    """Spell out every prompt as token ids, cut it into blocks of B tokens, key each full block
    by the whole token prefix up to its end; a request reuses its longest run of cached
    leading blocks, at most (L - 1) // B; LRU eviction of blocks, deepest first on ties."""
    cache = {}  # prefix tuple -> (last use, depth)
    total = 0
    for step, seq in enumerate(seqs, start=1):
        toks = [(x, t) for x in seq for t in range(int(weights[x]))]
        L = len(toks)
        keys = [tuple(toks[:(b + 1) * B]) for b in range(L // B)]
        hit = 0
        while hit < min((L - 1) // B, len(keys)) and keys[hit] in cache:
            hit += 1
        total += L - hit * B
        for d, k in enumerate(keys):
            cache[k] = (step, d)
        while cap_blocks is not None and len(cache) > cap_blocks:
            victim = min(cache, key=lambda k: (cache[k][0], -cache[k][1]))
            del cache[victim]
    return total


seqs_st = st.integers(2, 6).flatmap(lambda n: st.tuples(
    st.lists(st.integers(1, 9), min_size=n, max_size=n),
    st.lists(st.lists(st.integers(0, n - 1), min_size=1, max_size=n, unique=True), min_size=1, max_size=12)))


@settings(max_examples=150)
@given(seqs_st, st.integers(1, 6), st.one_of(st.none(), st.integers(0, 12)))
def test_block_cache_matches_token_twin(data, B, cap_blocks):
    w, seqs = data
    w = np.array(w, dtype=np.int64)
    cap = None if cap_blocks is None else cap_blocks * B
    c = BlockCache(w, B, cap)
    assert sum(c.serve(s) for s in seqs) == twin_prefill(w, seqs, B, cap_blocks)
    if B > 1:
        assert simulate(w, seqs, cap, "arrival", block_size=B).prefill == twin_prefill(w, seqs, B, cap_blocks)


def test_partial_blocks_are_not_reused():
    w = np.array([10, 5, 7])
    # both prompts start with chunk 0 (10 tokens): with B = 4 only 2 whole blocks (8 tokens) match
    r = simulate(w, [(0, 1), (0, 2)], None, "arrival", block_size=4)
    assert r.prefill == 15 + (17 - 8)
    # token level, the whole chunk is reused
    assert simulate(w, [(0, 1), (0, 2)], None, "arrival").prefill == 15 + 7


def test_last_token_is_recomputed():
    w = np.array([8])
    # an identical 8-token prompt with B = 4: only (8 - 1) // 4 = 1 block can hit
    assert simulate(w, [(0,), (0,)], None, "arrival", block_size=4).prefill == 8 + 4


def test_block_size_one_unbounded_is_token_level_but_the_last_token():
    rng = np.random.default_rng(3)
    w = rng.integers(1, 9, size=6)
    seqs = [tuple(int(x) for x in rng.permutation(6)[:rng.integers(1, 4)]) for _ in range(40)]
    token = PrefixCache(w, None)
    block = BlockCache(w, 1, None)
    a = sum(token.serve(s) for s in seqs)
    b = sum(block.serve(s) for s in seqs)
    # a prompt that is a prefix of an earlier one hits entirely and recomputes one token
    full = sum(any(p[:len(s)] == s for p in seqs[:j]) for j, s in enumerate(seqs))
    assert full > 0 and b - a == full


def test_dfs_weight_needs_token_level():
    with pytest.raises(InstanceError, match="block-size 1"):
        simulate(np.array([1, 2]), [(0, 1)], None, "dfs-weight", 4, block_size=16)


def test_lpm_falls_back_to_fcfs_above_the_threshold():
    w = np.array([50, 1, 1, 1])
    # the first block warms chunks 0, 2, 3; in the second, LPM serves the chunk-0 request first
    seqs = [(0, 1), (2,), (3,), (2, 1), (3, 2), (0, 3)]
    lpm = simulate(w, seqs, None, "lpm", 3)
    assert lpm.order[3:] == [5, 3, 4]
    fcfs = simulate(w, seqs, None, "lpm", 3, lpm_fcfs_above=2)
    assert fcfs.order == list(range(6))
    assert fcfs.prefill > lpm.prefill or fcfs.prefill == lpm.prefill
    # at the threshold LPM still sorts
    assert simulate(w, seqs, None, "lpm", 3, lpm_fcfs_above=3).order == lpm.order
