"""The RAG model (exactly k chunks per request): the dyadic bound on drop-first gadgets and a
pruned exact game search (docs/online.md, Section 11; paper, Section 7.2 and open problem 3).

- :func:`dyadic_pieces`: the number of maximal dyadic intervals inside an interval (the
  canonical decomposition of a segment tree), at most :func:`interval_piece_bound` of its
  length, 2 log2(l + 2) - 2 (Lemma 11.1).
- :func:`dyadic_gadget_cost`: COST of the dyadic hierarchy on a drop-first gadget, an upper
  bound on its OPT_free; :func:`drop_first_log_lower_bound`: the resulting lower bound
  k / (2 log2(k + 2) - 2) on every deterministic algorithm (Theorem 11.2).
- :func:`random_drop_expected_alg_lower`, :func:`random_drop_log_lower_bound`: the random-drop
  chain against every deterministic algorithm (expected cost at least k + (L-1)(k+1)/2) and the
  randomised lower bound (k+1) / (4 log2(k+2) - 4) it gives with Lemma 11.1 (Theorem 11.4).
- :func:`reservoir_family`, :func:`greedy_oldest_reservoir_cost`: a stream of exactly-k requests on
  which greedy-oldest (Section 9) pays about (k+1)/2 OPT_free (Proposition 11.3).
- :func:`greedy_oldest_stream`: greedy-oldest played on a whole stream with an incremental trie
  (the same orders as :func:`mptsearch.online.games.greedy_oldest`, fast enough for long streams);
  :func:`oldest_start_counts`: the terms of Theorem 11.5's count (ALG <= (k - 1/2) OPT_free for
  every oldest-start rule, exactly k chunks, k >= 3).
- :func:`multi_bundle_family`, :func:`multi_bundle_costs`: the stream on which greedy-oldest pays
  almost (k - 1) OPT_free (Proposition 11.6; so it is not (k+1)/2-competitive for k >= 4).
- :func:`deepest_oldest`, :func:`deepest_oldest_upper_bound`: deepest-match with the residual
  oldest first, an oldest-start rule with ALG <= max(k - 1, (6k - 1)/7) OPT_free with exactly k >= 3
  chunks (Theorem 11.8; k - 1 from k = 6 on, tight by Proposition 11.6's stream).
- :func:`newest_rest_stream`, :func:`two_phase_family`, :func:`two_phase_costs`: an oldest-start
  rule that orders the rest newest first, and the stream on which it pays almost (k - 1/2)
  OPT_free (Proposition 11.7: Theorem 11.5's constant is the best one for the whole class).
- :func:`game_value_pruned`: the value of the flagged W = 1 game of
  :func:`mptsearch.online.games.game_value` in the exactly-k model, with the first answer fixed
  by symmetry, the final answer in closed form and alpha-beta pruning (same value, fewer nodes);
  :func:`forcing_strategy`: an adversary attaining a given value, as a tree a checker can replay.

Unit weights throughout.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations
from math import log2
from typing import Sequence

from ..instance import InstanceError

__all__ = ["dyadic_pieces", "interval_piece_bound", "dyadic_gadget_cost", "drop_first_log_lower_bound",
           "small_opt_free", "game_value_pruned", "forcing_strategy", "reservoir_family", "greedy_oldest_reservoir_cost",
           "random_drop_expected_alg_lower", "random_drop_finite_bound", "random_drop_log_lower_bound",
           "interval_piece_bound_real", "greedy_oldest_stream", "oldest_start_counts", "multi_bundle_family",
           "multi_bundle_costs", "oldest_start_upper_bound", "newest_rest_stream", "two_phase_family",
           "two_phase_costs", "deepest_oldest", "deepest_oldest_upper_bound"]


def dyadic_pieces(a: int, b: int) -> int:
    """The number of maximal dyadic intervals [j 2^s, (j+1) 2^s - 1] inside [a, b] (0 <= a <= b):
    the nodes t_c(H) of the dyadic hierarchy on a line of 2^h >= b + 1 leaves that an interval
    S_c = [a, b] decomposes into. O(log(b - a + 1)) time."""
    if not 0 <= a <= b:
        raise InstanceError(f"need 0 <= a <= b, got a={a}, b={b}")
    count = 0
    while a <= b:
        size = 1
        while a % (2 * size) == 0 and a + 2 * size - 1 <= b:
            size *= 2
        count += 1
        a += size
    return count


def interval_piece_bound(length: int) -> float:
    """2 log2(length + 2) - 2: Lemma 11.1's bound on :func:`dyadic_pieces` for an interval of
    ``length`` leaves (attained at every length 2^j - 2, j >= 2)."""
    if length < 1:
        raise InstanceError("an interval has at least one leaf")
    return 2 * log2(length + 2) - 2


def dyadic_gadget_cost(requests: Sequence[Sequence[int]]) -> int:
    """sum_c t_c(H) for the dyadic hierarchy H on the requests in arrival order (padded to a power
    of two by absent leaves, which changes no t_c), when every chunk's requests S_c are
    consecutive (Theorem 3 (iv) for drop-first gadgets): COST(H) >= OPT_free."""
    where: dict[int, list[int]] = {}
    for i, r in enumerate(requests):
        for x in set(r):
            where.setdefault(int(x), []).append(i)
    total = 0
    for x, idx in where.items():
        if idx != list(range(idx[0], idx[-1] + 1)):
            raise InstanceError(f"chunk {x}'s requests are not consecutive")
        total += dyadic_pieces(idx[0], idx[-1])
    return total


def drop_first_log_lower_bound(k: int) -> float:
    """k / (2 log2(k + 2) - 2): Theorem 11.2's lower bound on c(W, k), every W, exactly k chunks
    per request (the supremum over gadget lengths of the drop-first guarantee it proves)."""
    if k < 1:
        raise InstanceError("k must be at least 1")
    return k / (2 * log2(k + 2) - 2)


@lru_cache(maxsize=1 << 20)
def small_opt_free(requests: frozenset) -> int:
    """OPT_free of a few distinct requests (a frozenset of frozensets), unit weights, by the
    subset DP M(B) = |I(B)| + max over splits M(B1) + M(B2) (the paper, Section 3, Theorem 1). O(3^m)."""
    reqs = sorted(requests, key=sorted)
    m = len(reqs)
    inter = {}
    for mask in range(1, 1 << m):
        s = None
        for i in range(m):
            if mask >> i & 1:
                s = reqs[i] if s is None else s & reqs[i]
        inter[mask] = len(s)
    best = {}
    for mask in range(1, 1 << m):
        if mask & (mask - 1) == 0:
            best[mask] = 0
            continue
        low = mask & -mask
        top = 0
        sub = (mask - 1) & mask
        while sub:
            if sub & low:
                top = max(top, best[sub] + best[mask ^ sub])
            sub = (sub - 1) & mask
        best[mask] = inter[mask] + top
    return sum(len(r) for r in reqs) - best[(1 << m) - 1]


def _mask(chunks) -> int:
    m = 0
    for x in chunks:
        m |= 1 << x
    return m


def _depth_masks(nodes: frozenset) -> list:
    """(depth, chunk-set bitmask) of every trie node, deepest first (for :func:`_deepest_in`)."""
    return sorted({(len(u), _mask(u)) for u in nodes}, reverse=True)


def _deepest_in(depth_masks: list, req_mask: int) -> int:
    """The depth of the deepest trie node whose chunks all lie in the request (0: none)."""
    for depth, um in depth_masks:
        if um & ~req_mask == 0:
            return depth
    return 0


def _extensions_exact(k: int, reqs, n: int):
    """Every next request of exactly k chunks (old ones and the next unused integers as fresh
    ones) distinct from ``reqs``: (request, new n, number of fresh chunks)."""
    seen = set(reqs)
    for f in range(0, k + 1):
        fresh = frozenset(range(n, n + f))
        for old in combinations(range(n), k - f):
            req = frozenset(old) | fresh
            if req not in seen:
                yield req, n + f, f


def _first_position(k: int):
    return frozenset(range(k)), frozenset(tuple(range(i)) for i in range(1, k + 1))


def game_value_pruned(k: int, length: int) -> Fraction:
    """The flagged W = 1 game value with at most ``length`` requests of exactly k chunks
    (distinct, fresh chunks named canonically, every order answered): the same number as
    ``game_value(k, length, opt, exact=True)``, computed with three exact reductions:
    the first request's answer is fixed (every order of k fresh chunks is one up to renaming),
    a final request's best answer costs k - d new nodes with d the deepest trie path inside it
    (so the stop value needs no loop over orders), and alpha-beta pruning. Exponential."""
    if k < 1 or length < 1:
        raise InstanceError("k and length must be at least 1")

    def adversary(reqs, nodes, n, left, alpha, beta):
        """max over requests of max(stop, go); exact when in (alpha, beta), else a bound beyond."""
        best = alpha
        opt_now = small_opt_free(frozenset(reqs))
        masks = _depth_masks(nodes)
        size = len(nodes)
        cands = []
        for req, n2, f in _extensions_exact(k, reqs, n):
            # (size + k - d) / (OPT_free + max(1, f)) bounds the stop value: a new request adds
            # its own last node and one node per fresh chunk to every layout
            num, den = size + k - _deepest_in(masks, _mask(req)), opt_now + max(1, f)
            if left == 1 and num * best.denominator <= best.numerator * den:
                continue
            cands.append((num / den, num, den, req, n2))
        cands.sort(key=lambda c: -c[0])
        for _, num, den, req, n2 in cands:
            if left == 1 and num * best.denominator <= best.numerator * den:
                break
            v = Fraction(num, small_opt_free(frozenset(reqs) | {req}))
            if v > best:
                best = v
                if best >= beta:
                    return best
            if left > 1:
                v = algorithm(reqs + [req], nodes, n2, req, left - 1, best, beta)
                if v > best:
                    best = v
                    if best >= beta:
                        return best
        return best

    def algorithm(reqs, nodes, n, req, left, alpha, beta):
        """min over orders of req of the adversary's value after it."""
        best = beta
        seen = set()
        for order in permutations(sorted(req)):
            key = nodes | {order[:i] for i in range(1, k + 1)}
            if key in seen:
                continue
            seen.add(key)
            v = adversary(reqs, key, n, left, alpha, best)
            if v < best:
                best = v
                if best <= alpha:
                    return best
        return best

    if length == 1:
        return Fraction(1)
    first, nodes = _first_position(k)
    return max(Fraction(1), adversary([first], nodes, k, length - 1, Fraction(0), Fraction(10 ** 9)))


def forcing_strategy(k: int, length: int, rho: Fraction):
    """An adaptive adversary of at most ``length`` requests of exactly k chunks that ends, against
    every response, at a history with T >= ``rho`` OPT_free, as a tree; None if there is none
    (then the game value of :func:`game_value_pruned` is below ``rho``). The first request is
    {0..k-1} answered (0, ..., k-1) (any other first answer is a renaming of it). A node is
    ``{"request": [...], "final": bool, "answers": {order: node}}``; a final node has no answers
    (every order of it ends the play at T >= rho OPT_free), a non-final one has a child for
    every order of its request. AND-OR search with a table on (requests, trie, requests left);
    children are shared between equal positions. Exponential."""
    if k < 1 or length < 1:
        raise InstanceError("k and length must be at least 1")
    rho = Fraction(rho)
    table: dict = {}

    def wins(reqs, nodes, n, left):
        key = (frozenset(reqs), nodes, left)
        if key not in table:
            table[key] = _wins(reqs, nodes, n, left)
        return table[key]

    def _wins(reqs, nodes, n, left):
        masks = _depth_masks(nodes)
        size = len(nodes)
        opt_now = small_opt_free(frozenset(reqs))
        go = []
        for req, n2, f in _extensions_exact(k, reqs, n):
            num = size + k - _deepest_in(masks, _mask(req))
            # OPT_free grows by at least max(1, f): the cheap bound first, the DP only if it passes
            if num >= rho * (opt_now + max(1, f)) and num >= rho * small_opt_free(frozenset(reqs) | {req}):
                return {"request": sorted(req), "final": True, "answers": {}}
            if left > 1:
                go.append((-num / (opt_now + max(1, f)), len(go), req, n2))
        go.sort()
        for _, _, req, n2 in go:
            answers = {}
            for order in permutations(sorted(req)):
                sub = wins(reqs + [req], nodes | {order[:i] for i in range(1, k + 1)}, n2, left - 1)
                if sub is None:
                    break
                answers[order] = sub
            else:
                return {"request": sorted(req), "final": False, "answers": answers}
        return None

    first, nodes = _first_position(k)
    if length == 1 or rho <= 1:
        return {"request": sorted(first), "final": True, "answers": {}} if rho <= 1 else None
    sub = wins([first], nodes, k, length - 1)
    if sub is None:
        return None
    return {"request": sorted(first), "final": False, "answers": {tuple(range(k)): sub}}


def reservoir_family(k: int, blocks: int) -> list[list[int]]:
    """Proposition 11.3's stream: ``blocks`` requests of k fresh chunks each (the reservoir, chunks
    0..M-1, M = k * blocks), then M requests C + {j}, j = 0..M-1, with the core C = {M, ..., M+k-2}.
    Every request has exactly k chunks; all are distinct."""
    if k < 2 or blocks < 1:
        raise InstanceError("need k >= 2 and blocks >= 1")
    m = k * blocks
    core = list(range(m, m + k - 1))
    return [list(range(i * k, (i + 1) * k)) for i in range(blocks)] + [core + [j] for j in range(m)]


def greedy_oldest_reservoir_cost(k: int, blocks: int) -> tuple[int, int]:
    """(greedy-oldest's trie cost, the cost of the layout "reservoir as given, core first") on
    :func:`reservoir_family`: ((k+1) M - blocks, 2 M + k - 1) with M = k * blocks; the second is an
    upper bound on OPT_free (Proposition 11.3)."""
    if k < 2 or blocks < 1:
        raise InstanceError("need k >= 2 and blocks >= 1")
    m = k * blocks
    return (k + 1) * m - blocks, 2 * m + k - 1


def random_drop_expected_alg_lower(k: int, length: int) -> Fraction:
    """k + (L - 1)(k + 1)/2: Theorem 11.4's lower bound on the expected trie cost of every
    deterministic W = 1 algorithm on the random-drop chain of length L (R_{j+1} = R_j minus a
    uniform chunk, plus a fresh one); attained by following the chain."""
    if k < 1 or length < 1:
        raise InstanceError("k and length must be at least 1")
    return k + Fraction((length - 1) * (k + 1), 2)


def random_drop_finite_bound(k: int, h: int) -> float:
    """The Yao ratio Theorem 11.4 proves with chains of L = 2^h requests:
    (k + (L-1)(k+1)/2) / ((k + L - 1)(2 log2(kL/(k+L-1) + 2) - 2))."""
    if k < 1 or h < 0:
        raise InstanceError("need k >= 1 and h >= 0")
    L = 2 ** h
    n = k + L - 1
    return float(random_drop_expected_alg_lower(k, L)) / (n * interval_piece_bound_real(k * L / n))


def interval_piece_bound_real(u: float) -> float:
    """2 log2(u + 2) - 2 for a real u >= 0 (the concave majorant of Lemma 11.1)."""
    return 2 * log2(u + 2) - 2


def random_drop_log_lower_bound(k: int) -> float:
    """(k + 1) / (4 log2(k + 2) - 4): Theorem 11.4's lower bound on the ratio of every randomised
    algorithm against an oblivious adversary, every W, exactly k chunks per request (the limit
    of :func:`random_drop_finite_bound` as h grows)."""
    if k < 1:
        raise InstanceError("k must be at least 1")
    return (k + 1) / (4 * log2(k + 2) - 4)


# ---- Section 11.5: oldest-start rules, exactly k chunks ---------------------------------------

def greedy_oldest_stream(requests: Sequence[Sequence[int]]) -> list[tuple]:
    """Greedy-oldest (docs/online.md, Section 9) on a whole stream: the orders
    :func:`mptsearch.online.games.greedy_oldest` commits, request by request, computed with an
    incremental trie (children sets) and first-appearance times, O(k^2) per request after the
    walk instead of rebuilding the trie each time."""
    children: dict = {(): set()}
    first: dict = {}
    out = []
    for t, req in enumerate(requests):
        left, path = set(req), ()
        while True:
            nxt = [x for x in children.get(path, ()) if x in left]
            if not nxt:
                break
            x = min(nxt, key=lambda c: (first.get(c, t), c))
            path += (x,)
            left.discard(x)
        order = path + tuple(sorted(left, key=lambda c: (first.get(c, t), c)))
        for i in range(len(order)):
            children.setdefault(order[:i], set()).add(order[i])
            children.setdefault(order[:i + 1], set())
        for x in order:
            first.setdefault(x, t)
        out.append(order)
    return out


def oldest_start_counts(orders: Sequence[Sequence[int]], layout: Sequence[Sequence[int]]) -> dict:
    """The quantities of Theorem 11.5's proof for committed ``orders`` (in arrival order, every
    request of the same size k) and any ``layout`` of the same requests (``layout[i]`` an order of
    the set of ``orders[i]``): ``alg`` (trie cost of the orders), ``m``, ``m0`` (requests whose first
    chunk was no earlier request's first chunk: the fresh starts), ``cost`` (trie cost of the layout),
    ``x`` = cost - m (its nodes above depth k), ``beta`` (its depth-(k-1) nodes), ``u`` (chunks in
    some depth-(k-1) node) and ``a`` (the fresh starts whose first chunk is their leaf label in the
    layout and that are not the last fresh start among the requests below their depth-(k-1) node)."""
    k = len(orders[0])
    m = len(orders)
    nodes = {tuple(s[:i]) for s in orders for i in range(1, len(s) + 1)}
    lay_nodes = {tuple(s[:i]) for s in layout for i in range(1, len(s) + 1)}
    roots, fresh = set(), []
    for s in orders:
        fresh.append(s[0] not in roots)
        roots.add(s[0])
    parents = [tuple(layout[i][:k - 1]) for i in range(m)]
    last_fresh = {}
    for i in range(m):
        if fresh[i]:
            last_fresh[parents[i]] = i
    a = sum(1 for i in range(m) if fresh[i] and last_fresh[parents[i]] != i and orders[i][0] == layout[i][-1])
    return {"alg": len(nodes), "m": m, "m0": sum(fresh), "cost": len(lay_nodes), "x": len(lay_nodes) - m,
            "beta": len(set(parents)), "u": len({c for p in parents for c in p}), "a": a}


def oldest_start_upper_bound(k: int) -> Fraction:
    """k - 1/2: Theorem 11.5's bound on ALG / OPT_free of every oldest-start rule (greedy-oldest
    among them) with exactly k >= 3 chunks per request."""
    if k < 3:
        raise InstanceError("Theorem 11.5 needs k >= 3 (at k = 2 greedy-oldest is 3/2, Theorem G)")
    return Fraction(2 * k - 1, 2)


def multi_bundle_family(k: int, blocks: int, bundles: int) -> list[list[int]]:
    """Proposition 11.6's stream (exactly k chunks, all distinct): ``blocks`` reservoir requests of k
    fresh chunks (the non-first chunks of the blocks, Y = (k - 1) * blocks of them, are the
    *leaves*); then, for each of ``bundles`` bundles, an intro request {g} + k - 1 fresh chunks,
    followed by the Y requests {g} + Q + {y}, Q = k - 2 fresh chunks of the bundle, one per leaf y
    in increasing label."""
    if k < 3 or blocks < 1 or bundles < 1:
        raise InstanceError("need k >= 3, blocks >= 1 and bundles >= 1")
    reqs = [list(range(b * k, (b + 1) * k)) for b in range(blocks)]
    leaves = [c for r in reqs for c in r[1:]]
    nxt = blocks * k
    for _ in range(bundles):
        intro = list(range(nxt, nxt + k))
        q = list(range(nxt + k, nxt + 2 * k - 2))
        nxt += 2 * k - 2
        reqs.append(intro)
        reqs.extend([intro[0]] + q + [y] for y in leaves)
    return reqs


def multi_bundle_costs(k: int, blocks: int, bundles: int) -> tuple[int, int]:
    """(greedy-oldest's trie cost, the cost of the layout "every request as listed") on
    :func:`multi_bundle_family`: (k B + r (k + (k-1) Y), k B + r (2k - 2 + Y)) with B blocks, r bundles
    and Y = (k - 1) B; the second is an upper bound on OPT_free (Proposition 11.6)."""
    if k < 3 or blocks < 1 or bundles < 1:
        raise InstanceError("need k >= 3, blocks >= 1 and bundles >= 1")
    y = (k - 1) * blocks
    return k * blocks + bundles * (k + (k - 1) * y), k * blocks + bundles * (2 * k - 2 + y)


def newest_rest_stream(requests: Sequence[Sequence[int]]) -> list[tuple]:
    """An oldest-start rule (docs/online.md, Section 11.5) on a whole stream: the first chunk is the
    oldest root child inside the request if there is one, else the oldest chunk (earliest first
    appearance, then label); the rest goes newest first (latest first appearance, fresh chunks
    first, then larger label first)."""
    roots: set = set()
    first: dict = {}
    out = []
    for t, req in enumerate(requests):
        key = lambda c: (first.get(c, t), c)
        inside = [c for c in req if c in roots]
        head = min(inside, key=key) if inside else min(req, key=key)
        order = (head,) + tuple(sorted((c for c in req if c != head), key=key, reverse=True))
        roots.add(head)
        for x in order:
            first.setdefault(x, t)
        out.append(order)
    return out


def two_phase_family(k: int, leaves: int) -> list[list[int]]:
    """Proposition 11.7's stream (exactly k chunks, all distinct): an intro {0, ..., k-1} (g = 0);
    phase 1, the requests {g} + Q + {y_i}, Q = {k, ..., 2k-3}, y_i = 2k-2+i, i < ``leaves``; phase 2,
    the requests P + {y_i} with P the next k - 1 fresh chunks."""
    if k < 3 or leaves < 1:
        raise InstanceError("need k >= 3 and leaves >= 1")
    q = list(range(k, 2 * k - 2))
    ys = list(range(2 * k - 2, 2 * k - 2 + leaves))
    p = list(range(2 * k - 2 + leaves, 3 * k - 3 + leaves))
    return [list(range(k))] + [[0] + q + [y] for y in ys] + [p + [y] for y in ys]


def two_phase_costs(k: int, leaves: int) -> tuple[int, int]:
    """(the cost of :func:`newest_rest_stream` on :func:`two_phase_family`, the cost of the layout
    "every request as listed") = (k + (2k - 1) Y, 3k - 3 + 2Y), Y = ``leaves`` (Proposition 11.7)."""
    if k < 3 or leaves < 1:
        raise InstanceError("need k >= 3 and leaves >= 1")
    return k + (2 * k - 1) * leaves, 3 * k - 3 + 2 * leaves


def deepest_oldest(history: Sequence[Sequence[int]], req: Sequence[int]) -> tuple:
    """A W = 1 rule (docs/online.md, Section 11.5): the deepest trie path whose chunks all lie in the
    request (the first found among the deepest, trie nodes taken in the order of ``history``), then
    the rest oldest first (earliest first appearance, then label; fresh chunks last).
    O(|history| k^2) per call."""
    want = set(req)
    best: tuple = ()
    first: dict = {}
    for t, s in enumerate(history):
        for i in range(len(best) + 1, len(s) + 1):
            if set(s[:i]) <= want:
                best = tuple(s[:i])
            else:
                break
        for x in s:
            first.setdefault(x, t)
    rest = sorted(want - set(best), key=lambda c: (first.get(c, len(history)), c))
    return best + tuple(rest)


def deepest_oldest_upper_bound(k: int) -> Fraction:
    """max(k - 1, (6k - 1)/7): Theorem 11.8's bound on ALG / OPT_free of :func:`deepest_oldest` with
    exactly k >= 3 chunks per request (17/7, 23/7, 29/7 at k = 3, 4, 5; k - 1 from k = 6 on)."""
    if k < 3:
        raise InstanceError("Theorem 11.8 needs k >= 3")
    return max(Fraction(k - 1), Fraction(6 * k - 1, 7))
