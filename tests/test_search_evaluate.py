"""The annealer's compiled value-only evaluators against the public solvers and naive twins."""

import numpy as np
from hypothesis import given, settings

from mptsearch.exact.free import dp_dtype, opt_free
from mptsearch.exact.glob import opt_glob
from mptsearch._kernels.masks import chunk_sets, intersection_table, intersection_weights
from mptsearch._kernels.workspace import workspace
from mptsearch.families import k4_3, leave_one_out, random_instance, ratio_record
from mptsearch.heuristics.agglomerative import agglomerative
from mptsearch.search.objective import evaluate

from .naive import naive_opt_free, naive_opt_glob
from .strategies import instances


def _public(inst):
    f, g = opt_free(inst), opt_glob(inst)
    return f.value, g.value, f.savings, agglomerative(inst, tie_break="first").savings


def test_named_families():
    assert tuple(evaluate(k4_3())) == (8, 9, 4, 4)
    assert evaluate(ratio_record())[:2] == (14, 21)
    assert evaluate(leave_one_out(6))[:2] == (16, 20)


@settings(max_examples=150)
@given(instances(max_n=8, max_m=8))
def test_evaluators_equal_public_solvers(inst):
    assert tuple(evaluate(inst)) == _public(inst)


@settings(max_examples=40)
@given(instances(max_n=6, max_m=6))
def test_evaluators_equal_naive_twins(inst):
    w = {x: int(inst.weights[x]) for x in range(inst.n)}
    e = evaluate(inst)
    assert e.opt_free == naive_opt_free(inst.requests, w)
    assert e.opt_glob == naive_opt_glob(inst.requests, w)


def test_agglomerative_first_on_random_instances():
    """The compiled agglomerative equals agglomerative(tie_break="first") on many random
    instances, including heavy ties (unit weights, k=2) where tie-breaking decides."""
    for seed in range(300):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(4, 10))
        k = int(rng.integers(1, min(n, 5) + 1))
        m = int(rng.integers(2, 13))
        try:
            inst = random_instance(n, m, (1, k), weights=(1, int(rng.integers(1, 4))), seed=seed)
        except Exception:
            continue
        assert evaluate(inst).agg_savings == agglomerative(inst, tie_break="first").savings, inst


def test_intersection_table_equals_zeta_transform():
    for seed in range(30):
        inst = random_instance(8, 9, (1, 5), weights=(1, 7), seed=seed)
        m = inst.m
        ws = workspace(inst.n, m, dp_dtype(inst.total_weight()))
        req = np.array(inst.request_masks(), dtype=np.uint64)
        chunk_sets(req, m, inst.n, ws.S)
        intersection_table(req, m, inst.weights, ws.inter, ws.wI)
        ref = np.zeros(1 << m, dtype=np.int64)
        intersection_weights(ws.S, inst.weights, m, ref)
        assert np.array_equal(ws.wI[1:], ref[1:])
