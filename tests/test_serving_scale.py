"""Serving at scale (issue 28, point 6): the fast paths give the outputs of the slow ones.

Each fast path is checked against the code it replaced, kept as a slow twin: the dense
greedy (:func:`mptsearch.heuristics.greedy.greedy`), the Python LRU caches
(``tests/naive.py``), the line-by-line ``json`` reader and writer."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.heuristics.greedy import greedy
from mptsearch.serving.cache import SCHEDULES, simulate
from mptsearch.serving.layout import method_orders
from mptsearch.serving.sparse import Layout, sparse_from_lists
from mptsearch.serving.sparse_greedy import sparse_greedy
from mptsearch.serving.synthetic import retrieval_trace

from .naive import naive_simulate


def random_rows(rng, m, n, wmax):
    rows = [[f"c{x}" for x in rng.choice(n, int(rng.integers(1, n + 1)), replace=False)] for _ in range(m)]
    return rows, {f"c{x}": int(rng.integers(1, wmax + 1)) for x in range(n)}


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 12), st.sampled_from([1, 3, 1000]))
def test_sparse_greedy_gives_the_dense_greedys_orders(seed, m, n, wmax):
    # ties (unit or few weights) are where a different tie rule would show
    rows, tok = random_rows(np.random.default_rng(seed), m, n, wmax)
    tr = sparse_from_lists(rows, tok)
    dense = greedy(tr.to_instance()).layout
    assert sparse_greedy(tr).tolist() == [x for s in dense for x in s]


def test_sparse_greedy_on_a_retrieval_trace_and_per_line():
    ch, tok = retrieval_trace(1500, seed=3)
    tr = sparse_from_lists(ch, tok)
    dense = greedy(tr.to_instance()).layout
    lay, _ = method_orders(tr, "greedy")
    assert lay.rows() == [tuple(dense[r]) for r in tr.line_request.tolist()]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 25), st.integers(1, 7), st.sampled_from(SCHEDULES),
       st.sampled_from([1, 1, 2, 4, 16]), st.integers(1, 5), st.sampled_from([None, 0, 2]), st.integers(0, 4))
def test_compiled_simulation_serves_as_the_python_caches_do(seed, m, n, schedule, B, W, fcfs, capkind):
    # repeated lines, prefixes of other lines, capacities below, at and above the largest request
    rng = np.random.default_rng(seed)
    seqs = [tuple(int(x) for x in rng.choice(n, int(rng.integers(1, n + 1)), replace=False)) for _ in range(m)]
    w = rng.integers(1, 30, size=n)
    L = max(int(w[list(s)].sum()) for s in seqs)
    cap = [None, 0, L, 2 * L, int(rng.integers(0, 3 * L + 1))][capkind]
    if schedule == "dfs-weight":
        B = 1
    r = simulate(w, seqs, cap, schedule, W, block_size=B, lpm_fcfs_above=fcfs)
    assert (r.prefill, r.order) == naive_simulate(w, seqs, cap, schedule, W, block_size=B, lpm_fcfs_above=fcfs)


@pytest.mark.parametrize("schedule", SCHEDULES)
def test_compiled_simulation_on_a_retrieval_trace(schedule):
    ch, tok = retrieval_trace(400, seed=1)
    tr = sparse_from_lists(ch, tok)
    lay = Layout(tr.indptr, tr.chunks)
    seqs = lay.rows()
    L = max(int(tr.weights[list(s)].sum()) for s in seqs)
    for B in ((1,) if schedule == "dfs-weight" else (1, 16)):
        r = simulate(tr.weights, lay, 3 * L, schedule, 32, block_size=B, lpm_fcfs_above=20)
        assert (r.prefill, r.order) == naive_simulate(tr.weights, seqs, 3 * L, schedule, 32, block_size=B,
                                                      lpm_fcfs_above=20)
