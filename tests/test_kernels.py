"""Each compiled kernel of mptsearch._kernels against its slow twin in tests/naive.py.

The kernels take requests as uint64 chunk masks; the twins take lists of chunk sets and a
weight mapping and follow the definitions literally."""

from itertools import combinations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mptsearch._kernels.agglomerative import agglomerative_savings
from mptsearch._kernels.blocked import LOW_BITS, low_bits
from mptsearch._kernels.bounds import free_bounds, mst_savings
from mptsearch._kernels.free import free_savings
from mptsearch._kernels.glob import glob_table
from mptsearch._kernels.masks import chunk_sets, intersection_table, intersection_weights, mask_weight
from mptsearch._kernels.workspace import workspace
from mptsearch.exact.free import dp_dtype

from .naive import (naive_agglomerative_savings, naive_intersection_weight, naive_mst_lower_bound,
                    naive_opt_free, naive_opt_glob)
from .strategies import instances

DTYPES = (np.int16, np.int32, np.int64)


def _arrays(inst, dtype=None):
    """(requests as uint64 masks, int64 weights, weight mapping, workspace)."""
    req = np.array(inst.request_masks(), dtype=np.uint64)
    w = inst.weights.astype(np.int64)
    wmap = {x: int(w[x]) for x in range(inst.n)}
    ws = workspace(inst.n, inst.m, dtype or dp_dtype(inst.total_weight()))
    return req, w, wmap, ws


@settings(max_examples=60)
@given(instances(max_n=9, max_m=8))
def test_masks(inst):
    req, w, wmap, ws = _arrays(inst, np.int64)
    m, n = inst.m, inst.n
    for r, reqset in zip(req, inst.requests):
        assert mask_weight(r, w) == sum(wmap[x] for x in reqset)
    chunk_sets(req, m, n, ws.S)
    assert [int(s) for s in ws.S[:n]] == [sum(1 << i for i, r in enumerate(inst.requests) if x in r)
                                         for x in range(n)]
    intersection_table(req, m, w, ws.inter, ws.wI)
    zeta = intersection_weights(ws.S, w, m, np.zeros(1 << m, dtype=np.int64))
    for B in range(1, 1 << m):
        expect = naive_intersection_weight(inst.requests, wmap, [i for i in range(m) if B >> i & 1])
        assert ws.wI[B] == zeta[B] == expect


def test_block_size_from_table_type():
    """One place: the same L for Python callers and inside compiled code."""
    from numba import njit

    inner = njit(lambda t: low_bits(t))
    for dt in DTYPES:
        t = np.zeros(4, dtype=dt)
        assert low_bits(t) == inner(t) == LOW_BITS[np.dtype(dt).itemsize]


@settings(max_examples=80)
@given(instances(max_n=7, max_m=7), st.sampled_from(DTYPES))
def test_free_savings_equals_naive(inst, dtype):
    if np.iinfo(dtype).max < inst.total_weight():
        dtype = dp_dtype(inst.total_weight())
    req, w, wmap, ws = _arrays(inst, dtype)
    sav = free_savings(req, inst.m, w, ws)
    assert inst.total_weight() - sav == naive_opt_free(inst.requests, wmap)


@settings(max_examples=8)
@given(st.integers(8, 9), st.integers(0, 2**32 - 1))
def test_free_savings_blocked_rows_equal_naive(m, seed):
    """m past the block size, so the SIMD rows run (naive twin still affordable)."""
    from mptsearch.families import random_instance

    inst = random_instance(9, m, (3, 6), weights=(1, 3), seed=seed)
    req, w, wmap, ws = _arrays(inst)
    assert m > low_bits(ws.M)
    assert inst.total_weight() - free_savings(req, m, w, ws) == naive_opt_free(inst.requests, wmap)


@settings(max_examples=80)
@given(instances(max_n=8, max_m=8))
def test_glob_table_equals_naive(inst):
    req, w, wmap, ws = _arrays(inst)
    chunk_sets(req, inst.m, inst.n, ws.S)
    value = glob_table(ws.S, w, inst.n, inst.m, ws.G, ws.classes, ws.ncls, ws.singles)
    assert value == naive_opt_glob(inst.requests, wmap)


@settings(max_examples=150)
@given(instances(max_n=7, max_m=10, max_weight=3, max_k=4))
def test_agglomerative_equals_naive(inst):
    """Small weights and requests: many ties, where the "first" rule decides."""
    req, w, wmap, ws = _arrays(inst)
    got = agglomerative_savings(req, inst.m, w, ws.sig, ws.act)
    assert got == naive_agglomerative_savings(inst.requests, wmap)


@settings(max_examples=80)
@given(instances(max_n=8, max_m=9))
def test_bounds_equal_naive(inst):
    req, w, wmap, ws = _arrays(inst)
    total = inst.total_weight()
    mst_lb = naive_mst_lower_bound(inst.requests, wmap)
    if inst.m > 1:
        assert total - mst_savings(req, inst.m, w, ws) == mst_lb
    tot, lb, agg = free_bounds(req, inst.m, w, ws)
    union = sum(wmap[x] for x in set().union(*inst.requests))
    assert tot == total
    assert lb == (max(mst_lb, union) if inst.m > 1 else total)
    assert agg == (naive_agglomerative_savings(inst.requests, wmap) if inst.m > 1 else 0)
    assert lb <= naive_opt_free(inst.requests, wmap) <= tot - agg


def test_twins_can_fail():
    """The twins are not vacuous: on 0123 14 2578 46 "first" saves 1 and the optimum 2."""
    reqs = [{0, 1, 2, 3}, {1, 4}, {2, 5, 7, 8}, {4, 6}]
    wmap = {x: 1 for x in range(9)}
    assert naive_agglomerative_savings(reqs, wmap) == 1
    total = sum(len(r) for r in reqs)
    assert total - naive_opt_free(reqs, wmap) == 2


def test_array_copies_equal_slice_assignment():
    """The loops kernels copy arrays with (no slice assignment: numba compiles that with a string
    formatting error path) do what the slice assignment and np.diff do, in every dtype the
    kernels pass, ranges at both ends included; off by one in a bound fails."""
    from mptsearch._kernels.arrays import copy_into, copy_rows, diffs

    rng = np.random.default_rng(0)
    for dtype in (np.int64, np.uint64, np.int32, np.bool_):
        src = rng.integers(0, 2, 9).astype(dtype) if dtype == np.bool_ else rng.integers(0, 1000, 9).astype(dtype)
        for d0, s0, n in ((0, 0, 9), (2, 1, 5), (0, 4, 5), (6, 0, 3), (3, 3, 0)):
            got, want = np.zeros(9, dtype), np.zeros(9, dtype)
            copy_into(got, d0, src, s0, n)
            want[d0:d0 + n] = src[s0:s0 + n]
            assert np.array_equal(got, want), (dtype, d0, s0, n)
    a = np.arange(10, dtype=np.int64) * 7  # one array, the source after the destination
    copy_into(a, 1, a, 5, 4)
    assert a.tolist() == [0, 35, 42, 49, 56, 35, 42, 49, 56, 63]
    src = rng.integers(0, 100, (6, 3)).astype(np.int64)
    for d0, s0, n in ((0, 0, 6), (1, 2, 4), (5, 0, 1)):
        got, want = np.full((7, 3), -1, np.int64), np.full((7, 3), -1, np.int64)
        copy_rows(got, d0, src, s0, n)
        want[d0:d0 + n] = src[s0:s0 + n]
        assert np.array_equal(got, want), (d0, s0, n)
    for x in (np.array([3, 5, 5, 9], np.int64), np.array([4], np.int64), np.array([], np.int64),
              np.array([0, 7, 2], np.int32)):
        assert diffs(x).tolist() == np.diff(x).tolist()
