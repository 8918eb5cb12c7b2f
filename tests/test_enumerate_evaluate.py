"""The batch evaluation kernel against the library's exact solvers (slow twins), the bounds
sandwich, and pruning that never drops a member with the property."""

from fractions import Fraction

import numpy as np
import pytest

from mptsearch.bounds import mst_lower_bound
from mptsearch.enumerate.evaluate import evaluate_batch
from mptsearch.enumerate.generate import EnumClass, _run
from mptsearch.exact.free import opt_free
from mptsearch.exact.glob import opt_glob
from mptsearch.heuristics.agglomerative import agglomerative
from mptsearch.instance import from_lists


def _inst(row, m, n):
    return from_lists([[x for x in range(n) if r >> x & 1] for r in row[:m]])


@pytest.mark.parametrize("cls,sample", [(EnumClass(5, 1, 5, 2, 6), 200), (EnumClass(6, 3, 3, 8, 10), 60)])
def test_exact_values_match_library(cls, sample):
    masks, ms, _ = _run(cls, [], cls.mlo, cls.mhi, True, True)
    idx = np.random.default_rng(1).choice(len(ms), min(sample, len(ms)), replace=False)
    res = evaluate_batch(masks[idx], ms[idx], cls.n, prop="ratio", threshold=0)  # DP for all
    for t, i in enumerate(idx):
        inst = _inst(masks[i], ms[i], cls.n)
        f, g = opt_free(inst).value, opt_glob(inst).value
        assert res.free[t] == f and res.glob[t] == g
        assert max(mst_lower_bound(inst), 0) <= res.lb[t] <= f <= res.ub[t]
        assert res.aggsav[t] == agglomerative(inst).savings


def test_pruning_is_certified():
    # every member skipped by the gap filter really has no gap; the max ratio per m equals the
    # brute-force maximum over all members
    cls = EnumClass(5, 2, 3, 2, 8)
    masks, ms, _ = _run(cls, [], cls.mlo, cls.mhi, True, True)
    res = evaluate_batch(masks, ms, cls.n, prop="gap")
    best = {}
    for i in range(len(ms)):
        inst = _inst(masks[i], ms[i], cls.n)
        f, g = opt_free(inst).value, opt_glob(inst).value
        if res.free[i] == -1:
            assert f == g
        else:
            assert res.free[i] == f
        best[int(ms[i])] = max(best.get(int(ms[i]), 0), Fraction(g, f))
    assert (res.free == -1).sum() > 0  # the bounds do decide some members
    res2 = evaluate_batch(masks, ms, cls.n, prop="none")
    for m, r in best.items():
        sel = [i for i in range(len(ms)) if ms[i] == m and res2.free[i] > 0]
        assert max(Fraction(int(res2.glob[i]), int(res2.free[i])) for i in sel) == r
