"""Blends on the serving side: ``layout --blend`` and ``simulate --blend``
(mptsearch/blend/cache.py, docs/beyond_prefix.md section 8): the finite-cache replay against
its twin in tests/naive.py, against the unbounded pricing of a layout, evicted copies
recomputed fully, and bad values one line with exit 2."""

import json
import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.blend.cache import simulate_blend
from mptsearch.blend.model import BlendParams
from mptsearch.blend.trace import blend_trace, price_rows
from mptsearch.cli import main
from mptsearch.serving.cache import SCHEDULES, simulate

from .naive import naive_blend_serving
from .strategies import served

SMALL = os.path.join(os.path.dirname(__file__), "data", "serving_small.jsonl")
PARAMS = [BlendParams(0.15, 0.0), BlendParams(0.15, 0.05, 1.0), BlendParams(0.3, 0.1, 0.5), BlendParams(1.0, 0.0)]


@settings(max_examples=80, deadline=None)
@given(served(max_n=6, max_m=8), st.sampled_from(SCHEDULES), st.integers(1, 4), st.sampled_from(PARAMS))
def test_replay_matches_naive_twin_and_the_simulator(case, schedule, window, p):
    inst, seqs, cap = case
    w = inst.weights
    sim = simulate(w, seqs, cap, schedule, window)
    b = simulate_blend(w, seqs, sim.order, cap, p)
    assert b.prefill == sim.prefill  # the prefix-only replay is the simulator's serving
    cost, loss, blended = naive_blend_serving(w, seqs, sim.order, cap, p.r, p.price, p.beta)
    assert (b.cost, b.loss, b.blended) == (pytest.approx(cost), pytest.approx(loss), blended)
    assert b.cost <= b.prefill + 1e-9
    assert b.no_copy + b.blended <= b.computed


@pytest.mark.parametrize("p", PARAMS)
def test_unbounded_arrival_equals_the_layout_pricing(p):
    from mptsearch.serving.layout import method_orders
    from mptsearch.serving.sparse import read_sparse

    tr = read_sparse(SMALL)
    lay, _ = method_orders(tr, "agglomerative")
    rows = lay.rows()
    b = simulate_blend(tr.weights, rows, range(len(rows)), None, p)
    want = price_rows(tr.weights, rows, p)
    assert b.cost == pytest.approx(want["cost"], abs=1e-3) and b.loss == pytest.approx(want["loss"], abs=1e-3)
    assert b.prefill == want["prefix_cost"] and b.evicted_copy == 0


def test_an_evicted_copy_is_recomputed_fully():
    # chunks of 10 tokens; capacity 20. (0 1) caches 0 and 0>1; (2) pushes 0>1 out (LRU, deepest
    # first); (1) finds no cached copy of chunk 1: full (10), where an unbounded cache blends (1.5)
    w = np.array([10, 10, 10])
    seqs = [(0, 1), (2,), (1,)]
    p = BlendParams(0.15, 0.0)
    finite = simulate_blend(w, seqs, [0, 1, 2], 20, p)
    assert (finite.cost, finite.blended, finite.evicted_copy, finite.evicted_copy_tokens) == (40, 0, 1, 10)
    unbounded = simulate_blend(w, seqs, [0, 1, 2], None, p)
    assert unbounded.cost == pytest.approx(31.5) and unbounded.blended == 1 and unbounded.evicted_copy == 0
    # nothing cached at all: every node full, nothing blended
    zero = simulate_blend(w, seqs, [0, 1, 2], 0, p)
    assert zero.cost == 40 and zero.loss == 0 and zero.evicted_copy == 1


def test_a_blended_node_is_never_a_copy():
    # (2 1) blends chunk 1 from 0>1 (contexts {0}, {2}: d = 2); (2 3 1)'s node of chunk 1 must use
    # the full copy 0>1 again (d = 3), not the blended 2>1 (d = 1)
    w = np.array([4, 4, 4, 4])
    seqs = [(0, 1), (2, 1), (2, 3, 1)]
    p = BlendParams(0.1, 0.01, 1.0)
    b = simulate_blend(w, seqs, [0, 1, 2], None, p)
    assert b.blended == 2 and b.loss == pytest.approx(4 * 3 + 4 * 4)


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("cmd", ["layout", "simulate"])
@pytest.mark.parametrize("spec, words", [
    ("1.5", "recompute fraction r must lie in [0, 1], got 1.5"),
    ("0.1,-1", "loss price lambda must be >= 0, got -1.0"),
    ("0.1,0,-2", "mismatch coefficient beta must be >= 0"),
    ("x", "--blend takes r[,price[,beta]] as numbers"),
    ("0.1,0,0,4", "--blend takes r[,price[,beta]]"),
    ("nan", "r must be a finite number"),
])
def test_wrong_blend_values_are_one_line_and_exit_2(cmd, spec, words, capsys):
    code, out, err = run([cmd, SMALL, "--blend", spec], capsys)
    assert code == 2 and out == ""
    lines = [ln for ln in err.splitlines() if "compiling kernels" not in ln]
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("mptsearch: error:")


def test_simulate_blend_refuses_block_caches(capsys):
    code, out, err = run(["simulate", SMALL, "--blend", "0.15", "--block-size", "16"], capsys)
    assert code == 2 and "token-level cache only" in err


def test_layout_blend_json_prices_every_method(capsys):
    code, out, _ = run(["layout", SMALL, "--blend", "0.15,0.05,1", "--no-bound", "--json", "-q"], capsys)
    assert code == 0
    d = json.loads(out)["blend"]
    assert set(d) >= {"production", "agglomerative"}
    from mptsearch.serving.sparse import read_sparse

    want = blend_trace(read_sparse(SMALL), "agglomerative", BlendParams(0.15, 0.05, 1.0))
    for key in ("cost", "loss", "objective", "prefix_cost", "tokens"):
        assert d["agglomerative"][key] == want[key]


def test_simulate_blend_json(tmp_path, capsys):
    lay = tmp_path / "agg.jsonl"
    assert run(["layout", SMALL, "--method", "agglomerative", "--no-bound", "-q", "-o", str(lay)], capsys)[0] == 0
    code, out, _ = run(["simulate", SMALL, "--layout", str(lay), "--capacity", "1x", "--blend", "0.15,0.05,1",
                        "--json"], capsys)
    assert code == 0
    d = json.loads(out)
    b = d["blend"]
    assert b["match"] and b["prefill"] == d["prefill"] and b["cost"] < d["prefill"]
    assert b["evicted_copy"] > 0 and b["parameters"] == {"r": 0.15, "lambda": 0.05, "beta": 1.0}
