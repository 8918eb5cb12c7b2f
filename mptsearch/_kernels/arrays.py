"""Copies and differences between arrays inside kernels, written as loops.

Numba compiles an array assigned into a slice or a row (``a[i:j] = b``, ``a[i] = row``, and
``np.diff``, which does that inside) with an error path that formats both shapes into a message;
compiling that string formatting costs about 1.5 CPU s the first time a process compiles any
such kernel (numba 0.68). These loops do the same copies without it. As with the slice
assignment, the caller guarantees that the ranges lie inside both arrays; the source range must
not start before the destination range where the two overlap in one array (the copy runs
forward)."""

import numpy as np
from .._jit import njit

__all__ = ["copy_into", "copy_rows", "diffs"]


@njit(cache=True)
def copy_into(dst, d0, src, s0, n):
    """dst[d0:d0 + n] = src[s0:s0 + n] for 1-D arrays."""
    for q in range(n):
        dst[d0 + q] = src[s0 + q]


@njit(cache=True)
def copy_rows(dst, d0, src, s0, n):
    """dst[d0:d0 + n] = src[s0:s0 + n] for 2-D arrays of the same number of columns."""
    for q in range(n):
        for c in range(src.shape[1]):
            dst[d0 + q, c] = src[s0 + q, c]


@njit(cache=True)
def diffs(a):
    """np.diff(a) of a 1-D integer array, as int64."""
    out = np.empty(max(len(a) - 1, 0), dtype=np.int64)
    for i in range(len(out)):
        out[i] = a[i + 1] - a[i]
    return out
