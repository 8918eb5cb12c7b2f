"""Blend pricing of one layout of a synthetic retrieval trace at scale (issue 27).

Builds the seeded synthetic trace of :mod:`mptsearch.serving.synthetic` (in memory, as
experiments/beyond_prefix.py does, or written as JSONL and read back with ``--from-file``), lays it
out with ``--method``, then times the compiled node table (:func:`mptsearch.blend.heuristic.node_table`)
and the two mode rules, median of ``--repeats`` runs each (the first run, which may compile or
load the kernels, is discarded). ``--twin`` also prices the layout once with the frozenset
versions of tests/naive.py and checks the numbers are equal (slow: about 20 s per 100k requests).
Peak memory is this process's peak RSS.

    python benchmarks/bench_blend_scale.py --size 100000 [--twin] [--from-file DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _timed(fn, repeats):
    fn()  # compile or load the kernels
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return out, round(statistics.median(times), 3), [round(t, 3) for t in times]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--method", default="agglomerative")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--twin", action="store_true", help="also price once with tests/naive.py and compare")
    ap.add_argument("--from-file", metavar="DIR", help="write the trace as JSONL in DIR and read it back")
    args = ap.parse_args(argv)
    sys.path.insert(0, ROOT)
    from mptsearch import __version__
    from mptsearch.blend.heuristic import node_table, price_first, price_greedy
    from mptsearch.blend.model import BlendParams
    from mptsearch.serving.layout import as_sparse, method_orders
    from mptsearch.serving.synthetic import retrieval_trace, write_jsonl

    rec = {"size": args.size, "seed": args.seed, "method": args.method, "version": __version__,
           "python": platform.python_version(), "load_before": [round(v, 2) for v in os.getloadavg()]}
    t0 = time.perf_counter()
    chunks, tokens = retrieval_trace(args.size, args.seed)
    rec["generate_s"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    if args.from_file:
        from mptsearch.serving.sparse import read_sparse

        path = os.path.join(args.from_file, f"synthetic_{args.size}_s{args.seed}.jsonl")
        write_jsonl(path, chunks, tokens)
        del chunks, tokens
        rec["write_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        sp = read_sparse(path)
    else:
        from mptsearch.serving.trace import trace_from_lists

        sp = as_sparse(trace_from_lists([str(j) for j in range(len(chunks))], chunks, tokens))
        del chunks, tokens
    rec["trace_s"] = round(time.perf_counter() - t0, 2)
    t0 = time.perf_counter()
    lay, _ = method_orders(sp, args.method)
    rec["layout_s"] = round(time.perf_counter() - t0, 2)
    tab, rec["node_table_s"], rec["node_table_runs"] = _timed(lambda: node_table(sp.weights, lay), args.repeats)
    rec["nodes"] = len(tab.w)
    rec["positions"] = int(lay.indptr[-1])
    for name, rule in (("first", price_first), ("greedy", price_greedy)):
        for p in (BlendParams(0.15, 0.05, 1.0), BlendParams(0.15, 0.01, 1.0, True)):
            key = f"{name}_{p.price}_{'answer' if p.per_answer else 'once'}"
            res, rec[key + "_s"], _ = _timed(lambda: rule(tab, p), args.repeats)
            rec[key] = [round(v, 3) for v in res]
    if args.twin:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from naive import naive_blend_first, naive_blend_greedy, naive_blend_node_table

        t0 = time.perf_counter()
        twin = naive_blend_node_table(sp.weights, lay.rows())
        rec["twin_node_table_s"] = round(time.perf_counter() - t0, 2)
        p = BlendParams(0.15, 0.05, 1.0)
        t0 = time.perf_counter()
        g = naive_blend_greedy(twin, p.r, p.price, p.beta)
        rec["twin_greedy_s"] = round(time.perf_counter() - t0, 2)
        rec["twin_equal"] = bool(g == price_greedy(tab, p) and naive_blend_first(twin, p.r, p.price, p.beta)
                                 == price_first(tab, p) and (twin["d_first"] == tab.d_first).all())
        del twin
    rec["peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    rec["load_after"] = [round(v, 2) for v in os.getloadavg()]
    print(json.dumps(rec, indent=1))


if __name__ == "__main__":
    main()
