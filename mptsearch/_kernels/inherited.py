"""Lower bounds on OPT_free inherited along a generation tree: a family's exact
value, or any certified lower bound on it, bounds the family with one more request.

Adding a request R to a family F raises OPT_free by at least w(R) - max_i w(R ∩ R_i): in an
optimal trie of F + R, the path of R shares with the other paths only a prefix of one of
them, whose chunks lie in R ∩ R_i for that request R_i; deleting the nodes on R's path alone
leaves a trie of F, which costs at least OPT_free(F). So

    OPT_free(F + R) >= OPT_free(F) + w(R) - max_i w(R ∩ R_i),

and the same holds with a lower bound on OPT_free(F) in place of its value.
"""

import numpy as np
from .._jit import njit

from .masks import mask_weight

__all__ = ["added_request_cost", "inherited_lower_bounds"]


@njit(cache=True)
def added_request_cost(req, m, weights):
    """w(R_last) - max_{i < m-1} w(R_last ∩ R_i) for the last request R_last = req[m-1]:
    the least that adding it to req[:m-1] can cost (O(m k))."""
    last = req[m - 1]
    best = np.int64(0)
    for i in range(m - 1):
        v = mask_weight(last & req[i], weights)
        if v > best:
            best = v
    return mask_weight(last, weights) - best


@njit(cache=True)
def inherited_lower_bounds(masks, ms, rows, parents, value, weights, out):
    """out[t] = value[parents[i]] + added_request_cost(masks[i]) for i = rows[t] with a parent
    (parents[i] >= 0; masks[parents[i]] is masks[i] without its last request), else 0;
    ``value`` holds the parents' exact OPT_free or certified lower bounds."""
    for t in range(rows.shape[0]):
        i = rows[t]
        j = parents[i]
        if j < 0 or ms[i] < 2:
            out[t] = 0
        else:
            out[t] = value[j] + added_request_cost(masks[i], ms[i], weights)
