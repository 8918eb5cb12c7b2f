"""The serving side: prompt layout for retrieval traces, prefix-cache simulation and schedules.

- :mod:`.trace`: the JSONL trace format and its reader.
- :mod:`.layout`: every layout method on a trace and the summary against production order.
- :mod:`.online`: batches of W arrivals against a persistent trie.
- :mod:`.pinning`: the top-t passages pinned last, the rest permuted.
- :mod:`.cache`: an LRU prefix cache of C tokens and the schedules served against it
  (Theorem 7: DFS order of the trie with one request's capacity = the unbounded cost).
- :mod:`.peer`: the average-linkage clustering baseline.
- :mod:`.build_trace`: the FanOutQA x Wikipedia-summaries BM25 trace (optional extra ``trace``).
"""
