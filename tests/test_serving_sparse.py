"""The sparse trace model at scale: parsing, the sparse MST bound, the nearest-neighbour-chain
agglomerative against the small exact heuristic, memory refusals, bad lines in large traces."""

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.bounds import mst_lower_bound
from mptsearch.cli import main
from mptsearch.exact.free import opt_free
from mptsearch.heuristics.agglomerative import agglomerative
from mptsearch.instance import InstanceError
from mptsearch.serving.layout import layout_summary, method_orders
from mptsearch.serving.memory import MemoryRefusal, parse_size
from mptsearch.serving.sparse import mst_bound, orders_cost, parse_sparse, sparse_from_lists
from mptsearch.serving.sparse_agglomerative import sparse_agglomerative
from mptsearch.serving.synthetic import retrieval_trace, write_jsonl
from mptsearch.serving.trace import parse_trace, sequences_cost
from mptsearch.trie import trie_cost

DATA = os.path.join(os.path.dirname(__file__), "data")
SMALL = os.path.join(DATA, "serving_small.jsonl")


def random_trace(rng, distinct_sums: bool):
    n = int(rng.integers(3, 14))
    m = int(rng.integers(1, 25))
    reqs = [[int(x) for x in rng.choice(n, size=int(rng.integers(1, min(n, 6) + 1)), replace=False)]
            for _ in range(m)]
    # powers of two: every set of chunks has its own weight, so the greedy has no ties
    # between different intersections and its savings do not depend on tie-breaking
    w = {x: (2 ** x if distinct_sums else int(rng.integers(1, 5))) for x in range(n)}
    return sparse_from_lists(reqs, w)


@pytest.mark.parametrize("seed", range(4))
def test_nn_chain_equals_the_greedy_heuristic_without_ties(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        tr = random_trace(rng, True)
        inst = tr.to_instance()
        a = agglomerative(inst)
        for cap in (1 << 30, 3):
            s = sparse_agglomerative(tr, cap)
            lay = [tuple(s.order[s.indptr[i]:s.indptr[i + 1]].tolist()) for i in range(tr.m)]
            assert sorted(map(sorted, lay)) == sorted(map(sorted, inst.orders))
            if s.exact:  # no search was cut: the greedy's merges, so its savings and layout
                assert s.savings == a.savings
                assert trie_cost(inst, lay) == a.cost
            assert orders_cost(tr.weights, s.indptr, s.order) == trie_cost(inst, lay)


@pytest.mark.parametrize("every_opt", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_cut_searches_are_counted_and_stay_valid(every_opt):
    # trie_cost validates the layout (each row a permutation of its request), which is what a cut
    # search could break; OPT_free, a sanity floor on top, is solved by default only for the traces
    # of at most 16 requests (three of the 40 cost 90% of the DP), for all with -m slow
    rng = np.random.default_rng(9)
    cut = 0
    for _ in range(40):
        tr = random_trace(rng, False)
        inst = tr.to_instance()
        s = sparse_agglomerative(tr, cap=1)
        cut += s.truncated
        lay = [tuple(s.order[s.indptr[i]:s.indptr[i + 1]].tolist()) for i in range(tr.m)]
        cost = trie_cost(inst, lay)
        assert orders_cost(tr.weights, s.indptr, s.order) == cost
        if every_opt or inst.m <= 16:
            assert cost >= opt_free(inst).value
    assert cut > 0


@settings(max_examples=60)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0, 1, 5, 10**9]))
def test_sparse_mst_bound_is_the_dense_one_or_a_valid_relaxation(seed, budget):
    rng = np.random.default_rng(seed)
    tr = random_trace(rng, False)
    inst = tr.to_instance()
    b = mst_bound(tr, edge_budget=budget, partner_cap=2)
    dense = mst_lower_bound(inst)
    assert b.value <= dense
    if b.exact:
        assert b.value == dense
    if budget == 10**9:
        assert b.exact


def test_parse_matches_the_small_reader():
    with open(SMALL) as fh:
        text = fh.readlines()
    tr = parse_sparse(text)
    old = parse_trace(text)
    assert tr.labels == old.instance.labels
    assert [tuple(tr.line(j).tolist()) for j in range(tr.size)] == [tuple(s) for s in old.lines]
    assert tr.m == old.instance.m and tr.production_cost() == sequences_cost(old.instance.weights, old.lines)
    assert tr.tokens() == old.tokens()


def test_duplicates_merge_and_line_request_maps_back():
    tr = sparse_from_lists([["a", "b"], ["b", "a"], ["c"], ["a", "b"]], {"a": 3, "b": 4, "c": 5})
    assert tr.size == 4 and tr.m == 2
    assert tr.line_request.tolist() == [0, 0, 1, 0]


@pytest.fixture(scope="module")
def big_trace_lines(tmp_path_factory):
    """The lines of a 2,001-request trace (350 kB) whose first request is ["a"] with 2 tokens.

    The readers have no branch that needs more: a trace of 20,001 requests (3.6 MB) also fit
    in one batch of the fast readers (8 MiB) and in the line parser's 65,536-line progress
    step; the bad line still sits in the middle, after a thousand good lines."""
    chunks, tokens = retrieval_trace(2_000, seed=3)
    tokens["a"] = 2
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    write_jsonl(str(path), [["a"]] + chunks, tokens)
    return tuple(path.read_text().splitlines())


@pytest.mark.parametrize("bad,msg", [
    ('{"chunks": ["a"], "tokens": [1]', "malformed JSON"),
    ('{"chunks": ["a", "a"], "tokens": [1, 1]}', "appears twice"),
    ('{"chunks": ["a"], "tokens": [0]}', "not a positive integer"),
    ('{"chunks": ["a"], "tokens": [7]}', "has 7 tokens but line 1 gave it"),
    ('{"chunks": [1], "tokens": [1]}', "mix integers and strings"),
    ('{"chunks": [], "tokens": []}', "nonempty list"),
])
def test_malformed_line_in_a_large_trace_names_it_and_writes_nothing(tmp_path, capsys, big_trace_lines, bad, msg):
    lines = list(big_trace_lines)
    lines[1_001] = bad
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "orders.jsonl"
    assert main(["layout", str(path), "--method", "agglomerative", "-o", str(out)]) == 2
    # one line of error (after the compile note of a first run on an empty cache, if any)
    err = [ln for ln in capsys.readouterr().err.strip().splitlines() if "compiling kernels" not in ln]
    assert len(err) == 1 and "line 1002" in err[0] and msg in err[0]
    assert not out.exists() and not any(p.name.startswith(".orders") for p in tmp_path.iterdir())


def test_peer_refuses_past_memory_with_the_size_it_handles(monkeypatch, capsys):
    monkeypatch.setenv("MPTSEARCH_MEMORY", "1M")
    chunks, tokens = retrieval_trace(2000, seed=1)
    tr = sparse_from_lists(chunks, tokens)
    with pytest.raises(MemoryRefusal, match=r"peer needs about .* handles up to about \d+ requests"):
        method_orders(tr, "peer")
    # 'all' keeps going and says which method was refused
    s = layout_summary(tr, ["production", "peer"], refuse_ok=True, bound=False)
    assert s.rows[1].cost == -1 and "refused" in s.rows[1].note
    monkeypatch.delenv("MPTSEARCH_MEMORY")
    assert main(["layout", SMALL, "--method", "peer", "--max-memory", "1K"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mptsearch: error:") and "GiB" not in err.split("needs")[0]


def test_parse_size():
    assert parse_size("4G") == 4 * 2**30 and parse_size("512M") == 512 * 2**20 and parse_size("100") == 100
    with pytest.raises(InstanceError):
        parse_size("lots")


def test_layout_out_has_serving_ranks_in_trie_dfs_order(tmp_path):
    out = tmp_path / "o.jsonl"
    assert main(["layout", SMALL, "--method", "agglomerative", "-o", str(out), "--json", "-q"]) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["serve"] for r in recs) == list(range(len(recs)))
    by_rank = sorted(recs, key=lambda r: r["serve"])
    # DFS order of the trie = lexicographic order of the chunk sequences (chunk ids = sorted labels)
    labels = sorted({c for r in recs for c in r["chunks"]})
    ids = [[labels.index(c) for c in r["chunks"]] for r in by_rank]
    assert ids == sorted(ids)


def test_stdin_and_json(capsys, monkeypatch):
    import io
    import sys

    with open(SMALL) as fh:
        monkeypatch.setattr(sys, "stdin", io.StringIO(fh.read()))
    assert main(["layout", "-", "--method", "popularity", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["requests"] == 60 and doc["methods"][0]["method"] == "popularity"


@pytest.mark.slow
def test_scale_100k_is_near_linear_and_bounded():
    import time

    from mptsearch.serving.sparse import read_sparse  # noqa: F401

    times = {}
    for M in (10_000, 100_000):
        chunks, tokens = retrieval_trace(M, seed=0)
        tr = sparse_from_lists(chunks, tokens)
        t0 = time.process_time()
        sparse_agglomerative(tr)
        times[M] = time.process_time() - t0
    assert times[100_000] < 30 * times[10_000] + 5


def test_sort_rows_sorts_every_row_short_and_long():
    """Rows on both sides of SHELL_FROM and of the lengths where the gap sequence grows (40,
    121, ...), long reversed and shuffled rows, repeated values: each row comes back as numpy
    sorts it, the input untouched."""
    from mptsearch.serving._sparse_kernels import sort_rows

    rng = np.random.default_rng(5)
    rows = [rng.integers(0, 50, size=L) for L in (0, 1, 2, 3, 5, 13, 40, 63, 64, 65, 120, 121, 122, 363, 364, 500)]
    rows += [np.arange(5000)[::-1].copy(), rng.permutation(3001)]
    for dtype in (np.int32, np.int64):
        seq = np.concatenate(rows).astype(dtype)
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum([len(r) for r in rows], out=indptr[1:])
        before = seq.copy()
        out = sort_rows(indptr, seq)
        assert np.array_equal(seq, before) and out.dtype == seq.dtype
        for i, r in enumerate(rows):
            assert np.array_equal(out[indptr[i]:indptr[i + 1]], np.sort(r.astype(dtype))), i
