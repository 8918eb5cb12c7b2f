"""The plain OPT_free subset DP of Theorem 1 and the read-back of an optimal hierarchy.

Tables are indexed by request subsets B (bitmasks over the m requests):
``wI[B] = w(I(B))`` and ``M[B]`` the best savings of a hierarchy over B. The blocked SIMD
kernel (:mod:`.blocked`) computes the same table faster; :func:`dp_plain` is its reference.
"""

import numpy as np
from .._jit import njit

from .._bits import ctz

__all__ = ["dp_plain", "best_split", "hierarchy_from_table"]


@njit(cache=True)
def dp_plain(wI, M):
    """M[B] = wI[B] + max over splits B = B1 + B2 of M[B1] + M[B2]; M[single] = 0.

    The plain O(3^m) loop: B1 runs over the proper submasks of B that contain B's lowest bit,
    so every unordered split is seen once. Kept as the reference for the blocked kernel."""
    size = wI.shape[0]
    for B in range(1, size):
        low = B & -B
        if B == low:
            M[B] = 0
            continue
        rest = B ^ low
        best = M[B] * 0  # typed zero: savings are never negative
        sub = rest
        # B1 = low | sub for every proper submask sub of rest (sub != rest keeps B2 nonempty)
        sub = (sub - 1) & rest
        while True:
            b1 = low | sub
            v = M[b1] + M[B ^ b1]
            if v > best:
                best = v
            if sub == 0:
                break
            sub = (sub - 1) & rest
        M[B] = wI[B] + best
    return M


@njit(cache=True)
def best_split(M, wI, B):
    """A split (B1, B2) of B attaining M[B] (recomputed instead of stored, O(2^|B|))."""
    low = B & -B
    rest = B ^ low
    target = M[B] - wI[B]
    sub = (rest - 1) & rest
    while True:
        b1 = low | sub
        if M[b1] + M[B ^ b1] == target:
            return b1
        if sub == 0:
            break
        sub = (sub - 1) & rest
    return -1


@njit(cache=True)
def hierarchy_from_table(M, wI, full, m, children):
    """Fill ``children`` (shape (m-1, 2)) with an optimal hierarchy: internal node m+j has the
    two children children[j]; leaves are request indices. Returns the root's node id."""
    stack_sets = np.empty(2 * m, dtype=np.int64)
    stack_node = np.empty(2 * m, dtype=np.int64)
    # Internal nodes are numbered in preorder from the root, so the root is node m.
    nxt = m
    top = 0
    stack_sets[0] = full
    stack_node[0] = nxt
    nxt += 1
    top = 1
    while top > 0:
        top -= 1
        B = stack_sets[top]
        node = stack_node[top]
        b1 = best_split(M, wI, B)
        b2 = B ^ b1
        for side in range(2):
            part = b1 if side == 0 else b2
            if part & (part - 1) == 0:
                child = ctz(np.int64(part))
            else:
                child = nxt
                nxt += 1
                stack_sets[top] = part
                stack_node[top] = child
                top += 1
            children[node - m, side] = child
    return m
