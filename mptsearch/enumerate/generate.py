"""Isomorph-free generation of families of requests on n chunks (orderly generation).

A *class* is: a universe of n chunks, allowed request sizes k in [klo, khi], and a number of
requests m in [mlo, mhi]; its members are the families of m distinct requests, up to
relabelling chunks (chunks in no request are allowed, as in OEIS A000612 / A000665).

Method (Read-Faradzev orderly generation). The allowed requests are numbered by increasing
bitmask (colex order), and a family is its characteristic vector over that numbering, read
from the first request. A family is *canonical* when no relabelling gives a
lexicographically larger vector. Removing the last request of a canonical family leaves a
canonical family (Read's lemma), so every canonical family is reached exactly once by adding
to a canonical family one request numbered after all of its own and keeping the result when
it is canonical: a depth-first tree whose subtrees are independent pieces of work.

The canonicity test is a backtracking search over sigma = pi^-1 that fixes sigma(0),
sigma(1), ... in turn. Requests with top chunk j form a contiguous block of the colex order,
so once sigma(0..j) is fixed the image of that block is known and compared with the family's
own block: larger proves the family is not canonical, smaller prunes the branch. With s the
least request size in the family, a canonical family holds {0..s-1} and sigma must map
{0..s-1} onto one of its s-requests, which replaces the first s free choices (n!/(n-s)!
branches) by m * s! ones.

All kernels are compiled with numba and take only arrays and scalars.
"""

from __future__ import annotations

import functools

import numpy as np
from .._jit import njit

from .._bits import ctz, popcount
from .._kernels.arrays import copy_into, copy_rows
from .space import MAX_N, EnumClass

__all__ = ["EnumClass", "allowed_requests", "split_pieces", "generate_piece", "count_class",
           "children_of", "iter_families", "MAX_N"]

LOOK_BUDGET = 2_000_000  #: families a split may count to weigh its pieces


def allowed_requests(cls: EnumClass) -> np.ndarray:
    """The allowed requests as chunk bitmasks in increasing (colex) order, int64 (a new array)."""
    return _tables(cls)[0].copy()


def _tables(cls: EnumClass):
    """(allowed requests, first and past-last request with top chunk j, words of a membership
    bitset), built once per (n, klo, khi): a piece, a plan and a batch each ask for them, tens
    of thousands of times in one run. Shared: the callers only read them."""
    return _tables_of(cls.n, cls.klo, cls.khi)


@functools.lru_cache(maxsize=64)
def _tables_of(n: int, klo: int, khi: int):
    E = np.array([r for r in range(1, 1 << n) if klo <= bin(r).count("1") <= khi], dtype=np.int64)
    lo = np.zeros(max(n, 1), dtype=np.int64)
    hi = np.zeros(max(n, 1), dtype=np.int64)
    for j in range(n):
        lo[j] = np.searchsorted(E, 1 << j)
        hi[j] = np.searchsorted(E, 1 << (j + 1))
    nw = max(1, (1 << n) >> 6)
    return E, lo, hi, nw


# ---- compiled kernels -------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _has(member, r):
    return (member[r >> 6] >> (r & 63)) & 1


@njit(cache=True)
def _is_canonical(fam, nf, member, n, E, blk_lo, blk_hi, sigma, cand, alw):
    """True when no relabelling makes the family's characteristic vector larger.

    sigma(0..s-1) maps onto a smallest request A, then sigma(s) = v is a chunk outside A.
    Block s (the requests with top chunk s) holds, among sizes that can occur, the s-sets
    {0..s} - {s-1-i} (i = 0..s-1) and {0..s}; their images are (A - sigma(s-1-i)) + v and
    A + v. So for a fixed (A, v) the best block-s pattern any order of A gives is c ones
    then zeros, c the number of a in A with A - a + v in the family: when it beats the
    family's own pattern the family is not canonical, when it loses the branch is dead, and
    when it ties only the orders putting those c chunks at positions s-c..s-1 survive. This
    replaces the s! orders of A per (A, v) by c! (s - c)! tied ones (numbers in ``alw``).
    """
    if nf == 0:
        return True
    s = n + 1
    szmask = 0
    for a in range(nf):
        c = popcount(fam[a])
        szmask |= 1 << c
        if c < s:
            s = c
    base = (1 << s) - 1
    if _has(member, base) == 0:
        return False
    if s >= n:
        return True  # only {0..n-1} has size n: one family, canonical
    full = (1 << n) - 1
    top = base | (1 << s)
    tail = ((szmask >> (s + 1)) & 1) == 1
    own_ones = 0  # the family's own block-s pattern must be ones then zeros to be tied at all
    while own_ones < s and _has(member, top ^ (1 << (s - 1 - own_ones))):
        own_ones += 1
    own_shape = True
    for i in range(own_ones, s):
        if _has(member, top ^ (1 << (s - 1 - i))):
            own_shape = False
    own_tail = _has(member, top) if tail else 0
    for a in range(nf):
        A = fam[a]
        if popcount(A) != s:
            continue
        for v in range(n):
            if (A >> v) & 1:
                continue
            ones = 0
            b = A
            while b:
                x = ctz(b)
                b &= b - 1
                if _has(member, (A ^ (1 << x)) | (1 << v)):
                    ones |= 1 << x
            c = popcount(ones)
            # compare (1^c 0^(s-c), tail) with the family's own block-s pattern
            if not own_shape:
                # own pattern has a 1 after a 0 at position >= own_ones; ours is 1^c 0^(s-c)
                if c > own_ones:
                    return False
                continue  # c <= own_ones: ours is smaller at the first 0 of ours... or at own's late 1
            if c > own_ones:
                return False
            if c < own_ones:
                continue
            if tail:
                t = _has(member, A | (1 << v))
                if t > own_tail:
                    return False
                if t < own_tail:
                    continue
            # tied on block s: positions 0..s-c-1 take A - ones, s-c..s-1 take ones, s takes v
            for j in range(s):
                alw[j] = (A & ~ones) if j < s - c else ones
            alw[s] = 1 << v
            j = 0
            cand[0] = -1
            used = 0
            while True:
                allowed = (alw[j] if j <= s else full) & ~used
                w = cand[j] + 1
                while w < n and ((allowed >> w) & 1) == 0:
                    w += 1
                if w >= n:
                    if j == 0:
                        break
                    j -= 1
                    used ^= 1 << sigma[j]
                    continue
                cand[j] = w
                sigma[j] = w
                worse = False
                if j > s:
                    for t in range(blk_lo[j], blk_hi[j]):
                        B = E[t]
                        if ((szmask >> popcount(B)) & 1) == 0:
                            continue
                        img = 0
                        bb = B
                        while bb:
                            img |= 1 << sigma[ctz(bb)]
                            bb &= bb - 1
                        f = _has(member, B)
                        g = _has(member, img)
                        if f != g:
                            if g:
                                return False  # a relabelling with a larger vector
                            worse = True
                            break
                if worse or j == n - 1:
                    continue
                used |= 1 << w
                j += 1
                cand[j] = -1
    return True


@njit(cache=True)
def _generate(prefix, mlo, mhi, elo, n, E, blk_lo, blk_hi, nw, emit_root, store, out, outm, outp,
              counts):
    """Depth-first orderly generation of the subtree below the canonical family ``prefix``
    (request numbers, increasing). Families with mlo <= m <= mhi are counted in counts[m].
    When ``store``, every family with elo <= m <= mhi (elo <= mlo: ancestors of members as
    well) is written to out[row, :m] (masks), outm[row] = m and outp[row] = the row of its
    parent (the family without its last request), -1 when the parent was not written;
    parents come before their children. The arrays grow by doubling.
    Returns (out, outm, outp, rows)."""
    NE = E.shape[0]
    member = np.zeros(nw, dtype=np.int64)
    fam = np.zeros(max(mhi, 1) + 1, dtype=np.int64)
    idx = np.zeros(max(mhi, 1) + 1, dtype=np.int64)
    nxt = np.zeros(max(mhi, 1) + 2, dtype=np.int64)
    rowof = np.full(max(mhi, 1) + 2, -1, dtype=np.int64)
    sigma = np.zeros(max(n, 1), dtype=np.int64)
    cand = np.zeros(max(n, 1) + 1, dtype=np.int64)
    alw = np.zeros(max(n, 1) + 1, dtype=np.int64)
    p = prefix.shape[0]
    for d in range(p):
        idx[d] = prefix[d]
        fam[d] = E[prefix[d]]
        member[fam[d] >> 6] |= np.int64(1) << (fam[d] & 63)
    rows = 0
    d = p
    first = True
    while True:
        if first:
            first = False
            emit = emit_root and elo <= d <= mhi
            if emit_root and mlo <= d <= mhi:
                counts[d] += 1
        else:
            # a family with d requests can reach mlo only if enough requests remain after it
            if d == mhi or nxt[d] >= NE or NE - nxt[d] < mlo - d:
                if d == p:
                    break
                d -= 1
                e = fam[d]
                member[e >> 6] ^= np.int64(1) << (e & 63)
                continue
            t = nxt[d]
            nxt[d] = t + 1
            e = E[t]
            member[e >> 6] |= np.int64(1) << (e & 63)
            fam[d] = e
            idx[d] = t
            if not _is_canonical(fam, d + 1, member, n, E, blk_lo, blk_hi, sigma, cand, alw):
                member[e >> 6] ^= np.int64(1) << (e & 63)
                continue
            d += 1
            if d >= mlo:
                counts[d] += 1
            emit = d >= elo
        nxt[d] = idx[d - 1] + 1 if d > 0 else 0
        rowof[d] = -1
        if emit and store:
            if rows == out.shape[0]:
                grown = 2 * rows + 16
                bigger = np.zeros((grown, out.shape[1]), dtype=np.int64)
                copy_rows(bigger, 0, out, 0, rows)
                out = bigger
                biggerm = np.zeros(grown, dtype=np.int64)
                copy_into(biggerm, 0, outm, 0, rows)
                outm = biggerm
                biggerp = np.zeros(grown, dtype=np.int64)
                copy_into(biggerp, 0, outp, 0, rows)
                outp = biggerp
            for a in range(d):
                out[rows, a] = fam[a]
            outm[rows] = d
            outp[rows] = rowof[d - 1] if d > 0 else -1
            rowof[d] = rows
            rows += 1
    return out, outm, outp, rows


@njit(cache=True)
def _children_batch(prefixes, d, n, E, blk_lo, blk_hi, nw):
    """The canonical children of every row of ``prefixes`` (canonical families as d request
    numbers, increasing): each row plus one request numbered after its last, kept when the
    result is canonical (the step of :func:`_generate`). Returns (children, parent):
    ``children[c, :d + 1]`` request numbers, ``parent[c]`` the row it came from; rows in
    order, and each row's children in increasing order of the added request."""
    NE = E.shape[0]
    B = prefixes.shape[0]
    member = np.zeros(nw, dtype=np.int64)
    fam = np.zeros(d + 1, dtype=np.int64)
    sigma = np.zeros(max(n, 1), dtype=np.int64)
    cand = np.zeros(max(n, 1) + 1, dtype=np.int64)
    alw = np.zeros(max(n, 1) + 1, dtype=np.int64)
    out = np.zeros((max(B, 16), d + 1), dtype=np.int64)
    par = np.zeros(max(B, 16), dtype=np.int64)
    rows = 0
    for b in range(B):
        for a in range(d):
            fam[a] = E[prefixes[b, a]]
            member[fam[a] >> 6] |= np.int64(1) << (fam[a] & 63)
        start = prefixes[b, d - 1] + 1 if d > 0 else 0
        for t in range(start, NE):
            e = E[t]
            member[e >> 6] |= np.int64(1) << (e & 63)
            fam[d] = e
            if _is_canonical(fam, d + 1, member, n, E, blk_lo, blk_hi, sigma, cand, alw):
                if rows == out.shape[0]:
                    bigger = np.zeros((2 * rows, d + 1), dtype=np.int64)
                    copy_rows(bigger, 0, out, 0, rows)
                    out = bigger
                    biggerp = np.zeros(2 * rows, dtype=np.int64)
                    copy_into(biggerp, 0, par, 0, rows)
                    par = biggerp
                for a in range(d):
                    out[rows, a] = prefixes[b, a]
                out[rows, d] = t
                par[rows] = b
                rows += 1
            member[e >> 6] ^= np.int64(1) << (e & 63)
        for a in range(d):
            member[fam[a] >> 6] ^= np.int64(1) << (fam[a] & 63)
    return out[:rows], par[:rows]


# ---- public functions -----------------------------------------------------------------------

def _run(cls: EnumClass, prefix, mlo: int, mhi: int, emit_root: bool, store: bool,
         elo: int | None = None, parents: bool = False):
    E, lo, hi, nw = _tables(cls)
    elo = mlo if elo is None else elo
    counts = np.zeros(max(mhi, 0) + 2, dtype=np.int64)
    width = max(mhi, 1)
    out = np.zeros((1024 if store else 1, width), dtype=np.int64)
    outm = np.zeros(out.shape[0], dtype=np.int64)
    outp = np.full(out.shape[0], -1, dtype=np.int64)
    if cls.n == 0:
        if mlo <= 0 <= mhi and emit_root:
            counts[0] += 1
        rows = 1 if elo <= 0 <= mhi and emit_root else 0
        return (out[:rows], outm[:rows], counts) + ((outp[:rows],) if parents else ())
    out, outm, outp, rows = _generate(np.asarray(prefix, dtype=np.int64), mlo, mhi, elo, cls.n, E,
                                      lo, hi, nw, emit_root, store, out, outm, outp, counts)
    return (out[:rows], outm[:rows], counts) + ((outp[:rows],) if parents else ())


def children_of(cls: EnumClass, prefixes: np.ndarray):
    """The canonical children of canonical families ``prefixes`` (B x d request numbers,
    increasing) as ``(children, parent)``: ``children`` is C x (d + 1) request numbers,
    ``parent[c]`` the row of ``prefixes`` that child c extends. Together, the children of
    every canonical family with d requests are every canonical family with d + 1, once."""
    E, lo, hi, nw = _tables(cls)
    prefixes = np.ascontiguousarray(prefixes, dtype=np.int64)
    if prefixes.ndim != 2:
        raise ValueError("prefixes must be a 2-d array of request numbers")
    return _children_batch(prefixes, prefixes.shape[1], cls.n, E, lo, hi, nw)


def _numbers(cls: EnumClass, fams: np.ndarray) -> list[np.ndarray]:
    """Each row of ``fams`` (request bitmasks, all allowed) as request numbers: its positions in
    :func:`allowed_requests`, which is sorted."""
    return list(np.searchsorted(_tables(cls)[0], fams).astype(np.int64, copy=False))


def _children(cls: EnumClass, prefix) -> list[np.ndarray]:
    """The canonical children of the family ``prefix`` (request numbers), in generation order."""
    d = len(prefix)
    fams, _, _ = _run(cls, prefix, d + 1, d + 1, False, True)
    return _numbers(cls, fams[:, :d + 1])


def _subtree_size(cls: EnumClass, prefix, depth: int) -> int:
    """Number of canonical families at ``depth`` below ``prefix`` (the root included)."""
    _, _, counts = _run(cls, prefix, depth, depth, len(prefix) == depth, False)
    return int(counts[depth])


def split_pieces(cls: EnumClass, min_pieces: int = 256, look: int = 5):
    """Split the generation tree of ``cls`` into independent pieces of similar size,
    deterministically (the split depends on the class only, never on the workers).

    Start from the canonical families at the least depth p with at least ``min_pieces`` of
    them. Measure each by its descendants at depth D = p + ``look`` (at most the class's
    largest m, and at most the deepest level with ``LOOK_BUDGET`` families; at least p + 1)
    and replace every family heavier than 2/``min_pieces`` of the total by its
    children, until none is (families at depth D count 1). The subtrees below the first
    families in colex order are much larger than the others (on 4-uniform families on 7
    chunks with 12 requests one of the 509 depth-6 subtrees holds 39% of the members), so a
    split at one depth leaves one worker with most of the work.

    Returns
    -------
    (p, prefixes, split)
        Piece i >= 1 is the subtree below ``prefixes[i-1]`` (request numbers, any length
        >= p) with its root; piece 0 holds the members with fewer than p requests and the
        families in ``split`` (the frontier families that were replaced by their children).
    """
    top = cls.m_top
    p = 0
    while p < top:
        p += 1
        if _subtree_size(cls, [], p) >= min_pieces:  # counted, not listed
            break
    prefixes = _children_at(cls, p) if p else []
    depth = min(p + look, top)
    # counting to that depth costs about one generation step per family there: keep it to
    # depths whose exact orbit count is <= LOOK_BUDGET. On 7 chunks it never binds (uniform
    # classes peak at 920,446 families, sizes 3-4 with <= 8 requests at 1,989,955); on
    # 5-uniform families on 9 chunks with 8 or more requests it counts to 7 (282,246
    # families): seconds instead of minutes (8: 3.8 million) or hours (10: 542 million).
    from .orbit_count import count_class_members

    levels = count_class_members(cls.n, cls.klo, cls.khi, depth)
    while depth > p + 1 and levels[depth] > LOOK_BUDGET:
        depth -= 1
    split: list[np.ndarray] = []
    sizes = [_subtree_size(cls, f, depth) for f in prefixes]
    limit = 2 * sum(sizes) / max(min_pieces, 1)
    while any(len(f) < depth and sz > limit for f, sz in zip(prefixes, sizes)):
        grown, grown_sizes = [], []
        for f, sz in zip(prefixes, sizes):
            if len(f) < depth and sz > limit:
                split.append(f)
                kids = _children(cls, f)
                grown.extend(kids)
                grown_sizes.extend(_subtree_size(cls, c, depth) for c in kids)
            else:
                grown.append(f)
                grown_sizes.append(sz)
        prefixes, sizes = grown, grown_sizes
    return p, prefixes, split


def _children_at(cls: EnumClass, depth: int) -> list[np.ndarray]:
    fams, _, _ = _run(cls, [], depth, depth, False, True)
    return _numbers(cls, fams[:, :depth])


def generate_piece(cls: EnumClass, p: int, prefix, piece: int, ancestors: int = 0):
    """The members of piece ``piece`` (see :func:`split_pieces`) as ``(masks, ms)``:
    ``masks[i, :ms[i]]`` are the request bitmasks of member i in generation order.
    ``prefix`` is ``prefixes[piece - 1]``, or for piece 0 the list ``split`` (or None).

    With ``ancestors = a > 0`` the piece's families with mlo - a <= m < mlo (the ancestors of
    its members along the generation tree) come too, and the result is ``(masks, ms,
    parents)`` with ``parents[i]`` the row of member i's parent (-1 outside the piece)."""
    elo = max(cls.mlo - ancestors, 0)
    width = max(cls.mhi, 1)
    if piece == 0:
        hi = min(cls.mhi, p - 1)
        if hi >= cls.mlo:
            res = _run(cls, [], cls.mlo, hi, True, True, elo, True)
            masks, ms, par = res[0], res[1], res[3]
            masks = np.pad(masks, ((0, 0), (0, width - masks.shape[1])))
        else:
            masks = np.zeros((0, width), dtype=np.int64)
            ms = np.zeros(0, dtype=np.int64)
            par = np.zeros(0, dtype=np.int64)
        extra = [f for f in (prefix or []) if cls.mlo <= len(f) <= cls.mhi]
        if extra:
            E = allowed_requests(cls)
            more = np.zeros((len(extra), width), dtype=np.int64)
            for i, f in enumerate(extra):
                more[i, :len(f)] = E[f]
            masks = np.concatenate([masks, more])
            ms = np.concatenate([ms, np.array([len(f) for f in extra], dtype=np.int64)])
            par = np.concatenate([par, np.full(len(extra), -1, dtype=np.int64)])
        return (masks, ms) + ((par,) if ancestors else ())
    res = _run(cls, prefix, cls.mlo, cls.mhi, True, True, elo, bool(ancestors))
    return (res[0], res[1]) + ((res[3],) if ancestors else ())


def count_class(cls: EnumClass) -> np.ndarray:
    """Number of members of ``cls`` for each m (index m of the returned int64 array).

    Notes
    -----
    Orderly generation visits every canonical family with at most mhi requests once; each
    visit tests at most (number of allowed requests) children, each test a pruned search
    over relabellings (worst case n!, in practice a few hundred steps).
    """
    _, _, counts = _run(cls, [], cls.mlo, cls.mhi, True, False)
    return counts[: cls.mhi + 1]


def iter_families(cls: EnumClass):
    """Every member of ``cls`` once, as a tuple of request bitmasks (small classes)."""
    masks, ms, _ = _run(cls, [], cls.mlo, cls.mhi, True, True)
    for row, m in zip(masks, ms):
        yield tuple(int(r) for r in row[:m])
