"""One call for practitioners: the chunk order of every request and the order to serve them.

>>> from mptsearch.serving.api import order_contexts
>>> r = order_contexts([["faq", "pricing", "refunds"], ["refunds", "faq", "shipping"],
...                     ["pricing", "faq"]], tokens={"faq": 300, "pricing": 120,
...                     "refunds": 200, "shipping": 90})
>>> r.orders
[['faq', 'refunds', 'pricing'], ['faq', 'refunds', 'shipping'], ['faq', 'pricing']]
>>> r.serving_order      # Theorem 7: serve in this order to get the unbounded-cache prefill
[2, 0, 1]
>>> r.prefill, r.production_prefill, r.no_cache
(830, 1630, 1630)

Build each prompt by concatenating the chunks' token ids in ``orders[i]`` (then the
question): a prefix cache matches token prefixes, so any other text between chunks must be
the same for every request. Serving the requests in ``serving_order`` (the DFS order of the
layout's trie) with a cache that holds one request makes the prefill equal to ``prefill``,
the unbounded-cache cost (paper, Section 8, Theorem 7).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..instance import InstanceError

__all__ = ["order_contexts", "ContextOrder"]


@dataclass(frozen=True)
class ContextOrder:
    """What :func:`order_contexts` returns.

    Attributes
    ----------
    orders : list of lists
        Every request's chunk labels in the order to put them in the prompt.
    serving_order : list of int
        Request indices in the order to serve them (DFS order of the layout's trie).
    rank : list of int
        Each request's position in ``serving_order``.
    prefill, production_prefill, no_cache : int
        Tokens computed under an unbounded prefix cache with ``orders``, with the given
        (relevance) order, and with no cache at all.
    note : str
        What the method reported (e.g. nearest-neighbour searches cut at scale).
    """

    orders: list
    serving_order: list
    rank: list
    prefill: int
    production_prefill: int
    no_cache: int
    note: str = ""


def order_contexts(requests: Sequence[Sequence], tokens: Mapping | Sequence | None = None,
                   method: str = "agglomerative", pin: int = 0, window: int | None = None) -> ContextOrder:
    """Order the retrieved chunks of every request so that a prefix (KV) cache shares the most.

    Parameters
    ----------
    requests : sequence of sequences of chunk labels (str or int), each in relevance order, or
        an instance in any form :func:`~mptsearch.instance.parse_instance` reads (an
        ``Instance``, a JSON dict, compact notation, a path; its weights are the token counts)
    tokens : mapping label -> token count, or one list of counts per request, or None (1 each)
    method : one of ``production``, ``popularity``, ``global``, ``greedy``, ``agglomerative``,
        ``peer``, ``online`` (see :mod:`.layout`)
    pin : keep each request's ``pin`` most relevant chunks last, in relevance order
    window : batch size of the ``online`` method (default: all requests)

    Returns
    -------
    ContextOrder

    Raises
    ------
    InstanceError
        On malformed input (one line naming the request), or a method refused for memory.

    Notes
    -----
    Runs on the sparse model (:mod:`.sparse`): O(total chunks) memory for the default method.
    """
    from ..instance import Instance
    from ..labelled import TAKES, as_instance
    from .layout import METHODS, method_orders, serving_rank
    from .sparse import orders_cost, sparse_from_lists

    if method not in METHODS:
        raise InstanceError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if isinstance(requests, (Instance, Mapping, str, os.PathLike)):  # what parse_instance reads
        if tokens is not None:
            raise TypeError("order_contexts(): tokens come with an instance (its weights); pass tokens only "
                            "with a list of requests")
        inst = as_instance(requests, "order_contexts")
        requests, tokens = inst.label_orders(), {lab: int(w) for lab, w in zip(inst.labels, inst.weights)}
    elif isinstance(requests, bytes) or not isinstance(requests, Sequence):
        raise TypeError(f"order_contexts() takes a list of requests (lists of chunk labels) or an instance: "
                        f"{TAKES}; got {type(requests).__name__}")
    if tokens is not None and not isinstance(tokens, Mapping):
        tokens = list(tokens)
        if len(tokens) != len(requests):
            raise InstanceError(f"{len(requests)} requests but {len(tokens)} token lists")
    tr = sparse_from_lists(requests, tokens)
    lay, note = method_orders(tr, method, window=window, pin=int(pin))
    rank = serving_rank(lay)
    order = np.argsort(rank, kind="stable")
    return ContextOrder(tr.label_lists(lay.indptr, lay.seq), order.tolist(), rank.tolist(),
                        orders_cost(tr.weights, lay.indptr, lay.seq), tr.production_cost(),
                        tr.tokens(), note)
