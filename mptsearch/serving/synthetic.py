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

__all__ = ["retrieval_trace", "mixed_trace", "write_jsonl"]


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


def mixed_trace(M: int, seed: int = 0, *, sessions: float = 0.5, zipf: float = 1.0, turns: int = 8,
                tenants: int | None = None):
    """(per-request chunk labels, {label: tokens}) of a trace mixing retrieval and chat sessions.

    A share ``1 - sessions`` of the M requests is :func:`retrieval_trace`'s (same labels). The
    rest come from multi-turn sessions whose production order already shares long prefixes:

    - ``tenants`` tenants (default ``max(2, M_s // 200)``, M_s the session requests; a few
      tenants make their system prompts chunks held by many requests), each with a system prompt
      ``sys<t>`` of 800-2,000 tokens; a session belongs to one tenant, drawn uniformly;
    - turn j of a session (j = 1 .. its length, uniform in [1, ``turns``]) holds the system
      prompt, the session's first j - 1 history chunks ``s<s>.<i>`` (100-400 tokens each), then
      1-3 documents drawn by Zipf popularity from ``max(50, M // 500)`` shared ones ``d<r>``
      (50-600 tokens), in that order (its production order);
    - arrivals are interleaved: every request gets a random time, a session's turns in order.

    On such a trace a global order (``popularity``, ``global``) moves the shared documents in
    front of each session's history and loses what production order shares: the case the
    layout summary warns about. The same seed gives the same trace.

    Notes
    -----
    O(M * turns) time.
    """
    rng = np.random.default_rng(seed)
    n_sess = int(round(M * sessions))
    rows, tokens = retrieval_trace(M - n_sess, seed=seed, zipf=zipf) if M > n_sess else ([], {})
    times = rng.random(len(rows)).tolist()
    tenants = max(2, n_sess // 200) if tenants is None else tenants
    sys_tok = rng.integers(800, 2001, size=tenants)
    D = max(50, M // 500)
    pd = 1.0 / np.arange(1, D + 1) ** zipf
    pd /= pd.sum()
    doc_tok = rng.integers(50, 601, size=D)
    s = 0
    while len(rows) < M:
        length = min(int(rng.integers(1, turns + 1)), M - len(rows))
        t = int(rng.integers(tenants))
        tokens[f"sys{t}"] = int(sys_tok[t])
        start, gap = float(rng.random()), float(rng.random()) * 1e-3
        for j in range(length):
            if j:
                tokens[f"s{s}.{j - 1}"] = int(rng.integers(100, 401))
            docs = list(dict.fromkeys(f"d{d}" for d in rng.choice(D, size=int(rng.integers(1, 4)), p=pd)))
            tokens.update({d: int(doc_tok[int(d[1:])]) for d in docs})
            rows.append([f"sys{t}", *(f"s{s}.{i}" for i in range(j)), *docs])
            times.append(start + j * gap)
        s += 1
    order = np.argsort(np.array(times), kind="stable")
    return [rows[i] for i in order.tolist()], tokens
