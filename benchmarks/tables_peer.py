"""Run one peer on one CSV table and write its row order and per-row field order as JSON
(run by benchmarks/bench_tables.py in its own process, for its time and memory).

    python benchmarks/tables_peer.py ggr|contextpilot TABLE.csv OUT.json PEERS_DIR

GGR is imported unmodified from PEERS_DIR/llm-sql-phc/src/ggr.py (a fetched copy, never part of
this repository) and called as its README shows: ``ggr(table_as_numpy_strings, fd_groups)``
with no FD groups. ContextPilot (``pip install contextpilot``) gets every row as a list of field
ids (one per distinct (column, value)) and returns its reordered lists and execution order.
"""

from __future__ import annotations

import csv
import json
import resource
import sys
import time


def main() -> None:
    peer, src, out, peers = sys.argv[1:5]
    with open(src, newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    k = len(header)
    t0 = time.perf_counter()
    c0 = time.process_time()
    if peer == "ggr":
        import numpy as np

        sys.path.insert(0, f"{peers}/llm-sql-phc/src")
        sys.setrecursionlimit(1_000_000)
        from ggr import ggr

        table = np.array(body, dtype=object).astype(str)
        score, _, cols, orig, _ = ggr(table, [])
        order, field_cols = [int(i) for i in orig], [[int(c) for c in cs] for cs in cols]
        extra = {"ggr_score": float(score)}
    elif peer == "contextpilot":
        from contextpilot import ContextPilot

        ids: dict = {}
        ctx = [[ids.setdefault((c, v), len(ids)) for c, v in enumerate(r)] for r in body]
        col_of = {i: c for (c, _), i in ids.items()}
        reordered, orig = ContextPilot(use_gpu=False).reorder(ctx)
        order = [int(i) for i in orig]
        field_cols = [[col_of[int(x)] for x in seq] for seq in reordered]
        extra = {}
    else:
        raise SystemExit(f"unknown peer {peer}")
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    assert sorted(order) == list(range(len(body))) and all(sorted(c) == list(range(k)) for c in field_cols)
    doc = {"peer": peer, "order": order, "field_cols": field_cols, "seconds": secs, "cpu_seconds": cpu,
           "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}
    with open(out, "w") as fh:
        json.dump(doc, fh)


if __name__ == "__main__":
    main()
