"""Families on which a heuristic's cost / OPT_free grows without bound.

- :func:`greedy_trap`: G(q, W), requests of at most two chunks on which level-wise greedy
  hitting set (:func:`mptsearch.heuristics.greedy.greedy`) pays q^2 W + q - 1 while a layout of
  cost qW + q^2 - q + 1 exists; the ratio tends to q as W grows, and with m = q^2 + 1 requests
  it is at least q - 1 at W = q^2: greedy is not a constant-factor approximation of the cost,
  not even at k = 2 (with weights). The annealer found G(3, 20) (182/67 at m = 10, weights
  1-20; results/approximation/) and this is its generalisation.

**G(q, W), q >= 2.** Heavy chunks h_1..h_q of weight W, light chunks l_1..l_{q-1} of weight 1.
Requests: every pair {h_i, l_j}, every {h_i} alone, and {l_1} alone: n = 2q - 1,
m = q(q-1) + q + 1 = q^2 + 1.

*Greedy's cost (proved).* At the root, l_1 lies in q + 1 requests (its q pairs and {l_1}),
every other light chunk in q, every heavy chunk in q (its q - 1 pairs and itself): greedy
takes l_1, strictly the most frequent, and with it every pair {h_i, l_1}. Once t - 1 >= 1
light chunks are taken, each heavy chunk lies in q - t + 1 requests of the root's group and
each remaining light chunk still in q > q - t + 1: greedy takes a light chunk again (ties among
light chunks, of equal weight, go to the smaller id; which one does not matter). So the q - 1
root children are the light chunks, each with all q heavy chunks below it (the residuals
{h_i} of its pairs, one node each), and the singletons {h_i} stay at the root, one node each:
greedy costs (q - 1) + q(q - 1) W + q W = q^2 W + q - 1.

*A better layout (proved).* Each pair starts with its heavy chunk: the q heavy nodes serve
the pairs and the singletons {h_i}, with q - 1 light nodes below each, and {l_1} is one node:
cost q W + q(q - 1) + 1. So OPT_free <= q W + q^2 - q + 1 and

    greedy / OPT_free >= (q^2 W + q - 1) / (q W + q^2 - q + 1),

which tends to q as W -> infinity; at W = q^2 it is at least q - 1 (cross-multiply:
(q-1)(q^3 + q^2 - q + 1) = q^4 - 2q^2 + 2q - 1 <= q^4 + q - 1). So on m requests of at most
two chunks greedy's ratio can exceed sqrt(m - 1) - 1. With unit weights no family can do
this: every layout of requests of at most k chunks costs at most k m and OPT_free >= m
(distinct requests end at distinct trie nodes), so any layout is within k of OPT_free.

*Computed only.* OPT_free(G(q, W)) = q W + q^2 - q + 1 (the layout above is optimal) for
q = 2, 3, 4 and W = 1..100 where tested (exact DP, tests/test_heuristic_families.py); the
ratio bound needs only the upper bound.
"""

from __future__ import annotations

from fractions import Fraction

from ..instance import Instance, InstanceError, from_lists

__all__ = ["greedy_trap", "greedy_trap_layout", "greedy_trap_summary", "HEURISTIC_FAMILY_NAMES"]

HEURISTIC_FAMILY_NAMES = ("greedy-trap",)


def greedy_trap(q: int, heavy: int | None = None) -> Instance:
    """G(q, W) with W = ``heavy`` (default q^2): every {h_i, l_j}, every {h_i}, and {l_1}.

    Labels are strings ``h<i>`` (i = 1..q) and ``l<j>`` (j = 1..q-1). O(q^2) time.
    """
    if q < 2:
        raise InstanceError(f"greedy-trap needs q >= 2, got {q}")
    W = q * q if heavy is None else int(heavy)
    if W < 1:
        raise InstanceError(f"the heavy chunks' weight must be >= 1, got {W}")
    reqs = [[f"h{i}", f"l{j}"] for i in range(1, q + 1) for j in range(1, q)]
    reqs += [[f"h{i}"] for i in range(1, q + 1)] + [["l1"]]
    return from_lists(reqs, {c: (W if c[0] == "h" else 1) for r in reqs for c in r})


def greedy_trap_layout(inst: Instance) -> list[tuple[int, ...]]:
    """The layout of the proof: the heavy chunk first in every request holding one."""
    return [tuple(sorted(o, key=lambda x: not str(inst.labels[x]).startswith("h"))) for o in inst.orders]


def greedy_trap_summary(q: int, heavy: int | None = None, *, max_free_m: int = 16) -> dict:
    """G(q, W) with greedy's cost, the proof's layout and the proved ratio bound, each rechecked.

    Returns a dict: ``requests``, ``weights``, ``n``, ``m``, ``k``, ``heavy``,
    ``greedy_cost`` (public greedy, its layout's trie cost) and ``greedy_cost_proved``
    (q^2 W + q - 1), ``free_cost`` (the proof's layout on the trie) and
    ``free_cost_proved`` (q W + q^2 - q + 1), ``opt_free`` (exact DP when m <= ``max_free_m``,
    else None), ``ratio_lower_bound`` ("num/den", greedy / free_cost, proved) and its float,
    ``ratio`` (greedy / OPT_free when computed). O(3^m) with the DP, O(q^2) without.
    """
    from ..heuristics.greedy import greedy
    from ..trie import trie_cost

    inst = greedy_trap(q, heavy)
    W = int(inst.weights[inst.labels.index("h1")])
    g = greedy(inst)
    layout = greedy_trap_layout(inst)
    free_cost = trie_cost(inst, layout)
    out = {"family": "greedy-trap", "q": q, "heavy": W, "n": inst.n, "m": inst.m, "k": 2,
           "requests": [[inst.labels[x] for x in o] for o in inst.orders],
           "weights": {str(lab): int(w) for lab, w in zip(inst.labels, inst.weights)},
           "greedy_cost": trie_cost(inst, g.layout), "greedy_cost_proved": q * q * W + q - 1,
           "greedy_layout": [[inst.labels[x] for x in s] for s in g.layout],
           "free_cost": free_cost, "free_cost_proved": q * W + q * q - q + 1,
           "free_layout": [[inst.labels[x] for x in s] for s in layout],
           "source": "mptsearch/families/heuristic.py (proof in the module docstring)"}
    bound = Fraction(out["greedy_cost_proved"], out["free_cost_proved"])
    out.update(ratio_lower_bound=f"{bound.numerator}/{bound.denominator}", ratio_lower_bound_float=float(bound))
    out["opt_free"], out["ratio"] = None, None
    if inst.m <= max_free_m:
        from ..exact.free import opt_free

        out["opt_free"] = opt_free(inst).value
        out["ratio"] = out["greedy_cost"] / out["opt_free"]
    return out
