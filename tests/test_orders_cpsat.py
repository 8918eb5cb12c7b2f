"""The order-choice CP-SAT model of OPT_free against the naive Theorem 1 twin (weighted too),
its level cuts against a model without them, its set covers against brute force."""

import itertools

from hypothesis import given, settings
from ortools.sat.python import cp_model

from mptsearch.encodings.orders_cpsat import build_orders_model, cover_number_cpsat, solve_orders_cpsat
from mptsearch.families import k4_3, ratio_record
from mptsearch.trie import trie_cost

from .naive import naive_opt_free
from .strategies import instances


@settings(max_examples=40)
@given(instances(max_n=5, max_m=5, max_k=3))
def test_equals_naive_theorem1(inst):
    r = solve_orders_cpsat(inst, time_limit=30)
    w = {x: int(inst.weights[x]) for x in range(inst.n)}
    assert r.optimal and r.value == r.bound == naive_opt_free([sorted(q) for q in inst.requests], w)
    assert trie_cost(inst, r.layout) == r.value


def _brute_cover(reqs, j):
    big = [set(r) for r in reqs if len(r) >= j]
    cands = sorted({c for r in big for c in itertools.combinations(sorted(r), j)})
    for size in range(len(cands) + 1):
        for pick in itertools.combinations(cands, size):
            if all(any(set(c) <= r for c in pick) for r in big):
                return size


def test_set_covers_and_cuts():
    for inst, covers in ((k4_3(), {1: 2, 2: 2, 3: 4}), (ratio_record(), {1: 2, 2: 2, 3: 2, 4: 8})):
        reqs = [sorted(q) for q in inst.requests]
        got = {j: cover_number_cpsat(reqs, j) for j in covers}
        assert got == covers == {j: _brute_cover(reqs, j) for j in covers}
        # the cuts do not change the optimum: the model without them agrees
        s = cp_model.CpSolver()
        assert s.Solve(build_orders_model(inst).model) == cp_model.OPTIMAL
        assert round(s.ObjectiveValue()) == solve_orders_cpsat(inst).value == (8 if inst.m == 4 else 14)
