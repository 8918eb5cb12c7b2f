"""Computational checks of each lemma of docs/theta_k.md (exhaustive for small k, the orbit DP
for large k). Where a lemma's bound is not attained by the optimum, the test checks the
per-chunk (or per-node) inequality the proof uses at a case where it holds with equality, and
a companion test shows the check fails on the lemma's formula plus one."""

import math
import random
from fractions import Fraction
from itertools import permutations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mptsearch.canonical import canonical_key
from mptsearch.exact.brute import brute_glob
from mptsearch.exact.free import opt_free
from mptsearch.exact.glob import opt_glob
from mptsearch.families import (ratio_record, sunflowers, sunflowers_layout, sunflowers_orbits,
                                two_sunflowers, two_sunflowers_layout, two_sunflowers_orbits)
from mptsearch.orbits import opt_glob_orbits
from mptsearch.trie import build_trie, order_cost, trie_cost

from .strategies import instances


def n_x(requests, order):
    """N_x for every chunk x: #distinct R ∩ P_x over the requests containing x."""
    out, placed = {}, set()
    for x in order:
        out[x] = len({frozenset(r & placed) for r in requests if x in r})
        placed.add(x)
    return out


def lemma1_counts(k, order):
    """Lemma 1' of docs/theta_k.md."""
    A, B, z = set(range(1, k)), set(range(k, 2 * k - 1)), 0
    out, placed = {}, set()
    for x in order:
        al, be, ze = len(A & placed), len(B & placed), int(z in placed)
        if x == z:
            out[x] = 1 + (al + be >= 1)
        elif x in A:
            out[x] = be + ze + (be + ze < k) + 1 - (al == 0 and be <= 1)
        else:
            out[x] = al + ze + (al + ze < k) + 1 - (be == 0 and al <= 1)
        placed.add(x)
    return out


# ---- D_k ------------------------------------------------------------------------------------

@pytest.mark.parametrize("k", [3, 4])
def test_lemma1_counts_every_order(k):
    reqs = [frozenset(o) for o in two_sunflowers(k).orders]
    for order in permutations(range(2 * k - 1)):
        assert n_x(reqs, order) == lemma1_counts(k, order)


@pytest.mark.parametrize("k", [5, 8, 12])
def test_lemma1_counts_random_orders(k):
    reqs = [frozenset(o) for o in two_sunflowers(k).orders]
    rnd = random.Random(k)
    for _ in range(300):
        order = list(range(2 * k - 1))
        rnd.shuffle(order)
        assert n_x(reqs, order) == lemma1_counts(k, order)


@pytest.mark.parametrize("k", [3, 4])
def test_lemma1_all_orders(k):
    assert brute_glob(two_sunflowers(k))[0] == (k - 1) * (k + 3)


def test_lemma1_subset_dp_and_orbit_dp():
    for k in range(3, 9):
        assert opt_glob(two_sunflowers(k)).value == (k - 1) * (k + 3)
    for k in list(range(3, 60)) + [100, 300]:
        assert opt_glob_orbits(two_sunflowers_orbits(k)).value == (k - 1) * (k + 3)


def test_lemma1_upper_bound_order():
    for k in (3, 7, 40):
        inst = two_sunflowers(k)
        order = [k, 1] + list(range(2, k)) + list(range(k + 1, 2 * k - 1)) + [0]
        assert order_cost(inst, order) == (k - 1) * (k + 3)
        order = list(range(1, k)) + [0] + list(range(k, 2 * k - 1))    # one early chunk only
        assert order_cost(inst, order) == (k - 1) * (k + 3) + 1


def test_lemma2_exact_dp_and_layout():
    for k in range(3, 8):
        assert opt_free(two_sunflowers(k)).value == 4 * k - 2
    for k in (3, 10, 200):
        inst = two_sunflowers(k)
        assert trie_cost(inst, two_sunflowers_layout(inst)) == 4 * k - 2


def hierarchy_savings(reqs, side, rnd, grouped=False):
    """A random full binary tree over the requests (with ``grouped``, each side's requests
    merged among themselves first): (sum_v |I(v)|, G = number of maximal subtrees whose
    leaves all have one side, the largest |I(v)| at a mixed node). Checks |I(v)| = s at every
    pure node and |I(v)| <= 2 at every mixed node on the way."""
    s = min(len(r) for r in reqs) - 1
    nodes = [(r, frozenset([side[i]])) for i, r in enumerate(reqs)]
    savings, groups, mixed_max = 0, 0, 0
    while len(nodes) > 1:
        if grouped and any(len([nd for nd in nodes if nd[1] == sd]) > 1 for sd in {nd[1] for nd in nodes}):
            sd = next(sd for sd in {nd[1] for nd in nodes} if len([nd for nd in nodes if nd[1] == sd]) > 1)
            a, b = rnd.sample([i for i, nd in enumerate(nodes) if nd[1] == sd], 2)
        else:
            a, b = rnd.sample(range(len(nodes)), 2)
        (ra, sa), (rb, sb) = nodes[a], nodes[b]
        inter, sides = ra & rb, sa | sb
        savings += len(inter)
        if len(sides) > 1:   # a mixed node: its pure children close their groups
            groups += (len(sa) == 1) + (len(sb) == 1)
            assert len(inter) <= 2
            mixed_max = max(mixed_max, len(inter))
        else:
            assert len(inter) == s
        nodes = [nd for i, nd in enumerate(nodes) if i not in (a, b)] + [(inter, sides)]
    return savings, groups, mixed_max


@pytest.mark.parametrize("c, k", [(2, 3), (2, 5), (3, 3), (3, 4), (4, 5)])
def test_hierarchy_count_of_lemmas_2_and_5(c, k):
    """The counting step: savings <= s(m - G) + 2(G - 2), exactly s(m - c) when G = c."""
    s = k - 1
    if c == 2:
        inst = two_sunflowers(k)
        side = [0 if set(range(1, k)) <= set(o) else 1 for o in inst.orders]
        lower = 4 * k - 2
    else:
        inst = sunflowers(c, k)
        side = [next(j for j in range(c) if set(range(j * s, (j + 1) * s)) <= set(o)) for o in inst.orders]
        lower = c * c * s - max(0, 2 * c - 2 - s)
    reqs = [frozenset(o) for o in inst.orders]
    m, rnd = len(reqs), random.Random(c * 100 + k)
    seen_two, seen_gc = False, False
    for trial in range(400):
        sav, G, mixed_max = hierarchy_savings(reqs, side, rnd, grouped=trial % 4 == 0)
        seen_two |= mixed_max == 2
        assert G >= c
        if G == c:   # each group is one core's whole request set
            seen_gc = True
            assert sav == s * (m - c)
        else:
            assert sav <= s * (m - G) + 2 * (G - 2)
        assert m * (s + 1) - sav >= lower
    assert seen_two and seen_gc     # |I(v)| = 2 at a mixed node and G = c both occur


def test_d4_is_the_papers_record():
    assert canonical_key(two_sunflowers(4)) == canonical_key(ratio_record())


# ---- Lemma 3: upper bounds --------------------------------------------------------------------

def node_bound(inst, layout, order):
    """sum over trie nodes v of sum_{j = r_v}^{d_v} w(pi_j(A_v)) (Lemma 3's claim)."""
    rank = {x: i for i, x in enumerate(order)}
    w = inst.weights
    total, stack = 0, [(build_trie(layout), ())]
    while stack:
        node, path = stack.pop()
        for x, child in node.items():
            A = sorted(path + (x,), key=rank.__getitem__)
            r = A.index(x)
            total += sum(int(w[y]) for y in A[r:])
            stack.append((child, path + (x,)))
    return total


def depth_bound_twice(layout):
    """2 * sum_v (d_v + 1)/2 = sum_v (d_v + 1)."""
    total, stack = 0, [(build_trie(layout), 0)]
    while stack:
        node, d = stack.pop()
        for child in node.values():
            total += d + 2
            stack.append((child, d + 1))
    return total


@settings(max_examples=120)
@given(instances(max_n=7, max_m=7, max_weight=5), st.randoms(use_true_random=False))
def test_lemma3_claim_random_order_two_layouts(inst, rnd):
    """One random order and the heaviest-first order, for the given layout and an optimal one."""
    k = max(len(o) for o in inst.orders)
    layouts = [inst.orders, opt_free(inst).layout]
    for layout in layouts:
        order = list(range(inst.n))
        rnd.shuffle(order)
        assert order_cost(inst, order) <= node_bound(inst, layout, order)
        heavy = sorted(range(inst.n), key=lambda x: -int(inst.weights[x]))
        assert order_cost(inst, heavy) <= node_bound(inst, layout, heavy) <= k * trie_cost(inst, layout)


@settings(max_examples=30, deadline=None)
@given(instances(max_n=4, max_m=3, max_weight=5, max_k=3))
def test_lemma3_claim_every_order_every_layout_tiny(inst):
    """Exhaustive on tiny instances (n <= 4, m <= 3, k <= 3): every global order against every
    layout (every chunk order of every request)."""
    k = max(len(o) for o in inst.orders)
    orders = list(permutations(range(inst.n)))
    costs = {o: order_cost(inst, list(o)) for o in orders}
    for layout in product(*(list(permutations(o)) for o in inst.orders)):
        layout = [list(r) for r in layout]
        for o in orders:
            assert costs[o] <= node_bound(inst, layout, o)
        heavy = sorted(range(inst.n), key=lambda x: -int(inst.weights[x]))
        assert node_bound(inst, layout, heavy) <= k * trie_cost(inst, layout)


@settings(max_examples=120)
@given(instances(max_n=7, max_m=8, max_weight=1))
def test_lemma3_unit_weights(inst):
    k = max(len(o) for o in inst.orders)
    f = opt_free(inst)
    g = opt_glob(inst).value
    assert 2 * g <= depth_bound_twice(f.layout) <= (k + 1) * f.value


def test_lemma3_average_over_orders_is_the_depth_bound():
    """The expectation step: averaging the per-node bound over all n! orders gives
    sum_v (d_v + 1)/2 exactly (unit weights)."""
    inst = two_sunflowers(3)
    layout = two_sunflowers_layout(inst)
    total = sum(node_bound(inst, layout, o) for o in permutations(range(inst.n)))
    assert 2 * total == depth_bound_twice(layout) * math.factorial(inst.n)


def after_probability(t):
    """P(x after y) in Lemma 3's random-class order when ln w(x) - ln w(y) = t (the proof's
    case table): 0 for t >= 1, (1 - t)/2 for -1 < t < 1, 1 for t <= -1."""
    return 0.0 if t >= 1 else (1.0 if t <= -1 else (1 - t) / 2)


def test_lemma3_weighted_pair_step():
    """The pair step of the weighted (k+1)/2 bound: e^t P(after) <= 1/2 for every t, with
    equality at t = 0 only. P(after) is rechecked by integrating over the offset U directly
    (classes floor(ln w - U), ties in a class broken uniformly)."""
    us = [(j + 0.5) / 2000 for j in range(2000)]
    for t in [i / 40 for i in range(-120, 121)]:
        direct = sum(1.0 if math.floor(t - u) < math.floor(-u) else
                     (0.5 if math.floor(t - u) == math.floor(-u) else 0.0) for u in us) / len(us)
        assert abs(direct - after_probability(t)) < 1e-3, t
        assert math.exp(t) * after_probability(t) <= 0.5 + 1e-12
        if t != 0:
            assert math.exp(t) * after_probability(t) < 0.5
    assert math.exp(0) * after_probability(0) == 0.5          # so 1/2 cannot be lowered


def class_pieces(inst):
    """The offsets U in [0, 1) split into intervals on which every class floor(ln w(x) - U) is
    constant: (probability, {chunk: class}) per interval."""
    w = {x: int(inst.weights[x]) for x in range(inst.n)}
    cuts = sorted({0.0, 1.0} | {math.log(v) % 1.0 for v in w.values()})
    return [(b - a, {x: math.floor(math.log(w[x]) - (a + b) / 2) for x in w})
            for a, b in zip(cuts, cuts[1:]) if b > a]


def expected_cost_random_class_order(inst, pieces):
    """E[cost(pi)] for the random-class order, exactly: every order within each piece's classes
    (heaviest class first), each equally likely."""
    total = 0.0
    for p, cls in pieces:
        groups = [sorted(x for x in cls if cls[x] == c) for c in sorted(set(cls.values()), reverse=True)]
        orders = [[]]
        for g in groups:
            orders = [o + list(q) for o in orders for q in permutations(g)]
        total += p * sum(order_cost(inst, o) for o in orders) / len(orders)
    return total


def expected_node_bound(inst, layout, pieces):
    """E over the random-class order of Lemma 3's per-node bound: sum_v w(y_v) + sum over x in
    A_v - y_v of w(x) P(x after y_v), with P from each piece's classes (1, 0 or 1/2)."""
    w, total, stack = inst.weights, 0.0, [(build_trie(layout), ())]
    while stack:
        node, path = stack.pop()
        for y, child in node.items():
            for p, cls in pieces:
                total += p * (int(w[y]) + sum(int(w[x]) * (1.0 if cls[x] < cls[y] else 0.5 if cls[x] == cls[y] else 0.0)
                                              for x in path))
            stack.append((child, path + (y,)))
    return total


@settings(max_examples=60, deadline=None)
@given(instances(max_n=5, max_m=5, max_weight=12))
def test_lemma3_weighted_random_class_order(inst):
    """The weighted (k+1)/2 bound: for the random-class order, E[cost] <= E[per-node bound] <=
    (k+1)/2 cost(L) for the given layout and an optimal one (exact expectations), hence
    OPT_glob <= (k+1)/2 OPT_free."""
    k = max(len(o) for o in inst.orders)
    pieces = class_pieces(inst)
    assert abs(sum(p for p, _ in pieces) - 1) < 1e-12
    e_cost = expected_cost_random_class_order(inst, pieces)
    f = opt_free(inst)
    for layout in (inst.orders, f.layout):
        assert e_cost <= expected_node_bound(inst, layout, pieces) + 1e-9
        assert expected_node_bound(inst, layout, pieces) <= (k + 1) / 2 * trie_cost(inst, layout) + 1e-9
    assert 2 * opt_glob(inst).value <= (k + 1) * f.value


@pytest.mark.parametrize("m", [1, 2, 5])
def test_lemma3_bounds_are_attained_at_k1(m):
    """Requests of one chunk (k = 1): every order and every layout cost the total weight, so
    OPT_glob/OPT_free = 1 = (k+1)/2. Lemma 3's bound (unit and weighted) and the sharper
    sum_v (d_v+1)/2 are attained; a bound of k/2 fails here. (For k = 2 the truth is 1 = k/2,
    the paper's Section 4, and for k >= 3 no instance above k/2 is known.)"""
    from mptsearch.instance import from_lists

    inst = from_lists([[x] for x in range(m)], {x: 1 for x in range(m)})
    k = 1
    g, f = opt_glob(inst), opt_free(inst)
    assert g.value == f.value == m
    assert 2 * g.value == depth_bound_twice(f.layout) == (k + 1) * f.value
    assert not 2 * g.value <= k * f.value                    # the bound k/2 fails
    heavy = from_lists([[x] for x in range(m)], {x: x + 1 for x in range(m)})
    assert 2 * opt_glob(heavy).value == (k + 1) * opt_free(heavy).value     # weighted: (k+1)/2 = k = 1
    assert not 2 * opt_glob(heavy).value <= k * opt_free(heavy).value


@settings(max_examples=60, deadline=None)
@given(instances(max_n=7, max_m=7, max_weight=5, max_k=2))
def test_k2_global_orders_are_optimal(inst):
    """The theorem's case k = 2 rests on the paper's Section 4: with at most two chunks per
    request a global order is optimal (weighted too), so rho(2) = rho_1(2) = 1 = k/2."""
    assert opt_glob(inst).value == opt_free(inst).value


# ---- S(c, k) ------------------------------------------------------------------------------------

def lemma4_chunk_counts(c, k, order):
    """The per-chunk formula of Lemma 4's proof (chunk y of core Y = y // s, Q = Y ∩ P_y):
    N_y = |P_y - Y| + [some chunk outside Y is after y]
          + (q >= 1: #{X != Y : X ∩ P_y nonempty} + [some X != Y has X ∩ P_y empty];
             q = 0: #{X != Y : |X ∩ P_y| >= 2})."""
    s = k - 1
    out, placed = {}, []
    for i, y in enumerate(order):
        Y = y // s
        meet = {X: sum(1 for p in placed if p // s == X) for X in range(c) if X != Y}
        outside = sum(meet.values())
        later_outside = any(p // s != Y for p in order[i + 1:])
        if any(p // s == Y for p in placed):
            tail = sum(1 for v in meet.values() if v) + any(v == 0 for v in meet.values())
        else:
            tail = sum(1 for v in meet.values() if v >= 2)
        out[y] = outside + later_outside + tail
        placed.append(y)
    return out


def lemma4_terms(c, k, order):
    """The terms of Lemma 4's identity: (pairs, tail run tau, {(i, j): a_ij} over the cores
    numbered by first chunk, B)."""
    s = k - 1
    pos = {x: i for i, x in enumerate(order)}
    first = {}
    for x in order:
        first.setdefault(x // s, x)
    cores = sorted(range(c), key=lambda X: pos[first[X]])
    a = {(i, j): sum(1 for x in range(cores[i] * s, cores[i] * s + s) if pos[x] < pos[first[cores[j]]])
         for i in range(c) for j in range(i + 1, c)}
    tau = 0
    for x in reversed(order):
        if x // s != order[-1] // s:
            break
        tau += 1
    fc = pos[first[cores[-1]]]
    B = sum(1 for x in order if x != first[x // s] and pos[x] < fc)
    return math.comb(c, 2) * s * s, tau, a, B


def lemma4_identity(c, k, order):
    """cost = C(c,2) s^2 + (cs - tau) + sum_{i<j} (2s - max(a_ij, 2)) + B (Lemma 4)."""
    s = k - 1
    pairs, tau, a, B = lemma4_terms(c, k, order)
    return pairs + (c * s - tau) + sum(2 * s - max(v, 2) for v in a.values()) + B


def lemma4_opt(c, k):
    """Lemma 4: OPT_glob(S(c, k)) = C(c,2) s(s+1) + (c-1)(2s-1) for k >= 4, 3c^2 - c - 1 at k = 3."""
    s = k - 1
    return math.comb(c, 2) * s * (s + 1) + (c - 1) * (2 * s - 1) if k >= 4 else 3 * c * c - c - 1


def lemma4_h(c, s, i, b):
    """h_i(b) = (c - i)(2s - max(b, 2)) + b - 1 (cores numbered 1..c by first chunk)."""
    return (c - i) * (2 * s - max(b, 2)) + b - 1


def lemma4_orders(c, k):
    """All orders for n <= 6, else the core-after-core order, the firsts-first order and 300
    random ones."""
    n, s = c * (k - 1), k - 1
    if n <= 6:
        return [list(o) for o in permutations(range(n))]
    firsts = [j * s for j in range(c)]
    rnd, out = random.Random(c * 100 + k), [list(range(n)), firsts + [x for x in range(n) if x % s]]
    for _ in range(300):
        out.append(rnd.sample(range(n), n))
    return out


LEMMA4_CASES = [(2, 3), (2, 4), (3, 3), (3, 4), (4, 3), (4, 5), (5, 4), (3, 6)]


@pytest.mark.parametrize("c, k", LEMMA4_CASES)
def test_lemma4_per_chunk_formula_and_identity(c, k):
    """The per-chunk formula is N_y exactly and the identity is the order's trie cost exactly,
    for every order (n <= 6) or 302 orders: a term off by one fails."""
    inst = sunflowers(c, k)
    reqs = [frozenset(o) for o in inst.orders]
    for order in lemma4_orders(c, k):
        assert n_x(reqs, order) == lemma4_chunk_counts(c, k, order), order
        assert order_cost(inst, order) == lemma4_identity(c, k, order), order


@pytest.mark.parametrize("c, k", [(2, 3), (3, 3), (4, 3), (2, 4), (3, 4), (4, 5), (5, 4), (3, 6)])
def test_lemma4_optimum_steps(c, k):
    """The steps of Lemma 4's optimum on every order tried: a_ij <= a_ic = b_i (j < c); the
    identity is at least C(c,2)s^2 + (cs - tau) + sum_i h_i(b_i); tau = s forces every b_i = s;
    and the resulting value (the lemma's closed form) is at most every order's cost."""
    s = k - 1
    for order in lemma4_orders(c, k):
        pairs, tau, a, B = lemma4_terms(c, k, order)
        b = {i: a[(i, c - 1)] for i in range(c - 1)}             # 0-based: core i is the (i+1)-th
        assert all(v <= b[i] for (i, j), v in a.items())
        relaxed = pairs + c * s - tau + sum(lemma4_h(c, s, i + 1, b[i]) for i in range(c - 1))
        assert lemma4_identity(c, k, order) >= relaxed
        if tau == s:
            assert all(v == s for v in b.values())
        assert relaxed >= lemma4_opt(c, k)           # the case analysis on tau


@pytest.mark.parametrize("c", [2, 3, 4, 7])
def test_lemma4_optimal_orders(c):
    """The orders attaining Lemma 4: one core after another for k >= 4; for k = 3 the c first
    chunks first (the last two chunks are then of different cores). At k = 3 the core-after-core
    order costs c - 2 more (so the k >= 4 formula is wrong at k = 3 for c >= 3)."""
    for k in (4, 5, 7):
        inst = sunflowers(c, k)
        assert order_cost(inst, list(range(c * (k - 1)))) == lemma4_opt(c, k)
    inst = sunflowers(c, 3)
    order = [2 * j for j in range(c)] + [2 * j + 1 for j in range(c)]
    assert order_cost(inst, order) == lemma4_opt(c, 3) == 3 * c * c - c - 1
    core_after_core = math.comb(c, 2) * 6 + (c - 1) * 3
    assert order_cost(inst, list(range(2 * c))) == core_after_core == lemma4_opt(c, 3) + c - 2


@pytest.mark.parametrize("c, k", [(2, 3), (3, 3), (4, 3), (5, 3), (2, 4), (3, 4), (4, 4), (3, 5)])
def test_lemma4_against_the_orbit_dp(c, k):
    """Lemma 4's OPT_glob equals the orbit DP's (an independent exact method)."""
    assert opt_glob_orbits(sunflowers_orbits(c, k)).value == lemma4_opt(c, k)


def test_lemma4_ratio_tends_to_k_over_2():
    """The proved ratio bound of S(c, k), OPT_glob / (c^2 s), is below k/2, increases to k/2 in
    c and passes the former bound k/2 - 1/(2(k-1)) (S(50, 16): the referee's >= 7.8)."""
    from fractions import Fraction

    for k in (3, 4, 5, 8, 16, 50):
        s = k - 1
        r = [Fraction(lemma4_opt(c, k), c * c * s) for c in (2, 3, 10, 100, 10**4, 10**6)]
        assert r == sorted(r) and r[-1] < Fraction(k, 2) and Fraction(k, 2) - r[-1] < Fraction(k, 10**6)
        assert r[-2] > Fraction(k, 2) - Fraction(1, 2 * (k - 1))
    assert Fraction(lemma4_opt(50, 16), 2500 * 15) == Fraction(295421, 37500) > Fraction(78, 10)


@pytest.mark.parametrize("c, k", [(2, 4), (3, 3), (3, 6), (4, 3), (4, 5), (5, 4)])
def test_lemma4_bound_and_core_order(c, k):
    s = k - 1
    g = opt_glob_orbits(sunflowers_orbits(c, k)).value
    assert g == lemma4_opt(c, k)
    inst = sunflowers(c, k)
    seq = order_cost(inst, list(range(c * s)))       # one core after another
    assert seq == math.comb(c, 2) * s * (s + 1) + (c - 1) * (2 * s - 1)
    assert g <= seq
    if k >= 4 or c == 2:
        assert g == seq        # Lemma 4: one core after another is optimal
    else:
        assert g < seq         # k = 3, c >= 3: the optimum is lower (Lemma 4)


@pytest.mark.parametrize("c, k", [(2, 3), (3, 3), (3, 5), (4, 4), (5, 3)])
def test_core_after_core_per_chunk_counts(c, k):
    """The proof of the core-after-core cost: the t-th chunk of the l-th core (1-based) has
    N = (l-1)(k-1) + (l-1) + 2[l < c] - [t = 1 and l < c]."""
    s = k - 1
    reqs = [frozenset(o) for o in sunflowers(c, k).orders]
    got = n_x(reqs, list(range(c * s)))
    for y in range(c * s):
        l, t = y // s + 1, y % s + 1
        assert got[y] == (l - 1) * s + (l - 1) + 2 * (l < c) - (t == 1 and l < c)


def test_s23_attains_the_core_after_core_cost():
    """S(2, 3): OPT_glob = 9 = C(2,2)*2*3 + 1*3, by the subset DP and by all 4! orders."""
    inst = sunflowers(2, 3)
    assert opt_glob(inst).value == brute_glob(inst)[0] == 9 == order_cost(inst, [0, 1, 2, 3])


def lemma5_lower(c, k):
    s = k - 1
    return c * c * s - max(0, 2 * c - 2 - s)


@pytest.mark.parametrize("c, k", [(2, 3), (2, 4), (2, 5), (3, 3), (3, 4)])
def test_lemma5_exact_dp(c, k):
    """Lemma 5's bounds against the exact OPT_free DP. The lower bound is attained when
    2c - 2 <= s (here c = 2), so the lemma plus one fails there; S(3, 3) = 18 and S(3, 4) = 27
    reach the upper bound c^2 s although 2c - 2 > s (computed)."""
    s = k - 1
    inst = sunflowers(c, k)
    f = opt_free(inst).value
    assert lemma5_lower(c, k) <= f <= trie_cost(inst, sunflowers_layout(inst, c)) == c * c * s
    assert f == c * c * s                       # computed for these sizes
    if 2 * c - 2 <= s:
        assert f == lemma5_lower(c, k)
        assert not lemma5_lower(c, k) + 1 <= f   # the lemma plus one would fail


@pytest.mark.slow
def test_lemma5_tight_at_c3():
    """S(3, 5): 2c - 2 = s = 4, the lower bound c^2 s = 36 is attained (about 20 s)."""
    assert opt_free(sunflowers(3, 5)).value == lemma5_lower(3, 5) == 36


def test_s33_is_the_k3_six_chunk_maximum_ratio():
    inst = sunflowers(3, 3)
    assert (opt_glob(inst).value, opt_free(inst).value) == (23, 18)


@pytest.mark.parametrize("c, k", [(2, 3), (2, 5), (3, 3), (3, 4)])
def test_s_family_ratio_with_exact_optima(c, k):
    """Exact OPT_glob (orbit DP = subset DP) and exact OPT_free (DP): the ratio lies between
    Lemma 4 / Lemma 5's value and Lemma 3's bounds ((k+1)/2, and the sharper
    sum_v (d_v + 1)/2 over an optimal free trie)."""
    s = k - 1
    inst = sunflowers(c, k)
    g = opt_glob_orbits(sunflowers_orbits(c, k)).value
    assert g == opt_glob(inst).value
    f = opt_free(inst)
    assert g == lemma4_opt(c, k) and lemma4_opt(c, k) * f.value <= g * c * c * s
    assert 2 * g <= depth_bound_twice(f.layout) <= (k + 1) * f.value


def test_anneal_family_sentence_follows_the_rows():
    from experiments.anneal_family import fit_sentence

    rows = [{"k": k, "opt_free": 4 * k - 2, "opt_glob": (k - 1) * (k + 3)} for k in (3, 4, 5)]
    assert "equal" in fit_sentence(rows) and "NOT" not in fit_sentence(rows)
    rows[1]["opt_glob"] += 1
    assert "do NOT fit" in fit_sentence(rows) and "k = 4 " in fit_sentence(rows)


def test_mixed_3_4_six_chunk_maximum_is_s_plus_2_4():
    """The exhaustive maximum of sizes 3-4 on 6 chunks (results/theta_k, m=8: 19/12) is
    S+(2, 4), the two cores of S(2, 4) added as requests."""
    from mptsearch.instance import parse_instance

    witness = parse_instance("012 0123 0124 0125 345 0345 1345 2345")
    fam = sunflowers(2, 4, with_cores=True)
    assert canonical_key(witness) == canonical_key(fam)
    assert (opt_glob(fam).value, opt_free(fam).value) == (19, 12)
    assert trie_cost(fam, sunflowers_layout(fam, 2)) == 12


# ---- the structured search (experiments/theta_k_search.py) -------------------------------------

@pytest.mark.parametrize("k, name, ratio", [(3, "S(3,3)", (23, 18)), (4, "S(3,4)", (46, 27))])
def test_search_finds_the_small_sunflowers(k, name, ratio):
    """The search's seeds contain S(3, 3) and S(3, 4) and it reports them with the exact ratio
    (both free sides by the exact DP); earlier versions missed both."""
    from fractions import Fraction

    from experiments.theta_k_search import search

    res = search(k, seed=1, evaluations=3, max_cores=3)
    seed_row = next(r for r in res["seeds"] if r["family"] == name)
    assert (seed_row["opt_glob"], seed_row["free_cost"]) == ratio
    assert seed_row["free_method"] == "exact OPT_free DP"
    assert res["best"]["ratio"] >= Fraction(*ratio)


@pytest.mark.parametrize("k, c", [(3, 3), (4, 3), (7, 6)])
def test_search_generator_draws_the_sunflowers(k, c):
    """The random generator itself (not only the seeds) produces S(c, k): within 2000 seeded
    draws one has S(c, k)'s orbit sizes and exactly its request types (S(6, 7) included)."""
    from experiments.theta_k_search import random_family

    target = sunflowers_orbits(c, k)
    rng = random.Random(7)
    for _ in range(2000):
        fam = random_family(rng, k)
        if fam is not None and fam.sizes == target.sizes and set(fam.types) == set(target.types):
            assert fam.instance().m == target.m
            return
    raise AssertionError(f"S({c}, {k}) never drawn")


@pytest.mark.slow
def test_search_finds_s67():
    """S(6, 7) = 685/216 (orbit DP; the free side is the orbit-major layout's trie cost), above
    S(5, 7) = 464/150; the search reports it at k = 7 (slow: 2.6 min on the loaded machine)."""
    from fractions import Fraction

    from experiments.theta_k_search import search

    res = search(7, seed=1, evaluations=0, max_cores=6)
    assert res["best"]["found_by"] == "S(6,7)" and res["best"]["ratio"] == Fraction(685, 216)


def _random_hierarchy_counts(c, k, rng, greedy_share):
    """A random binary hierarchy of S(c, k) by merges (a share of them picking a pair of largest
    intersection, preferring mixed pairs): (savings, G = groups, sum of |I| over mixed nodes)."""
    s = k - 1
    cores = [list(range(X * s, (X + 1) * s)) for X in range(c)]
    reqs = [(X, frozenset(cores[X]) | {u}) for X in range(c) for Y in range(c) if Y != X for u in cores[Y]]
    clusters = [(X, r, 1) for X, r in reqs]         # (core if pure else None, signature, requests)
    savings = pure = mixed_sum = 0
    singles = 0                                     # groups that are one request (P of Lemma 5')
    while len(clusters) > 1:
        if rng.random() < greedy_share:
            best = max(((len(a[1] & b[1]), a[0] != b[0], i, j) for i, a in enumerate(clusters)
                        for j, b in enumerate(clusters) if i < j))
            i, j = best[2], best[3]
        else:
            i, j = sorted(rng.sample(range(len(clusters)), 2))
        a, b = clusters[i], clusters[j]
        sig = a[1] & b[1]
        core = a[0] if a[0] is not None and a[0] == b[0] else None
        savings += len(sig)
        if core is None:
            mixed_sum += len(sig)
            singles += (a[0] is not None and a[2] == 1) + (b[0] is not None and b[2] == 1)
        else:
            pure += 1
        clusters = [x for t, x in enumerate(clusters) if t not in (i, j)] + [(core, sig, a[2] + b[2])]
    return savings, len(reqs) - pure, mixed_sum, singles


@pytest.mark.parametrize("c,k", [(3, 4), (4, 4), (4, 5), (5, 4), (3, 6)])
def test_lemma5_prime_every_hierarchy_saves_at_most_s_m_minus_c(c, k):
    """Lemma 5' (k >= 4): sum over mixed nodes of |I(v)| <= 3 (G - c) <= s (G - c), so every
    hierarchy saves at most s (m - c) and OPT_free(S(c, k)) = c^2 s; the cores-first hierarchy
    attains it (so the bound plus one fails)."""
    import random

    s, m = k - 1, c * (c - 1) * (k - 1)
    rng = random.Random(7 * c + k)
    worst = Fraction(0)
    for trial in range(60):
        sav, G, mixed, P = _random_hierarchy_counts(c, k, rng, greedy_share=trial / 60)
        assert mixed <= (G - c) + P                  # the proof's step, before P <= 2(G - c)
        assert P <= 2 * (G - c)
        assert P * ((c - 1) * s - 1) <= (c - 1) * s * (G - c)   # the sharper count, attained below
        assert mixed <= 3 * (G - c)
        assert sav <= s * (m - c)
        if G > c:
            worst = max(worst, Fraction(mixed, G - c))
    assert worst <= 3
    # Not tight, and no test here fails the weaker "mixed <= 2(G - c)": the largest mixed/(G - c)
    # measured is 6/5 on these samples and 3/2 in the construction below, so the constant 3 (or
    # 5/2 with the sharper count of P) has slack >= 1 per G - c; the step mixed <= (G - c) + P is
    # met only at G = c in these samples (smallest gap 1 when G > c, at S(3, 4) and S(3, 6)); the
    # sharper P <= (c-1)s/((c-1)s - 1) (G - c) is attained (test below), the doc's 2(G - c) is not.
    # a hierarchy with mixed = 3/2 (G - c) (so "mixed <= G - c" is false): split X + {y1} and
    # Y + {x1} off their cores' groups, join them ({x1, y1}: 2), then the rest of X ({x1}: 1),
    # then the rest of Y and the other cores (nothing): G = c + 2, mixed savings 3
    X, Y = set(range(s)), set(range(s, 2 * s))
    x1, y1 = 0, s
    a, b = X | {y1}, Y | {x1}
    first = a & b
    second = first & X
    assert (len(first), len(second), len(second & Y)) == (2, 1, 0)
    assert Fraction(len(first) + len(second), 2) == Fraction(3, 2)
    inst = sunflowers(c, k)
    assert trie_cost(inst, sunflowers_layout(inst, c)) == inst.total_weight() - s * (m - c) == c * c * s


def _tree_counts(c, k, tree):
    """(savings, G, sum of |I| over mixed nodes, P) of Lemma 5' for the binary hierarchy ``tree``
    of S(c, k) (nested pairs of request indices, requests ordered core by core)."""
    s = k - 1
    cores = [frozenset(range(X * s, (X + 1) * s)) for X in range(c)]
    reqs = [(X, cores[X] | {u}) for X in range(c) for Y in range(c) if Y != X for u in cores[Y]]
    out = {"sav": 0, "mixed": 0, "G": 0, "P": 0}

    def walk(t):
        if isinstance(t, int):
            return reqs[t][0], reqs[t][1], 1
        (ca, sa, na), (cb, sb, nb) = walk(t[0]), walk(t[1])
        sig = sa & sb
        out["sav"] += len(sig)
        if ca is not None and ca == cb:
            return ca, sig, na + nb
        out["mixed"] += len(sig)
        for core, size in ((ca, na), (cb, nb)):   # a pure child under a mixed node closes a group
            if core is not None:
                out["G"] += 1
                out["P"] += size == 1
        return None, sig, na + nb

    walk(tree)
    return out["sav"], out["G"], out["mixed"], out["P"]


@pytest.mark.parametrize("c,k", [(2, 4), (3, 4), (4, 4), (4, 5), (5, 4), (3, 6)])
def test_lemma5_prime_single_request_groups_sharp_count(c, k):
    """P <= (c-1)s/((c-1)s - 1) (G - c) (a core with a single-request group has g_X >= 2 groups,
    at most g_X - 1 of them single unless all (c-1)s are), with equality on the hierarchy that
    hangs every request of core 0 singly on a chain over core 1's group: a count of P or G - c
    off by one fails; the doc's P <= 2(G - c) and Lemma 5' hold there too."""
    s, r = k - 1, (c - 1) * (k - 1)

    def chain(items):
        t = items[0]
        for x in items[1:]:
            t = (t, x)
        return t

    by_core = [list(range(X * r, (X + 1) * r)) for X in range(c)]
    tree = chain([chain(by_core[1])] + by_core[0] + [chain(by_core[X]) for X in range(2, c)])
    sav, G, mixed, P = _tree_counts(c, k, tree)
    assert (G - c, P) == (r - 1, r)
    assert P * (r - 1) == r * (G - c) and P <= 2 * (G - c)
    assert mixed <= (G - c) + P and sav <= s * (c * r - c)
    cores_first = chain([chain(by_core[X]) for X in range(c)])
    assert _tree_counts(c, k, cores_first) == (s * (c * r - c), c, 0, 0)


def _pair_cover_counts(layout, c):
    """(|F|, |pairs|, u) of Lemma 5'' for a layout of S(c, 3): the distinct first chunks, the
    distinct ordered (first, second) pairs, and the cores whose own pair is used by no request."""
    firsts = {s[0] for s in layout}
    pairs = {(s[0], s[1]) for s in layout}
    u = sum(1 for X in range(c) if not any({a, b} == {2 * X, 2 * X + 1} for a, b in pairs))
    return len(firsts), len(pairs), u


@pytest.mark.parametrize("c", [2, 3, 4, 5, 6])
def test_lemma5pp_s_c_3_pair_cover_counting(c):
    """Lemma 5'' (OPT_free(S(c, 3)) = 2c^2): every layout costs m + |F| + |pairs| exactly (three
    chunks per request, distinct sets), |pairs| >= (c - u) + u(c - 1), |F| >= c - u (and >= 2),
    so cost >= 2c^2 + u(c - 3) for c >= 3; the cores-first layout attains 2c^2. Checked on 300
    layouts per c: random, and cores-first on a random share of the cores (u varies)."""
    rng = random.Random(c)
    inst = sunflowers(c, 3)
    m = inst.m
    assert m == 2 * c * (c - 1)
    best = sunflowers_layout(inst, c)
    assert trie_cost(inst, best) == 2 * c * c and _pair_cover_counts(best, c) == (c, c, 0)
    seen_u = set()
    for t in range(300):
        keep = {X for X in range(c) if rng.random() < t / 300}
        layout = []
        for o, fixed in zip(inst.orders, best):
            X = fixed[0] // 2
            layout.append(list(fixed) if X in keep else rng.sample(list(o), len(o)))
        F, P, u = _pair_cover_counts(layout, c)
        seen_u.add(u)
        cost = trie_cost(inst, layout)
        assert cost == m + F + P
        assert P >= (c - u) + u * (c - 1) and F >= max(c - u, 2)
        assert cost >= 2 * c * c + (u * (c - 3) if c >= 3 else 0)
        assert cost >= 2 * c * c
    assert len(seen_u) >= 2


@pytest.mark.parametrize("c", [2, 3])
def test_lemma5pp_against_the_exact_dp(c):
    assert opt_free(sunflowers(c, 3)).value == 2 * c * c
