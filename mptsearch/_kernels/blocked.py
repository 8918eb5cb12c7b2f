"""Blocked SIMD kernel of the OPT_free subset DP. Private: reached through
:func:`mptsearch.exact.free.opt_free` with ``kernel="blocked"`` (``"auto"`` from m = 8), and
through :func:`mptsearch._kernels.free.solve_dp` by the annealer and the enumerator.

The recurrence is the one of :func:`~mptsearch._kernels.subset_dp.dp_plain`::

    M[B] = wI[B] + max over unordered splits B = B1 + B2 of M[B1] + M[B2],   M[single] = 0

A mask B is cut into a high part h (the top m-L bits) and a low part l (the bottom L bits),
so the table is a matrix of rows ``M[h, :]`` of 2^L entries, one SIMD vector each
(L = 4 for int16 and int32, 3 for int64: one or two AVX2 registers). Every split of
B = (h, l) is of one of two kinds:

- both high parts nonempty, h = h1 + h2: the candidates for all 2^L values of l at once are
  the (max, +) subset convolution ``max over l1 subset of l of M[h1, l1] + M[h2, l ^ l1]`` of
  two finished rows. It is generated as straight-line vector IR (:func:`_row_pairs`): for
  each of the 2^L values of l1 a broadcast of ``M[h1, l1]``, a constant permutation of row h2,
  an add and an AND with a constant lane mask (lanes with l1 not a subset of l become 0,
  harmless because every candidate is >= 0), reduced by a tree of max operations;
- one high part empty, B1 = (0, l1), B2 = (h, l \\ l1): this reads row h itself, so it is
  done afterwards in scalar code in increasing l (:func:`_finish_row`), then wI is added.

Row h only reads rows of its proper submasks, so increasing h is a valid order, and all
rows whose h has the same popcount are independent, which :func:`_dp_levels` runs in
parallel. Max and + over integers are exact, so every order gives the same table.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import prange, types
from .._jit import njit
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .subset_dp import dp_plain

__all__ = ["dp_blocked", "dp_rows", "low_bits", "LOW_BITS", "PARALLEL_MIN_M"]

# L per item size in bytes. Wider rows cost less than the 4^L lane-steps for 3^L useful
# ones suggest: LLVM turns the masked constant shuffles into shifts and zero-blends and drops
# register halves that are all masked. Measured at m=20 (ns/pair, noisy host): int32 L=3
# 0.19, L=4 0.15, L=5 0.15; int64 L=2 0.40, L=3 0.35, L=4 0.35; int16 L=5 no better than
# L=4 and L=6 worse (the scalar in-row part costs 3^L per row).
LOW_BITS = {2: 4, 4: 4, 8: 3}
# Pairs prefetched ahead in the submask loop: at m=22 (8 MB of int16 rows) 8 ahead took the
# CPU time from 0.17-0.20 to 0.11-0.14 ns/pair; 4 and 16 were within the noise of 8.
PREFETCH = 8
# From here on, the default is to use every numba thread (a few seconds of work and up)
PARALLEL_MIN_M = 22


def low_bits(table) -> int:
    """L, the low bits of a row, for a DP table of this integer type: the one place the
    block size is chosen (:data:`LOW_BITS`); callable from compiled code too."""
    return LOW_BITS[np.dtype(table.dtype).itemsize]


@overload(low_bits, jit_options={"cache": True})
def _low_bits_compiled(table):
    L = LOW_BITS[table.dtype.bitwidth // 8]
    return lambda table: L


def _i32(v):
    return ir.Constant(ir.IntType(32), v)


def _vmax(builder, a, b):
    # icmp + select is matched to vpmaxs{w,d} (and to cmpgt + blend for i64 on AVX2)
    return builder.select(builder.icmp_signed(">", a, b), a, b)


def _emit_conv(builder, r1, r2, L, ity):
    """IR for c[l] = max over l1 of (M1[l1] + M2[l ^ l1]) & mask_l1[l], as a tree of maxes."""
    n = 1 << L
    i32v = ir.VectorType(ir.IntType(32), n)
    vty = ir.VectorType(ity, n)
    terms = []
    for l1 in range(n):
        bcast = builder.shuffle_vector(r1, r1, ir.Constant(i32v, [l1] * n))
        perm = builder.shuffle_vector(r2, r2, ir.Constant(i32v, [l ^ l1 for l in range(n)]))
        t = builder.add(bcast, perm)
        if l1:  # l1 = 0 is a subset of every l: no lane to clear
            keep = [-1 if l1 & ~l == 0 else 0 for l in range(n)]
            t = builder.and_(t, ir.Constant(vty, keep))
        terms.append(t)
    while len(terms) > 1:  # a tree keeps the dependency chain at depth L, not 2^L
        terms = [_vmax(builder, terms[i], terms[i + 1]) for i in range(0, len(terms), 2)]
    return terms[0]


@intrinsic
def _row_pairs(typingctx, M, h):
    """Row h of M := max over unordered {h1, h2} partitioning h (both nonempty) of the subset
    convolution of rows h1 and h2 (zeros when h has one bit). The whole submask loop is in IR
    so the accumulator stays in a register."""
    if not isinstance(M, types.Array) or not isinstance(M.dtype, types.Integer):
        return None
    bits = M.dtype.bitwidth
    L = LOW_BITS[bits // 8]

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        i64 = ir.IntType(64)
        ity = ir.IntType(bits)
        vty = ir.VectorType(ity, 1 << L)
        vptr = vty.as_pointer()
        align = bits // 8
        data = arr.data
        h = context.cast(builder, args[1], sig.args[1], types.int64)

        def row(x):
            return builder.bitcast(builder.gep(data, [builder.shl(x, ir.Constant(i64, L))]), vptr)

        one = ir.Constant(i64, 1)
        low = builder.and_(h, builder.neg(h))
        rest = builder.xor(h, low)
        # h1 = low | sub for the proper submasks sub of rest: each unordered pair once
        sub0 = builder.and_(builder.sub(rest, one), rest)
        # rows of the pair PREFETCH steps ahead: submask order defeats hardware prefetchers
        ahead0 = sub0
        for _ in range(PREFETCH):
            ahead0 = builder.and_(builder.sub(ahead0, one), rest)
        i8p = ir.IntType(8).as_pointer()
        prefetch = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p] + [ir.IntType(32)] * 3),
            "llvm.prefetch.p0")
        zero = ir.Constant(vty, None)
        entry = builder.basic_block
        loop = builder.append_basic_block("pairs")
        done = builder.append_basic_block("pairs_done")
        builder.cbranch(builder.icmp_unsigned("==", rest, ir.Constant(i64, 0)), done, loop)

        builder.position_at_end(loop)
        sub = builder.phi(i64)
        acc = builder.phi(vty)
        ahead = builder.phi(i64)
        h1 = builder.or_(low, sub)
        h2 = builder.xor(h, h1)
        for x in (builder.or_(low, ahead), builder.xor(h, builder.or_(low, ahead))):
            builder.call(prefetch, [builder.bitcast(row(x), i8p), _i32(0), _i32(3), _i32(1)])
        ahead_next = builder.and_(builder.sub(ahead, one), rest)
        r1 = builder.load(row(h1), align=align)
        r2 = builder.load(row(h2), align=align)
        acc_next = _vmax(builder, acc, _emit_conv(builder, r1, r2, L, ity))
        sub_next = builder.and_(builder.sub(sub, one), rest)
        last = builder.icmp_unsigned("==", sub, ir.Constant(i64, 0))
        tail = builder.basic_block
        sub.add_incoming(sub0, entry)
        ahead.add_incoming(ahead0, entry)
        ahead.add_incoming(ahead_next, tail)
        sub.add_incoming(sub_next, tail)
        acc.add_incoming(zero, entry)
        acc.add_incoming(acc_next, tail)
        builder.cbranch(last, done, loop)

        builder.position_at_end(done)
        result = builder.phi(vty)
        result.add_incoming(zero, entry)
        result.add_incoming(acc_next, tail)
        builder.store(result, row(h), align=align)
        return context.get_dummy_value()

    return types.none(M, h), codegen


@njit(cache=True, inline="always")
def _finish_row(wI, M, h, L):
    """Complete row h (h > 0) holding the two-sided candidates: add the splits with one empty
    high part, (0, l1) + (h, l minus l1), in increasing l since they read row h itself."""
    base = h << L
    single = h & (h - 1) == 0
    for l in range(1 << L):
        B = base | l
        if single and l == 0:
            M[B] = 0  # a single request: no split, no savings
            continue
        best = M[B] + 0  # as int64, like the plain kernel's sums
        sub = l
        while sub:
            v = M[sub] + M[base | (l ^ sub)]
            if v > best:
                best = v
            sub = (sub - 1) & l
        M[B] = wI[B] + best


@njit(cache=True)
def _row_zero(wI, M, L):
    """Row h = 0, the subsets of the low L requests: the plain recurrence on 2^L entries."""
    size = 1 << L
    dp_plain(wI[:size], M[:size])


@njit(cache=True)
def dp_rows(wI, M, m):
    """One core: rows in increasing h (every proper submask of h is smaller than h). The
    tables may be longer than 2^m (a workspace); m must exceed :func:`low_bits`."""
    L = low_bits(M)
    M[0] = 0
    _row_zero(wI, M, L)
    for h in range(1, 1 << (m - L)):
        _row_pairs(M, h)
        _finish_row(wI, M, h, L)


@njit(cache=True)
def _popcount_order(k):
    """The 2^k masks sorted by popcount (numeric within a level) and the level offsets."""
    counts = np.zeros(k + 2, dtype=np.int64)
    pc = np.empty(1 << k, dtype=np.int8)
    for h in range(1 << k):
        c = 0
        x = h
        while x:
            x &= x - 1
            c += 1
        pc[h] = c
        counts[c + 1] += 1
    starts = np.cumsum(counts)
    order = np.empty(1 << k, dtype=np.int32)
    fill = starts[:-1].copy()
    for h in range(1 << k):
        order[fill[pc[h]]] = h
        fill[pc[h]] += 1
    return order, starts


@njit(cache=True, parallel=True)
def _dp_levels(wI, M, m, order, starts):
    """Threads: rows of one popcount level only read rows of lower levels, so each level is
    a parallel loop; entries are written by exactly one thread, so the result is fixed."""
    L = low_bits(M)
    M[0] = 0
    _row_zero(wI, M, L)
    for level in range(1, m - L + 1):
        lo = starts[level]
        for i in prange(starts[level + 1] - lo):
            h = np.int64(order[lo + i])
            _row_pairs(M, h)
            _finish_row(wI, M, h, L)


def dp_blocked(wI, M, m, parallel=None):
    """Fill ``M`` with the OPT_free DP table using SIMD rows.

    Parameters
    ----------
    wI : ndarray of int16, int32 or int64, shape (2^m,)
        ``wI[B] = w(I(B))``, all entries >= 0.
    M : ndarray, same shape and dtype
        Output, overwritten. Equal bit for bit to what ``dp_plain(wI, M)`` writes (with
        ``M[0] = 0``), provided no DP value overflows the dtype, which
        :func:`~mptsearch.exact.free.dp_dtype` ensures.
    m : int
        Number of requests.
    parallel : bool, optional
        Spread the rows of each popcount level over numba's threads
        (``numba.set_num_threads``). Default: when ``m >= PARALLEL_MIN_M`` and more than one
        thread is available. The table is the same whatever the thread count.

    Returns
    -------
    ndarray
        ``M``.
    """
    if wI.dtype != M.dtype or wI.shape != M.shape or wI.shape != (1 << m,):
        raise ValueError(f"wI and M must both have shape (2^{m},) and one dtype")
    if not (M.flags.c_contiguous and wI.flags.c_contiguous):
        raise ValueError("wI and M must be contiguous")
    if M.dtype.kind != "i" or M.dtype.itemsize not in LOW_BITS:
        raise ValueError(f"unsupported DP dtype {M.dtype}")
    L = low_bits(M)
    if m <= L:  # a single row: the plain loop is already instant
        M[0] = 0
        return dp_plain(wI, M)
    if parallel is None:
        parallel = m >= PARALLEL_MIN_M and numba.get_num_threads() > 1
    if parallel and m >= L + 2:
        order, starts = _popcount_order(m - L)
        _dp_levels(wI, M, m, order, starts)
    else:
        dp_rows(wI, M, m)
    return M
