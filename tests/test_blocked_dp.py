"""The blocked SIMD kernel of the OPT_free DP against the plain reference loop.

Both compute the same recurrence, so any nonnegative table ``wI`` is a valid input as long
as no DP value overflows the dtype: M[B] <= (|B| - 1) * max(wI), so values up to
``iinfo.max // (m - 1)`` are safe, and the "high" tables put M(all) near the dtype bound,
where the kernel's wrapped sums on masked-out lanes must not leak into the result.
"""

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mptsearch._kernels import blocked as _blocked
from mptsearch._kernels import subset_dp as K
from mptsearch.exact.free import opt_free
from mptsearch.families import leave_one_out, random_instance

from .strategies import instances

DTYPES = (np.int16, np.int32, np.int64)


def _table(m, dtype, mode, seed):
    rng = np.random.default_rng(seed)
    cap = int(np.iinfo(dtype).max) // max(m - 1, 1)
    size = 1 << m
    if mode == "small":
        wI = rng.integers(0, 10, size=size)
    elif mode == "high":  # M(all) close to the dtype maximum
        wI = rng.integers(cap // 2, cap + 1, size=size)
    elif mode == "sparse":  # mostly zeros: many ties between splits
        wI = rng.integers(0, cap + 1, size=size) * (rng.random(size) < 0.1)
    else:  # superset sums of random chunk sets, as the instances give
        wI = np.zeros(size, dtype=np.int64)
        for _ in range(3 * m):
            wI[rng.integers(0, size)] += rng.integers(1, 50)
        for b in range(m):
            low = np.arange(size)[(np.arange(size) >> b) & 1 == 0]
            wI[low] += wI[low | (1 << b)]
        wI = np.minimum(wI, cap)
    return wI.astype(dtype)


def _both(wI, m, parallel=False):
    plain = np.zeros_like(wI)
    K.dp_plain(wI, plain)
    blocked = np.full_like(wI, 123)  # garbage: the kernel must overwrite every entry
    _blocked.dp_blocked(wI, blocked, m, parallel=parallel)
    return plain, blocked


@settings(max_examples=120, deadline=None)
@given(m=st.integers(1, 13), dtype=st.sampled_from(DTYPES),
       mode=st.sampled_from(["small", "high", "sparse", "zeta"]),
       parallel=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_blocked_equals_plain_on_random_tables(m, dtype, mode, parallel, seed):
    wI = _table(m, dtype, mode, seed)
    plain, blocked = _both(wI, m, parallel)
    np.testing.assert_array_equal(blocked, plain)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["high", "zeta"])
def test_blocked_equals_plain_m16(dtype, mode):
    """Enough high bits for long submask loops and the prefetch running past their end."""
    m = 16
    wI = _table(m, dtype, mode, seed=m)
    plain, blocked = _both(wI, m)
    np.testing.assert_array_equal(blocked, plain)
    if mode == "high":
        assert plain[-1] > np.iinfo(dtype).max // 3  # the test does reach large values
    _, par = _both(wI, m, parallel=True)
    np.testing.assert_array_equal(par, plain)


def test_parallel_same_table_on_one_thread():
    """The level-parallel schedule does not depend on the thread count."""
    m = 12
    wI = _table(m, np.int16, "zeta", seed=3)
    plain, _ = _both(wI, m)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        _, one = _both(wI, m, parallel=True)
    finally:
        numba.set_num_threads(before)
    np.testing.assert_array_equal(one, plain)


def test_rejects_bad_tables():
    wI = np.zeros(16, dtype=np.int16)
    with pytest.raises(ValueError):
        _blocked.dp_blocked(wI, np.zeros(16, dtype=np.int32), 4)
    with pytest.raises(ValueError):
        _blocked.dp_blocked(wI, np.zeros(16, dtype=np.int16), 5)
    with pytest.raises(ValueError):
        _blocked.dp_blocked(wI.astype(np.uint16), np.zeros(16, dtype=np.uint16), 4)


@settings(max_examples=60, deadline=None)
@given(inst=instances(max_n=8, max_m=8, max_weight=20))
def test_opt_free_blocked_equals_plain_small(inst):
    a = opt_free(inst, kernel="blocked")
    b = opt_free(inst, kernel="plain")
    assert (a.value, a.savings, a.dtype) == (b.value, b.savings, b.dtype)


@pytest.mark.parametrize("weights,dtype", [((1, 1), "int16"), ((500, 900), "int32"),
                                           ((10**8, 3 * 10**8), "int64")])
@pytest.mark.parametrize("m", [9, 12])
def test_opt_free_blocked_equals_plain_random(m, weights, dtype):
    for seed in range(3):
        inst = random_instance(3 * m, m, (3, 8), weights=weights, seed=seed)
        a = opt_free(inst, kernel="blocked")
        b = opt_free(inst, kernel="plain")
        assert a.dtype == dtype
        assert (a.value, a.savings) == (b.value, b.savings)


def test_opt_free_blocked_leave_one_out():
    """L_n: OPT_free is the minimum external path length (64 at n=16)."""
    assert opt_free(leave_one_out(16), kernel="blocked").value == 64
