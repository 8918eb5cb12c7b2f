"""A serving trace laid out prefix-only and priced in the blend model (docs/beyond_prefix.md).

The lines are laid out by a method of :func:`mptsearch.serving.layout.method_orders`, served
in arrival order, and every trie node is blended or recomputed by the one-copy or the greedy
rule of :mod:`.heuristic`, in section 1.2's model or the extended one of section 9 (a loss
table, token mismatch, isolated copies: whatever ``params`` holds). The layout is chosen for
prefix reuse alone; the mode choice is exact for one copy per chunk (``first``) and never
dearer with more copies (``greedy``).
"""

from __future__ import annotations

from .heuristic import node_table, price_first, price_greedy
from .model import BlendParams
from .spec import describe, parse_blend_spec  # noqa: F401  (parse_blend_spec: its former home)

__all__ = ["blend_trace", "price_rows", "check_rule", "RULES"]

RULES = ("first", "greedy")


def blend_trace(trace, method: str, params: BlendParams, rule: str = "greedy", window: int | None = None) -> dict:
    """Prefill and loss of ``trace`` laid out by ``method`` with blending by ``rule``;
    ``window``: the online method's W (arrivals laid out together, as ``layout --window``).

    Returns :func:`price_rows`'s dict with lines, method and note added.

    Notes
    -----
    The layout's time (see :mod:`mptsearch.serving.layout`) plus :func:`price_rows`'s.
    """
    from ..serving.layout import as_sparse, method_orders

    check_rule(rule)
    tr = as_sparse(trace)
    lay, note = method_orders(tr, method, window=window)
    res = price_rows(tr.weights, lay, params, rule)
    return {"lines": tr.size, "method": method, "note": note, **res}


def check_rule(rule: str) -> None:
    """Refuse an unknown mode rule (InstanceError, one line)."""
    from ..instance import InstanceError

    if rule not in RULES:
        raise InstanceError(f"unknown rule {rule!r}; use one of {', '.join(RULES)}")


def price_rows(weights, rows, params: BlendParams, rule: str = "greedy") -> dict:
    """Prefill and loss of the layout ``rows`` (per-line chunk orders or a
    :class:`mptsearch.serving.sparse.Layout`, served in arrival order against an unbounded
    cache) with blending by ``rule``.

    Returns a dict: rule, parameters, tokens (the prefill with no reuse), distinct (w(U)),
    nodes, prefix_cost (the layout's trie cost: every node full), prefix_saved_pct, cost, loss,
    objective (cost + lambda loss) and saved_pct (against no reuse), none of them rounded: a
    caller that prints them rounds once.

    Notes
    -----
    O(P + N depth) for the node table of N nodes over P positions and O(N cap depth) for the
    greedy rule, compiled (:mod:`.kernels`).
    """
    check_rule(rule)
    tab = node_table(weights, rows)
    cost, loss = (price_first if rule == "first" else price_greedy)(tab, params)
    tokens = tab.tokens
    return {"rule": rule,
            "parameters": describe(params),
            "tokens": tokens, "distinct": tab.distinct, "nodes": len(tab.w), "prefix_cost": tab.prefix_cost,
            "prefix_saved_pct": 100 * (tokens - tab.prefix_cost) / tokens if tokens else 0.0,
            "cost": cost, "loss": loss, "objective": cost + params.price * loss,
            "saved_pct": 100 * (tokens - cost) / tokens if tokens else 0.0}
