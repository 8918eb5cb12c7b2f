"""The package's ``njit`` compiles a kernel once for the callers that pass an integer constant
and those that pass a variable (mptsearch/_jit.py): each extra signature costs a compile of
the kernel and of everything it links, which is most of a cold test run."""

import numpy as np

from mptsearch._jit import njit


def test_an_integer_constant_from_a_compiled_caller_shares_the_variables_compile():
    @njit(cache=False)
    def add(x, k):
        return x + k

    @njit(cache=False)
    def caller(x):
        return add(x, 0) + add(x, 128) + add(x, np.int64(x))

    assert caller(3) == 3 + 131 + 6
    assert len(add.signatures) == 1  # numba's own njit compiles three: Literal[int](0), (128), int64


def test_bare_decorator_and_options_both_work():
    @njit
    def twice(x):
        return 2 * x

    @njit(cache=False, nogil=True)
    def call(x):
        return twice(x) + twice(7)

    assert call(1) == 16
    assert len(twice.signatures) == 1
