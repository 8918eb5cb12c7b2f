"""Adversary families for online layout with a reorder window W (docs/online.md; paper,
Section 7.2 and open problem 3).

An *ordered* instance is a list of requests in arrival order. The families here are built
from *gadgets* (a short arrival sequence on its own chunks) interleaved round-robin over W
disjoint universes (:func:`interleave`): gadget g's step s arrives at position (s-1) W + g, so a
window-W algorithm must commit it before gadget g's step s+1 arrives (docs/online.md, Lemma 2).

- ``online-star`` (:func:`online_star`): gadget R_j = {x_j} + C, |C| = k-1, the private chunk
  x_j numbered below the core. OnlineLayouter (any W) puts x_j first and pays k per request:
  k m W against OPT_free = W (m + k - 1) (docs/online.md, Proposition 6).
- ``online-sliding`` (:func:`online_sliding`): gadget R_j = {j, ..., j+k-1}; what the
  drop-first adversary (:func:`drop_first_adversary`) forces on OnlineLayouter, which breaks
  ties by first appearance (oldest chunk first).

Every function returns chunk ids (ints) and is O(output size) unless noted.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import permutations, product
from math import ceil, log2
from typing import Callable, Sequence

from ..instance import InstanceError

__all__ = ["ONLINE_FAMILY_NAMES", "interleave", "online_star", "online_sliding", "play_round_robin", "drop_first_adversary",
           "drop_first_gadget", "caterpillar_bound", "segment_bound", "deterministic_lower_bound",
           "randomized_lower_bound", "random_drop_min_expected", "random_drop_value", "online_family_summary"]

ONLINE_FAMILY_NAMES = ("online-star", "online-sliding")


def _check(k: int, m: int, window: int) -> None:
    if int(k) < 2:
        raise InstanceError(f"k must be >= 2, got {k}")
    if int(m) < 1:
        raise InstanceError(f"the gadget length m must be >= 1, got {m}")
    if int(window) < 1:
        raise InstanceError(f"window must be >= 1, got {window}")


def interleave(gadget: Sequence[Sequence[int]], window: int) -> list[list[int]]:
    """``window`` copies of ``gadget`` (ids 0..n-1) on disjoint ids (copy g adds g n),
    interleaved round-robin: step s of copy g at position s W + g (0-based)."""
    n = 1 + max(x for r in gadget for x in r)
    return [[g * n + x for x in r] for r in gadget for g in range(window)]


def online_star(k: int, m: int, window: int = 1) -> list[list[int]]:
    """Gadget j = 0..m-1: {j} + {m, ..., m+k-2} (private chunk first in id order), interleaved
    over ``window`` copies. Requests have k chunks; n = W (m + k - 1); W m requests."""
    _check(k, m, window)
    return interleave([[j] + list(range(m, m + k - 1)) for j in range(m)], window)


def online_sliding(k: int, m: int, window: int = 1) -> list[list[int]]:
    """Gadget j = 0..m-1: {j, ..., j+k-1}, interleaved over ``window`` copies."""
    _check(k, m, window)
    return interleave([list(range(j, j + k)) for j in range(m)], window)


def drop_first_gadget(k: int, firsts: Sequence[int]) -> list[list[int]]:
    """The gadget the drop-first adversary builds when the algorithm puts ``firsts[j]``
    (a chunk of request j) first: R_0 = {0..k-1}, R_{j+1} = R_j - firsts[j] + {k+j}.
    Its length is len(firsts) + 1."""
    req = list(range(k))
    out = [sorted(req)]
    for j, f in enumerate(firsts):
        if f not in req:
            raise InstanceError(f"chunk {f} is not in request {j}")
        req = [x for x in req if x != f] + [k + j]
        out.append(sorted(req))
    return out


def play_round_robin(starts: Sequence[Sequence[int]], length: int, algorithm, step: Callable,
                     what: str = "gadget") -> tuple[list, list]:
    """Play W = len(``starts``) adaptive gadgets round-robin against ``algorithm`` (Lemma 2):
    gadget g's step s (s = 0..length-1) is at position s W + g, its first request ``starts[g]``
    and its next one ``step(g, request, committed order)``. ``algorithm`` follows
    :class:`~mptsearch.serving.online.OnlineLayouter`'s protocol: ``add(chunks, id=...)``
    returns the (id, order) pairs it commits, ``flush()`` the rest. Returns (requests,
    committed orders), both in arrival order. O(length W) calls.

    Raises
    ------
    InstanceError
        If the algorithm has not committed a request when its gadget's next one is due (it
        does not respect the window).
    """
    window = len(starts)
    cur = [list(r) for r in starts]
    reqs: list = []
    done: dict = {}
    for s in range(length):
        for g in range(window):
            if s > 0:
                prev = (s - 1) * window + g
                if prev not in done:
                    raise InstanceError(f"request {prev} was not committed before its {what}'s next request")
                cur[g] = list(step(g, cur[g], done[prev]))
            reqs.append(list(cur[g]))
            done.update((rid, list(seq)) for rid, seq in algorithm.add(list(cur[g]), id=len(reqs) - 1))
    done.update((rid, list(seq)) for rid, seq in algorithm.flush())
    return reqs, [done[j] for j in range(len(reqs))]


def drop_first_adversary(k: int, length: int, window: int, algorithm) -> tuple[list, list]:
    """Play the drop-first adversary (docs/online.md, Theorem 3) against ``algorithm``.

    ``window`` gadgets on disjoint chunks, round-robin (:func:`play_round_robin`); gadget g's
    next request is its last one without the chunk the algorithm committed first, plus a fresh
    chunk. Returns (requests in arrival order, committed orders in arrival order), chunk labels
    as ints. Raises InstanceError if the algorithm does not respect the window.
    """
    _check(k, length, window)
    stride = k + length - 1  # the ids of :func:`interleave` on a gadget of k + length - 1 chunks
    fresh = [k] * window

    def step(g, req, order):
        fresh[g] += 1
        return [x for x in req if x != order[0]] + [g * stride + fresh[g] - 1]

    return play_round_robin([[g * stride + x for x in range(k)] for g in range(window)], length, algorithm, step)


# ---- proved closed-form bounds (docs/online.md) ----------------------------------------------

def caterpillar_bound(k: int, length: int) -> int:
    """Upper bound on OPT_free of every drop-first gadget of ``length`` L requests of size k:
    k + sum_{j=1}^{L-1} min(j, k) (Lemma 3a: the arrival-order caterpillar)."""
    t = min(length - 1, k)  # sum_{j=1}^{t} (k - j), the terms k - j > 0 (and j = k adds 0)
    return k * length - (t * k - t * (t + 1) // 2)


def segment_bound(k: int, length: int) -> int:
    """Upper bound on OPT_free of every drop-first gadget: (k + L - 1) min(L, 2 ceil(log2 L))
    for L >= 2 (Lemma 3b: the balanced hierarchy over the arrival line)."""
    if length < 2:
        return k
    return (k + length - 1) * min(length, 2 * ceil(log2(length)))


def deterministic_lower_bound(k: int, max_length: int | None = None) -> tuple[Fraction, int, str]:
    """The best proved drop-first lower bound on the deterministic competitive ratio at request
    size k, for every window W (Theorem 3): max over L of k L / min(both bounds).
    Returns (ratio, L, which bound). O(max_length)."""
    best = (Fraction(1), 1, "trivial")
    for L in range(2, (max_length or 4 * k + 64) + 1):
        for name, ub in (("caterpillar", caterpillar_bound(k, L)), ("segment", segment_bound(k, L))):
            r = Fraction(k * L, min(ub, k * L))
            if r > best[0]:
                best = (r, L, name)
    return best


def randomized_lower_bound(k: int) -> Fraction:
    """(3k+1) / (2k+2): the random-drop bound on randomised algorithms, every W
    (docs/online.md, Theorem R)."""
    return Fraction(3 * k + 1, 2 * k + 2)


def random_drop_min_expected(k: int, cost: Callable) -> Fraction:
    """Exhaustive check of Theorem R's gadget (docs/online.md): the least expected cost over
    every deterministic window-1 algorithm (every order of R_1, and for each dropped chunk every order of R_2) of
    R_1 = {0..k-1}, R_2 = R_1 - u + {k}, u uniform. ``cost(seqs)`` is the trie cost.
    O(k! * k * k!) trie costs."""
    best = None
    for p1 in permutations(range(k)):
        tot = Fraction(0)
        for u in range(k):
            r2 = [x for x in range(k) if x != u] + [k]
            tot += min(cost([p1, p2]) for p2 in permutations(r2))
        e = tot / k
        best = e if best is None or e < best else best
    return best


def all_response_paths(k: int, length: int, window: int):
    """Every (requests, orders) the interleaved drop-first adversary can produce, one per way
    of choosing every committed order (so every deterministic window-W algorithm's run is one
    of them). O((k!)^(length W)) paths."""
    positions = length * window
    for choice in product(range(_fact(k)), repeat=positions):
        stride = k + length - 1
        cur = [[g * stride + x for x in range(k)] for g in range(window)]
        fresh = [k] * window
        reqs, orders = [], []
        for p in range(positions):
            s, g = divmod(p, window)
            if s > 0:
                first = orders[p - window][0]
                cur[g] = [x for x in cur[g] if x != first] + [g * stride + fresh[g]]
                fresh[g] += 1
            reqs.append(list(cur[g]))
            orders.append(list(_nth_perm(sorted(cur[g]), choice[p])))
        yield reqs, orders


def _fact(k: int) -> int:
    out = 1
    for i in range(2, k + 1):
        out *= i
    return out


def _nth_perm(items: list, i: int) -> tuple:
    items = list(items)
    out = []
    for r in range(len(items), 0, -1):
        f = _fact(r - 1)
        q, i = divmod(i, f)
        out.append(items.pop(q))
    return tuple(out)


# ---- ``mptsearch family online-*`` -------------------------------------------------------------

def online_family_summary(name: str, k: int | None, m: int = 8, window: int = 1,
                          max_free_m: int = 16, closure_seconds: float = 30.0) -> dict:
    """An online family in arrival order, OnlineLayouter's cost on it with window W, OPT_free
    (proved formula; also the exact DP when W m <= ``max_free_m``, and past it, for the
    sliding family, the closure arborescence when it finishes within ``closure_seconds``)
    and the ratio.

    Returns
    -------
    dict
        ``name, k, m, window, n, requests`` (arrival order), ``online_layout`` (committed
        orders), ``online_cost``, ``claimed_online_cost``, ``opt_free`` (exact when computed,
        else the proved value or bound), ``opt_free_source``, ``ratio`` (online / opt_free).
    """
    import numpy as np

    from ..serving.online import online_layout
    from ..serving.trace import sequences_cost

    if name not in ONLINE_FAMILY_NAMES:
        raise InstanceError(f"unknown online family {name!r}; choose from {', '.join(ONLINE_FAMILY_NAMES)}")
    if k is None:
        raise InstanceError(f"{name} needs --k")
    build = online_star if name == "online-star" else online_sliding
    lines = build(k, m, window)
    n = 1 + max(x for r in lines for x in r)
    w = np.ones(n, dtype=np.int64)
    orders = online_layout(lines, w, window)
    cost = sequences_cost(w, orders)
    if name == "online-star":
        opt, src = window * (m + k - 1), "proved: every chunk once (n), attained by core first (Proposition 6)"
    else:
        opt, src = window * min(caterpillar_bound(k, m), segment_bound(k, m)), \
            "proved upper bound (Lemma 4), not the exact value"
    if window * m <= max_free_m:
        from ..exact.free import opt_free
        from ..instance import from_lists
        opt, src = opt_free(from_lists(lines)).value, "exact DP (O(3^m))"
    elif name == "online-sliding":  # past the DP: the closure arborescence, when it finishes in time
        from ..exact.arborescence import opt_free_closure
        from ..instance import from_lists
        r = opt_free_closure(from_lists(lines), time_limit=closure_seconds)
        if r.optimal:
            opt, src = r.value, "exact closure arborescence (docs/exact.md)"
    return {"name": name, "k": k, "m": m, "window": window, "n": n, "requests": lines,
            "online_layout": [list(o) for o in orders], "online_cost": int(cost),
            "claimed_online_cost": k * m * window, "opt_free": int(opt), "opt_free_source": src,
            "ratio": float(Fraction(int(cost), int(opt)))}


def random_drop_value(k: int, length: int) -> tuple[Fraction, Fraction]:
    """The random-drop chain of ``length`` L (docs/online.md, table row TR'): R_1 = {0..k-1},
    R_{j+1} = R_j - u_j + {k+j-1}, u_j uniform in R_j, independent of the algorithm.

    Returns (least expected trie cost over every deterministic window-1 algorithm, exact by
    expectimin over every history: at each step the best order of the current request given
    everything seen; expected OPT_free, exact DP on each of the k^(L-1) outcomes).
    O((k! k)^L) trie extensions plus k^(L-1) DPs: small k and L only.
    """
    from ..exact.free import opt_free
    from ..instance import from_lists

    def best(nodes: frozenset, req: tuple, j: int) -> Fraction:
        # least expected cost of steps j..L-1 given the trie ``nodes`` and current request
        out = None
        for order in permutations(req):
            new = [order[:i] for i in range(1, len(order) + 1) if order[:i] not in nodes]
            here = Fraction(len(new))
            if j + 1 < length:
                nxt = nodes | frozenset(new)
                tail = sum((best(nxt, tuple(sorted([x for x in req if x != u] + [k + j])), j + 1)
                            for u in req), Fraction(0)) / len(req)
                here += tail
            if out is None or here < out:
                out = here
        return out

    e_alg = best(frozenset(), tuple(range(k)), 0)
    tot = Fraction(0)
    outcomes = 0
    for us in product(range(k), repeat=length - 1):
        req, reqs = list(range(k)), [list(range(k))]
        for j, i in enumerate(us):
            u = sorted(req)[i]
            req = [x for x in req if x != u] + [k + j]
            reqs.append(list(req))
        tot += opt_free(from_lists(reqs)).value
        outcomes += 1
    return e_alg, tot / outcomes
