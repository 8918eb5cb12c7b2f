"""The directed-cut solver's time limit in the model builds (mptsearch.exact.closure,
mptsearch.exact.dcut.request_subdags, mptsearch.exact.dcut_bnc): the closure and the
per-request sub-DAGs read the clock, a component whose model is not built in time gets the MST
bound (checked against the dense MST bound and the subset DP), and a tiny limit on an instance
whose closure alone takes seconds is kept."""

import time
import types

import numpy as np
import pytest

import mptsearch.exact.closure as closure_mod
from mptsearch.bounds import mst_lower_bound
from mptsearch.exact.closure import BuildTimeout, closure_graph, reduce_instance
from mptsearch.exact.dcut import cut_lp, request_subdags
from mptsearch.exact.dcut_bnc import component_mst_bound, opt_free_dcut
from mptsearch.exact.dual_ascent import dual_ascent
from mptsearch.exact.free import opt_free
from mptsearch.instance import from_lists
from mptsearch.trie import trie_cost

from .test_dcut import _random_instances


def _zipf(seed, n, m, k, a=1.1):
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(n) + 1) ** a
    p /= p.sum()
    return from_lists(sorted({tuple(sorted(rng.choice(n, size=k, replace=False, p=p).tolist())) for _ in range(m)}))


def _ticking():
    ticks = iter(range(1, 10**9))
    return lambda: float(next(ticks))


class _Counting:
    """A clock that stays at 0 (no deadline is ever passed) and counts its readings."""

    def __init__(self):
        self.readings = 0

    def __call__(self):
        self.readings += 1
        return 0.0


# the dense build and the sparse one (from SPARSE_CHUNKS chunks after the columns are merged:
# 300 chunks and 150 requests merge to 206, dense; 1,000 chunks to 259, sparse)
@pytest.mark.parametrize("n,m", [(40, 80), (1000, 150)])
def test_the_closure_build_reads_the_clock(n, m):
    inst = _zipf(3, n, m, 8)
    red = reduce_instance(inst)
    assert (len(red.weights) >= closure_mod.SPARSE_CHUNKS) == (n == 1000)
    idx, masks = max(red.components, key=lambda c: len(c[0]))
    g = closure_graph(masks, red.weights)  # no deadline: built whatever it takes
    assert len(g.sets) > 4 * closure_mod.BUILD_CHECK
    # a clock that moves one second per reading: the build must stop at its third reading
    clock = _ticking()
    with pytest.raises(BuildTimeout):
        closure_graph(masks, red.weights, deadline=3.0, clock=clock)
    assert clock() <= 4.0
    # a deadline far away changes nothing
    g2 = closure_graph(masks, red.weights, deadline=1e12, clock=_ticking())
    assert g2.sets == g.sets and (g2.tails == g.tails).all() and (g2.heads == g.heads).all()
    clock = _ticking()
    with pytest.raises(BuildTimeout):
        request_subdags(g, deadline=5.0, clock=clock)
    assert clock() <= 6.0
    assert len(request_subdags(g, deadline=1e12, clock=_ticking())) == len(g.requests)
    # how often: at least once every BUILD_CHECK sets of the cover step, and in the sparse build
    # once every BUILD_CHECK sets of the closure's rounds too (each set enters one round's
    # frontier once, so both steps tick once per set: either alone would not meet the bound);
    # once before every request's sub-DAG
    counting = _Counting()
    closure_graph(masks, red.weights, deadline=1.0, clock=counting)
    ticks = (2 if n == 1000 else 1) * (len(g.sets) - 1)
    assert counting.readings >= ticks // closure_mod.BUILD_CHECK, (counting.readings, ticks)
    counting = _Counting()
    request_subdags(g, deadline=1.0, clock=counting)
    assert counting.readings >= len(g.requests)
    # the closure's rounds themselves: a deadline passed at the second reading (the first is
    # the build's start) stops the build inside them, before the cover step
    with pytest.raises(BuildTimeout) as stopped:
        closure_graph(masks, red.weights, deadline=2.0, clock=_ticking())
    rounds = "_sparse_closure" if n == 1000 else "_closure"
    assert rounds in {entry.name for entry in stopped.traceback}


def test_component_mst_bound_is_the_mst_bound():
    # summed over the components (merged chunks), the sparse forest bound is the dense MST bound
    insts = _random_instances(5, 60, max_n=9, max_m=12) + [_zipf(s, 50, 40, 5) for s in range(4)]
    for inst in insts:
        red = reduce_instance(inst)
        got = sum(component_mst_bound(masks, red.weights) for _, masks in red.components)
        assert got == mst_lower_bound(inst)


@pytest.mark.parametrize("phase", ["closure", "sub-DAGs"])
def test_a_model_not_built_in_time_gives_the_mst_bound(monkeypatch, phase):
    # the build raising as if out of time: the bracket is the MST bound and a trie-costed
    # layout, never above OPT_free, and the result says which bound it is
    import mptsearch.exact.dcut as dcut_mod

    def late(*args, **kwargs):
        raise BuildTimeout("out of time (test)")

    monkeypatch.setattr(closure_mod if phase == "closure" else dcut_mod,
                        "closure_graph" if phase == "closure" else "request_subdags", late)
    for inst in _random_instances(7, 25):
        r = opt_free_dcut(inst, time_limit=60)
        opt = opt_free(inst).value
        red = reduce_instance(inst)
        assert r.lower == sum(component_mst_bound(m, red.weights) for _, m in red.components) <= opt
        assert r.upper == trie_cost(inst, r.layout) >= opt
        multi = sum(len(i) > 1 for i, _ in red.components)
        if multi:
            assert not r.optimal and r.value is None
            assert f"({phase} out of time)" in r.weaker_bound and f"timelimit ({phase}: MST bound)" in r.status
        else:
            assert r.weaker_bound == "" and r.optimal


def test_a_tiny_limit_is_kept_when_the_closure_alone_takes_longer():
    # the closure of this instance (48,028 sets) takes about 7 CPU s, 35 times the limit (with 500
    # requests: 117,036 sets, 20 s, and twice the final pass); the old build ran it to the end
    # whatever the limit (and the sub-DAGs after it). What follows the builds (the MST bound,
    # agglomerative's layout, the trie cost) takes about half a second here.
    from mptsearch.heuristics.agglomerative import agglomerative

    warm = _zipf(0, 30, 10, 4)  # compile what the final pass runs, outside the timed call
    trie_cost(warm, agglomerative(warm).layout)
    inst = _zipf(0, 1000, 300, 24)
    red = reduce_instance(inst)
    _, masks = max(red.components, key=lambda c: len(c[0]))
    t = time.process_time()
    with pytest.raises(BuildTimeout):
        closure_graph(masks, red.weights, deadline=time.process_time() + 0.2, clock=time.process_time)
    assert time.process_time() - t < 0.2 + 1.0
    t = time.process_time()
    r = opt_free_dcut(inst, time_limit=0.2, clock="cpu")
    spent = time.process_time() - t
    assert spent < 0.2 + 3.0, spent
    assert r.lower <= r.upper == trie_cost(inst, r.layout)
    assert not r.optimal and "closure out of time" in r.weaker_bound
    assert r.lower == sum(component_mst_bound(m, red.weights) for _, m in red.components)


@pytest.fixture(scope="module")
def g():
    """The largest component's closure graph of a Zipf instance (300 chunks, 120 requests of 8):
    a first LP of about 1,200 simplex iterations, read-only for the tests that take it."""
    red = reduce_instance(_zipf(1, 300, 120, 8))
    idx, masks = max(red.components, key=lambda c: len(c[0]))
    return closure_graph(masks, red.weights)


def test_a_highs_solve_stops_at_the_deadline_of_any_clock(g):
    # a clock that ticks once per read: HiGHS reads it every simplex iteration through the
    # interrupt callback, so the first LP (hundreds of iterations) is stopped within a few
    # ticks of the deadline, and without a first LP there is no bound (TimeoutError)
    whole = cut_lp(g, max_rounds=0)
    assert whole.history[0][5] > 200  # simplex iterations of the first LP
    clock = _ticking()
    start = clock()
    with pytest.raises(TimeoutError):
        cut_lp(g, max_rounds=0, deadline=start + 40, clock=clock)
    assert clock() - start < 60  # stopped inside the solve, not at its end
    clock = _ticking()
    lp = cut_lp(g, max_rounds=3, deadline=clock() + 10**8, clock=clock)
    assert lp.value > whole.value + 1e-6  # the callback lets a far deadline's rounds run and raise the bound


def test_the_first_lp_may_run_on_to_its_own_deadline(g):
    # a first solve that the loop's deadline would stop finishes under first_deadline, and the
    # loop ends right after it with the cover LP's value (no round past the deadline)
    whole = cut_lp(g, max_rounds=0)
    clock = _ticking()
    start = clock()
    with pytest.raises(TimeoutError):
        cut_lp(g, deadline=start + 40, clock=clock)
    clock = _ticking()
    start = clock()
    lp = cut_lp(g, deadline=start + 40, first_deadline=start + 10**8, clock=clock)
    assert lp.rounds == 0 and len(lp.history) == 1 and abs(lp.value - whole.value) < 1e-6


def test_a_first_lp_out_of_time_gives_the_dual_ascent_and_the_search_layout(monkeypatch):
    # the root LP raising as if out of time: the larger of the MST bound and the dual ascent's
    # below, and above it the local search's layout from the requests (trie-costed, never above
    # agglomerative's)
    import mptsearch.exact.dcut as dcut_mod
    from mptsearch.heuristics.agglomerative import agglomerative

    def late(*args, **kwargs):
        raise TimeoutError("the cut LP's first solve did not finish (test)")

    monkeypatch.setattr(dcut_mod, "cut_lp", late)
    better = 0
    for seed in range(3):
        inst = _zipf(seed, 60, 40, 6)
        red = reduce_instance(inst)
        r = opt_free_dcut(inst, time_limit=2, clock="cpu")  # the search's steps scaled to about 2 s
        mst = sum(component_mst_bound(m, red.weights) for _, m in red.components)
        ascent = sum(dual_ascent(closure_graph(m, red.weights)).bound for _, m in red.components)
        assert r.lower == ascent > mst  # one component each
        assert r.upper == trie_cost(inst, r.layout) <= agglomerative(inst).cost
        assert "timelimit (root LP: dual-ascent bound)" in r.status
        assert "dual-ascent bound on 1 component (root LP out of time)" in r.weaker_bound
        assert [ph[1] for ph in r.phases] == ["dual ascent", "search"]
        better += r.upper < agglomerative(inst).cost
    assert better  # the search, not agglomerative, gave the layout somewhere


def test_an_interior_point_solve_stops_at_the_deadline_too(g):
    # the interior point reads the clock every iteration as well (HiGHS's IPM interrupt callback):
    # a first LP by IPX is stopped within a few ticks of the deadline
    ticks = []
    clock = _ticking()
    start = clock()
    with pytest.raises(TimeoutError):
        cut_lp(g, max_rounds=0, ipm_rows=0, deadline=start + 5, clock=clock)
    assert clock() - start < 9  # stopped inside the solve, not at its end
    clock = _ticking()
    lp = cut_lp(g, max_rounds=0, ipm_rows=0, deadline=clock() + 10**8, clock=clock)
    assert lp.solvers == ["ipx"] and clock() > 12  # the whole solve reads the clock more often than that


def test_an_interior_point_round_that_cannot_finish_is_not_started(g):
    # one clock tick per read: the first IPX solve takes T ticks; with T // 2 more left after it,
    # the loop stops before the second IPX solve instead of starting it and being interrupted
    clock = _ticking()
    start = clock()
    first = cut_lp(g, max_rounds=0, ipm_rows=0, deadline=start + 10**8, clock=clock)
    ticks = clock() - start
    clock = _ticking()
    start = clock()
    lp = cut_lp(g, ipm_rows=0, deadline=start + ticks + ticks // 2, clock=clock)
    assert lp.solvers == ["ipx"] and not lp.converged and abs(lp.value - first.value) < 1e-9
    assert clock() < start + ticks + ticks // 2  # stopped before the deadline, not at it
    assert not cut_lp(g, ipm_rows=0, max_rounds=1).converged  # the instance does have a second round
