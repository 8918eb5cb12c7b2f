"""Synthetic retrieval-shaped traces for scale tests.

A trace of M requests over topics of Zipf-distributed popularity:

- ``topics = max(8, M // 25)`` topics; request's topic drawn with probability proportional to
  1 / rank^``zipf`` (default 1.0: the most popular topic gets about 9% of a million requests);
- every topic owns a pool of ``pool`` chunks (default 50, disjoint across topics); a request
  retrieves k chunks, k uniform in [5, 15], without replacement from its topic's pool, chunk r
  of the pool weighted 1 / r^``inner`` (default 0.8), in draw order (its relevance order);
- with probability ``shared`` (default 0.1) each retrieved chunk is replaced by one of
  ``max(50, M // 200)`` corpus-wide chunks, themselves drawn by Zipf popularity (boilerplate
  pages retrieved across topics), unless the request already holds it;
- every chunk has a token count uniform in [50, 600], fixed per chunk.

Labels are strings ``t<topic>.<r>`` and ``g<r>``. The same seed gives the same trace.
"""

from __future__ import annotations

import json

import numpy as np

__all__ = ["retrieval_trace", "write_jsonl"]


def retrieval_trace(M: int, seed: int = 0, *, zipf: float = 1.0, pool: int = 50,
                    inner: float = 0.8, shared: float = 0.1, kmin: int = 5, kmax: int = 15,
                    tmin: int = 50, tmax: int = 600):
    """(per-request chunk labels, {label: tokens}) of a synthetic retrieval trace.

    Notes
    -----
    O(M * pool) time, in batches of 50,000 requests (O(50,000 * pool) memory besides the trace).
    """
    rng = np.random.default_rng(seed)
    T = max(8, M // 25)
    G = max(50, M // 200)
    pt = 1.0 / np.arange(1, T + 1) ** zipf
    pt /= pt.sum()
    pg = 1.0 / np.arange(1, G + 1) ** zipf
    pg /= pg.sum()
    logp_in = -inner * np.log(np.arange(1, pool + 1))
    topic_tok = rng.integers(tmin, tmax + 1, size=(T, pool))
    glob_tok = rng.integers(tmin, tmax + 1, size=G)
    out: list[list[str]] = []
    used_t: set = set()
    used_g: set = set()
    for s in range(0, M, 50_000):
        b = min(M, s + 50_000) - s
        topic = rng.choice(T, size=b, p=pt)
        k = rng.integers(kmin, kmax + 1, size=b)
        # Gumbel top-k: a weighted draw without replacement, in draw order
        keys = logp_in[None, :] + rng.gumbel(size=(b, pool))
        rank = np.argsort(-keys, axis=1)[:, :kmax]
        swap = rng.random((b, kmax)) < shared
        gpick = rng.choice(G, size=(b, kmax), p=pg)
        for i in range(b):
            t = int(topic[i])
            row = []
            seen = set()
            for p in range(int(k[i])):
                if swap[i, p] and int(gpick[i, p]) not in seen:
                    g = int(gpick[i, p])
                    seen.add(g)
                    row.append(f"g{g}")
                    used_g.add(g)
                else:
                    r = int(rank[i, p])
                    row.append(f"t{t}.{r}")
                    used_t.add((t, r))
            out.append(row)
    tokens = {f"t{t}.{r}": int(topic_tok[t, r]) for t, r in used_t}
    tokens.update({f"g{g}": int(glob_tok[g]) for g in used_g})
    return out, tokens


def write_jsonl(path: str, chunks, tokens) -> None:
    """Write a trace (per-request labels and the token map) as JSONL, ids ``r0, r1, ...``."""
    with open(path, "w", encoding="utf-8") as fh:
        for j, row in enumerate(chunks):
            fh.write(json.dumps({"id": f"r{j}", "chunks": row, "tokens": [tokens[c] for c in row]}) + "\n")
