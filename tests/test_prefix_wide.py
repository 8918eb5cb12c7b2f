"""The prefix-set search on 8-10 chunks (multi-word level bitsets) against the Theorem 1 DP,
the naive twins, the 64-bit search of 7 chunks and values proved elsewhere (S(c, k))."""

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mptsearch.exact.free import dp_dtype, opt_free
from mptsearch.exact.prefix_sets import (_opt_free_wide, level_bound, opt_free_prefix_sets,
                                         prefix_sets_apply)
from mptsearch.families import leave_one_out, min_external_path_length, sunflowers
from mptsearch.instance import InstanceError, from_lists

from .naive import naive_opt_free
from .strategies import examples
from .test_prefix_sets import check_result


_check = check_result  # (result, instance, expected value)


def _random(n, k, m, seed):
    rng = random.Random(seed)
    return from_lists([list(c) for c in rng.sample(list(itertools.combinations(range(n), k)), m)])


@st.composite
def wide_families(draw, max_m=11):
    n = draw(st.integers(8, 10))
    if draw(st.booleans()):
        k = draw(st.integers(2, 5))
        req = st.sets(st.integers(0, n - 1), min_size=k, max_size=k).map(frozenset)
    else:
        req = st.frozensets(st.integers(0, n - 1), min_size=1, max_size=6)
    reqs = draw(st.lists(req, min_size=1, max_size=max_m, unique=True))
    return from_lists([sorted(r) for r in reqs])


@settings(max_examples=examples(40, 15), deadline=None)
@given(wide_families())
def test_equals_the_subset_dp_on_8_to_10_chunks(inst):
    v = opt_free(inst).value
    if inst.n >= 8:
        _check(opt_free_prefix_sets(inst), inst, v)
    _check(_opt_free_wide(inst), inst, v)  # the multi-word kernels on any universe
    if len({len(q) for q in inst.requests}) == 1:
        assert level_bound(inst) <= v


@settings(max_examples=8, deadline=None)
@given(wide_families(max_m=6))
def test_equals_the_naive_recurrence(inst):
    reqs = [sorted(q) for q in inst.requests]
    _check(_opt_free_wide(inst), inst, naive_opt_free(reqs, {x: 1 for x in range(inst.n)}))


@pytest.mark.parametrize("n,k,m", [(8, 4, 16), (8, 3, 18), (9, 4, 14), (9, 5, 12), (10, 4, 12)])
def test_dense_uniform_against_the_dp(n, k, m):
    for seed in range(2):
        inst = _random(n, k, m, seed)
        _check(opt_free_prefix_sets(inst), inst, opt_free(inst).value)


@pytest.mark.parametrize("k,m", [(3, 35), (4, 35), (4, 25), (3, 20)])
def test_wide_kernels_equal_the_64_bit_search_on_7_chunks(k, m):
    """Past the DP's reach on 7 chunks the two kernels (one word, four words, the second with
    one table of cost_j(U) for the whole search) are compared with each other."""
    for seed in range(2):
        inst = _random(7, k, m, seed)
        _check(_opt_free_wide(inst), inst, opt_free_prefix_sets(inst).value)


def test_proved_values_on_8_to_10_chunks():
    """S(c, k) = c^2 (k-1) (docs/theta_k.md, Lemma 5', proved) and L_8 (the external path
    length, proved in mptsearch.families): one off and the test fails."""
    for c, k in ((3, 4), (4, 3), (2, 5), (5, 3), (2, 6)):
        inst = sunflowers(c, k)
        assert 8 <= inst.n <= 10
        _check(opt_free_prefix_sets(inst), inst, c * c * (k - 1))
    _check(opt_free_prefix_sets(leave_one_out(8)), leave_one_out(8), min_external_path_length(8))


@pytest.mark.slow
def test_every_4_set_of_8_chunks():
    """All 70 requests: OPT_free = 102 = the level bound 70 + 20 + 7 + 5 (20 = T(8,4,3), the
    least number of 3-sets such that every 4-set contains one, Turan's (4,3) number; 7 and 5
    the same for 2-sets and chunks)."""
    inst = from_lists([list(c) for c in itertools.combinations(range(8), 4)])
    assert level_bound(inst) == 102
    r = opt_free_prefix_sets(inst)
    _check(r, inst, 102)
    assert {j: len(v) for j, v in r.levels.items()} == {1: 5, 2: 7, 3: 20, 4: 70}


def test_applies_where_measured_and_refuses_past_10_chunks():
    assert prefix_sets_apply(_random(8, 4, 17, 0)) and not prefix_sets_apply(_random(8, 4, 16, 0))
    assert not prefix_sets_apply(_random(9, 6, 30, 0))  # request size past the measured 5
    assert not prefix_sets_apply(from_lists([sorted(q) for q in _random(8, 4, 20, 0).requests],
                                            {x: 1 + (x == 0) for x in range(8)}))
    with pytest.raises(InstanceError, match="at most 10 chunks"):
        opt_free_prefix_sets(from_lists([list(range(11))]))


def test_fastest_savings_kernel_takes_the_wide_path():
    """free_savings_fastest on 8-9 chunks: the DP up to m = 16, the wide search from 17 (a
    workspace with 2^14-entry tables could not run the DP there), the DP for weights."""
    from mptsearch._kernels.free import free_savings_fastest
    from mptsearch._kernels.workspace import workspace

    for n, k, m, weights in ((8, 4, 12, None), (8, 4, 12, [1, 2] * 4), (8, 4, 20, None), (9, 5, 17, None),
                             (8, 4, 40, None)):
        inst = _random(n, k, m, 3)
        if weights:
            inst = from_lists([sorted(q) for q in inst.requests], dict(enumerate(weights)))
        ws = workspace(n, m, dp_dtype(inst.total_weight()), table_m=min(m, 14))  # as the annealer sizes it
        req = np.array(inst.request_masks(), dtype=np.uint64)
        sav = free_savings_fastest(req, m, inst.weights.astype(np.int64), ws)
        if m == 40:  # the search without the level program's start (0.05 s against about 2)
            expected = _opt_free_wide(inst, upper=False).value
            assert expected == M40_VALUE
        else:
            expected = opt_free_prefix_sets(inst).value if m > 14 else opt_free(inst).value
        assert inst.total_weight() - sav == expected
    assert opt_free(_random(8, 4, 17, 3)).value == _opt_free_wide(_random(8, 4, 17, 3)).value


#: OPT_free of _random(8, 4, 40, 3): by the search without a start above, by opt_free_prefix_sets
#: (about 2 CPU s, nearly all of it the level program's start) in the opt-in test below
M40_VALUE = 63


@pytest.mark.slow
def test_the_m40_value_by_the_prefix_set_search():
    inst = _random(8, 4, 40, 3)
    _check(opt_free_prefix_sets(inst), inst, M40_VALUE)


def test_a_time_limit_stops_a_dense_search_from_inside():
    """A dense 4-uniform family on 8 chunks (m = 48: seconds of search) with a 0.05 s limit:
    the search stops inside, within a bound that is far below its full time, and says so."""
    import time

    from mptsearch.exact.prefix_sets import PrefixSetsUnfinished

    inst = _random(8, 4, 48, 7)
    t = time.perf_counter()
    with pytest.raises(PrefixSetsUnfinished, match="time limit"):
        opt_free_prefix_sets(inst, time_limit=0.05)
    assert time.perf_counter() - t < 1.0  # a loaded machine's slack; the full search takes seconds
    with pytest.raises(PrefixSetsUnfinished, match="node budget"):
        opt_free_prefix_sets(inst, max_nodes=500)


def test_under_a_time_limit_the_first_search_leaves_time_for_the_level_program(monkeypatch):
    """Under a time limit the first search before the level program's start stops at half the
    time left, so that the program is still asked for a start. Every 4-set of 9 chunks needs it
    (the search alone does not end there in 30 s); the first search is given no node budget, so
    only the time can stop it, whatever the machine's speed; the bounds before it take about
    0.6 s of the 3 s (quiet machine)."""
    import mptsearch.exact.prefix_sets as ps

    every = [list(c) for c in itertools.combinations(range(9), 4)]
    _opt_free_wide(from_lists(every[:12]))  # compiled
    asked = []
    real = ps.level_program_family
    monkeypatch.setattr(ps, "level_program_family", lambda inst, lim: asked.append(lim) or real(inst, lim))
    inst = from_lists(every)
    try:
        r = _opt_free_wide(inst, time_limit=3.0, quick_nodes=10**12)
        _check(r, inst, 171)
    except ps.PrefixSetsUnfinished:
        pass
    # asked, with a quarter of what the first search left (positive; how much depends on the
    # machine's load)
    assert len(asked) == 1 and asked[0] > 0, asked


def test_a_search_stopped_at_any_node_budget_is_unfinished_never_wrong():
    """Cut at every budget from a handful of nodes to past its end, the search either says it
    is unfinished or returns the exact value with a layout that costs it (nothing half-done
    is remembered as exact)."""
    from mptsearch.exact.prefix_sets import PrefixSetsUnfinished

    for seed, (n, k, m) in enumerate(((8, 4, 20), (9, 3, 24), (8, 3, 30))):
        inst = _random(n, k, m, seed)
        exact = opt_free(inst).value if m <= 20 else opt_free_prefix_sets(inst).value
        finished = 0
        for budget in (1, 3, 10, 30, 100, 300, 1000, 3000, 10**4, 10**5, 10**7):
            try:
                r = opt_free_prefix_sets(inst, max_nodes=budget)
            except PrefixSetsUnfinished:
                assert not finished, "a larger budget must finish too"
                continue
            finished += 1
            _check(r, inst, exact)
        assert finished >= 1


def _level_bits(fam, n, j):
    """The rank bitset (four words) of a family of j-sets on n chunks."""
    from mptsearch._kernels.prefix_wide import setbit
    from mptsearch.exact.prefix_sets import _wide_tables

    _, _, _, _, rank = _wide_tables(n)
    U = np.zeros(4, dtype=np.int64)
    for R in fam:
        r = int(rank[sum(1 << c for c in R)])
        setbit(U, r)
    return U


def _brute_cover(fam, i):
    """cover_i by brute force: the least number of i-sets such that every member holds one."""
    cand = sorted({T for R in fam for T in itertools.combinations(sorted(R), i)})
    for size in range(len(fam) + 1):
        for Q in itertools.combinations(cand, size):
            if all(any(set(T) <= set(R) for T in Q) for R in fam):
                return size
    raise AssertionError


def _bound(fam, n, i, j, nodes):
    from mptsearch.exact.prefix_sets import _wide_tables, cover_lower_bound

    setmask, subs, _, _, _ = _wide_tables(n)
    return cover_lower_bound(_level_bits(fam, n, j), i, j, setmask, subs, nodes)


def test_the_averaging_bound_is_a_lower_bound_and_exact_within_its_budget():
    """On random j-uniform families on 5-7 chunks, against a brute-force set cover: the bound
    with no search (nodes = 0: the averaging recursion all the way down) never exceeds the
    cover number, and with a budget it is the cover number."""
    rng = random.Random(3)
    tight = 0
    for trial in range(60):
        n = rng.choice((5, 6, 7))
        j = rng.choice((3, 4))
        i = rng.randrange(1, j)
        sets = list(itertools.combinations(range(n), j))
        fam = rng.sample(sets, rng.randint(1, min(9, len(sets))))
        exact = _brute_cover(fam, i)
        lo = _bound(fam, n, i, j, 0)
        assert 1 <= lo <= exact, (fam, i, lo, exact)
        tight += lo == exact
        assert _bound(fam, n, i, j, 10**6) == exact
    assert tight >= 20  # the bound is not vacuous


def test_the_averaging_bound_on_every_4_set():
    """All 4-sets: with the exact covers of 8 chunks (T(8,4,3) = 20, 7 pairs, 5 chunks) the
    bound gives T(9,4,3) = 30, 9 and 6; with no search at all the recursion gives, from one
    4-set on 4 chunks, ceil(5/2) = 3, ceil(6*3/3) = 6, ceil(7*6/4) = 11, ceil(8*11/5) = 18,
    ceil(9*18/6) = 27 triples (a divisor or a rounding one off changes these)."""
    n, j = 9, 4
    fam = list(itertools.combinations(range(n), j))
    # a quarter of COVER_NODES: the 9-chunk search stops at its budget either way (its nodes are
    # most of the time), the 8-chunk covers are exact from 20,000 nodes on (5,000 give 27)
    assert [_bound(fam, n, i, j, 50_000) for i in (3, 2, 1)] == [30, 9, 6]
    assert [_bound(list(itertools.combinations(range(v), 4)), v, 3, 4, 0) for v in (4, 5, 6, 7, 8, 9)] == \
        [1, 3, 6, 11, 18, 27]


@pytest.mark.parametrize("n,k,m", [(8, 4, 14), (8, 3, 14), (9, 4, 13), (9, 5, 12), (9, 3, 14), (10, 4, 11)])
def test_search_with_bounded_covers_and_a_start_equals_the_dp(n, k, m):
    """The uniform path with the averaging bound everywhere (cover_nodes = 0), with the
    level program's start always taken (quick_nodes = 0), after a short search, or never,
    against the subset DP of Theorem 1. Two seeds (three in the opt-in tier): among them the
    short search stops unfinished before the program on (8, 4, 14) seed 100 and (9, 5, 12)
    seed 101, and the program's family is taken without a search after it at nodes = 0 on
    (9, 3, 14) and (10, 4, 11) seed 101."""
    for seed in range(examples(3, 2)):
        inst = _random(n, k, m, 100 + seed)
        v = opt_free(inst).value
        for upper, quick in ((True, 0), (True, 20_000), (False, 0)):
            for nodes in (0, 200_000):
                _check(_opt_free_wide(inst, upper=upper, cover_nodes=nodes, quick_nodes=quick), inst, v)


def test_the_level_program_family_is_accessible_and_optimal_when_solved():
    """The level program's family on random families (mixed sizes too) holds every request,
    is accessible, and, solved to the end on these small ones, costs OPT_free (the DP's)."""
    from mptsearch.exact.prefix_sets import _layout, level_program_family
    from mptsearch.trie import trie_cost

    rng = random.Random(5)
    for trial in range(25):
        n = rng.choice((6, 8, 9))
        if trial % 2:
            inst = _random(n, rng.choice((3, 4)), rng.randint(3, 12), trial)
        else:
            inst = from_lists([sorted(rng.sample(range(n), rng.randint(1, 5))) for _ in range(rng.randint(2, 11))])
        got = level_program_family(inst, 30.0)
        assert got is not None
        value, levels = got
        fam = {x for xs in levels.values() for x in xs}
        assert set(inst.request_masks()) <= fam and value == len(fam)
        layout = _layout(inst, levels)  # raises unless the family is accessible
        assert trie_cost(inst, layout) <= value
        assert value == opt_free(inst).value


@pytest.mark.slow
def test_every_4_set_of_9_chunks():
    """All 126 4-sets of 9 chunks: OPT_free = 171 = the level bound 126 + 30 + 9 + 6, proved
    by the averaging bound and a family of that cost from the level program."""
    inst = from_lists([list(c) for c in itertools.combinations(range(9), 4)])
    r = opt_free_prefix_sets(inst)
    _check(r, inst, 171)


def test_auto_takes_the_prefix_set_search_on_dense_9_chunk_families():
    """opt_free_auto's rule on the 9-chunk target's shapes (m = 126 is past DCUT_M): the
    prefix-set search, which wins there, not the directed-cut solver."""
    from mptsearch.exact.auto import DCUT_M

    for k in (4, 5):
        inst = from_lists([list(c) for c in itertools.combinations(range(9), k)])
        assert inst.m >= DCUT_M and prefix_sets_apply(inst)
        assert prefix_sets_apply(_random(9, k, 63, 0))


def test_window_tables_list_the_sets_two_levels_down_and_up():
    from mptsearch.exact.prefix_sets import _wide_tables, window_tables

    def members(row):
        return {64 * w + b for w in range(4) for b in range(64) if int(row[w]) >> b & 1}

    n = 9
    _, subs, ups, _, rank = _wide_tables(n)
    for k in (4, 5):
        subs2, ups2 = window_tables(subs, ups, k)
        for R in itertools.combinations(range(n), k):
            want = {int(rank[sum(1 << c for c in T)]) for T in itertools.combinations(R, k - 2)}
            assert members(subs2[k - 1, rank[sum(1 << c for c in R)]]) == want
        for T in itertools.combinations(range(n), k - 2):
            t = sum(1 << c for c in T)
            rest = [c for c in range(n) if not t >> c & 1]
            want = {int(rank[t | (1 << a) | (1 << b)]) for a, b in itertools.combinations(rest, 2)}
            assert members(ups2[k - 2, rank[t]]) == want
        for j in range(1, k - 1):  # the levels below are the search's own
            assert (subs2[j] == subs[j]).all() and (ups2[j - 1] == ups[j - 1]).all()


def _window_by_program(fam, n, b):
    """W_b by HiGHS on its own 0/1 program (independent of the search): a variable per i-set,
    i <= b; every request holds a chosen b-set, every chosen i-set (1 < i <= b) a chosen
    (i-1)-set; minimise the chosen sets."""
    import highspy

    sets = [sum(1 << c for c in T) for i in range(1, b + 1) for T in itertools.combinations(range(n), i)]
    col = {x: q for q, x in enumerate(sets)}
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    N = len(sets)
    h.addVars(N, np.zeros(N), np.ones(N))
    h.changeColsCost(N, np.arange(N, dtype=np.int32), np.ones(N))
    h.changeColsIntegrality(N, np.arange(N, dtype=np.int32), np.array([highspy.HighsVarType.kInteger] * N))

    def row(ids, lower, last=None):
        idx = ids + ([last] if last is not None else [])
        val = [1.0] * len(ids) + ([-1.0] if last is not None else [])
        h.addRow(lower, highspy.kHighsInf, len(idx), np.array(idx, dtype=np.int32), np.array(val))

    for R in fam:
        row([col[sum(1 << c for c in T)] for T in itertools.combinations(R, b)], 1.0)
    for x in sets:
        cs = [c for c in range(n) if x >> c & 1]
        if len(cs) > 1:
            row([col[sum(1 << c for c in T)] for T in itertools.combinations(cs, len(cs) - 1)], 0.0, col[x])
    h.run()
    return round(h.getInfo().objective_function_value)


def _check_windows(cases):
    """W_{k-2} of random k-uniform families: the search ladder with a budget that lets it
    finish equals HiGHS on its own program for the window (so a bound one off fails), is never
    below the sum of the cover numbers, and with m + cover_{k-1} is under OPT_free (the subset
    DP) where the DP reaches; stopped early it is never above the window. Returns how many
    times the window exceeds the sum of the cover numbers."""
    from mptsearch._kernels.prefix_wide import wide_forced
    from mptsearch.exact.prefix_sets import _wide_tables, cover_lower_bound, window_lower_bound

    above = 0
    for seed, n, k, m in cases:
        inst = _random(n, k, m, seed)
        setmask, subs, ups, up1, rank = _wide_tables(n)
        forced, _, _ = wide_forced(np.array(inst.request_masks(), dtype=np.uint64), m, rank)
        covs = {i: cover_lower_bound(forced[k], i, k, setmask, subs, 10**7) for i in range(1, k)}
        w = window_lower_bound(forced, k, n, subs, ups, up1, covs, 10**8)
        exact = _window_by_program([sorted(q) for q in inst.requests], n, k - 2)
        assert w == exact, (n, k, m, w, exact)
        assert w >= sum(covs[i] for i in range(1, k - 1))
        above += w > sum(covs[i] for i in range(1, k - 1))
        if m <= 14:
            assert m + covs[k - 1] + w <= opt_free(inst).value
        assert window_lower_bound(forced, k, n, subs, ups, up1, covs, 50) <= exact
    return above


def test_the_window_bound_is_the_window_and_a_lower_bound():
    """4-uniform families on 7-9 chunks and a small 5-uniform one (_check_windows); on two of
    them the window is above the sum of the cover numbers."""
    assert _check_windows([(40, 7, 4, 12), (41, 8, 4, 14), (42, 9, 4, 20), (43, 7, 5, 10), (47, 8, 4, 30)]) == 2


@pytest.mark.slow
def test_the_window_bound_on_5_uniform_families():
    """The same on 5-uniform families on 8-9 chunks (HiGHS takes seconds on the larger)."""
    assert _check_windows([(44, 8, 5, 14), (45, 9, 5, 16), (46, 9, 5, 30)]) >= 1


def test_the_fractional_degree_bound():
    """_frac_bound against its definition computed naively (sum over the members of 1 / the
    largest degree of a usable subset, rounded up) and against the set cover by brute force:
    equal to the first, never above the second, and tight on some."""
    from mptsearch._kernels.prefix_wide import _frac_bound
    from mptsearch.exact.prefix_sets import _wide_tables

    n = 7
    setmask, subs, ups, _, rank = _wide_tables(n)
    rng = random.Random(11)
    tight = 0
    for trial in range(40):
        j = rng.choice((3, 4))
        fam = rng.sample(list(itertools.combinations(range(n), j)), rng.randint(1, 6))
        banned_sets = rng.sample(list(itertools.combinations(range(n), j - 1)), rng.randint(0, 6))
        U = _level_bits(fam, n, j)
        B = _level_bits(banned_sets, n, j - 1)
        usable = [T for T in itertools.combinations(range(n), j - 1) if T not in banned_sets]
        deg = {T: sum(set(T) <= set(R) for R in fam) for T in usable}
        tops = [max([deg[T] for T in itertools.combinations(R, j - 1) if T in deg], default=0) for R in fam]
        nsets = len(list(itertools.combinations(range(n), j - 1)))
        got = int(_frac_bound(U, B, subs[j], ups[j - 1], nsets, np.zeros(nsets, dtype=np.int64)))
        if 0 in tops:
            assert got == 1 << 20
            continue
        from fractions import Fraction
        want = -(-sum(Fraction(1, d) for d in tops) // 1)
        assert got == want, (fam, banned_sets, got, want)
        cover = next(size for size in range(len(fam) + 1) for A in itertools.combinations(
            [T for T in usable if deg[T]], size) if all(any(set(T) <= set(R) for T in A) for R in fam))
        assert got <= cover
        tight += got == cover
    assert tight >= 10
