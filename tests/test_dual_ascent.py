"""The dual ascent bound (mptsearch.exact.dual_ascent) rechecked from its cuts' node sets with
its own code and against OPT_free of the subset DP."""

import numpy as np

from mptsearch.exact.dcut import request_subdags
from mptsearch.exact.dual_ascent import dual_ascent
from mptsearch.exact.free import opt_free
from mptsearch.families import k4_3, leave_one_out

from .test_dcut import _components, _random_instances


def _checked_bound(g):
    """The ascent's bound after checking that its (S, y) are a feasible dual of the cut rows,
    every δ⁻(S) recomputed from S."""
    r = dual_ascent(g)
    load = np.zeros(len(g.tails), dtype=np.int64)
    for (pos, nodes, arcs), y in zip(r.cuts, r.y.tolist()):
        inside = np.zeros(len(g.sets), dtype=bool)
        inside[list(nodes)] = True
        assert inside[g.requests[pos]] and not inside[0] and y >= 1
        entering = np.flatnonzero(inside[g.heads] & ~inside[g.tails])
        assert sorted(arcs.tolist()) == entering.tolist()
        load[entering] += y
    assert (load <= g.costs).all()
    assert (r.reduced == g.costs - load).all()
    assert r.bound == int(r.y.sum())
    return r.bound


def test_dual_ascent_is_a_feasible_dual_below_opt_free():
    equal = 0
    for inst in _random_instances(31, 40):
        single, graphs = _components(inst)
        bound = single + sum(_checked_bound(g) for g in graphs)
        opt = opt_free(inst).value
        assert bound <= opt
        equal += bound == opt
    assert equal >= 10  # tight on many: a bound one too high fails the line above on these


def test_dual_ascent_values_on_known_families():
    # one too high or one too low fails here (OPT_free 8 and 12)
    (g,) = _components(k4_3())[1]
    assert _checked_bound(g) == 6
    (g,) = _components(leave_one_out(5))[1]
    assert _checked_bound(g) == 8


def test_output_arrays_grow_without_changing_the_result():
    for inst in _random_instances(37, 6):
        for g in _components(inst)[1]:
            sub = request_subdags(g)
            a, b = dual_ascent(g, sub), dual_ascent(g, sub, capacity=1)
            assert a.bound == b.bound and (a.reduced == b.reduced).all() and len(a.cuts) == len(b.cuts)
            assert all(x[:2] == y[:2] and (x[2] == y[2]).all() for x, y in zip(a.cuts, b.cuts))


def test_zero_cost_paths_reach_every_request():
    from mptsearch.exact.dcut_bnc import reachable_all
    from mptsearch.exact.dual_ascent import zero_cost_paths

    for inst in _random_instances(41, 20):
        for g in _components(inst)[1]:
            sub = request_subdags(g)
            r = dual_ascent(g, sub)
            used = zero_cost_paths(g, sub, r.reduced)
            assert reachable_all(g, used) and (r.reduced[used] == 0).all()
            assert not zero_cost_paths(g, sub, g.costs).any()  # before any ascent no arc costs 0
