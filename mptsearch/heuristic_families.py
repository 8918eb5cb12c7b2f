"""Families on which a heuristic's cost / OPT_free grows without bound (issue 19, point 3).

- :func:`greedy_trap`: G(q, W), requests of two chunks on which level-wise greedy hitting
  set (:func:`mptsearch.heuristics.greedy.greedy`) pays q(W + q + 1) while a layout of cost
  W + q^2 + 2q exists; the ratio tends to q as W grows, and with m = q^2 + q requests it is
  at least q - 1 at W = q^3: greedy is not a constant-factor approximation of the cost, not
  even at k = 2 with weights.

**G(q, W).** Chunks H (weight W), a_1..a_q and d_{j,l} (1 <= j, l <= q), of weight 1.
Requests R_j = {H, a_j} and T_{j,l} = {a_j, d_{j,l}}: n = q^2 + q + 1, m = q^2 + q, k = 2.

*Greedy's cost (proved).* At the root every a_j not yet taken lies in q + 1 requests of the
root's group (R_j and the q requests T_{j,.}), H in at most q, a d in one: greedy takes some
a_j (no tie with H is possible, so no tie-breaking rule matters), which takes R_j and every
T_{j,.} with it and leaves H in one request fewer. So the q root children are a_1..a_q, H
reaches each of them through R_j, and below a_j the q + 1 residuals {H}, {d_{j,1}}, ...,
{d_{j,q}} are distinct single chunks, one node each: greedy costs q (1 + W + q).

*A better layout (proved).* R_j = (H, a_j) shares H: W + q; T_{j,l} = (a_j, d_{j,l}) shares
a_j among its q requests: q + q^2. So OPT_free <= W + q^2 + 2q, and

    greedy / OPT_free >= q (W + q + 1) / (W + q^2 + 2q),

which tends to q as W -> infinity; at W = q^3 it is at least q - 1 (cross-multiply:
(q-1)(q^3 + q^2 + 2q) = q^4 + q^2 - 2q <= q^4 + q^2 + q). With unit weights no family can do
this: every layout of requests of at most k chunks costs at most k m, and OPT_free >= m
(distinct requests end at distinct trie nodes), so any layout is within k of OPT_free.

*Computed only.* OPT_free(G(q, W)) = W + q^2 + 2q for q = 2, 3 and 2 <= W <= 100 (exact DP,
tests/test_heuristic_families.py); the proof above needs only the upper bound.
"""

from __future__ import annotations

from fractions import Fraction

from .instance import Instance, InstanceError, from_lists

__all__ = ["greedy_trap", "greedy_trap_layout", "greedy_trap_summary", "HEURISTIC_FAMILY_NAMES"]

HEURISTIC_FAMILY_NAMES = ("greedy-trap",)


def greedy_trap(q: int, heavy: int | None = None) -> Instance:
    """G(q, W) with W = ``heavy`` (default q^3): requests {H, a_j} and {a_j, d_{j,l}}.

    Labels are strings ``H``, ``a<j>``, ``d<j>.<l>`` (j, l from 1). O(q^2) time.
    """
    if q < 1:
        raise InstanceError(f"greedy-trap needs q >= 1, got {q}")
    W = q ** 3 if heavy is None else int(heavy)
    if W < 1:
        raise InstanceError(f"the heavy chunk's weight must be >= 1, got {W}")
    reqs = [["H", f"a{j}"] for j in range(1, q + 1)]
    reqs += [[f"a{j}", f"d{j}.{l}"] for j in range(1, q + 1) for l in range(1, q + 1)]
    weights = {c: 1 for r in reqs for c in r}
    weights["H"] = W
    return from_lists(reqs, weights)


def greedy_trap_layout(inst: Instance) -> list[tuple[int, ...]]:
    """The layout of the proof: H first in every request holding it, else a_j first."""
    h = inst.labels.index("H")
    return [tuple(sorted(o, key=lambda x: (x != h, not str(inst.labels[x]).startswith("a")))) for o in inst.orders]


def greedy_trap_summary(q: int, heavy: int | None = None, *, max_free_m: int = 16) -> dict:
    """G(q, W) with greedy's cost, the proof's layout and the proved ratio bound, each rechecked.

    Returns a dict: ``requests``, ``weights``, ``n``, ``m``, ``k``, ``heavy``,
    ``greedy_cost`` (public greedy, its layout's trie cost) and ``greedy_cost_proved``
    (q (W + q + 1)), ``free_cost`` (the proof's layout on the trie) and
    ``free_cost_proved`` (W + q^2 + 2q), ``opt_free`` (exact DP when m <= ``max_free_m``,
    else None), ``ratio_lower_bound`` ("num/den", greedy / free_cost, proved) and its float,
    ``ratio`` (greedy / OPT_free when computed). O(3^m) with the DP, O(q^2) without.
    """
    from .heuristics.greedy import greedy
    from .trie import trie_cost

    inst = greedy_trap(q, heavy)
    W = int(inst.weights[inst.labels.index("H")])
    g = greedy(inst)
    layout = greedy_trap_layout(inst)
    free_cost = trie_cost(inst, layout)
    out = {"family": "greedy-trap", "q": q, "heavy": W, "n": inst.n, "m": inst.m, "k": 2,
           "requests": [[inst.labels[x] for x in o] for o in inst.orders],
           "weights": {str(lab): int(w) for lab, w in zip(inst.labels, inst.weights)},
           "greedy_cost": trie_cost(inst, g.layout), "greedy_cost_proved": q * (W + q + 1),
           "greedy_layout": [[inst.labels[x] for x in s] for s in g.layout],
           "free_cost": free_cost, "free_cost_proved": W + q * q + 2 * q,
           "free_layout": [[inst.labels[x] for x in s] for s in layout],
           "source": "mptsearch/heuristic_families.py (proof in the module docstring)"}
    bound = Fraction(out["greedy_cost_proved"], out["free_cost_proved"])
    out.update(ratio_lower_bound=f"{bound.numerator}/{bound.denominator}", ratio_lower_bound_float=float(bound))
    out["opt_free"], out["ratio"] = None, None
    if inst.m <= max_free_m:
        from .exact.free import opt_free

        out["opt_free"] = opt_free(inst).value
        out["ratio"] = out["greedy_cost"] / out["opt_free"]
    return out
