"""The serving side: prompt layout for retrieval traces, prefix-cache simulation and schedules.

- :mod:`.trace`: the JSONL trace format and its reader.
- :mod:`.layout`: every layout method on a trace and the summary against production order.
- :mod:`.online`: batches of W arrivals against a persistent trie.
- :mod:`.pinning`: the top-t passages pinned last, the rest permuted.
- :mod:`.cache`: an LRU prefix cache of C tokens and the schedules served against it
  (Theorem 7: DFS order of the trie with one request's capacity = the unbounded cost).
- :mod:`.peer`: the average-linkage clustering baseline.
- :mod:`.build_trace`: the FanOutQA x Wikipedia-summaries BM25 trace (optional extra ``trace``).
- :mod:`.api`: for embedding: :func:`order_contexts` (labels in, orders and serving order out),
  :func:`prompts` and :func:`prompt_tokens` (the prompts themselves, in serving order);
  :class:`OnlineLayouter` (:mod:`.online`) for a stream of arrivals.
"""

__all__ = ["order_contexts", "ContextOrder", "prompts", "prompt_tokens", "OnlineLayouter"]

_LAZY = {"order_contexts": "api", "ContextOrder": "api", "prompts": "api", "prompt_tokens": "api",
         "OnlineLayouter": "online"}


def __getattr__(name: str):
    # the embedding API at the package's top without importing numpy and the kernels on
    # ``import mptsearch.serving`` (the CLI imports this package for every serving command)
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
