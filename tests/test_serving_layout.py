"""Layout methods on traces: validity, ground-truth costs, bounds, online, pinning, peer, CLI."""

import os

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mptsearch.bounds import mst_lower_bound
from mptsearch.cli import main
from mptsearch.exact.free import opt_free
from mptsearch.exact.glob import opt_glob
from mptsearch.heuristics.agglomerative import agglomerative
from mptsearch.serving.layout import METHODS, global_order, layout_summary, method_orders
from mptsearch.serving.online import deepest_prefix, online_layout
from mptsearch.serving.peer import peer_distances, peer_hierarchy
from mptsearch.serving.trace import read_trace, sequences_cost, trace_from_lists
from mptsearch.trie import order_cost, trie_cost

from .strategies import instances

DATA = os.path.join(os.path.dirname(__file__), "data")
SMALL = os.path.join(DATA, "serving_small.jsonl")


def as_trace(inst):
    return trace_from_lists(list(range(inst.m)), [list(o) for o in inst.orders],
                            {x: int(w) for x, w in enumerate(inst.weights)})


@pytest.fixture(scope="module")
def small():
    return read_trace(SMALL)


def test_every_method_is_a_valid_layout_above_the_bound(small):
    s = layout_summary(small, METHODS, window=8)
    lb = mst_lower_bound(small.instance)
    assert s.lower_bound == lb
    for r in s.rows:
        orders = s.orders[r.method]
        assert [sorted(o) for o in orders] == [sorted(o) for o in small.lines]
        assert r.cost == sequences_cost(small.instance.weights, orders) >= lb
    by = {r.method: r.cost for r in s.rows}
    assert by["production"] == s.production
    assert by["agglomerative"] == agglomerative(small.instance).cost


@settings(max_examples=60)
@given(instances(max_n=7, max_m=8))
def test_trace_methods_on_random_instances(inst):
    tr = as_trace(inst)
    free = opt_free(inst).value
    for method in ("popularity", "global", "greedy", "agglomerative", "peer"):
        orders, _ = method_orders(tr, method)
        assert trie_cost(inst, orders) >= free
    order, exact, ncomp = global_order(inst)
    assert exact == ncomp  # every component is small here, so this is OPT_glob
    assert order_cost(inst, order) == opt_glob(inst).value


@settings(max_examples=60)
@given(instances(max_n=7, max_m=9), st.integers(1, 4))
def test_online_layout_is_valid_and_offline_at_full_window(inst, W):
    tr = as_trace(inst)
    lay = online_layout(tr.lines, inst.weights, W)
    assert [sorted(o) for o in lay] == [sorted(o) for o in tr.lines]
    full = online_layout(tr.lines, inst.weights, inst.m)
    offline, _ = method_orders(tr, "agglomerative")
    assert trie_cost(inst, full) == trie_cost(inst, offline.rows())


def test_online_places_each_arrival_at_its_deepest_prefix():
    w = np.array([1, 1, 5, 1, 1])
    trie = {0: {1: {}}, 2: {}}
    assert deepest_prefix(trie, {0, 1, 2}, w) == [2]  # heavier path wins
    assert deepest_prefix(trie, {0, 1, 3}, w) == [0, 1]
    assert deepest_prefix(trie, {3, 4}, w) == []
    # W=1: the second arrival reuses the first one's whole path
    lay = online_layout([(3, 0, 1), (1, 0, 4, 3)], w, 1)
    assert lay[0] == (0, 1, 3) and lay[1][:3] == (0, 1, 3)


@pytest.mark.parametrize("t", [0, 1, 2, 3])
def test_pinning_keeps_top_t_last(small, t):
    orders, _ = method_orders(small, "agglomerative", pin=t)
    for seq, line in zip(orders, small.lines):
        tt = min(t, len(line))
        assert sorted(seq) == sorted(line)
        assert seq[len(seq) - tt:] == line[:tt]
    if t == 0:
        assert orders.rows() == method_orders(small, "agglomerative")[0].rows()


def test_peer_distance_and_tree(small):
    inst = small.instance
    d = peer_distances(inst, alpha=0.0)
    i, j = 0, 1
    a, b = set(inst.orders[i]), set(inst.orders[j])
    assert d[i, j] == pytest.approx(1 - len(a & b) / max(len(a), len(b)))
    assert np.allclose(d, d.T) and np.all(np.diag(d) == 0)
    h = peer_hierarchy(inst)
    assert sorted(h.dfs_order()) == list(range(inst.m))


def test_cli_layout_and_simulate(tmp_path, capsys):
    out = tmp_path / "agg.jsonl"
    assert main(["layout", SMALL, "--method", "agglomerative", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "agglomerative" in text and "MST lower bound" in text and "total time" in text
    assert main(["simulate", SMALL, "--layout", str(out), "--capacity", "1x", "--schedule", "dfs"]) == 0
    assert "excess +0.00%" in capsys.readouterr().out
    assert main(["simulate", SMALL, "--capacity", "lots"]) == 2
    assert main(["layout", SMALL, "--method", "online", "--window", "8", "--pin", "1"]) == 0
    assert main(["layout", SMALL, "--method", "online"]) == 2  # an online method needs its window
    assert main(["layout", SMALL, "--pin", "-1"]) == 2
