"""The blend model of docs/beyond_prefix.md: the proved statements (P1, P2, P2', P3-P9 and the
greedy claim of C3) and the computed ones (C1, C2, C6's per-answer optimum) against the
brute-force twin ``naive_opt_blend`` and exact computation; every bound is checked where it is
tight, so that an off-by-one fails."""

import itertools
import math
import random

import pytest

from mptsearch.blend.exact import layouts_count, opt_blend, opt_blend_exhaustive
from mptsearch.blend.model import BlendParams, chunk_modes, layout_nodes, price_layout
from mptsearch.exact.free import opt_free
from mptsearch.heuristics.agglomerative import agglomerative
from mptsearch.instance import InstanceError, parse_instance
from mptsearch.trie import trie_cost

import numpy as np

from .naive import naive_opt_blend, naive_trie_cost

TOL = 1e-9


def _random_instance(rng, n=5, m=(2, 4), k=(1, 3), weights=False, max_layouts=None):
    while True:
        inst = _draw(rng, n, m, k, weights)
        if max_layouts is None or layouts_count(inst) <= max_layouts:
            return inst


def _draw(rng, n, m, k, weights):
    reqs = set()
    mm = rng.randint(*m)
    while len(reqs) < mm:
        reqs.add(tuple(sorted(rng.sample(range(n), rng.randint(*k)))))
    reqs = [list(r) for r in reqs]
    rng.shuffle(reqs)
    for r in reqs:
        rng.shuffle(r)
    if weights:
        return parse_instance({"requests": reqs, "weights": [rng.randint(1, 4) for _ in range(n)]})
    return parse_instance(reqs)


def _wU(inst):
    return sum(int(inst.weights[x]) for x in set().union(*inst.requests))


def _naive(inst, p):
    return naive_opt_blend(inst.orders, [int(w) for w in inst.weights], p.r, p.price, p.beta)


PARAMS = [BlendParams(0.15, 0.0), BlendParams(0.15, 0.1), BlendParams(0.0, 0.3, 0.5), BlendParams(0.15, 0.1, 1.0),
          BlendParams(0.5, 0.2, 2.0), BlendParams(0.05, 0.0, 1.0)]


@pytest.mark.parametrize("seed", range(6))
def test_modes_exhaustive_solver_against_brute_force(seed):
    rng = random.Random(seed)
    inst = _random_instance(rng, n=4, m=(2, 4), k=(1, 3), weights=seed % 2 == 1, max_layouts=144)
    for p in PARAMS:
        fast = opt_blend_exhaustive(inst, p).value
        assert fast == pytest.approx(_naive(inst, p)[0], abs=TOL)


def test_modes_greedy_exact_for_beta0_and_not_always_for_beta_positive():
    rng = random.Random(3)
    for _ in range(40):
        inst = _random_instance(rng, n=5, m=(3, 5), k=(2, 3))
        layout = [tuple(rng.sample(o, len(o))) for o in inst.orders]
        for p in (BlendParams(0.15, 0.1), BlendParams(0.3, 0.0)):
            assert price_layout(inst, layout, p, exact_modes=False).objective == pytest.approx(
                price_layout(inst, layout, p).objective, abs=TOL)
        p = BlendParams(0.1, 0.05, 3.0)
        g, e = price_layout(inst, layout, p, exact_modes=False).objective, price_layout(inst, layout, p).objective
        assert e <= g + TOL  # greedy may lose for beta > 0 (the constructed chunk below)


def test_modes_exact_choice_beats_greedy_on_a_constructed_chunk():
    # one chunk x, nodes in creation order: contexts {}, {a, b, c}, {a, b, c, d}, {a, b, c, e}:
    # greedy blends node 2 from node 1 (d = 3); making node 2 full lets 3 and 4 blend at d = 1
    from mptsearch.blend.model import Node
    nodes = [Node(0, frozenset(), 0), Node(0, frozenset({1, 2, 3}), 1), Node(0, frozenset({1, 2, 3, 4}), 2),
             Node(0, frozenset({1, 2, 3, 5}), 3)]
    p = BlendParams(0.1, 0.1, 2.0)  # blend price 0.1 + 0.1 (1 + 2 d): d=1 0.4, d=3 0.8, d=4 1.0
    greedy, _ = chunk_modes(nodes, [0, 1, 2, 3], 1, p, exact=False)
    exact, src = chunk_modes(nodes, [0, 1, 2, 3], 1, p)
    # greedy: node 2 blends (d = 3, 0.8), node 3 is full (d = 4 from node 1: 1.0, not cheaper),
    # node 4 blends from node 3 (d = 2, 0.6)
    assert greedy == pytest.approx(1 + 0.8 + 1.0 + 0.6)
    assert exact == pytest.approx(1 + 1 + 0.4 + 0.4)
    assert src == {0: -1, 1: -1, 2: 1, 3: 1}


def test_p1_limits_and_concavity():
    rng = random.Random(7)
    for _ in range(5):
        inst = _random_instance(rng, n=4, m=(2, 4), k=(1, 3), weights=True, max_layouts=72)
        free = opt_free(inst).value
        for beta in (0.0, 1.0):
            for r in (0.0, 0.15, 0.6):
                assert opt_blend_exhaustive(inst, BlendParams(r, 1 - r, beta)).value == pytest.approx(free)
                assert opt_blend_exhaustive(inst, BlendParams(r, 2.0, beta)).value == pytest.approx(free)
                assert opt_blend_exhaustive(inst, BlendParams(r, 0.0, beta)).value <= free + TOL
        assert opt_blend_exhaustive(inst, BlendParams(0.0, 0.0, 1.0)).value == pytest.approx(_wU(inst))
        for layout in itertools.islice(itertools.product(*(itertools.permutations(o) for o in inst.orders)), 20):
            assert price_layout(inst, layout, BlendParams(0.0, 0.0, 1.0)).objective == pytest.approx(_wU(inst))
        lams = [0.0, 0.1, 0.2, 0.3, 0.4]
        vals = [opt_blend_exhaustive(inst, BlendParams(0.15, lam, 1.0)).value for lam in lams]
        assert all(a <= b + TOL for a, b in zip(vals, vals[1:]))
        assert all(vals[i] >= (vals[i - 1] + vals[i + 1]) / 2 - TOL for i in range(1, len(vals) - 1))


def test_p1_threshold_is_sharp_in_the_constant_model():
    inst = parse_instance("012 013 023 123")  # OPT_free 8 > w(U) 4
    assert opt_blend(inst, BlendParams(0.15, 0.85)).value == pytest.approx(8)
    assert opt_blend(inst, BlendParams(0.15, 0.84)).value < 8 - 1e-3


@pytest.mark.parametrize("seed", range(4))
def test_p2_every_layout_costs_the_closed_form(seed):
    rng = random.Random(100 + seed)
    inst = _random_instance(rng, n=5, m=(3, 4), k=(2, 3), weights=True)
    wU = _wU(inst)
    for p in (BlendParams(0.15, 0.0), BlendParams(0.15, 0.3), BlendParams(0.0, 0.5), BlendParams(0.4, 0.7)):
        for layout in itertools.product(*(itertools.permutations(o) for o in inst.orders)):
            res = price_layout(inst, layout, p)
            assert res.objective == pytest.approx((1 - p.c) * wU + p.c * naive_trie_cost(layout, inst.weights))
        assert opt_blend(inst, p).value == pytest.approx(_naive(inst, p)[0])


def test_p2_serving_order_does_not_matter_in_the_constant_model():
    reqs = [[0, 1, 2], [2, 4], [0, 4], [0, 2, 4]]
    p = BlendParams(0.15, 0.1)
    vals = {round(opt_blend_exhaustive(parse_instance([reqs[i] for i in perm]), p).value, 9)
            for perm in itertools.permutations(range(4))}
    assert len(vals) == 1


def _budget_brute(inst, r, B):
    """min cost with at most floor(B) unit-loss blends, by brute force over layouts and blend sets."""
    best = math.inf
    for layout in itertools.product(*(itertools.permutations(o) for o in inst.orders)):
        nodes = layout_nodes(layout)
        seen, later = set(), []
        for j, nd in enumerate(nodes):
            (later.append(j) if nd.chunk in seen else seen.add(nd.chunk))
        for size in range(0, min(int(B), len(later)) + 1):
            best = min(best, len(nodes) - (1 - r) * size)
    return best


def test_p3_budget_frontier_unit_weights():
    inst = parse_instance("012 013 023 123")
    free, wU, r = opt_free(inst).value, 4, 0.15
    for B in (0, 1, 2.5, 4, 7):
        formula = free - (1 - r) * min(math.floor(B), free - wU)
        assert _budget_brute(inst, r, B) == pytest.approx(formula)
    assert _budget_brute(inst, r, 2) != pytest.approx(free - (1 - r) * 3)  # off by one fails


def _tau(edges):
    verts = sorted({v for e in edges for v in e})
    for s in range(len(verts) + 1):
        for cover in itertools.combinations(verts, s):
            if all(set(e) & set(cover) for e in edges):
                return s


@pytest.mark.parametrize("edges", [[(0, 1), (1, 2), (2, 0)], [(0, 1), (0, 2), (0, 3)], [(0, 1), (1, 2), (2, 3), (3, 0)],
                                   [(0, 1), (1, 2), (2, 3), (1, 3)]])
def test_p4_k2_constant_model_and_no_profitable_blend(edges):
    inst = parse_instance([list(e) for e in edges])
    tau, m, n = _tau(edges), len(edges), inst.n
    for r, lam in ((0.15, 0.0), (0.0, 0.2), (0.3, 0.3)):
        p = BlendParams(r, lam)
        assert opt_blend(inst, p).value == pytest.approx((1 - p.c) * n + p.c * (tau + m))
    # beta > 0, lambda (1 + beta) >= 1 - r: no blend pays at k = 2 (contexts always differ)
    for r, lam, beta in ((0.15, 0.425, 1.0), (0.0, 0.25, 3.0)):
        assert opt_blend_exhaustive(inst, BlendParams(r, lam, beta)).value == pytest.approx(tau + m)
    # just below the threshold a blend at d = 1 pays on the triangle (a depth-1 and a depth-2
    # node of one chunk); on the 4-cycle the cheap layouts only offer d = 2, on the star nothing
    below = opt_blend_exhaustive(inst, BlendParams(0.15, 0.42, 1.0)).value
    assert below < tau + m - 1e-6 if len(edges) == 3 and n == 3 else below <= tau + m + TOL


def test_p5_lower_bound_and_ratio():
    rng = random.Random(11)
    for _ in range(8):
        inst = _random_instance(rng, n=5, m=(2, 4), k=(1, 3), weights=True, max_layouts=216)
        free, wU = opt_free(inst).value, _wU(inst)
        for p in PARAMS:
            v = opt_blend_exhaustive(inst, p).value
            low = (1 - p.c) * wU + p.c * free
            assert low - TOL <= v <= free + TOL
            if p.beta == 0:
                assert v == pytest.approx(low)
            if p.c > 0:
                assert free / v <= 1 / (p.c + (1 - p.c) * wU / free) + TOL <= 1 / p.c + TOL
        assert wU / free >= wU / inst.total_weight() - TOL >= _p5_rho_floor(inst.m) - 2 * TOL


def _p5_rho_floor(m):
    """P5's last step: rho >= w(U)/Sigma >= 1/m."""
    return 1 / m


@pytest.mark.parametrize("reqs,weights", [([[0, 1], [2], [3, 4, 5]], [2, 1, 3, 1, 4, 2]),
                                          ([[0, 1, 2]], [1, 5, 2]), ([[0], [1, 2]], [3, 1, 1])])
def test_p5_rho_steps_are_tight(reqs, weights):
    # disjoint requests: OPT_free = Sigma = w(U), so rho = w(U)/Sigma exactly; one request:
    # Sigma = m w(U), so w(U)/Sigma = 1/m exactly (for m >= 2 distinct requests 1/m is not reached)
    inst = parse_instance({"requests": reqs, "weights": weights})
    free, wU, sigma = opt_free(inst).value, _wU(inst), inst.total_weight()
    rho = wU / free
    assert rho >= wU / sigma - TOL and wU / sigma >= _p5_rho_floor(inst.m) - TOL
    assert rho == pytest.approx(wU / sigma)
    if inst.m == 1:
        assert wU / sigma == pytest.approx(_p5_rho_floor(inst.m))


def test_p5_single_chunk_requests_gain_nothing():
    inst = parse_instance("0 1 2 3")
    assert opt_blend(inst, BlendParams(0.0, 0.0)).value == opt_free(inst).value == 4


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_p6_complete_graph_opt_free_and_ratio(n):
    inst = parse_instance([[a, b] for a, b in itertools.combinations(range(n), 2)])
    free = opt_free(inst).value
    assert free == (n - 1) + n * (n - 1) // 2
    assert free != (n - 2) + n * (n - 1) // 2
    for c in (0.15, 0.5):
        ratio = free / opt_blend(inst, BlendParams(c, 0.0)).value
        assert ratio == pytest.approx(((n - 1) * (n + 2) / 2) / ((1 - c) * n + c * (n - 1) * (n + 2) / 2))
        assert ratio < 1 / c


def test_p6_ratio_approaches_one_over_c():
    c = 0.15
    ratios = []
    for n in (3, 4, 5, 6):  # exact DP (m = 15 at n = 6)
        inst = parse_instance([[a, b] for a, b in itertools.combinations(range(n), 2)])
        ratios.append(opt_free(inst).value / opt_blend(inst, BlendParams(c, 0.0)).value)
    for n in (20, 100, 1000):  # P6's closed form beyond the DP
        free = (n - 1) + n * (n - 1) / 2
        ratios.append(free / ((1 - c) * n + c * free))
    assert all(a < b < 1 / c for a, b in zip(ratios, ratios[1:]))
    assert ratios[-1] > 0.95 / c


def _p7_first_step(c, sigma, wU, sav_free):
    """P7's first step (Theorem 6): SAV_J(L_g) >= (1 - c)(Sigma - w(U)) + c SAV*/2."""
    return (1 - c) * (sigma - wU) + c * sav_free / 2


def _p7_fraction(c):
    """P7: SAV_J(L_g) >= (1 - c/2) SAV_J*."""
    return 1 - c / 2


def _sav_j(inst, layout, p):
    return inst.total_weight() - price_layout(inst, layout, p).objective


def test_p7_agglomerative_keeps_one_minus_half_c_of_the_blend_savings():
    rng = random.Random(5)
    for _ in range(20):
        inst = _random_instance(rng, n=6, m=(3, 7), k=(2, 4), weights=True)
        sigma, wU, free = inst.total_weight(), _wU(inst), opt_free(inst).value
        for p in (BlendParams(0.15, 0.0), BlendParams(0.3, 0.2), BlendParams(1.0, 0.0)):
            for tb in ("first", "worst") if inst.m <= 7 else ("first",):
                sav = _sav_j(inst, agglomerative(inst, tie_break=tb).layout, p)
                best = sigma - opt_blend(inst, p).value
                assert sav >= _p7_first_step(p.c, sigma, wU, sigma - free) - TOL
                assert _p7_first_step(p.c, sigma, wU, sigma - free) >= _p7_fraction(p.c) * best - TOL


@pytest.mark.parametrize("c", [0.15, 0.5, 1.0])
def test_p7_first_step_is_attained_on_theorem6_witness(c):
    # 0123 14 2578 46 under adversarial ties: the agglomerative layout saves 1 of the optimal 2
    # (Sigma = 12, w(U) = 9), so SAV_J(L_g) = 3 - 2c equals the first step exactly
    inst = parse_instance("0123 14 2578 46")
    p = BlendParams(c, 0.0)
    sigma, wU, free = inst.total_weight(), _wU(inst), opt_free(inst).value
    assert (sigma, wU, free) == (12, 9, 10)
    lay = agglomerative(inst, tie_break="worst").layout
    assert sigma - trie_cost(inst, lay) == 1
    sav, best = _sav_j(inst, lay, p), sigma - opt_blend(inst, p).value
    assert sav == pytest.approx(_p7_first_step(c, sigma, wU, sigma - free)) == pytest.approx(3 - 2 * c)
    assert best == pytest.approx(3 - c)
    assert sav >= _p7_fraction(c) * best - TOL


@pytest.mark.parametrize("reqs", ["012 013 0", "01 02 03 0", "0123 012 01 4"])
def test_p7_second_step_is_an_equality_when_opt_free_is_w_u(reqs):
    # OPT_free = w(U): SAV* = Sigma - w(U), and the first step equals (1 - c/2) SAV_J*
    inst = parse_instance(reqs)
    sigma, wU, free = inst.total_weight(), _wU(inst), opt_free(inst).value
    assert free == wU
    for c in (0.15, 0.5, 1.0):
        best = sigma - opt_blend(inst, BlendParams(c, 0.0)).value
        assert _p7_first_step(c, sigma, wU, sigma - free) == pytest.approx(_p7_fraction(c) * best)


def test_c1_blend_optimum_is_not_mpt_optimal_on_k43():
    inst = parse_instance("012 013 023 123")
    p = BlendParams(0.15, 0.1, 1.0)
    best = opt_blend_exhaustive(inst, p)
    assert best.value == pytest.approx(5.95)
    assert _naive(inst, p)[0] == pytest.approx(5.95)
    free_layouts = [lay for lay in itertools.product(*(itertools.permutations(o) for o in inst.orders))
                    if trie_cost(inst, lay) == 8]
    assert min(price_layout(inst, lay, p).objective for lay in free_layouts) == pytest.approx(6.0)
    assert trie_cost(inst, best.best.layout) == 9


def test_c2_serving_order_matters_in_the_context_model():
    p = BlendParams(0.15, 0.1, 1.0)
    given = parse_instance([[0, 1, 2], [2, 4], [0, 4], [0, 2, 4]])
    other = parse_instance([[0, 1, 2], [0, 2, 4], [2, 4], [0, 4]])
    for inst, want in ((given, 5.15), (other, 5.05)):
        assert opt_blend_exhaustive(inst, p).value == pytest.approx(want)
        assert _naive(inst, p)[0] == pytest.approx(want)


@pytest.mark.parametrize("bad", [dict(r=-0.1, price=0), dict(r=1.5, price=0), dict(r=0.1, price=-1),
                                 dict(r=0.1, price=0, beta=-2), dict(r=float("nan"), price=0),
                                 dict(r=0.1, price=float("inf"))])
def test_params_refused(bad):
    with pytest.raises(InstanceError):
        BlendParams(**bad)


def test_exhaustion_refuses_large_instances():
    inst = parse_instance("01234 12345 23456")
    assert layouts_count(inst) == 120 ** 3
    with pytest.raises(InstanceError, match="layouts"):
        opt_blend_exhaustive(inst, BlendParams(0.1, 0.1, 1.0), max_layouts=1000)


def _c_prime(p, k):
    return min(1.0, p.r + p.price * (1 + 2 * p.beta * (k - 1)))


def test_p8_first_copy_bound_and_approximation():
    from mptsearch.heuristics.approximation import heaviest_first_order
    from mptsearch.blend.heuristic import node_table, price_first
    from mptsearch.trie import order_layout

    rng = random.Random(21)
    tight = 0
    for _ in range(10):
        inst = _random_instance(rng, n=5, m=(2, 4), k=(1, 3), weights=True, max_layouts=216)
        k = max(len(o) for o in inst.orders)
        free = opt_free(inst)
        wU = _wU(inst)
        hf = order_layout(inst, heaviest_first_order(inst))
        for p in (BlendParams(0.15, 0.1, 1.0), BlendParams(0.05, 0.02, 3.0), BlendParams(0.3, 0.0, 1.0)):
            cp = _c_prime(p, k)
            best = opt_blend_exhaustive(inst, p).value
            for lay, cost in ((free.layout, free.value), (hf, trie_cost(inst, hf))):
                c_, l_ = price_first(node_table(inst.weights, lay), p)
                j = c_ + p.price * l_
                assert j <= (1 - cp) * wU + cp * cost + TOL
                assert price_layout(inst, lay, p).objective <= j + TOL  # exact modes never worse
            j_free = price_layout(inst, free.layout, p).objective
            assert j_free <= cp / p.c * best + TOL
            assert price_layout(inst, hf, p).objective <= k * cp / p.c * best + TOL
            tight += j_free > best + TOL
    assert tight > 0  # the OPT_free layout is not always optimal in the context model (C1)


@pytest.mark.parametrize("reqs,k", [("01 21", 2), ("014 234", 3), ("01 21 31", 2)])
def test_p8_bound_attained_at_the_largest_context_distance(reqs, k):
    # every non-first node of chunk 1 (or 4) sits at context distance 2 (k - 1) from the first copy:
    # the first-copy rule pays exactly (1 - c') w(U) + c' COST(L) on the production layout
    from mptsearch.blend.heuristic import node_table, price_first

    inst = parse_instance(reqs)
    assert max(len(o) for o in inst.orders) == k
    lay = [tuple(o) for o in inst.orders]
    for p in (BlendParams(0.15, 0.1, 1.0), BlendParams(0.05, 0.02, 3.0)):
        cp = _c_prime(p, k)
        assert cp < 1
        c_, l_ = price_first(node_table(inst.weights, lay), p)
        assert c_ + p.price * l_ == pytest.approx((1 - cp) * _wU(inst) + cp * trie_cost(inst, lay))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_p6_all_subsets_opt_free_is_m(n):
    subsets = [list(c) for j in range(1, n + 1) for c in itertools.combinations(range(n), j)]
    inst = parse_instance(subsets)
    assert inst.m == 2 ** n - 1
    assert opt_free(inst).value == inst.m
    assert opt_free(inst).value != inst.m - 1


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_p6_unit_weight_rho_bound_on_complete_graphs(n):
    inst = parse_instance([[a, b] for a, b in itertools.combinations(range(n), 2)])
    rho = n / opt_free(inst).value
    assert rho >= _p6c_rho_floor(n, 2, inst.m) - TOL
    assert _p6c_rho_floor(n, 2, inst.m) == pytest.approx(1 / (n - 1))
    assert rho == pytest.approx(2 * n / ((n - 1) * (n + 2))) and rho < 2 / (n - 1)


@pytest.mark.parametrize("k,m", [(2, 1), (2, 3), (3, 2), (4, 3)])
def test_p6_unit_weight_rho_bound_tight_on_disjoint_requests(k, m):
    # m disjoint requests of k chunks: n = k m and OPT_free = k m, so rho = 1 = n/(k m)
    inst = parse_instance([list(range(k * i, k * i + k)) for i in range(m)])
    n = inst.n
    rho = n / opt_free(inst).value
    assert rho >= _p6c_rho_floor(n, k, inst.m) - TOL
    assert rho == pytest.approx(_p6c_rho_floor(n, k, inst.m))


def _p6c_rho_floor(n, k, m):
    """P6(c): unit weights, at most k chunks per request: rho >= n/(k m)."""
    return n / (k * m)


def test_p9_adding_a_request_never_lowers_opt_free():
    rng = random.Random(9)
    for _ in range(25):
        weights = [rng.randint(1, 4) for _ in range(6)]
        reqs = sorted({tuple(sorted(rng.sample(range(6), rng.randint(1, 4)))) for _ in range(rng.randint(2, 7))})
        extra = tuple(sorted(rng.sample(range(6), rng.randint(1, 4))))
        if extra in reqs:
            continue
        small = parse_instance({"requests": [list(r) for r in reqs], "weights": weights})
        bigger = parse_instance({"requests": [list(r) for r in reqs] + [list(extra)], "weights": weights})
        assert opt_free(small).value <= opt_free(bigger).value


def test_p9_complete_family_is_the_largest_on_four_chunks():
    # every family of 3-subsets of 4 chunks that uses all 4: the complete one (K4^(3)) is largest
    triples = [list(c) for c in itertools.combinations(range(4), 3)]
    best = max(opt_free(parse_instance(list(f))).value
               for j in range(2, 5) for f in itertools.combinations(triples, j))
    assert best == opt_free(parse_instance(triples)).value == 8


def _p4d_bounds(n, r, lam, beta, k=2):
    """P4(d)'s interval [lo(K), hi(K)] for OPT_blend when OPT_free = K (unit weights, n chunks):
    lo from P5 with c = min(1, r + lambda), hi from P8 with c' = min(1, r + lambda (1 + 2 beta (k - 1)))."""
    c = min(1.0, r + lam)
    cp = min(1.0, r + lam * (1 + 2 * beta * (k - 1)))
    return (lambda K: (1 - c) * n + c * K), (lambda K: (1 - cp) * n + cp * K)


def _p4d_lambda_bound(r, beta, sigma, n, k=2):
    """P4(d)'s hypothesis: lambda < r / (2 beta (k - 1) (Sigma - n - 1)); no bound when Sigma <= n + 1."""
    d = sigma - n - 1
    return r / (2 * beta * (k - 1) * d) if d > 0 else math.inf


P4D_GRAPHS = [[(0, 1), (1, 2), (2, 0)], [(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 1), (1, 2), (2, 3), (1, 3)],
              [(0, 1), (0, 2), (0, 3), (1, 2)]]


@pytest.mark.parametrize("edges", P4D_GRAPHS)
@pytest.mark.parametrize("r,beta,frac", [(0.3, 1.0, 0.99), (1.0, 0.01, 0.02), (0.9, 1.0, 0.3)])
def test_p4d_small_lambda_intervals_decide_opt_free(edges, r, beta, frac):
    # (0.3, 1): c < c' < 1; (1, 0.01): r + lambda >= 1 (lambda = 0.5 on the triangle, the referee's
    # counterexample to the unclamped bound), c = c' = 1; (0.9, 1): c = r + lambda < 1 = c'
    # (lambda (1 + 2 beta) >= 1 - r)
    inst = parse_instance([list(e) for e in edges])
    n, sigma, free = inst.n, 2 * len(edges), opt_free(inst).value
    lam = frac * _p4d_lambda_bound(r, beta, sigma, n)
    v = opt_blend_exhaustive(inst, BlendParams(r, lam, beta)).value
    lo, hi = _p4d_bounds(n, r, lam, beta)
    if r + lam >= 1:
        assert v == pytest.approx(free)  # P1(b)
    assert lo(free) - TOL <= v <= hi(free) + TOL
    decided = [K for K in range(n, sigma + 1) if lo(K) - TOL <= v <= hi(K) + TOL]
    assert decided == [free]
    assert all(hi(K) < lo(K + 1) for K in range(n, sigma))


def test_p4d_unclamped_lower_bound_fails_when_r_plus_lambda_exceeds_one():
    # the referee's counterexample to the unclamped lo(K) = (1 - r) n + r K + lambda (K - n)
    inst = parse_instance("01 12 20")
    r, lam, beta = 1.0, 0.5, 0.01
    assert lam < _p4d_lambda_bound(r, beta, 6, 3)
    v = opt_blend_exhaustive(inst, BlendParams(r, lam, beta)).value
    assert v == pytest.approx(5) and opt_free(inst).value == 5
    assert (1 - r) * 3 + r * 5 + lam * (5 - 3) > v + 0.5
    lo, hi = _p4d_bounds(3, r, lam, beta)
    assert lo(5) == pytest.approx(v) == pytest.approx(hi(5))


@pytest.mark.parametrize("edges", P4D_GRAPHS)
def test_p4d_lambda_bound_at_its_edge(edges):
    # just below the bound the intervals of every K <= Sigma - 1 are disjoint and decide OPT_free;
    # they overlap at K = Sigma - 1 just above r / (2 beta D - 1), D = Sigma - n - 1 (unclamped c, c'),
    # which lies below r / (2 beta (D - 1)): Sigma - 1 (or - 2) in place of Sigma fails here
    inst = parse_instance([list(e) for e in edges])
    n, sigma, r, beta = inst.n, 2 * len(edges), 0.3, 1.0
    bound = _p4d_lambda_bound(r, beta, sigma, n)
    lam = (1 - 1e-3) * bound
    lo, hi = _p4d_bounds(n, r, lam, beta)
    assert r + lam * (1 + 2 * beta) < 1  # c and c' unclamped
    assert all(hi(K) < lo(K + 1) for K in range(n, sigma))
    v, free = opt_blend_exhaustive(inst, BlendParams(r, lam, beta)).value, opt_free(inst).value
    assert [K for K in range(n, sigma + 1) if lo(K) - TOL <= v <= hi(K) + TOL] == [free]
    edge = r / (2 * beta * (sigma - n - 1) - 1)  # where (c' - c)(Sigma - 1 - n) = c
    assert bound < edge < r / (2 * beta * (sigma - n - 2))
    d = sigma - n - 1  # the stated bound is within 2 beta D / (2 beta D - 1) of the edge
    assert edge / bound == pytest.approx(2 * beta * d / (2 * beta * d - 1))
    lo, hi = _p4d_bounds(n, r, (1 + 1e-3) * edge, beta)
    assert hi(sigma - 1) > lo(sigma)


def test_p4d_no_bound_when_sigma_is_at_most_n_plus_one():
    # a matching plus a path of two edges: Sigma = n + 1, so every lambda > 0 gives disjoint intervals
    inst = parse_instance("01 23 45 56")
    n, sigma = inst.n, 8
    assert sigma == n + 1 and _p4d_lambda_bound(0.3, 1.0, sigma, n) == math.inf
    for lam in (0.05, 0.2, 5.0):
        lo, hi = _p4d_bounds(n, 0.3, lam, 1.0)
        assert all(hi(K) < lo(K + 1) for K in range(n, sigma))
        v = opt_blend_exhaustive(inst, BlendParams(0.3, lam, 1.0)).value
        assert [K for K in range(n, sigma + 1) if lo(K) - TOL <= v <= hi(K) + TOL] == [opt_free(inst).value]


def _p10_bound(edges, r, lam, beta):
    """P10: n + c1 |E| - max over independent sets I of sum_{x in I} (c2 - (c2 - c1) deg x), by
    brute force over vertex subsets."""
    verts = sorted({v for e in edges for v in e})
    deg = {v: sum(v in e for e in edges) for v in verts}
    c1, c2 = min(1.0, r + lam * (1 + beta)), min(1.0, r + lam * (1 + 2 * beta))
    best = 0.0
    for size in range(1, len(verts) + 1):
        for sub in itertools.combinations(verts, size):
            if not any(a in sub and b in sub for a, b in edges):
                best = max(best, sum(c2 - (c2 - c1) * deg[x] for x in sub))
    return len(verts) + c1 * len(edges) - best


P10_GRAPHS = [[(0, 1), (1, 2)], [(0, 1), (0, 2), (0, 3)], [(0, 1), (1, 2), (2, 0)], [(0, 1), (1, 2), (2, 3)],
              [(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 1), (1, 2), (2, 0), (2, 3)]]
P10_PARAMS = [(0.1, 0.05, 1.0), (0.0, 0.01, 10.0), (0.2, 0.1, 3.0), (0.15, 0.0, 0.0), (0.3, 0.05, 0.5)]


def _p10_opt(edges, p):
    return opt_blend_exhaustive(parse_instance([list(e) for e in edges]), p).value


@pytest.mark.parametrize("edges", P10_GRAPHS)
def test_p10_best_serving_order_equals_the_independent_set_bound(edges):
    for r, lam, beta in P10_PARAMS:
        p = BlendParams(r, lam, beta)
        vals = [_p10_opt(order, p) for order in itertools.permutations(edges)]
        bound = _p10_bound(edges, r, lam, beta)
        assert min(vals) == pytest.approx(bound)  # (b)
        assert all(v >= bound - TOL for v in vals)  # (a)


def test_p10_beta0_is_p2():
    edges = [(0, 1), (1, 2), (2, 0), (2, 3)]
    assert _p10_bound(edges, 0.15, 0.1, 0.0) == pytest.approx((1 - 0.25) * 4 + 0.25 * (_tau(edges) + 4))
    assert _p10_opt(edges, BlendParams(0.15, 0.1, 0.0)) == pytest.approx(_p10_bound(edges, 0.15, 0.1, 0.0))


def test_p10_bound_is_not_attained_in_every_serving_order():
    # K4 served 01 23 02 13 03 12 at r = 0, lambda = 0.01, beta = 10: 4.75 > 4.66 (both solvers);
    # at (0.1, 0.05, 1) the same order attains the bound 5.1
    from .naive import naive_k2_best_order

    order = [(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)]
    assert _p10_opt(order, BlendParams(0.0, 0.01, 10.0)) == pytest.approx(4.75)
    assert naive_k2_best_order(order, 0.0, 0.01, 10.0, orders=[order]) == pytest.approx(4.75)
    assert _p10_bound(order, 0.0, 0.01, 10.0) == pytest.approx(4.66)
    assert _p10_opt(order, BlendParams(0.1, 0.05, 1.0)) == pytest.approx(_p10_bound(order, 0.1, 0.05, 1.0)) == \
        pytest.approx(5.1)


def test_p10_k4_step3_order_attains_the_bound_with_an_empty_independent_set():
    # 3 c1 < 2 c2: every vertex of K4 has f < 0, I* is empty and the bound is 4 + 6 c1 = 4.66;
    # the order of the proof's step 3 (b = 1, a = 0): 01, then C - b from a, then b's out-edges
    r, lam, beta = 0.0, 0.01, 10.0
    k4 = list(itertools.combinations(range(4), 2))
    assert _p10_bound(k4, r, lam, beta) == pytest.approx(4.66)
    order = [(0, 1), (2, 0), (3, 0), (1, 2), (1, 3), (2, 3)]  # each pair as (first, second)
    inst = parse_instance([list(e) for e in order])
    p = BlendParams(r, lam, beta)
    res = price_layout(inst, [tuple(o) for o in inst.orders], p)
    assert res.objective == pytest.approx(4.66)
    rng = random.Random(4)
    for _ in range(4):  # a few other serving orders stay above the bound (P10(a))
        perm = rng.sample(order, len(order))
        assert _p10_opt(perm, p) >= 4.66 - TOL


@pytest.mark.slow
@pytest.mark.parametrize("r,lam,beta", [(0.0, 0.01, 10.0), (0.1, 0.05, 1.0), (0.3, 0.1, 2.0)])
def test_p10_k4_every_order_by_the_naive_twin(r, lam, beta):
    from .naive import naive_k2_best_order

    k4 = list(itertools.combinations(range(4), 2))
    assert naive_k2_best_order(k4, r, lam, beta) == pytest.approx(_p10_bound(k4, r, lam, beta))


def test_p10_naive_twin_agrees_with_the_exhaustive_solver_on_small_graphs():
    from .naive import naive_k2_best_order

    for edges in P10_GRAPHS[:4]:
        for r, lam, beta in P10_PARAMS[:3]:
            p = BlendParams(r, lam, beta)
            assert naive_k2_best_order(edges, r, lam, beta) == pytest.approx(
                min(_p10_opt(order, p) for order in itertools.permutations(edges)))


def _alpha(edges, verts):
    for size in range(len(verts), -1, -1):
        for sub in itertools.combinations(verts, size):
            s = set(sub)
            if not any(a in s and b in s for a, b in edges):
                return size


def test_p11_cubic_gadget_adds_two_to_alpha():
    # P11(a)'s reduction from maximum degree 3: K4 minus an edge has two vertices of degree 2;
    # one gadget (p, q, s, t, u: K4 on q, s, t, u minus qs, plus pq, ps, vp) on each makes it cubic
    g = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3)]  # 2 and 3 have degree 2
    edges, nxt = list(g), 4
    for v in (2, 3):
        pp, q, s_, t, u = range(nxt, nxt + 5)
        nxt += 5
        edges += [(q, t), (q, u), (s_, t), (s_, u), (t, u), (pp, q), (pp, s_), (v, pp)]
    verts = list(range(nxt))
    assert all(sum(v in e for e in edges) == 3 for v in verts)
    assert _alpha(edges, verts) == _alpha(g, list(range(4))) + 2 * 2


def test_p11_cubic_value_is_affine_in_alpha_and_small_degrees_suffice_otherwise():
    k4 = list(itertools.combinations(range(4), 2))
    for r, lam, beta in ((0.1, 0.05, 1.0), (0.3, 0.1, 2.0)):  # 3 c1 > 2 c2
        c1, c2 = min(1, r + lam * (1 + beta)), min(1, r + lam * (1 + 2 * beta))
        assert 3 * c1 > 2 * c2
        assert _p10_bound(k4, r, lam, beta) == pytest.approx(4 + 6 * c1 - (3 * c1 - 2 * c2) * _alpha(k4, range(4)))
    # 3 c1 <= 2 c2: the maximum is reached on the vertices of degree <= 2
    rng = random.Random(8)
    r, lam, beta = 0.0, 0.01, 10.0
    c1, c2 = min(1, r + lam * (1 + beta)), min(1, r + lam * (1 + 2 * beta))
    assert 3 * c1 <= 2 * c2
    for _ in range(20):
        edges = sorted({tuple(sorted(rng.sample(range(7), 2))) for _ in range(rng.randint(4, 12))})
        verts = sorted({v for e in edges for v in e})
        deg = {v: sum(v in e for e in edges) for v in verts}
        small = [v for v in verts if deg[v] <= 2]
        best = 0.0
        for size in range(1, len(small) + 1):
            for sub in itertools.combinations(small, size):
                if not any(a in sub and b in sub for a, b in edges):
                    best = max(best, sum(c2 - (c2 - c1) * deg[x] for x in sub))
        assert _p10_bound(edges, r, lam, beta) == pytest.approx(len(verts) + c1 * len(edges) - best)


def test_p2prime_per_chunk_constant_losses():
    """P2' by brute force: every layout, every non-first node full or blended at loss alpha_x,
    against sum_x (w - a) + OPT_free(a), OPT_free(a) by the naive Theorem 1 DP (weights >= 0)."""
    from .naive import naive_opt_free

    rng = random.Random(13)
    for _ in range(6):
        inst = _random_instance(rng, n=5, m=(2, 4), k=(1, 3), weights=True, max_layouts=216)
        w = [int(v) for v in inst.weights]
        alpha = [rng.choice([0, 1, 3, 8]) for _ in w]
        for r, lam in ((0.2, 0.1), (0.0, 0.5), (0.5, 0.05)):
            a = [min(wx, r * wx + lam * al) for wx, al in zip(w, alpha)]
            best = math.inf
            for layout in itertools.product(*(itertools.permutations(o) for o in inst.orders)):
                seen, total = set(), 0.0
                for nd in layout_nodes(layout):
                    x = nd.chunk
                    total += w[x] if x not in seen else min(w[x], r * w[x] + lam * alpha[x])
                    seen.add(x)
                best = min(best, total)
            want = sum(wx - ax for wx, ax in zip(w, a)) + naive_opt_free(inst.requests, a)
            assert best == pytest.approx(want)


@pytest.mark.parametrize("seed", range(4))
def test_per_answer_exhaustive_against_brute_force_and_p1_p5(seed):
    rng = random.Random(300 + seed)
    inst = _random_instance(rng, n=4, m=(3, 4), k=(1, 3), weights=seed % 2 == 0, max_layouts=144)
    free, wU = opt_free(inst).value, _wU(inst)
    for r, lam, beta in ((0.15, 0.1, 0.0), (0.15, 0.05, 1.0), (0.0, 0.3, 0.5)):
        p = BlendParams(r, lam, beta, per_answer=True)
        v = opt_blend(inst, p).value
        assert v == pytest.approx(naive_opt_blend(inst.orders, [int(w) for w in inst.weights], r, lam, beta, True)[0])
        assert (1 - p.c) * wU + p.c * free - TOL <= v <= free + TOL  # P5's inequalities, P1(a)
        assert v >= opt_blend(inst, BlendParams(r, lam, beta)).value - TOL  # charging more never helps
    assert opt_blend(inst, BlendParams(0.2, 0.8, 1.0, per_answer=True)).value == pytest.approx(free)  # P1(b)


def test_per_answer_changes_the_optimum_in_the_constant_model():
    # K4^(3): every layout of trie cost 8 has a non-first node shared by two requests, so
    # per-answer accounting pays its loss twice (5.9 against P2's 0.6 * 4 + 0.4 * 8 = 5.6)
    inst = parse_instance("012 013 023 123")
    assert opt_blend(inst, BlendParams(0.1, 0.3)).value == pytest.approx(5.6)
    assert opt_blend(inst, BlendParams(0.1, 0.3, per_answer=True)).value == pytest.approx(5.9)
    # where the only non-first nodes are leaves the two accountings agree
    inst = parse_instance("012 013 23")
    assert opt_blend(inst, BlendParams(0.1, 0.3, per_answer=True)).value == pytest.approx(
        opt_blend(inst, BlendParams(0.1, 0.3)).value)


def _per_answer_nodes(layout):
    """(chunk, first of its chunk?, requests through it) of every node, from prefix tuples (no trie)."""
    seen, chunks, out = set(), set(), []
    for seq in layout:
        for p in range(len(seq)):
            if seq[:p + 1] not in seen:
                seen.add(seq[:p + 1])
                out.append((seq[p], seq[p] not in chunks, sum(1 for s in layout if s[:p + 1] == seq[:p + 1])))
                chunks.add(seq[p])
    return out


def test_per_answer_budget_breaks_p3():
    # K4^(3), r = 0.15, loss <= 4 per answer, unit weights, beta = 0: blend the non-first nodes with
    # the fewest requests through them; 5.45 at trie cost 8 against P3's 8 - 0.85 * 4 = 4.6
    inst = parse_instance("012 013 023 123")
    r, B = 0.15, 4
    best = {}
    for layout in itertools.product(*(itertools.permutations(o) for o in inst.orders)):
        nodes = _per_answer_nodes(layout)
        taken, used = 0, 0
        for t in sorted(t for _, first, t in nodes if not first):
            if used + t <= B:
                used, taken = used + t, taken + 1
        best[len(nodes)] = min(best.get(len(nodes), math.inf), len(nodes) - (1 - r) * taken)
    assert best == pytest.approx({8: 5.45, 9: 5.6, 10: 6.6, 11: 7.6, 12: 8.6})
    assert 8 - (1 - r) * min(math.floor(B), 8 - 4) == pytest.approx(4.6)  # P3 charged once
    assert _budget_brute(inst, r, B) == pytest.approx(4.6)


def test_per_answer_first_copy_breaks_p8_upper_bound():
    # r = 0.1, lambda = 0.3, beta = 0: c' = c = 0.4; P8 would give J <= 0.6 * 4 + 0.4 * COST(L)
    from mptsearch.blend.heuristic import node_table, price_first

    inst = parse_instance("012 013 023 123")
    p = BlendParams(0.1, 0.3, per_answer=True)
    by_cost = {}
    for layout in itertools.product(*(itertools.permutations(o) for o in inst.orders)):
        c_, l_ = price_first(node_table(inst.weights, layout), p)
        j = c_ + p.price * l_
        mine = sum(1.0 if first else min(1.0, 0.1 + 0.3 * t) for _, first, t in _per_answer_nodes(layout))
        assert j == pytest.approx(mine)
        by_cost.setdefault(trie_cost(inst, layout), set()).add(round(j, 9))
    assert by_cost[8] == {5.9, 6.2} and min(by_cost[8]) > 0.6 * 4 + 0.4 * 8 + TOL
    assert max(by_cost[9]) == pytest.approx(6.6) and max(by_cost[9]) > 0.6 * 4 + 0.4 * 9 + TOL


def test_per_answer_p6a_ratio_still_tends_to_one_over_c():
    # P12(c): global sorted order, blend the non-first leaves, keep the rest full: J <= n + c m + I
    c = 0.15
    for n, k in ((5, 2), (6, 3)):
        reqs = [list(s) for s in itertools.combinations(range(n), k)]
        inst = parse_instance(reqs)
        lay = [tuple(sorted(s)) for s in reqs]
        nodes = _per_answer_nodes(lay)
        inner = sum(1 for seq in {s[:j] for s in lay for j in range(1, k)})
        j = sum(c if (not first and t == 1) else 1.0 for _, first, t in nodes)
        assert j <= n + c * len(reqs) + inner + TOL
        pa = opt_blend(inst, BlendParams(c, 0.0, per_answer=True)).value if layouts_count(inst) <= 200_000 else j
        assert opt_free(inst).value / pa >= len(reqs) / (c * len(reqs) + n + inner) - TOL
    ratios = [math.comb(n, 3) / (c * math.comb(n, 3) + n + sum(math.comb(n, i) for i in (1, 2))) for n in (10, 100, 1000)]
    assert all(a < b < 1 / c for a, b in zip(ratios, ratios[1:])) and ratios[-1] > 0.95 / c


def test_frontier_is_the_hull_of_every_blend_set():
    from mptsearch.blend.heuristic import frontier, node_table

    rng = random.Random(17)
    for _ in range(6):
        inst = _random_instance(rng, n=5, m=(3, 5), k=(2, 4), weights=True)
        layout = [tuple(rng.sample(o, len(o))) for o in inst.orders]
        tab = node_table(inst.weights, layout)
        for r, beta, per in ((0.15, 1.0, False), (0.3, 0.0, False), (0.1, 2.0, True)):
            pts = frontier(tab, r, beta, per)
            later = [j for j in range(len(tab.w)) if tab.d_first[j] >= 0]
            unit = {j: (1 + beta * tab.d_first[j]) * (tab.through[j] if per else 1) for j in later}
            xs, ys = [q.loss for q in pts], [q.cost for q in pts]
            assert all(a < b for a, b in zip(xs, xs[1:])) and all(a > b for a, b in zip(ys, ys[1:]))
            for size in range(len(later) + 1):
                for sub in itertools.combinations(later, size):
                    loss = sum(tab.w[j] * unit[j] for j in sub)
                    cost = tab.prefix_cost - (1 - r) * sum(tab.w[j] for j in sub)
                    if loss <= xs[-1]:
                        assert cost >= float(np.interp(loss, xs, ys)) - 1e-6
