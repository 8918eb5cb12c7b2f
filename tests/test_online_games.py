"""docs/online.md, Theorems N, RN, 3c and Section 9: the nested chain, its random twin, the cap
on the drop-first adversary and the exhaustive games. Each test fails when its bound is off by one.

Trie costs are recomputed here by a dictionary trie; OPT_free comes from the exact DP, checked
elsewhere against tests/naive.py.
"""

import csv
from fractions import Fraction
from functools import lru_cache
from itertools import permutations, product
from math import factorial, prod
from pathlib import Path

import pytest

from mptsearch.exact.free import opt_free
from mptsearch.families import min_external_path_length
from mptsearch.instance import from_lists
from mptsearch.online.games import (adversary_forces, drop_first_cap, game_value, greedy_oldest, nested_chain_adversary,
                                    nested_chain_responses, nested_lower_bound, random_nested_lower_bound,
                                    random_nested_value, sliding_opt_free, sliding_opt_free_lower, worst_ratio)
from mptsearch.serving.online import OnlineLayouter

from .test_online_theory import trie_cost

ROOT = Path(__file__).resolve().parent.parent


@lru_cache(maxsize=None)
def _opt(key):
    return opt_free(from_lists([list(r) for r in key])).value


def opt(reqs):
    return _opt(tuple(tuple(sorted(r)) for r in reqs))


# ---- Theorem N: the nested chain --------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_nested_chain_every_response_pays_k_k1_over_2(k):
    """Every W = 1 response: cost exactly k(k+1)/2, OPT_free exactly k, ratio (k+1)/2."""
    count, sets = 0, set()
    for reqs, orders in nested_chain_responses(k):
        count += 1
        assert [len(r) for r in reqs] == list(range(k, 0, -1))
        assert len({o[0] for o in orders}) == k  # the first chunks are distinct (Fact A)
        assert trie_cost(orders) == k * (k + 1) // 2
        sets.add(tuple(map(tuple, reqs)))
    assert count == prod(factorial(j) for j in range(1, k + 1))
    for reqs in sets if k <= 3 else list(sets)[:50]:
        assert opt(reqs) == k  # a chain: n = k chunks (Fact B) and one path
    assert Fraction(k * (k + 1) // 2, k) == nested_lower_bound(k)


def _interleaved_responses(k, W):
    """Every response of a window-W algorithm to W interleaved nested chains: at position
    s W + g the request of chain g is its previous one minus the committed first chunk."""
    positions = k * W
    choices = [range(factorial(k - s)) for s in range(k) for _ in range(W)]
    for pick in product(*choices):
        cur = [[g * k + x for x in range(k)] for g in range(W)]
        reqs, orders = [], []
        for p in range(positions):
            s, g = divmod(p, W)
            if s:
                cur[g] = [x for x in cur[g] if x != orders[p - W][0]]
            reqs.append(sorted(cur[g]))
            orders.append(list(permutations(sorted(cur[g])))[pick[p]])
        yield reqs, orders


@pytest.mark.parametrize("k,W", [(2, 2), (2, 3), (3, 2)])
def test_interleaved_nested_chains_every_response(k, W):
    """Lemma 2 with the nested chain: every window-W response pays W k(k+1)/2, OPT_free = W k."""
    seen = 0
    for reqs, orders in _interleaved_responses(k, W):
        seen += 1
        assert trie_cost(orders) == W * k * (k + 1) // 2
        if seen <= 8:
            assert opt(reqs) == W * k
    assert seen == prod(factorial(j) for j in range(1, k + 1)) ** W


@pytest.mark.parametrize("W", [1, 2, 3, 5])
def test_nested_chain_against_online_layouter(W):
    k = 4
    reqs, orders = nested_chain_adversary(k, W, OnlineLayouter(window=W))
    assert [len(r) for r in reqs] == [k - s for s in range(k) for _ in range(W)]
    assert trie_cost(orders) == W * k * (k + 1) // 2
    if W <= 3:
        assert opt(reqs) == W * k


def test_nested_chain_rejects_an_algorithm_that_ignores_the_window():
    from mptsearch.instance import InstanceError

    with pytest.raises(InstanceError, match="not committed"):
        nested_chain_adversary(3, 1, OnlineLayouter(window=2))


# ---- Theorem RN: the random nested chain ----------------------------------------------------------

def _naive_expectimin(k):
    """Least expected cost over every deterministic W = 1 algorithm, by expectimin over whole
    histories (the full trie, no renaming, no state reduction): independent of the library."""
    def best(nodes, req):
        out = None
        for order in permutations(req):
            pre = [order[:i] for i in range(1, len(order) + 1)]
            here = Fraction(len([p for p in pre if p not in nodes]))
            if len(req) > 1:
                nxt = nodes | set(pre)
                here += sum(best(nxt, tuple(x for x in req if x != u)) for u in req) / Fraction(len(req))
            out = here if out is None or here < out else out
        return out
    return best(frozenset(), tuple(range(k)))


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_random_nested_expectimin_is_k_k3_over_4(k):
    v = random_nested_value(k)
    assert v == Fraction(k * (k + 3), 4)
    assert v / k == random_nested_lower_bound(k) == [1, Fraction(5, 4), Fraction(3, 2), Fraction(7, 4), 2][k - 1]
    if k <= 3:
        assert _naive_expectimin(k) == v


@pytest.mark.parametrize("k", [2, 3, 4])
def test_chain_following_attains_k_k3_over_4_and_opt_is_k(k):
    """The algorithm 'keep the previous order minus the dropped chunk' pays k(k+3)/4 in
    expectation (every removal order equally likely); every outcome has OPT_free = k."""
    total = Fraction(0)
    outcomes = list(permutations(range(k)))  # removal order: u_1, u_2, ...; the last one stays
    for rem in outcomes:
        order, orders = list(range(k)), []
        for u in rem:
            orders.append(list(order))
            order = [x for x in order if x != u]
        total += trie_cost(orders)
        assert opt([sorted(o) for o in orders]) == k
    assert total / len(outcomes) == Fraction(k * (k + 3), 4)


def _step_drop(U, r):
    """|U| - E|U_u| for u uniform over the r symbols, U_u = the nodes of U avoiding u (computed
    directly, not by the depth formula)."""
    return Fraction(sum(len(U) - sum(1 for v in U if u not in v) for u in range(r)), r)


def test_potential_step_inequality():
    """The step of Theorem RN: for every trie U over r symbols containing a full path,
    |U| - E|U_u| = sum over nodes of depth / r >= (r+1)/2, with equality exactly for the path
    alone; every other U gives at least (r+1)/2 + 1/r (one more root), attained. Exhaustive over
    every prefix-closed U at r <= 3, 400 random ones at r = 4."""
    import random

    rng = random.Random(4)
    for r in (1, 2, 3, 4):
        path = tuple(range(r))
        base = {path[:i] for i in range(1, r + 1)}
        others = sorted({p[:i] for p in permutations(range(r)) for i in range(1, r + 1)} - base)
        if r <= 3:
            picks = [[x for b, x in enumerate(others) if mask >> b & 1] for mask in range(1 << len(others))]
        else:
            picks = []                                     # prefix closures of random sequences
            for _ in range(400):
                seqs = [rng.sample(range(r), rng.randint(1, r)) for _ in range(rng.randint(1, 5))]
                picks.append([tuple(q[:i]) for q in seqs for i in range(1, len(q) + 1)])
            picks.append([(1,)])
        seen_next = False
        for pick in picks:
            U = base | set(pick)
            if any(v[:-1] and v[:-1] not in U for v in U):
                continue                                   # not prefix-closed: not a trie
            drop = _step_drop(U, r)
            assert drop == sum(Fraction(len(v), r) for v in U)
            if U == base:
                assert drop == Fraction(r + 1, 2)
            else:
                assert drop >= Fraction(r + 1, 2) + Fraction(1, r)
                seen_next |= drop == Fraction(r + 1, 2) + Fraction(1, r)
        assert seen_next or r == 1


# ---- Theorem 3c: FIFO against drop-first (the sliding family) --------------------------------------

@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_sliding_opt_free_formula_against_the_dp(k):
    for L in range(1, k + 2):
        reqs = [list(range(j, j + k)) for j in range(L)]
        assert opt(reqs) == sliding_opt_free(k, L) == k + min_external_path_length(L) - L + 1
    for L in range(k + 2, min(k + 6, 12)):  # (c) holds, and is not tight here (computed)
        reqs = [list(range(j, j + k)) for j in range(L)]
        assert opt(reqs) > sliding_opt_free_lower(k, L)
    with pytest.raises(ValueError):
        sliding_opt_free(k, k + 2)


def test_sliding_lower_bound_beyond_k_plus_1_is_tight_at_k_1():
    """Theorem 3c (c) is attained at k = 1 (L singletons: OPT_free = n = L), the only size
    within the DP's reach where it is (k = 2..6 up to L = 13 it is strict), so an off-by-one in
    ``sliding_opt_free_lower`` fails here."""
    for L in range(3, 12):
        assert opt([[j] for j in range(L)]) == sliding_opt_free_lower(1, L) == L


def test_sliding_lower_bound_is_attained_by_a_balanced_line_hierarchy():
    """The lower bound sum over cuts (|M_i| + 1) + (k - L + 1) is met by the balanced hierarchy
    on the line, so the formula is exact (L <= k + 1): spot values."""
    assert [sliding_opt_free(4, L) for L in range(1, 6)] == [4, 5, 7, 9, 12]
    assert sliding_opt_free(10, 8) == 27 and sliding_opt_free(10, 11) == min_external_path_length(11)


def test_drop_first_cap_matches_the_committed_exhaustive_table():
    """Every computed B(k, L) of results/online/drop_first.csv with L <= k + 1 is the sliding value
    k + EPL_min(L) - L + 1, and the best computed guarantee at each k = 2..10 equals the cap
    over L <= k + 1 (Theorem 3c)."""
    rows = list(csv.DictReader(open(ROOT / "results/online/drop_first.csv")))
    for r in rows:
        k, L = int(r["k"]), int(r["L"])
        if L <= k + 1:
            assert int(r["max_opt_free"]) == sliding_opt_free(k, L), (k, L)
    for k in range(2, 11):
        best = max(Fraction(r["ratio"]) for r in rows if int(r["k"]) == k)
        head, _, tail = drop_first_cap(k)
        assert best == head <= max(head, tail)  # the cap over L <= k+1 is the computed guarantee
    assert drop_first_cap(10)[:2] == (Fraction(80, 27), 8)
    assert drop_first_cap(2)[:2] == (Fraction(4, 3), 2)


def test_drop_first_cap_is_theta_k_over_log_k():
    from math import log2

    for k in (16, 17, 64, 100, 256, 1000, 4096):
        head, _, tail = drop_first_cap(k)
        assert float(head) <= 2 * k / log2(k)  # Theorem 3c (d), k >= 16
        assert float(tail) < 3 * k / log2(k + 1)
        assert head < nested_lower_bound(k) and (k < 64 or tail < nested_lower_bound(k))


# ---- Section 9: exhaustive games ---------------------------------------------------------------

@pytest.mark.parametrize("k,L", [(2, 2), (2, 3), (2, 4), (3, 3)])
def test_no_short_adversary_beats_k1_over_2(k, L):
    """The W = 1 game value over adversaries of at most L requests is exactly (k+1)/2: some
    adversary forces every ratio below it (the nested chain) and none forces more."""
    rho = nested_lower_bound(k)
    assert adversary_forces(k, L, rho - Fraction(1, 100), opt)
    assert not adversary_forces(k, L, rho, opt)


@pytest.mark.parametrize("k,L", [(2, 4), (3, 3)])
def test_greedy_oldest_short_worst_case(k, L):
    ratio, seq = worst_ratio(greedy_oldest, k, L, opt)
    assert ratio == nested_lower_bound(k)
    assert [len(r) for r in seq] == list(range(k, 0, -1))


# ---- Theorem G: k = 2, greedy-oldest is 3/2-competitive ------------------------------------------

def _min_cover(edges, singles, verts):
    """tau_S: the least vertex cover of ``edges`` containing ``singles`` (brute force)."""
    from itertools import combinations

    rest = sorted(set(verts) - set(singles))
    for size in range(len(rest) + 1):
        for extra in combinations(rest, size):
            c = set(singles) | set(extra)
            if all(a in c or b in c for a, b in edges):
                return len(c)


def _random_k2_sequence(rng, m, nverts):
    m = min(m, nverts + nverts * (nverts - 1) // 2)  # there are no more distinct requests
    seen, seq = set(), []
    while len(seq) < m:
        if rng.random() < 0.25:
            r = (int(rng.integers(nverts)),)
        else:
            a, b = rng.choice(nverts, size=2, replace=False)
            r = (int(a), int(b))
        if frozenset(r) not in seen:
            seen.add(frozenset(r))
            seq.append(r)
    return seq


def test_greedy_oldest_k2_edge_cover_accounting_on_random_sequences():
    """ALG = m_2 + |D|, OPT_free = m_2 + tau_S (exact DP), and 2|D| <= m_2 + 3 tau_S, i.e.
    ALG <= 3/2 OPT_free (Theorem G), on random sequences of edges and singletons."""
    import numpy as np

    rng = np.random.default_rng(26)
    worst, tight = Fraction(0), 0
    for _ in range(120):
        seq = _random_k2_sequence(rng, int(rng.integers(2, 11)), int(rng.integers(3, 8)))
        hist = []
        for r in seq:
            hist.append(greedy_oldest(hist, r))
        edges = [r for r in seq if len(r) == 2]
        singles = {r[0] for r in seq if len(r) == 1}
        heads = {s[0] for s in hist}
        tau = _min_cover(edges, singles, {x for r in seq for x in r})
        assert trie_cost(hist) == len(edges) + len(heads)
        assert opt(seq) == len(edges) + tau
        assert 2 * len(heads) <= len(edges) + 3 * tau
        tight += 2 * len(heads) == len(edges) + 3 * tau
        worst = max(worst, Fraction(trie_cost(hist), opt(seq)))
    assert worst <= Fraction(3, 2) and tight > 0  # the count is attained, not only bounded


def test_greedy_oldest_k2_charging_is_tight_on_the_nested_chain_and_long_paths():
    """The two cases of Theorem G's count: the nested chain {a, b}, {b} reaches 3/2; the path
    a-b, b-c, ... makes every edge a head (|D| = m) against tau = ceil(m / 2)."""
    assert trie_cost([greedy_oldest([], (0, 1)), (1,)]) == 3 and opt([(0, 1), (1,)]) == 2
    m = 9
    path = [(i, i + 1) for i in range(m)]
    hist = []
    for r in path:
        hist.append(greedy_oldest(hist, r))
    assert [s[0] for s in hist] == list(range(m))
    assert (trie_cost(hist), opt(path)) == (2 * m, m + (m + 1) // 2)


# ---- Theorem 4: the slot interleaving of a variable-length adversary ----------------------------

class _RandomCommitter:
    """A window-W algorithm that commits each request on arrival in a random order."""

    def __init__(self, seed):
        import random

        self.rng = random.Random(seed)

    def add(self, req, id):
        order = list(req)
        self.rng.shuffle(order)
        return [(id, order)]

    def flush(self):
        return []


class _SlotZeroReverses:
    """A window-W committer that commits on arrival, largest chunk first in slot 0 (positions
    0, W, 2W, ...), smallest first elsewhere."""

    def __init__(self, window):
        self.window = window

    def add(self, req, id):
        return [(id, sorted(req, reverse=id % self.window == 0))]

    def flush(self):
        return []


def _blocks_strategy(k, n):
    """A variable-length adversary on disjoint blocks: request j of a copy is k fresh chunks; a
    copy stops after n requests, or after one if its first order starts with its largest chunk."""
    def strategy(hist):
        if len(hist) == n or (hist and hist[0][1][0] == max(hist[0][0])):
            return None
        return list(range(len(hist) * k, (len(hist) + 1) * k))
    return strategy


def _slot_accounting(reqs, orders, owner, W, k, n, stopped):
    """Theorem 4 (3) term by term on one run of ``slot_interleave``: a copy's requests are W
    apart; T and OPT_free add over copies; at most W - 1 copies are unfinished (the slot whose
    copy stopped last has none), each with <= n - 1 requests; loss = their OPT_free <= (W - 1) k
    (n - 1) <= W k (n - 1); the stopped copies pay >= rho' (OPT_free - loss). ``stopped(rs, os)``
    says whether a copy with requests rs and orders os has stopped. Returns (the stopped copies'
    cost, rho', the unfinished copies' OPT_free, OPT_free)."""
    per = {}
    for j, c in enumerate(owner):
        per.setdefault(c, []).append(j)
    for js in per.values():
        assert all(b - a == W for a, b in zip(js, js[1:]))
    assert trie_cost(orders) == sum(trie_cost([orders[j] for j in js]) for js in per.values())
    total_opt = opt(reqs)
    cost = {c: trie_cost([orders[j] for j in js]) for c, js in per.items()}
    copt = {c: opt([reqs[j] for j in js]) for c, js in per.items()}
    assert total_opt == sum(copt.values())
    done = [c for c, js in per.items() if stopped([reqs[j] for j in js], [orders[j] for j in js])]
    unfinished = [c for c in per if c not in done]
    assert len(unfinished) <= W - 1 and all(len(per[c]) <= n - 1 for c in unfinished)
    loss = sum(copt[c] for c in unfinished)
    assert loss <= (W - 1) * k * (n - 1) <= W * k * (n - 1)
    rho = min(Fraction(cost[c], copt[c]) for c in done)
    stopped_cost = sum(cost[c] for c in done)
    assert stopped_cost >= rho * (total_opt - (W - 1) * k * (n - 1))
    assert trie_cost(orders) >= stopped_cost
    return stopped_cost, rho, loss, total_opt


@pytest.mark.parametrize("W,seed", [(1, 0), (2, 1), (3, 2), (2, 3), (4, 4)])
def test_slot_interleaving_accounting(W, seed):
    """Theorem 4 (3): the nested chain (stopping early) against a random committer, and a
    blocks adversary whose W - 1 unfinished copies each hold n - 1 disjoint requests, so the
    loss (W - 1) k (n - 1) is attained and the stopped copies pay exactly rho' (OPT_free - loss):
    a smaller loss term fails (at W >= 3 also W k (n - 2) and W (k - 1)(n - 1))."""
    from mptsearch.online.games import nested_chain_strategy, slot_interleave

    k, copies = 3, 5
    reqs, orders, owner = slot_interleave(nested_chain_strategy(k, stop_on_smallest=True), W, copies,
                                          _RandomCommitter(seed), labels_per_copy=k)
    nested_stop = lambda rs, os: len(rs[-1]) == 1 or os[-1][0] == min(rs[-1])  # noqa: E731
    _slot_accounting(reqs, orders, owner, W, k, k, nested_stop)

    k, n = 2, 3
    reqs, orders, owner = slot_interleave(_blocks_strategy(k, n), W, n - 1, _SlotZeroReverses(W),
                                          labels_per_copy=k * n)
    blocks_stop = lambda rs, os: len(rs) == n or os[0][0] == max(rs[0])  # noqa: E731
    stopped_cost, rho, loss, total_opt = _slot_accounting(reqs, orders, owner, W, k, n, blocks_stop)
    assert (rho, loss, total_opt) == (1, (W - 1) * k * (n - 1), W * k * (n - 1))
    assert stopped_cost == rho * (total_opt - loss) == k * (n - 1)


# ---- Section 11: the flagged game's exact value, both request models ---------------------------

def test_game_value_matches_the_proved_bounds_at_small_sizes():
    """The flagged W = 1 game value: (<= k) k = 2 gives exactly 3/2 = (k+1)/2 from two requests on
    (the nested chain; Theorem G caps it); (= k) k = 2 gives 4/3 up to three requests and k = 3
    gives 3/2 at two, both equal to drop-first's guarantee 2k/(k+1) at L = 2 (so an off-by-one in
    the value or in either model's request sizes fails)."""
    assert game_value(2, 1, opt) == 1
    assert game_value(2, 2, opt) == game_value(2, 3, opt) == Fraction(3, 2)
    assert game_value(2, 2, opt, exact=True) == game_value(2, 3, opt, exact=True) == Fraction(4, 3)
    assert game_value(3, 2, opt, exact=True) == Fraction(3, 2) == Fraction(2 * 3, 3 + 1)


@pytest.mark.slow
def test_game_value_k3_l4_is_11_over_7():
    """(= k) model, k = 3: four requests force 11/7 > 3/2, drop-first's value (about 35 s)."""
    assert game_value(3, 4, opt, exact=True) == Fraction(11, 7)
    assert game_value(3, 3, opt, exact=True) == Fraction(3, 2)
