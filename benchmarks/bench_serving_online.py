"""Streaming layouter throughput: requests per second of OnlineLayouter.add/flush (issue 13).

Feeds a synthetic retrieval trace (mptsearch.serving.synthetic, seeded) one request at a time
for several windows W, and reports requests per CPU second of this process (time.process_time,
what load disturbs least on a shared machine) and per wall second, with the load average.

    python benchmarks/bench_serving_online.py [--requests 100000] [--windows 1 16 64 256]

Writes results/serving/online_throughput.json and online_throughput.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--windows", type=int, nargs="+", default=[1, 16, 64, 256])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "serving"))
    a = ap.parse_args()

    from mptsearch import __version__
    from mptsearch.provenance import git_commit
    from mptsearch.serving.online import OnlineLayouter
    from mptsearch.serving.synthetic import retrieval_trace

    chunks, tokens = retrieval_trace(a.requests, a.seed)
    warm = OnlineLayouter(window=8, tokens=tokens)  # compile the kernels outside the timings
    for j, c in enumerate(chunks[:200]):
        warm.add(c, id=j)
    warm.flush()
    doc = {"config": {"requests": a.requests, "windows": a.windows, "seed": a.seed,
                      "history": "64 W (default)", "trace": "mptsearch.serving.synthetic.retrieval_trace"},
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "mptsearch": __version__, "git_commit": git_commit()}, "runs": []}
    for W in a.windows:
        lay = OnlineLayouter(window=W, tokens=tokens)
        load = os.getloadavg()[0]
        c0, w0 = time.process_time(), time.perf_counter()
        done = 0
        for j, c in enumerate(chunks):
            done += len(lay.add(c, id=j))
        done += len(lay.flush())
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        assert done == len(chunks)
        doc["runs"].append({"window": W, "requests_per_cpu_s": round(done / cpu), "requests_per_wall_s": round(done / wall),
                            "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "load_before": round(load, 2)})
        print(doc["runs"][-1])
    with open(os.path.join(a.out, "online_throughput.json"), "w") as fh:
        json.dump(doc, fh, indent=1)
    lines = ["| W | requests / CPU second | requests / wall second | load (1 min) |", "|---|---|---|---|"]
    lines += [f"| {r['window']} | {r['requests_per_cpu_s']:,} | {r['requests_per_wall_s']:,} | {r['load_before']} |"
              for r in doc["runs"]]
    with open(os.path.join(a.out, "online_throughput.md"), "w") as fh:
        fh.write(f"{a.requests:,} synthetic requests fed one at a time (benchmarks/bench_serving_online.py)\n\n"
                 + "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
