"""The leave-one-out family under deepest-match placement at W = 1: the exact cost in every
arrival order and in i.i.d. streams (docs/online.md, Section 10, Propositions 10.1 and 10.4;
paper, Section 5 for L_n and Section 7.2 for the layouter).

L_n has the requests Q_b = [n] - {b}. If the first arrival misses beta, write p_0 < ... < p_{n-2}
for the chunks other than beta. Deepest-match placement with the residual in increasing id
(``online_layout`` at W = 1, whatever the tie-break between equally deep paths) gives the first
arrival n - 1 nodes and every later first arrival of Q_{p_h} exactly n - 1 - h new nodes; a repeat
costs nothing.

- :func:`leave_one_out_w1_cost`: that cost for any stream of L_n requests (repeats allowed).
- :func:`iid_leave_one_out_expectations`: E[ALG] and E[OPT_free] for m i.i.d. uniform draws
  from L_n, exact.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Sequence

from ..families import min_external_path_length
from ..instance import InstanceError

__all__ = ["leave_one_out_w1_cost", "iid_leave_one_out_expectations", "leave_one_out_subfamily_opt"]


def leave_one_out_w1_cost(n: int, missing: Sequence[int]) -> int:
    """Trie cost of ``online_layout(..., window=1)`` on the L_n stream whose t-th request misses
    ``missing[t]`` (repeats allowed): n - 1 for the first, n - 1 - h for the first arrival of the
    request missing p_h, 0 for a repeat (Proposition 10.1). O(m + n)."""
    if n < 2:
        raise InstanceError("L_n needs n >= 2")
    if not missing:
        return 0
    if any(not 0 <= b < n for b in missing):
        raise InstanceError(f"a missing chunk is outside 0..{n - 1}")
    beta = missing[0]
    seen = {beta}
    cost = n - 1
    for b in missing[1:]:
        if b not in seen:
            seen.add(b)
            h = b if b < beta else b - 1
            cost += n - 1 - h
    return cost


def leave_one_out_subfamily_opt(n: int, t: int) -> int:
    """OPT_free of t distinct requests of L_n: (n - t) + EPL_min(t) (the t missing chunks form
    L_t, the other n - t are common; docs/online.md, Proposition 10.2's proof)."""
    if not 1 <= t <= n:
        raise InstanceError(f"need 1 <= t <= n, got t={t}, n={n}")
    return (n - t) + min_external_path_length(t)


@lru_cache(maxsize=None)
def _surjections(m: int, t: int) -> int:
    """Maps of m draws onto t labelled values (t! S(m, t)), by inclusion-exclusion."""
    return sum((-1) ** j * comb(t, j) * (t - j) ** m for j in range(t + 1))


def iid_leave_one_out_expectations(n: int, m: int) -> tuple[Fraction, Fraction]:
    """(E[ALG], E[OPT_free]) over m i.i.d. uniform draws from L_n, W = 1 (Proposition 10.4):
    E[ALG] = (n - 1) + (1 - (1 - 1/n)^(m-1)) n(n-1)/2, and E[OPT_free] = sum_t P(t distinct)
    ((n - t) + EPL_min(t)) with P(t distinct) = C(n, t) t! S(m, t) / n^m. O(n^2) big-integer terms."""
    if n < 2 or m < 1:
        raise InstanceError("need n >= 2 and m >= 1")
    seen_other = 1 - Fraction(n - 1, n) ** (m - 1)
    e_alg = (n - 1) + seen_other * Fraction(n * (n - 1), 2)
    e_opt = sum(Fraction(comb(n, t) * _surjections(m, t), n ** m) * leave_one_out_subfamily_opt(n, t)
                for t in range(1, min(n, m) + 1))
    return e_alg, e_opt
