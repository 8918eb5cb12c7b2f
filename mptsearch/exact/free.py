"""Exact OPT_free by the subset DP of Theorem 1.

M(B) = w(I(B)) + max over splits B = B1 + B2 (disjoint, nonempty) of M(B1) + M(B2), with
M({i}) = 0, and OPT_free = sum_i w(R_i) - M(all requests). The DP only depends on which
requests contain each chunk (w(I(B)) for every B is a superset sum over the chunks' request
sets S_x), so it takes any number of chunks; its cost is O(3^m) time and O(2^m) memory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..hierarchy import Hierarchy
from ..instance import Instance, InstanceError

__all__ = ["FreeResult", "opt_free", "savings_table", "dp_dtype", "MAX_M"]

MAX_M = 32  # beyond this no machine holds the 2^m table and the 3^m loop never ends


@dataclass(frozen=True)
class FreeResult:
    """OPT_free with its certificate: an optimal hierarchy and the layout read off it."""

    value: int
    savings: int
    hierarchy: Hierarchy
    layout: list
    dtype: str


def dp_dtype(total_weight: int) -> np.dtype:
    """The narrowest integer type in which no DP value can overflow.

    Every entry M(B) and every candidate M(B1) + M(B2) is the savings of some hierarchy over
    B, bounded by sum_{i in B} w(R_i) <= total_weight, so the type only has to hold the total.
    """
    for dt in (np.int16, np.int32, np.int64):
        if total_weight <= np.iinfo(dt).max:
            return np.dtype(dt)
    raise InstanceError(f"total weight {total_weight} overflows 64-bit integers")


def _available_memory() -> int:
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # not on every platform
        return 8 << 30


def _check_size(inst: Instance, dtype: np.dtype, max_memory: int | None) -> None:
    m = inst.m
    if m > MAX_M:
        raise InstanceError(f"OPT_free DP needs 3^m time: m={m} requests exceeds the limit of {MAX_M}")
    need = 2 * (1 << m) * dtype.itemsize
    limit = int(0.8 * _available_memory()) if max_memory is None else max_memory
    if need > limit:
        raise InstanceError(
            f"OPT_free DP for m={m} needs {need / 2**30:.1f} GiB of tables "
            f"({dtype.name}), more than the {limit / 2**30:.1f} GiB available")


def savings_table(inst: Instance, *, kernel: str = "auto", max_memory: int | None = None):
    """The DP tables ``(wI, M)`` over all request subsets, in the narrowest safe integer type.

    ``M[B]`` is the best savings of a hierarchy over the requests in bitmask B.
    ``kernel`` is ``"plain"`` (the O(3^m) reference loop), ``"blocked"`` (SIMD rows) or
    ``"auto"``.
    """
    from .._kernels.masks import intersection_weights

    dtype = dp_dtype(inst.total_weight())
    _check_size(inst, dtype, max_memory)
    m = inst.m
    wI = np.zeros(1 << m, dtype=dtype)
    intersection_weights(inst.chunk_sets(), inst.weights.astype(dtype), m, wI)
    M = np.zeros(1 << m, dtype=dtype)
    _run_dp(wI, M, m, kernel)
    return wI, M


def _run_dp(wI, M, m, kernel):
    from .._kernels.blocked import dp_blocked
    from .._kernels.subset_dp import dp_plain

    if kernel == "auto":
        kernel = "blocked" if m >= 8 else "plain"
    if kernel == "plain":
        dp_plain(wI, M)
    elif kernel == "blocked":
        dp_blocked(wI, M, m)
    else:
        raise ValueError(f"unknown kernel {kernel!r}; use 'auto', 'plain' or 'blocked'")


def opt_free(inst: Instance, *, kernel: str = "auto", max_memory: int | None = None) -> FreeResult:
    """Exact OPT_free with an optimal hierarchy and layout.

    Parameters
    ----------
    inst : Instance
    kernel : {"auto", "plain", "blocked"}
        Which compiled DP loop to use; all give the same value.
    max_memory : int, optional
        Bytes the two 2^m tables may take (default: 80% of available memory).

    Returns
    -------
    FreeResult
        ``value`` = OPT_free, ``savings`` = M(all), the hierarchy and its layout, whose
        :func:`~mptsearch.trie.trie_cost` equals ``value``.

    Notes
    -----
    Runs in O(3^m + n 2^m) time and O(2^m) memory (Theorem 1 of the paper). The integer
    type is the narrowest that provably cannot overflow (see :func:`dp_dtype`).

    Examples
    --------
    >>> from mptsearch.families import k4_3
    >>> opt_free(k4_3()).value
    8
    """
    from .._kernels.subset_dp import hierarchy_from_table

    m = inst.m
    total = inst.total_weight()
    if m == 1:
        h = Hierarchy(1, np.zeros((0, 2), dtype=np.int64), 0)
        return FreeResult(total, 0, h, [tuple(inst.orders[0])], "int16")
    wI, M = savings_table(inst, kernel=kernel, max_memory=max_memory)
    full = (1 << m) - 1
    children = np.zeros((m - 1, 2), dtype=np.int64)
    root = hierarchy_from_table(M, wI, full, m, children)
    h = Hierarchy(m, children, int(root))
    best = int(M[full])
    return FreeResult(total - best, best, h, h.layout(inst), M.dtype.name)


def solve_table(wI: np.ndarray, *, kernel: str = "auto") -> np.ndarray:
    """The recurrence of Theorem 1 on an arbitrary nonnegative table over subsets.

    ``M[B] = wI[B] + max over splits of M[B1] + M[B2]``, ``M[single] = 0``. With
    ``wI[B] = [w(I(B)) >= t]`` it gives the most internal nodes of weight >= t any hierarchy
    can have (the per-threshold form of the 1/2 guarantee). The caller picks a dtype wide
    enough for the sums (the total of wI over any chain of splits).
    """
    wI = np.ascontiguousarray(wI)
    size = wI.shape[0]
    m = size.bit_length() - 1
    if size != 1 << m or m > MAX_M:
        raise InstanceError(f"a subset table must have 2^m entries with m <= {MAX_M}, got {size}")
    if wI.dtype not in (np.int16, np.int32, np.int64) or (size and wI.min() < 0):
        raise InstanceError("a subset table must hold nonnegative int16, int32 or int64 values")
    M = np.zeros_like(wI)
    _run_dp(wI, M, m, kernel)
    return M
