"""Computational checks of each lemma of docs/theta_k.md (exhaustive for small k, the orbit DP
for large k). Where a lemma's bound is not attained by the optimum, the test checks the
per-chunk (or per-node) inequality the proof uses at a case where it holds with equality, and
a companion test shows the check fails on the lemma's formula plus one."""

import math
import random
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
    leaves all have one side). Checks |I(v)| <= 2 at every mixed node on the way."""
    nodes = [(r, frozenset([side[i]])) for i, r in enumerate(reqs)]
    savings, groups = 0, 0
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
        nodes = [nd for i, nd in enumerate(nodes) if i not in (a, b)] + [(inter, sides)]
    return savings, groups


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
    for trial in range(400):
        sav, G = hierarchy_savings(reqs, side, rnd, grouped=trial % 4 == 0)
        assert G >= c
        if G == c:
            assert sav == s * (m - c)
        else:
            assert sav <= s * (m - G) + 2 * (G - 2)
        assert m * (s + 1) - sav >= lower


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


# ---- S(c, k) ------------------------------------------------------------------------------------

@pytest.mark.parametrize("c, k", [(2, 4), (3, 3), (3, 6), (4, 3), (4, 5), (5, 4)])
def test_lemma4_lower_bound_and_core_order(c, k):
    s = k - 1
    g = opt_glob_orbits(sunflowers_orbits(c, k)).value
    assert g >= math.comb(c, 2) * (s * s + s - 1)
    inst = sunflowers(c, k)
    seq = order_cost(inst, list(range(c * s)))       # one core after another
    assert seq == math.comb(c, 2) * s * (s + 1) + (c - 1) * (2 * s - 1)
    assert g <= seq
    if k >= 4:
        assert g == seq        # computed only (docs/theta_k.md)


@pytest.mark.parametrize("c, k", [(3, 3), (3, 4), (2, 4)])
def test_lemma5_exact_dp(c, k):
    s = k - 1
    inst = sunflowers(c, k)
    f = opt_free(inst).value
    assert c * c * s - max(0, 2 * c - 2 - s) <= f <= trie_cost(inst, sunflowers_layout(inst, c)) == c * c * s


def test_s33_is_the_k3_six_chunk_maximum_ratio():
    inst = sunflowers(3, 3)
    assert (opt_glob(inst).value, opt_free(inst).value) == (23, 18)


def test_theorem_ratio_bounds():
    for c, k in [(3, 4), (4, 6), (5, 5)]:
        s = k - 1
        ratio = opt_glob_orbits(sunflowers_orbits(c, k)).value / (c * c * s)
        assert (c - 1) * (s * s + s - 1) / (2 * c * s) <= ratio <= (k + 1) / 2


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
