"""docs/online.md: every proved row of the table, checked so that an off-by-one fails.

Unit weights throughout (the model of docs/online.md, Section 1). Exact OPT_free comes from
the O(3^m) DP, checked elsewhere against the brute force of tests/naive.py; trie costs from
:func:`mptsearch.serving.trace.sequences_cost`, re-derived here by a dictionary trie.
"""

import csv
import json
import shutil
from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np
import pytest

from mptsearch.exact.free import opt_free
from mptsearch.families import random_instance
from mptsearch.instance import from_lists
from mptsearch.families.online import (all_response_paths, caterpillar_bound, deterministic_lower_bound,
                                       drop_first_adversary, drop_first_gadget, online_family_summary,
                                       online_sliding, online_star, random_drop_min_expected,
                                       randomized_lower_bound, segment_bound)
from mptsearch.serving.cache import simulate
from mptsearch.serving.online import OnlineLayouter, online_layout

ROOT = Path(__file__).resolve().parent.parent


def trie_cost(seqs):
    """Unit-weight trie cost: nodes of the trie of the sequences (independent of the library)."""
    nodes = set()
    for s in seqs:
        for i in range(1, len(s) + 1):
            nodes.add(tuple(s[:i]))
    return len(nodes)


def ones(lines):
    return np.ones(1 + max(x for r in lines for x in r), dtype=np.int64)


# ---- Proposition 1: ALG <= sum |R_i| <= k m <= k OPT_free -----------------------------------

def test_trivial_upper_bound_on_random_arrival_sequences():
    rng = np.random.default_rng(7)
    worst = Fraction(0)
    for _ in range(30):
        n, m = int(rng.integers(4, 8)), int(rng.integers(2, 8))
        inst = random_instance(n, m, (1, 4), seed=int(rng.integers(1 << 30)))
        lines = [list(o) for o in inst.orders]
        k = max(map(len, lines))
        opt = opt_free(inst).value
        assert opt >= max(inst.m, inst.n)  # distinct end nodes; every chunk labels a node
        for W in (1, 2, 3, inst.m):
            c = trie_cost(online_layout(lines, inst.weights, W))
            assert c <= sum(map(len, lines)) <= k * opt
            worst = max(worst, Fraction(c, opt))
    assert worst < 4


# ---- Proposition 6: OnlineLayouter pays k m W on online-star, OPT_free = W (m + k - 1) ------------

@pytest.mark.parametrize("k,m,W", [(2, 3, 1), (3, 4, 1), (3, 2, 2), (2, 3, 3), (4, 2, 2), (2, 5, 2)])
def test_online_star_exact_costs(k, m, W):
    lines = online_star(k, m, W)
    assert len(lines) == m * W and all(len(r) == k for r in lines)
    c = trie_cost(online_layout(lines, ones(lines), W))
    assert c == k * m * W
    assert opt_free(from_lists(lines)).value == W * (m + k - 1)


@pytest.mark.parametrize("k,m,W", [(10, 200, 1), (10, 50, 16), (5, 40, 64)])
def test_online_star_large_and_the_core_first_layout(k, m, W):
    lines = online_star(k, m, W)
    assert trie_cost(online_layout(lines, ones(lines), W)) == k * m * W
    core_first = [sorted(r, reverse=True) for r in lines]  # the core has the larger ids
    assert trie_cost(core_first) == W * (m + k - 1) == 1 + max(max(r) for r in lines)
    ratio = Fraction(k * m, m + k - 1)
    assert ratio < k and k - ratio == Fraction(k * (k - 1), m + k - 1)


def test_online_star_limits():
    """docs/online.md, Proposition 6 and after: a short history, the class fed labels directly
    (ties by first appearance), or relabelling the core below the private chunks escapes the
    family (Proposition 6 is about the labelled function)."""
    k, m = 3, 6
    lines = online_star(k, m, 1)
    w = ones(lines)
    assert [trie_cost(online_layout(lines, w, 1, history=h)) for h in (1, 2, 3, None)] == [10, 12, 14, 18]
    lay, out = OnlineLayouter(window=1), {}
    for j, r in enumerate(lines):
        out.update(lay.add(r, id=j))
    out.update(lay.flush())
    assert trie_cost([out[j] for j in range(m)]) == 10
    core = sorted(set.intersection(*map(set, lines)))  # relabel: the core below the private chunks
    rank = {x: i for i, x in enumerate(core + sorted(set().union(*map(set, lines)) - set(core)))}
    relabelled = [[rank[x] for x in r] for r in lines]
    assert core == [6, 7] and trie_cost(online_layout(relabelled, w, 1)) == 8 == k + m - 1


def test_online_family_summary_and_cli(capsys):
    from mptsearch.cli import main

    res = online_family_summary("online-star", 3, 4, 2)
    assert (res["online_cost"], res["opt_free"], res["ratio"]) == (24, 12, 2.0)
    assert main(["family", "online-star", "--k", "3", "--length", "4", "--window", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["online_cost"] == data["claimed_online_cost"] == 24
    assert main(["family", "online-sliding", "--k", "3", "--length", "3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["online_cost"], data["opt_free"]) == (9, 6)


@pytest.mark.parametrize("build,k,m,W", [(online_sliding, 3, 3, 2), (online_sliding, 2, 4, 3), (online_star, 3, 3, 3)])
def test_interleaving_adds_costs_and_opt(build, k, m, W):
    """Lemma 2's accounting: W copies on disjoint chunks, interleaved, cost W times one copy."""
    one, many = build(k, m, 1), build(k, m, W)
    assert opt_free(from_lists(many)).value == W * opt_free(from_lists(one)).value
    assert trie_cost(online_layout(many, ones(many), W)) == W * trie_cost(online_layout(one, ones(one), 1))
    assert sorted(map(sorted, many))[:m] != [] and len({tuple(r) for r in many}) == m * W


# ---- Theorem 3: the drop-first adversary ------------------------------------------------------

@pytest.mark.parametrize("k,L,W", [(2, 3, 1), (3, 3, 1), (2, 4, 1), (2, 3, 2), (2, 2, 3), (3, 2, 2)])
def test_every_response_pays_k_per_request(k, L, W):
    """Every way of committing orders (so every deterministic window-W algorithm) against the
    interleaved drop-first adversary: the first chunks are all distinct, cost exactly k L W."""
    count = 0
    for reqs, orders in all_response_paths(k, L, W):
        count += 1
        assert [sorted(o) for o in orders] == [sorted(r) for r in reqs]
        assert len({o[0] for o in orders}) == len(orders)
        assert trie_cost(orders) == k * L * W
    assert count == (1 if k < 2 else {2: 2, 3: 6}[k]) ** (L * W)


@pytest.mark.parametrize("W", [1, 2, 3, 5])
def test_drop_first_against_online_layouter(W):
    k, L = 4, 6
    reqs, orders = drop_first_adversary(k, L, W, OnlineLayouter(window=W))
    assert trie_cost(orders) == k * L * W
    assert [sorted(r) for r in reqs] == online_sliding(k, L, W)  # it breaks ties oldest first


def test_drop_first_rejects_an_algorithm_that_ignores_the_window():
    from mptsearch.instance import InstanceError

    with pytest.raises(InstanceError, match="not committed"):
        drop_first_adversary(3, 3, 1, OnlineLayouter(window=2))


def _all_choice_gadgets(k, L):
    """Every drop-first gadget of length L, over all k^(L-1) choice sequences (no symmetry)."""
    for pos in product(range(k), repeat=L - 1):
        firsts, req = [], list(range(k))
        for j, p in enumerate(pos):
            f = sorted(req)[p]
            firsts.append(f)
            req = [x for x in req if x != f] + [k + j]
        yield drop_first_gadget(k, firsts)


@pytest.mark.parametrize("k,L", [(2, 5), (3, 4), (3, 5), (4, 4)])
def test_lemma4_bounds_hold_for_every_choice_and_the_exhaustive_max(k, L):
    from experiments.online import drop_first_exact

    vals = [opt_free(from_lists(g)).value for g in _all_choice_gadgets(k, L)]
    assert max(vals) <= min(caterpillar_bound(k, L), segment_bound(k, L))
    mx, _, _ = drop_first_exact(k, L)  # the symmetry-reduced enumeration finds the same maximum
    assert mx == max(vals)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_caterpillar_bound_is_attained_at_L_2_and_3(k):
    from experiments.online import drop_first_exact

    assert caterpillar_bound(k, 2) == k + 1 == drop_first_exact(k, 2)[0]
    assert caterpillar_bound(k, 3) == k + 3 == drop_first_exact(k, 3)[0]


def _halving_t(L, a, b, lo=1, hi=None):
    """Maximal nodes inside [a, b] of the recursive halving tree over 1..L (Lemma 3b)."""
    hi = L if hi is None else hi
    if a <= lo and hi <= b:
        return 1
    if hi < a or lo > b or lo == hi:
        return 0
    half = (hi - lo + 2) // 2  # the left child has ceil(len/2) leaves
    return _halving_t(L, a, b, lo, lo + half - 1) + _halving_t(L, a, b, lo + half, hi)


def test_lemma3b_interval_claim_on_every_interval():
    from math import ceil, log2

    worst = {}
    for L in range(2, 41):
        worst[L] = max(_halving_t(L, a, b) for a in range(1, L + 1) for b in range(a, L + 1) if (a, b) != (1, L))
        assert worst[L] <= 2 * ceil(log2(L))
        assert _halving_t(L, 1, L) == 1
    assert (worst[8], worst[9], worst[32], worst[33]) == (4, 5, 8, 9)  # the lemma is not tight


def test_segment_bound_formula():
    assert segment_bound(5, 2) == 6 * 2 and segment_bound(5, 5) == 9 * 5 and segment_bound(5, 9) == 13 * 8


def test_deterministic_lower_bound_values():
    assert deterministic_lower_bound(2)[:2] == (Fraction(4, 3), 2)
    assert deterministic_lower_bound(10)[:2] == (Fraction(5, 2), 4)
    r, L, via = deterministic_lower_bound(1000)
    assert via == "segment" and r > 1000 / (4 * 10)


def _max_over_all_lengths(k):
    """Largest k L / bound over every L >= 2, per bound. The caterpillar's ratio
    L / (L - (k-1)/2) decreases for L >= k + 1; bound (b)'s k L / ((k+L-1) 2c) increases in L
    at fixed c = ceil(log2 L) >= 3 and is below k / (2c), so L <= 64 and powers of two suffice."""
    cat = max(Fraction(k * L, caterpillar_bound(k, L)) for L in range(2, k + 3))
    lengths = sorted(set(range(2, 65)) | {2 ** c for c in range(1, 31)})
    seg = max((Fraction(k * L, segment_bound(k, L)), L) for L in lengths)
    assert Fraction(k, 2 * 31) < seg[0]  # the tail beyond 2^30 cannot win
    return cat, seg


def test_segment_bound_overtakes_the_caterpillar_at_k_343():
    assert all(_max_over_all_lengths(k)[0] >= _max_over_all_lengths(k)[1][0] for k in (2, 10, 128, 342))
    cat, (seg, _) = _max_over_all_lengths(343)
    assert seg > cat
    assert _max_over_all_lengths(1000)[1] == (Fraction(4096000, 119483), 8192)
    assert deterministic_lower_bound(1000)[:2] == (Fraction(508000, 15189), 4064)  # L <= 4k + 64 only
    assert deterministic_lower_bound(385)[2] == "caterpillar" and deterministic_lower_bound(386)[2] == "segment"


def test_committed_exhaustive_table_matches_a_recomputation():
    from experiments.online import drop_first_exact

    rows = {(int(r["k"]), int(r["L"])): r for r in csv.DictReader(open(ROOT / "results/online/drop_first.csv"))}
    for k, L in [(2, 4), (4, 4), (5, 4), (10, 4), (10, 5)]:
        mx = drop_first_exact(k, L)[0]
        assert int(rows[(k, L)]["max_opt_free"]) == mx
        assert Fraction(rows[(k, L)]["ratio"]) == Fraction(k * L, mx)
    assert Fraction(rows[(10, 4)]["ratio"]) == Fraction(8, 3)


def test_example4p_filler_every_response():
    """Example 4': R_1 = {a, b}, filler R_2 = {c}, R_3 = R_1 - first(s_1) + {x} at W = 2 (s_1 is
    committed before R_3 is revealed). Every response pays 5; OPT_free = 4 (exact DP)."""
    a, b, c, x = 0, 1, 2, 3
    costs, opts = [], set()
    for s1 in ((a, b), (b, a)):  # the algorithm's order of R_1 (it has seen R_1, R_2)
        r3 = [s1[1], x]  # the adversary drops s_1's first chunk
        opts.add(opt_free(from_lists([[a, b], [c], r3])).value)
        for s3 in (tuple(r3), tuple(reversed(r3))):  # every order of R_3
            costs.append(trie_cost([s1, (c,), s3]))
    assert costs == [5, 5, 5, 5] and opts == {4}
    assert trie_cost([(b, a), (c,), (b, x)]) == 4  # the offline layout: b first


# ---- Theorem R (docs/online.md): randomised algorithms ----------------------------------------

@pytest.mark.parametrize("k", [2, 3, 4])
def test_random_drop_least_expected_cost(k):
    e = random_drop_min_expected(k, trie_cost)
    assert e == Fraction(3 * k + 1, 2)
    assert e / (k + 1) == randomized_lower_bound(k)


def test_random_drop_chains_expectimin():
    from mptsearch.families.online import random_drop_value

    assert random_drop_value(2, 2) == (Fraction(7, 2), Fraction(3))  # Theorem R's gadget
    assert random_drop_value(3, 2) == (Fraction(5), Fraction(4))
    assert random_drop_value(2, 4) == (Fraction(13, 2), Fraction(23, 4))
    assert random_drop_value(3, 3) == (Fraction(7), Fraction(17, 3))
    assert random_drop_value(3, 4) == (Fraction(9), Fraction(64, 9))  # 81/64 > Theorem R's 5/4


def test_committed_random_drop_table():
    rows = {(int(r["k"]), int(r["L"])): r for r in csv.DictReader(open(ROOT / "results/online/random_drop.csv"))}
    assert Fraction(rows[(3, 4)]["ratio"]) == Fraction(81, 64)
    assert Fraction(rows[(4, 3)]["ratio"]) == Fraction(4, 3)
    assert Fraction(rows[(2, 2)]["ratio"]) == randomized_lower_bound(2)


# ---- Proposition 8 and Example 9: the window schedule at capacity >= 1x -----------------------

def test_prop8_block_bound_and_theorem7_on_random_layouts():
    rng = np.random.default_rng(11)
    for _ in range(80):
        n, m = int(rng.integers(3, 7)), int(rng.integers(2, 10))
        seqs = [tuple(int(x) for x in rng.permutation(n)[:rng.integers(1, n + 1)]) for _ in range(m)]
        w = rng.integers(1, 5, size=n).astype(np.int64)
        cap = max(int(w[list(s)].sum()) for s in seqs)

        def wt(ss):  # weighted trie cost: each distinct prefix pays its last chunk's weight
            return sum(int(w[p[-1]]) for p in {q[:i] for q in ss for i in range(1, len(q) + 1)})

        for W in (1, 2, 3, m):
            r = simulate(w, list(seqs), cap, "window", W)
            blocks = sum(wt(seqs[i:i + W]) for i in range(0, m, W))
            assert wt(seqs) <= r.prefill <= blocks
            if W == m:
                assert r.prefill == wt(seqs)


def test_example9_larger_window_costs_more():
    seqs = [(2, 1), (1, 0), (1,)]
    w = np.ones(3, dtype=np.int64)
    assert trie_cost(seqs) == 4
    assert simulate(w, seqs, 2, "window", 1).prefill == 4
    assert simulate(w, seqs, 2, "window", 2).prefill == 5
    assert simulate(w, seqs, 2, "window", 3).prefill == 4


# ---- the plot script reads search.json when present ---------------------------------------

def test_search_json_is_read_when_present_and_skipped_when_absent(tmp_path, capsys):
    from experiments.online_plots import load_search

    assert load_search(tmp_path / "search.json") is None
    assert "not found" in capsys.readouterr().out
    (tmp_path / "search.json").write_text(json.dumps({"rows": [{"window": 2, "k": 3, "ratio_float": 1.2}]}))
    assert load_search(tmp_path / "search.json")[0]["window"] == 2


@pytest.mark.slow
def test_plot_reads_search_json_and_skips_it_when_absent(tmp_path, capsys):
    from experiments.online_plots import load_search, plot

    for f in ("bounds.csv", "trace_ratio.csv"):
        shutil.copy(ROOT / "results" / "online" / f, tmp_path / f)
    assert load_search(tmp_path / "search.json") is None
    assert "not found" in capsys.readouterr().out
    rows = [{"window": W, "k": 3, "n": 6, "m": 8, "ratio": "3/2", "ratio_float": 1.5 + 0.01 * W,
             "online_cost": 15, "opt_free": 10, "requests": [[0, 1, 2]], "certified": True, "command": "x"}
            for W in (1, 2, 4)]
    (tmp_path / "search.json").write_text(json.dumps(rows))
    assert [r["window"] for r in load_search(tmp_path / "search.json")] == [1, 2, 4]
    out = plot(tmp_path)
    assert out.exists() and out.stat().st_size > 10000
    (tmp_path / "search.json").unlink()
    assert plot(tmp_path).exists()
