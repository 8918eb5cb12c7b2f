"""The nested chain, its random twin, and exhaustive online games (docs/online.md, Sections
4-5 and 9; paper, Section 7.2 and open problem 3).

- :func:`nested_chain_adversary`: R_1 = k chunks, R_{j+1} = R_j minus the first chunk the
  algorithm committed for R_j (no fresh chunk). Every response pays k(k+1)/2 while
  OPT_free = k (docs/online.md, Theorem N). Played against any object with
  :class:`~mptsearch.serving.online.OnlineLayouter`'s ``add``/``flush`` protocol, W copies
  interleaved round-robin (Lemma 2).
- :func:`nested_chain_responses`: every response of a W = 1 algorithm to one chain.
- :func:`random_nested_value`: the least expected cost of a deterministic W = 1 algorithm on
  the random nested chain (the dropped chunk uniform), exact expectimin (Theorem RN: k(k+3)/4).
- :func:`sliding_opt_free`, :func:`sliding_opt_free_lower`, :func:`drop_first_cap`: the
  first-in-first-out response to the drop-first adversary and the cap it puts on that
  adversary's guarantee (Theorem 3c).
- :func:`worst_ratio`: the exact worst case of a W = 1 algorithm over every request sequence of
  a given length (canonical fresh labels), used to test candidate algorithms (Section 9).

Unit weights throughout; trie costs by a dictionary trie (:func:`trie_nodes`).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from itertools import combinations, permutations
from typing import Callable, Iterator, Sequence

from ..families import min_external_path_length
from ..instance import InstanceError
from ..families.online import play_round_robin

__all__ = ["trie_nodes", "nested_chain_adversary", "nested_chain_responses", "nested_lower_bound",
           "random_nested_lower_bound", "random_nested_value", "sliding_opt_free", "sliding_opt_free_lower",
           "drop_first_cap", "canonical_sequences", "worst_ratio", "greedy_oldest", "greedy_id",
           "adversary_forces", "game_value", "slot_interleave", "nested_chain_strategy"]


def trie_nodes(seqs: Sequence[Sequence[int]]) -> set:
    """The nonempty prefixes of the sequences (the trie's nodes; unit-weight cost = its size)."""
    return {tuple(s[:i]) for s in seqs for i in range(1, len(s) + 1)}


# ---- Theorem N: the nested chain ---------------------------------------------------------------

def nested_lower_bound(k: int) -> Fraction:
    """(k+1)/2: every deterministic algorithm, every W, requests of at most k chunks (Theorem N)."""
    return Fraction(k + 1, 2)


def random_nested_lower_bound(k: int) -> Fraction:
    """(k+3)/4: every randomised algorithm, oblivious adversary, every W (Theorem RN)."""
    return Fraction(k + 3, 4)


def nested_chain_adversary(k: int, window: int, algorithm) -> tuple[list, list]:
    """Play ``window`` interleaved nested chains (docs/online.md, Theorem N) against
    ``algorithm`` (``add(chunks, id=...)`` -> committed (id, order) pairs; ``flush()``).

    Copy g's step s (s = 0..k-1) is at position s W + g; it is copy g's previous request
    minus the first chunk the algorithm committed for it (:func:`mptsearch.families.online.play_round_robin`).
    Returns (requests, orders) in arrival order. O(k W) calls. Raises InstanceError if a
    request is not committed before its chain's next request is due.
    """
    if k < 1 or window < 1:
        raise InstanceError(f"k and window must be >= 1, got {k}, {window}")
    return play_round_robin([[g * k + x for x in range(k)] for g in range(window)], k, algorithm,
                            lambda g, req, order: [x for x in req if x != order[0]], what="chain")


def nested_chain_responses(k: int) -> Iterator[tuple[list, list]]:
    """Every (requests, orders) of one nested chain at W = 1: every order of every request, the
    next request dropping the committed first chunk. k! (k-1)! ... 1! paths."""
    def rec(req, reqs, orders):
        for order in permutations(sorted(req)):
            nxt = [x for x in req if x != order[0]]
            if nxt:
                yield from rec(nxt, reqs + [sorted(req)], orders + [list(order)])
            else:
                yield reqs + [sorted(req)], orders + [list(order)]
    yield from rec(list(range(k)), [], [])


# ---- Theorem RN: the random nested chain, exact expectimin ----------------------------------------

def _canon(req: tuple, nodes: frozenset) -> tuple:
    """(r, nodes relabelled) minimised over every bijection of ``req`` onto 0..r-1: the state
    up to renaming (the future does not depend on the names). O(r! |nodes|)."""
    best = None
    for perm in permutations(range(len(req))):
        name = dict(zip(req, perm))
        key = tuple(sorted(tuple(name[x] for x in v) for v in nodes))
        if best is None or key < best:
            best = key
    return len(req), best


@lru_cache(maxsize=None)
def _expectimin(r: int, nodes: tuple) -> Fraction:
    """Least expected cost of requests of sizes r, r-1, ..., 1 (R = {0..r-1}, each next one the
    current minus a uniform chunk) given the trie nodes inside R."""
    if r == 0:
        return Fraction(0)
    have = set(nodes)
    best = None
    for order in permutations(range(r)):
        pre = [order[:i] for i in range(1, r + 1)]
        new = [p for p in pre if p not in have]
        union = have.union(pre)
        tail = Fraction(0)
        for u in range(r):
            rest = tuple(x for x in range(r) if x != u)
            tail += _expectimin(*_canon(rest, frozenset(v for v in union if u not in v)))
        val = len(new) + tail / r
        if best is None or val < best:
            best = val
    return best


def random_nested_value(k: int) -> Fraction:
    """The least expected trie cost of a deterministic W = 1 algorithm on the random nested
    chain R_1 = k chunks, R_{j+1} = R_j minus a uniform chunk (docs/online.md, Theorem RN), by
    expectimin over every state (trie nodes inside the current request, up to renaming).
    OPT_free = k on every outcome. Exponential: k <= 5."""
    return _expectimin(k, ())


# ---- Theorem 3c: the first-in-first-out response to drop-first -------------------------------------

def sliding_opt_free(k: int, length: int) -> int:
    """OPT_free of the sliding family R_j = {j, ..., j+k-1}, j = 1..L, for 1 <= L <= k+1:
    k + EPL_min(L) - L + 1 (docs/online.md, Theorem 3c)."""
    if not 1 <= length <= k + 1:
        raise ValueError(f"the formula holds for 1 <= L <= k+1, got L = {length}, k = {k}")
    return k + min_external_path_length(length) - length + 1


def sliding_opt_free_lower(k: int, length: int) -> int:
    """A proved lower bound on OPT_free of the sliding family for every L (Theorem 3c): exact
    for L <= k+1; beyond, the largest of n = k + L - 1, q EPL_min(k+1) (q blocks of k+1
    requests starting 2k apart, on disjoint chunks) and half the sum over consecutive blocks
    of k+1 requests (alternate blocks have disjoint chunks)."""
    if length <= k + 1:
        return sliding_opt_free(k, length)
    full = sliding_opt_free(k, k + 1)
    q = (length - k - 1) // (2 * k) + 1
    a, s = divmod(length, k + 1)
    alternate = a * full + (sliding_opt_free(k, s) if s else 0)
    return max(k + length - 1, q * full, -(-alternate // 2))


def drop_first_cap(k: int) -> tuple[Fraction, int, Fraction]:
    """What the drop-first adversary can certify at request size k, bounded through its FIFO
    response (Theorem 3c): (max over L <= k+1 of k L / OPT_free(sliding), the maximising L,
    the bound min(k, 3 k^2 / EPL_min(k+1)) for every L > k+1). O(k)."""
    best, arg = Fraction(0), 0
    for L in range(1, k + 2):
        r = Fraction(k * L, sliding_opt_free(k, L))
        if r > best:
            best, arg = r, L
    return best, arg, min(Fraction(k), Fraction(3 * k * k, min_external_path_length(k + 1)))


# ---- Section 9: exact worst cases of W = 1 algorithms ------------------------------------------

def _extensions(seq: Sequence[tuple], n: int, k: int, exact: bool = False) -> Iterator[tuple[tuple, int]]:
    """Every next request after ``seq`` (n chunks named so far): 1..k chunks (exactly k with
    ``exact``), old ones and the next unused integers as fresh ones, distinct from every request
    of ``seq``; with the new n."""
    seen = {frozenset(r) for r in seq}
    for size in range(k if exact else 1, k + 1):
        for f in range(0, size + 1):
            for old in combinations(range(n), size - f):
                req = tuple(old) + tuple(range(n, n + f))
                if frozenset(req) not in seen:
                    yield req, n + f


def canonical_sequences(k: int, length: int) -> Iterator[list]:
    """Every sequence of ``length`` distinct requests of 1..k chunks, fresh chunks named by the
    next unused integers (every sequence is one of these up to renaming). Exponential."""
    def rec(seq, n):
        if len(seq) == length:
            yield list(seq)
            return
        for req, n2 in _extensions(seq, n, k):
            yield from rec(seq + [req], n2)
    yield from rec([], 0)


def greedy_oldest(history: Sequence[Sequence[int]], req: Sequence[int]) -> tuple:
    """A W = 1 rule (docs/online.md, Section 9): walk down the trie while a child's chunk is in the
    request, taking the oldest such child (earliest first appearance, then label), then the rest
    oldest first (fresh chunks last, by label). O(|history| k) per call."""
    nodes = trie_nodes(history)
    first = {}
    for t, s in enumerate(history):
        for x in s:
            first.setdefault(x, t)
    left, path = set(req), ()
    while True:
        nxt = [x for x in left if path + (x,) in nodes]
        if not nxt:
            break
        x = min(nxt, key=lambda c: (first.get(c, len(history)), c))
        path += (x,)
        left.discard(x)
    return path + tuple(sorted(left, key=lambda c: (first.get(c, len(history)), c)))


def greedy_id(history: Sequence[Sequence[int]], req: Sequence[int]) -> tuple:
    """A W = 1 rule: walk down the trie while a child's chunk is in the request, smallest label
    first, then the rest in increasing label (``online_layout``'s tie-break by label)."""
    nodes = trie_nodes(history)
    left, path = set(req), ()
    while True:
        nxt = sorted(x for x in left if path + (x,) in nodes)
        if not nxt:
            break
        path += (nxt[0],)
        left.discard(nxt[0])
    return path + tuple(sorted(left))


def worst_ratio(rule: Callable, k: int, length: int, opt: Callable) -> tuple[Fraction, list]:
    """The largest ALG / OPT_free of the W = 1 algorithm ``rule(history, request) -> order``
    over every canonical sequence of 1..``length`` requests of at most k chunks (depth-first,
    each prefix once); ``opt(requests)`` is OPT_free. Returns (ratio, a worst sequence).
    Exponential in ``length``; the worst case over all sequences when the rule depends on the
    labels only through their order of first appearance (then every sequence is isomorphic
    to a canonical one on which the rule acts alike)."""
    best: list = [Fraction(0), []]

    def rec(seq, hist, n):
        if seq:
            r = Fraction(len(trie_nodes(hist)), opt(seq))
            if r > best[0]:
                best[0], best[1] = r, list(seq)
        if len(seq) == length:
            return
        for req, n2 in _extensions(seq, n, k):
            rec(seq + [req], hist + [tuple(rule(hist, req))], n2)
    rec([], [], 0)
    return best[0], best[1]


def adversary_forces(k: int, length: int, rho: Fraction, opt: Callable) -> bool:
    """True if some adaptive W = 1 adversary of at most ``length`` requests (of 1..k chunks,
    distinct, fresh chunks named canonically) forces ALG > ``rho`` OPT_free against every
    response, i.e. ends, whatever orders are committed, at a history with T > rho OPT_free.
    AND-OR search over every request and every order (``opt(requests)`` is OPT_free).
    Exponential: k = 2 up to length 5, k = 3 up to 3."""
    def wins(reqs, orders, n, left):
        if reqs and len(trie_nodes(orders)) > rho * opt(reqs):
            return True
        if left == 0:
            return False
        return any(all(wins(reqs + [req], orders + [order], n2, left - 1) for order in permutations(req))
                   for req, n2 in _extensions(reqs, n, k))
    return wins([], [], 0, length)


def game_value(k: int, length: int, opt: Callable, exact: bool = False) -> Fraction:
    """The value of the flagged W = 1 game of at most ``length`` requests (docs/online.md,
    Theorem 4 (1)): the largest rho such that some adaptive adversary, issuing each request with
    the flag final / not final before the algorithm answers it, ends against every response at a
    history with T >= rho OPT_free. Requests of 1..k chunks, or exactly k with ``exact`` (the RAG
    model); distinct, fresh chunks named canonically (the algorithm's answers range over every
    order, so the value is a lower bound on the ratio of every deterministic W = 1 algorithm,
    hence, by Lemma 2, of every window-W one). Exact (Fractions), exponential."""
    def val(reqs, orders, n, left):
        best = None
        for req, n2 in _extensions(reqs, n, k, exact):
            stop = go = None
            for order in permutations(req):
                nreqs, nord = reqs + [req], orders + [order]
                r = Fraction(len(trie_nodes(nord)), opt(nreqs))
                stop = r if stop is None else min(stop, r)
                if left > 1:
                    v = val(nreqs, nord, n2, left - 1)
                    go = v if go is None else min(go, v)
                if best is not None and max(stop, go if go is not None else stop) <= best:
                    break                         # both minima can only fall: not better than best
            cand = stop if go is None else max(stop, go)
            best = cand if best is None else max(best, cand)
        return best
    return val([], [], 0, length)


def slot_interleave(strategy: Callable, window: int, copies: int, algorithm,
                    labels_per_copy: int) -> tuple[list, list, list]:
    """Theorem 4's embedding: W slots, each running copies of a W = 1 adversary one after another
    on its own chunks; position p (0-based) belongs to slot p mod W.

    ``strategy(history)`` gets one copy's ((request, order), ...) so far, in the copy's own labels
    0 .. ``labels_per_copy`` - 1, and returns its next request or None when the copy is finished;
    copy c's label x is c * ``labels_per_copy`` + x. A copy's consecutive requests are W
    positions apart, so its previous request is committed (by a window-W ``algorithm`` with
    ``OnlineLayouter``'s protocol) before the next is due. Stops once ``copies`` copies have
    finished. Returns (requests, orders, copy of each position). O(positions) calls.

    Raises
    ------
    InstanceError
        If the algorithm has not committed a copy's request when its next one is due, or a
        request uses a label outside 0 .. ``labels_per_copy`` - 1.
    """
    if window < 1 or copies < 1:
        raise InstanceError(f"window and copies must be >= 1, got {window}, {copies}")
    reqs: list = []
    owner: list = []
    done: dict = {}
    slots: list = [None] * window  # per slot: (copy id, its positions)
    started = finished = p = 0
    while finished < copies:
        g = p % window
        while True:
            if slots[g] is None:
                slots[g] = (started, [])
                started += 1
            cid, pos = slots[g]
            if any(q not in done for q in pos):
                raise InstanceError(f"a request of copy {cid} was not committed before its next request")
            off = cid * labels_per_copy
            nxt = strategy([(tuple(x - off for x in reqs[q]), tuple(x - off for x in done[q])) for q in pos])
            if nxt is not None:
                break
            finished += 1
            slots[g] = None
            if finished == copies:
                break
        if finished == copies:
            break
        if any(not 0 <= x < labels_per_copy for x in nxt):
            raise InstanceError(f"request {list(nxt)} uses a label outside 0..{labels_per_copy - 1}")
        reqs.append([x + off for x in nxt])
        owner.append(cid)
        pos.append(p)
        done.update((rid, list(seq)) for rid, seq in algorithm.add(list(reqs[-1]), id=p))
        p += 1
    done.update((rid, list(seq)) for rid, seq in algorithm.flush())
    return reqs, [done[j] for j in range(len(reqs))], owner


def nested_chain_strategy(k: int, stop_on_smallest: bool = False) -> Callable:
    """The nested chain as a ``strategy`` for :func:`slot_interleave`; with ``stop_on_smallest``
    a copy also stops once a committed first chunk is the smallest of its request, so copies
    have different lengths (a variable-length adversary, as in Theorem 4)."""
    def strategy(hist):
        if not hist:
            return list(range(k))
        req, order = hist[-1]
        if len(req) == 1 or (stop_on_smallest and order[0] == min(req)):
            return None
        return [x for x in req if x != order[0]]
    return strategy
