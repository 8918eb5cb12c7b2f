"""A serving trace laid out prefix-only and priced in the blend model (docs/beyond_prefix.md).

The lines are laid out by a method of :func:`mptsearch.serving.layout.method_orders`, served
in arrival order, and every trie node past the first of its chunk is blended or recomputed by
the one-copy or the greedy rule of :mod:`.heuristic`. The layout is chosen for prefix reuse
alone; the mode choice is exact for one copy per chunk (``first``) and never dearer with more
copies (``greedy``).
"""

from __future__ import annotations

from .heuristic import node_table, price_first, price_greedy
from .model import BlendParams

__all__ = ["blend_trace", "RULES"]

RULES = ("first", "greedy")


def blend_trace(trace, method: str, params: BlendParams, rule: str = "greedy") -> dict:
    """Prefill and loss of ``trace`` laid out by ``method`` with blending by ``rule``.

    Returns a dict: lines, tokens (the prefill with no reuse), prefix_cost (the layout's trie
    cost: every node full), cost, loss, objective (cost + lambda loss), saved_pct and
    prefix_saved_pct (against no reuse), distinct (w(U)), nodes, and the parameters.

    Notes
    -----
    The layout's time (see :mod:`mptsearch.serving.layout`) plus O(sum_j |L_j|^2) for the node
    contexts and O(N cap) for the greedy rule.
    """
    from ..instance import InstanceError
    from ..serving.layout import as_sparse, method_orders

    if rule not in RULES:
        raise InstanceError(f"unknown rule {rule!r}; use one of {', '.join(RULES)}")
    tr = as_sparse(trace)
    lay, note = method_orders(tr, method)
    tab = node_table(tr.weights, lay.rows())
    cost, loss = (price_first if rule == "first" else price_greedy)(tab, params)
    tokens = tab.tokens
    return {"lines": tr.size, "method": method, "note": note, "rule": rule,
            "parameters": {"r": params.r, "lambda": params.price, "beta": params.beta, "per_answer": params.per_answer},
            "tokens": tokens, "distinct": tab.distinct, "nodes": len(tab.w), "prefix_cost": tab.prefix_cost,
            "prefix_saved_pct": round(100 * (tokens - tab.prefix_cost) / tokens, 3) if tokens else 0.0,
            "cost": round(cost, 3), "loss": round(loss, 3), "objective": round(cost + params.price * loss, 3),
            "saved_pct": round(100 * (tokens - cost) / tokens, 3) if tokens else 0.0}
