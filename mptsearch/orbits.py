"""Exact OPT_glob for families with interchangeable chunks: a DP over orbit counts.

An **orbit family** splits the chunk universe into orbits O_1..O_r of sizes s_1..s_r (chunks of
one orbit share a weight w_j) and lists **request types** t = (t_1..t_r): type t stands for
*every* request that takes exactly t_j chunks of orbit j, for all j. So a type contributes
prod_j C(s_j, t_j) requests, and the family is the union of its types.

Why the cost of a global order depends only on its orbit pattern
-----------------------------------------------------------------
Let G = Sym(O_1) x ... x Sym(O_r) act on chunks. A request R has type t(R) = (|R ∩ O_j|)_j,
and g in G keeps every |R ∩ O_j|, so g maps the requests of each type onto themselves (a type
is all sets with those counts): the family is G-invariant, and so are the weights. Conversely
every G-invariant set family is a union of types, since the G-orbit of a set R is exactly the
sets with R's counts -- so types describe every family with this symmetry.

The *pattern* of a global order pi = (x_1..x_n) is the sequence of orbit indices (j_1..j_n),
x_t in O_{j_t}. If pi and pi' have the same pattern, the map g(x_t) = x'_t sends each orbit
onto itself, so g is in G. The trie of the layout induced by pi' on the family F is the image
under g of the trie induced by pi on g^{-1}(F) = F: node for node, with equal weights. Hence
cost(pi) = cost(pi'): the cost is a function of the pattern.

The DP
------
With P the chunks placed before chunk c (the chunk-subset DP of mptsearch.exact.glob), c costs
w(c) * #distinct{R ∩ P : R ∋ c}. By the same symmetry this count depends only on the counts
p = (|P ∩ O_i|)_i and the orbit j of c; call it N_j(p). A set Q ⊆ P is some R ∩ P with R ∋ c
and R of type t iff its counts q_i = |Q ∩ O_i| satisfy, for every i,

    max(0, t_i - (s_i - p_i)) <= q_i <= min(p_i, t_i - [i = j])

(R must find its remaining t_i - q_i chunks of orbit i outside P, c among them when i = j).
Every Q with counts in this box B_t(p) occurs, so N_j(p) is the number of subsets Q of P whose
count vector lies in the union of the boxes B_t(p) over the types with t_j >= 1:

    N_j(p) = sum over q in U_t B_t(p) of prod_i C(p_i, q_i),

computed by inclusion-exclusion over the types (an intersection of boxes is a box, and the
weight of a box is a product of range sums of binomials). Then

    G(0) = 0,   G(p + e_j) = min over j of G(p) + w_j * N_j(p)   (p_j < s_j),

OPT_glob = G(s_1..s_r), and walking back the choices gives an optimal pattern, hence an
optimal order (the t-th chunk of orbit j placed is the t-th chunk of O_j). Time
O(prod_j (s_j + 1) * sum_j 2^{T_j} * r), T_j = the number of types using orbit j: polynomial
in the orbit sizes for a fixed number of orbits and types.

Every box term counts sets Q that one type realises, so it is at most m (the number of
requests); binomials are saturated at m + 1 without changing any nonzero product, and the
DP runs in int64 for m < 2^31.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations, product

import numpy as np

from .instance import Instance, InstanceError, from_lists

__all__ = ["OrbitFamily", "OrbitGlobResult", "opt_glob_orbits", "pattern_order", "MAX_STATES"]

MAX_STATES = 20_000_000   # prod (s_j + 1): the DP keeps a few int64 arrays of this length
MAX_TERMS = 1 << 12       # inclusion-exclusion terms per orbit (2^{T_j} - 1)
_CAP_LIMIT = 2**31 - 1    # saturated products of two terms must fit int64


@dataclass(frozen=True)
class OrbitFamily:
    """Orbits of interchangeable chunks and request types (see the module docstring).

    Attributes
    ----------
    sizes : tuple of int
        s_j, the number of chunks in orbit j. Orbit j owns the chunk ids
        ``offset(j) .. offset(j) + s_j - 1`` in the order of the orbits.
    types : tuple of tuple of int
        Each type t takes t_j chunks from orbit j (0 <= t_j <= s_j, not all zero).
    weights : tuple of int
        w_j, the weight of every chunk of orbit j (default: all 1).
    names : tuple of str
        Names of the orbits, for output only.
    """

    sizes: tuple
    types: tuple
    weights: tuple = field(default=None)
    names: tuple = field(default=None)

    def __post_init__(self):
        sizes = tuple(int(s) for s in self.sizes)
        types = tuple(tuple(int(v) for v in t) for t in self.types)
        r = len(sizes)
        if r == 0 or any(s < 1 for s in sizes):
            raise InstanceError(f"orbit sizes must be positive integers, got {list(sizes)}")
        if not types:
            raise InstanceError("an orbit family needs at least one request type")
        for t in types:
            if len(t) != r:
                raise InstanceError(f"type {list(t)} has {len(t)} entries for {r} orbits")
            if any(not 0 <= v <= s for v, s in zip(t, sizes)) or sum(t) == 0:
                raise InstanceError(f"type {list(t)} must take 0..s_j chunks from orbit j, not all zero")
        if len(set(types)) != len(types):
            raise InstanceError("request types must be distinct")
        for j in range(r):
            if all(t[j] == 0 for t in types):
                raise InstanceError(f"orbit {j} is used by no request type")
        weights = (1,) * r if self.weights is None else tuple(int(w) for w in self.weights)
        if len(weights) != r or any(w < 1 for w in weights):
            raise InstanceError(f"orbit weights must be {r} positive integers, got {list(weights)}")
        names = tuple(f"O{j}" for j in range(r)) if self.names is None else tuple(self.names)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "types", types)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "names", names)

    @property
    def n(self) -> int:
        return sum(self.sizes)

    @property
    def k(self) -> int:
        """The largest request size."""
        return max(sum(t) for t in self.types)

    def offset(self, j: int) -> int:
        return sum(self.sizes[:j])

    def orbit_chunks(self, j: int) -> range:
        o = self.offset(j)
        return range(o, o + self.sizes[j])

    def type_count(self, t) -> int:
        return math.prod(math.comb(s, v) for s, v in zip(self.sizes, t))

    @property
    def m(self) -> int:
        """Number of requests (exact, a Python int: may be huge)."""
        return sum(self.type_count(t) for t in self.types)

    def requests(self) -> list[list[int]]:
        """Every request as a sorted list of chunk ids, type by type (types in the given order,
        then lexicographic)."""
        out = []
        for t in self.types:
            per_orbit = [list(combinations(self.orbit_chunks(j), v)) for j, v in enumerate(t)]
            for parts in product(*per_orbit):
                out.append(sorted(x for part in parts for x in part))
        return out

    def instance(self, *, max_requests: int = 1_000_000) -> Instance:
        """The family as an :class:`Instance` (chunk id = label = position in the orbit order)."""
        if self.m > max_requests:
            raise InstanceError(f"the family has {self.m} requests, more than {max_requests} to list")
        w = {x: self.weights[j] for j in range(len(self.sizes)) for x in self.orbit_chunks(j)}
        return from_lists(self.requests(), w)


@dataclass(frozen=True)
class OrbitGlobResult:
    """OPT_glob of an orbit family with an optimal orbit pattern and chunk order."""

    value: int
    pattern: list
    order: list
    states: int


def _saturated_binomial_cumsums(s: int, cap: int) -> np.ndarray:
    """cum[p, q] = sum_{u < q} min(C(p, u), cap) for 0 <= p <= s, 0 <= q <= s + 1."""
    rows = np.zeros((s + 1, s + 1), dtype=np.int64)
    rows[0, 0] = 1
    for p in range(1, s + 1):
        rows[p, 0] = 1
        rows[p, 1:p + 1] = np.minimum(rows[p - 1, 0:p] + rows[p - 1, 1:p + 1], cap)
    cum = np.zeros((s + 1, s + 2), dtype=np.int64)
    np.cumsum(rows, axis=1, out=cum[:, 1:])
    return cum


def _range_sums(cum: np.ndarray, lo: np.ndarray, hi: np.ndarray, cap: int) -> np.ndarray:
    """f[p] = min(cap, sum_{q=lo[p]}^{hi[p]} C(p, q)) (0 for an empty range), p = 0..s."""
    p = np.arange(len(lo))
    ok = lo <= hi
    f = np.zeros(len(lo), dtype=np.int64)
    f[ok] = cum[p[ok], hi[ok] + 1] - cum[p[ok], lo[ok]]
    return np.minimum(f, cap)


def _class_counts(fam: OrbitFamily, j: int, cap: int, cums: dict) -> np.ndarray:
    """N_j(p) over the grid prod (s_i + 1) (meaningful where p_j < s_j): the number of
    distinct R ∩ P among the requests containing a chunk of orbit j, by inclusion-exclusion
    over the types that use orbit j."""
    sizes, r = fam.sizes, len(fam.sizes)
    shape = tuple(s + 1 for s in sizes)
    using = [t for t in fam.types if t[j] >= 1]
    if (1 << len(using)) - 1 > MAX_TERMS:
        raise InstanceError(f"{len(using)} request types use orbit {j}: more than the "
                            f"{MAX_TERMS.bit_length() - 1} the inclusion-exclusion allows")
    ps = [np.arange(s + 1) for s in sizes]
    # per type and coordinate: the interval [lo_i(p_i), hi_i(p_i)] of q_i
    bounds = [[(np.maximum(0, t[i] - sizes[i] + ps[i]), np.minimum(ps[i], t[i] - (i == j)))
               for i in range(r)] for t in using]
    total = np.zeros(shape, dtype=np.int64)
    for size in range(1, len(using) + 1):
        sign = 1 if size % 2 else -1
        for subset in combinations(range(len(using)), size):
            term = None
            for i in range(r):
                lo = np.max([bounds[a][i][0] for a in subset], axis=0)
                hi = np.min([bounds[a][i][1] for a in subset], axis=0)
                f = _range_sums(cums[sizes[i]], lo, hi, cap)
                if not f.any():
                    term = None
                    break
                f = f.reshape([-1 if a == i else 1 for a in range(r)])
                term = f if term is None else np.minimum(term * f, cap)
            if term is not None:
                total += sign * np.broadcast_to(term, shape)
    return total


def opt_glob_orbits(fam: OrbitFamily, *, max_states: int = MAX_STATES) -> OrbitGlobResult:
    """Exact OPT_glob of an orbit family and an optimal global order.

    Parameters
    ----------
    fam : OrbitFamily
    max_states : int
        Refuse when the grid prod_j (s_j + 1) is larger.

    Returns
    -------
    OrbitGlobResult
        ``value`` = OPT_glob, ``pattern`` (orbit index of each position), ``order`` (chunk
        ids of :meth:`OrbitFamily.instance`; its induced layout costs ``value``), ``states``.

    Notes
    -----
    Exact by the symmetry argument of the module docstring. Time
    O(prod (s_j + 1) * r * sum_j 2^{T_j}) and memory O(r * prod (s_j + 1)); no request is
    listed, so m may be far too large to build the trie.

    Examples
    --------
    >>> opt_glob_orbits(OrbitFamily(sizes=(4,), types=((3,),))).value   # K4^(3)
    9
    """
    sizes, r = fam.sizes, len(fam.sizes)
    states = math.prod(s + 1 for s in sizes)
    if states > max_states:
        raise InstanceError(f"the orbit DP would have {states} states, more than {max_states}")
    m = fam.m
    if m + 1 > _CAP_LIMIT:
        raise InstanceError(f"the family has {m} requests; the orbit DP needs fewer than {_CAP_LIMIT}")
    cap = m + 1
    cums = {s: _saturated_binomial_cumsums(s, cap) for s in set(sizes)}
    shape = tuple(s + 1 for s in sizes)
    strides = [math.prod(shape[i + 1:]) for i in range(r)]
    step = [fam.weights[j] * _class_counts(fam, j, cap, cums).reshape(-1) for j in range(r)]
    coords = np.indices(shape).reshape(r, -1)
    level = coords.sum(axis=0)
    by_level = np.argsort(level, kind="stable")
    starts = np.searchsorted(level[by_level], np.arange(fam.n + 2))
    inf = np.iinfo(np.int64).max // 4
    G = np.full(states, inf, dtype=np.int64)
    choice = np.full(states, -1, dtype=np.int8 if r < 127 else np.int32)
    G[0] = 0
    for L in range(1, fam.n + 1):
        idx = by_level[starts[L]:starts[L + 1]]
        best = np.full(len(idx), inf, dtype=np.int64)
        arg = np.full(len(idx), -1, dtype=choice.dtype)
        for j in range(r):
            ok = coords[j, idx] > 0
            prev = idx[ok] - strides[j]
            cand = G[prev] + step[j][prev]
            better = cand < best[ok]
            sel = np.flatnonzero(ok)[better]
            best[sel] = cand[better]
            arg[sel] = j
        G[idx] = best
        choice[idx] = arg
    pattern, s = [], states - 1
    while s:
        j = int(choice[s])
        pattern.append(j)
        s -= strides[j]
    pattern.reverse()
    return OrbitGlobResult(int(G[-1]), pattern, pattern_order(fam, pattern), states)


def pattern_order(fam: OrbitFamily, pattern) -> list[int]:
    """The global chunk order with the given orbit pattern: the t-th occurrence of orbit j
    is the t-th chunk of orbit j."""
    nxt = [fam.offset(j) for j in range(len(fam.sizes))]
    order = []
    for j in pattern:
        order.append(nxt[j])
        nxt[j] += 1
    if sorted(order) != list(range(fam.n)) or any(nxt[j] != fam.offset(j) + fam.sizes[j]
                                                  for j in range(len(fam.sizes))):
        raise InstanceError("a pattern must name orbit j exactly s_j times")
    return order
