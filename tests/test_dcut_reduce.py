"""The reduction tests of mptsearch.exact.dcut_reduce against a brute-force twin: the reduced
fixing's least arborescence cost equals the original's (structural tests, any fixing), and
equals OPT_free when the bound-based test runs with U = OPT_free + 1."""

import numpy as np
import pytest

from mptsearch.exact.dcut import cut_lp, request_subdags
from mptsearch.exact.dcut_bnc import reduced_cost_fixing
from mptsearch.exact.dcut_reduce import reduce_fixing
from mptsearch.exact.free import opt_free

from .naive import naive_fixed_arborescence
from .test_dcut import _components, _random_instances


def _small_graphs(seed, count):
    for inst in _random_instances(seed, count, max_n=6, max_m=7):
        single, graphs = _components(inst)
        for g in graphs:
            if len(g.sets) - len(set(g.requests)) <= 12:
                yield inst, single, graphs, g


def _naive(g, zero, one):
    return naive_fixed_arborescence(len(g.sets), g.tails.tolist(), g.heads.tolist(), g.costs.tolist(),
                                    list(g.requests), zero.tolist(), one.tolist())


@pytest.mark.parametrize("seed,count", [(21, 40), pytest.param(22, 400, marks=pytest.mark.slow)])
def test_structural_tests_keep_the_least_cost_of_any_fixing(seed, count):
    rng = np.random.default_rng(seed)
    grew = checked = 0
    for _, _, _, g in _small_graphs(seed, count):
        for p in (0.15, 0.35):
            zero = rng.random(len(g.tails)) < p
            want = _naive(g, zero, np.zeros_like(zero))
            fix = reduce_fixing(g, zero)
            assert (fix.zero >= zero).all()
            if not fix.feasible:
                assert want is None
                continue
            assert _naive(g, fix.zero, fix.one) == want
            grew += int(fix.zero.sum() > zero.sum()) + int(fix.one.any())
            checked += 1
    assert checked > 30 and grew > 10


@pytest.mark.parametrize("seed,count", [(23, 40), pytest.param(24, 400, marks=pytest.mark.slow)])
def test_bound_based_elimination_keeps_the_optimum_below_u(seed, count):
    beyond_rc = checked = 0
    for inst, single, graphs, g in _small_graphs(seed, count):
        if len(graphs) != 1:
            continue
        opt = opt_free(inst).value - single
        assert _naive(g, np.zeros(len(g.tails), bool), np.zeros(len(g.tails), bool)) == opt
        lp = cut_lp(g, subdags=request_subdags(g))
        for upper in (opt + 1, opt + 2):
            fz, fo = reduced_cost_fixing(lp.value, lp.reduced, upper)
            fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=upper)
            assert fix.feasible and (fix.zero >= fz).all()
            assert _naive(g, fix.zero, fix.one) == opt
            beyond_rc += int(fix.zero.sum() > fz.sum())
            checked += 1
        # at U = OPT_free no arborescence below U exists: whatever is left costs at least OPT_free
        fz, fo = reduced_cost_fixing(lp.value, lp.reduced, opt)
        fix = reduce_fixing(g, fz, fo, lb=lp.value, reduced=lp.reduced, upper=opt)
        got = _naive(g, fix.zero, fix.one) if fix.feasible else None
        assert got is None or got >= opt
    assert checked > 20 and beyond_rc >= 3


def test_a_fixing_cut_short_by_its_deadline_keeps_the_least_cost():
    # a deadline already passed: one round of the tests, then the fixing so far (a part of the
    # fixpoint's, with the same least cost: each test keeps what it must)
    rng = np.random.default_rng(25)
    short = 0
    for _, _, _, g in _small_graphs(25, 60):
        zero = rng.random(len(g.tails)) < 0.3
        want = _naive(g, zero, np.zeros_like(zero))
        full = reduce_fixing(g, zero)
        cut = reduce_fixing(g, zero, deadline=0.0, clock=lambda: 1.0)
        assert (cut.zero <= full.zero).all() and (cut.one <= full.one).all()
        if cut.feasible:
            assert _naive(g, cut.zero, cut.one) == want
        short += int(cut.zero.sum() + cut.one.sum() < full.zero.sum() + full.one.sum())
    assert short > 0  # some fixpoints need a second round: the deadline stopped them
