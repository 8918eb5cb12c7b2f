"""The one workspace type: every buffer the value-only kernels need, allocated once per
worker and reused for every family evaluated (the kernels allocate nothing)."""

from functools import lru_cache
from typing import NamedTuple

import numpy as np

__all__ = ["Workspace", "workspace", "narrow_tables", "wide_level_tables"]

WIDE_MEMO_BITS = 16  # the annealer's table of cost_j(U) on 8-10 chunks: 2^16 slots, 5 MB


class Workspace(NamedTuple):
    """Buffers for families of up to ``m_max`` requests on ``n`` chunks (a named tuple of
    arrays, which compiled code takes as one argument)."""

    S: np.ndarray        # uint64[n]: request set of each chunk
    inter: np.ndarray    # uint64[2^m]: I(B) as a chunk mask
    wI: np.ndarray       # DP type[2^m]: w(I(B))
    M: np.ndarray        # DP type[2^m]: the Theorem 1 table
    G: np.ndarray        # int64[2^n]: the OPT_glob table
    classes: np.ndarray  # uint64[n+1, m]: request classes per depth of the OPT_glob DP
    ncls: np.ndarray     # int64[n+1]
    singles: np.ndarray  # uint64[n+1]
    sig: np.ndarray      # uint64[2m]: agglomerative signatures
    act: np.ndarray      # int64[2m]: live agglomerative clusters
    pw: np.ndarray       # int64[m, m]: pair weights of the MST bound
    intree: np.ndarray   # bool[m]
    key: np.ndarray      # int64[m]
    ps_subs: np.ndarray  # the prefix-set search's level tables (n <= 7; else empty)
    ps_ups: np.ndarray
    ps_up1: np.ndarray   # int64[2^n]: 2-sets meeting a chunk set (n <= 10)
    ps_rank: np.ndarray  # int64[2^n] when the prefix-set search applies (n <= 10), else int64[0]
    ps_wsubs: np.ndarray  # 8-10 chunks: the multi-word level tables (_kernels/prefix_wide.py)
    ps_wups: np.ndarray
    ps_mkeys: np.ndarray  # 8-10 chunks: the table of cost_j(U), cleared per family
    ps_mvals: np.ndarray
    halt: np.ndarray     # float64[4]: deadline and node budget of one evaluation (_kernels/halt.py)

    @property
    def dtype(self) -> np.dtype:
        """The OPT_free DP's integer type."""
        return self.M.dtype


@lru_cache(maxsize=None)
def narrow_tables(n: int):
    """The prefix-set search's level tables on n <= 7 chunks, built once per n."""
    from .prefix_sets import level_tables

    return level_tables(n)


@lru_cache(maxsize=None)
def wide_level_tables(n: int):
    """The multi-word level tables on 8-10 chunks, built once per n."""
    from .prefix_wide import wide_tables

    return wide_tables(n)


def workspace(n: int, m_max: int, dtype, *, table_m: int | None = None) -> Workspace:
    """A workspace for up to ``m_max`` requests on ``n`` chunks with OPT_free tables of
    2^table_m entries (default m_max) in the integer type ``dtype`` (see
    :func:`mptsearch.exact.free.dp_dtype`: it must hold the largest sum_i w(R_i))."""
    from .free import NARROW_N
    from .halt import new_halt
    from .prefix_wide import MAXN as MAX_N, W, new_memo

    dtype = np.dtype(dtype)
    m = max(int(m_max), 1)
    _, subs, ups, up1, rank = narrow_tables(n) if 1 <= n <= NARROW_N else narrow_tables(1)
    wsubs = wups = np.zeros((0, 0, W), dtype=np.int64)
    mkeys, mvals = np.zeros((0, 2 * W + 1), dtype=np.int64), np.zeros(0, dtype=np.int64)
    if NARROW_N < n <= MAX_N:
        _, wsubs, wups, up1, rank = wide_level_tables(n)
        mkeys, mvals = new_memo(WIDE_MEMO_BITS)
    elif not 1 <= n <= NARROW_N:
        rank = np.zeros(0, dtype=np.int64)
    t = 1 << (m if table_m is None else int(table_m))
    return Workspace(
        S=np.zeros(max(n, 1), dtype=np.uint64), inter=np.zeros(t, dtype=np.uint64),
        wI=np.zeros(t, dtype=dtype), M=np.zeros(t, dtype=dtype),
        G=np.zeros(1 << n, dtype=np.int64), classes=np.zeros((n + 1, m), dtype=np.uint64),
        ncls=np.zeros(n + 1, dtype=np.int64), singles=np.zeros(n + 1, dtype=np.uint64),
        sig=np.zeros(2 * m, dtype=np.uint64), act=np.zeros(2 * m, dtype=np.int64),
        pw=np.zeros((m, m), dtype=np.int64), intree=np.zeros(m, dtype=np.bool_),
        key=np.zeros(m, dtype=np.int64), ps_subs=subs, ps_ups=ups, ps_up1=up1, ps_rank=rank,
        ps_wsubs=wsubs, ps_wups=wups, ps_mkeys=mkeys, ps_mvals=mvals, halt=new_halt())
