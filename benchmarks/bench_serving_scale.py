"""Serving at scale: `mptsearch layout --method agglomerative` on synthetic retrieval traces of
10k, 100k and 1M requests (issue 13), with wall time, CPU time, peak memory and savings.

Each size runs as its own process, as a user would run it (read the JSONL trace, lay it out,
write the orders and serving ranks with ``-o``, memory budget ``--max-memory 4G``), once without
the MST bound (the production path) and once with it. Peak memory is the child's peak RSS
(``ru_maxrss``), CPU time its user + system time; the load average before and after is
recorded because the machine is shared (CPU time is the figure that load disturbs least).
Traces come from :mod:`mptsearch.serving.synthetic` (seeded) and are kept in ``--work``.

    python benchmarks/bench_serving_scale.py [--sizes 10000 100000 1000000] [--no-bound-run]

Writes results/serving/scale.json (config and machine first, then one record per run),
scale.csv, scale.md and scale.png (time and memory against size, log-log).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_child(args: list[str]) -> dict:
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    p = subprocess.Popen([sys.executable, "-m", "mptsearch", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT)
    out_chunks = []
    # read stdout while waiting so a large JSON cannot block the pipe
    out = p.stdout.read()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    out_chunks.append(out)
    code = os.waitstatus_to_exitcode(status)
    rec = {"exit": code, "wall_s": round(wall, 2), "cpu_s": round(ru.ru_utime + ru.ru_stime, 2),
           "peak_rss_mib": round(ru.ru_maxrss / 1024, 1), "load_before": [round(v, 2) for v in load0],
           "load_after": [round(v, 2) for v in os.getloadavg()]}
    if code == 0:
        rec["result"] = json.loads(out.decode())
    else:
        rec["stderr"] = err.decode().strip()[-500:]
    return rec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", default=os.path.join(ROOT, "results", "serving", "_work"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "serving"))
    ap.add_argument("--max-memory", default="4G")
    ap.add_argument("--no-bound-run", action="store_true", help="Skip the runs with the MST bound.")
    ap.add_argument("--real", default=os.path.join(ROOT, "results", "serving", "_work", "trace_k10.jsonl"),
                    help="Also run on this real trace (FanOutQA, built by mptsearch trace) if it exists.")
    a = ap.parse_args()

    from mptsearch import __version__
    from mptsearch.provenance import git_commit
    from mptsearch.serving.synthetic import retrieval_trace, write_jsonl

    os.makedirs(a.work, exist_ok=True)
    os.makedirs(a.out, exist_ok=True)
    doc = {"config": {"sizes": a.sizes, "seed": a.seed, "max_memory": a.max_memory,
                      "command": "mptsearch layout TRACE --method agglomerative --json -o OUT "
                                 f"--max-memory {a.max_memory} [--no-bound]",
                      "generator": "mptsearch.serving.synthetic.retrieval_trace (defaults)"},
           "machine": {"python": platform.python_version(), "platform": platform.platform(),
                       "cpus": os.cpu_count(), "mptsearch": __version__, "git_commit": git_commit()},
           "runs": []}
    path_json = os.path.join(a.out, "scale.json")

    def save():
        with open(path_json + ".tmp", "w") as fh:
            json.dump(doc, fh, indent=1)
        os.replace(path_json + ".tmp", path_json)

    save()
    # compile the kernels once so that no run pays for it
    small = os.path.join(a.work, "syn_warm.jsonl")
    ch, tok = retrieval_trace(500, a.seed)
    write_jsonl(small, ch, tok)
    run_child(["layout", small, "--method", "agglomerative", "--json", "-q"])
    jobs = [(M, os.path.join(a.work, f"syn_{M}_s{a.seed}.jsonl")) for M in a.sizes]
    if a.real and os.path.exists(a.real):
        with open(a.real) as fh:
            jobs.insert(0, (sum(1 for line in fh if line.strip()), a.real))
    for M, path in jobs:
        if not os.path.exists(path):
            t0 = time.perf_counter()
            ch, tok = retrieval_trace(M, a.seed)
            write_jsonl(path, ch, tok)
            del ch, tok
            print(f"generated {M} requests in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        for bound in ([False] if a.no_bound_run else [False, True]):
            # paths relative to the repository root (the children run there): no machine paths in results
            args = ["layout", os.path.relpath(path, ROOT), "--method", "agglomerative", "--json", "-q",
                    "--max-memory", a.max_memory, "-o", os.path.relpath(os.path.join(a.work, f"lay_{M}.jsonl"), ROOT)] \
                + ([] if bound else ["--no-bound"])
            rec = run_child(args)
            rec.update({"requests": M, "bound": bound, "file_mib": round(os.path.getsize(path) / 2**20, 1),
                        "trace": "FanOutQA k=10 (real)" if path == a.real else "synthetic"})
            doc["runs"].append(rec)
            save()
            r = rec.get("result", {})
            print(f"M={M} bound={bound}: exit {rec['exit']}, wall {rec['wall_s']} s, cpu {rec['cpu_s']} s, "
                  f"rss {rec['peak_rss_mib']} MiB, load {rec['load_before'][0]}", file=sys.stderr)
            if rec["exit"] != 0:
                print(rec.get("stderr"), file=sys.stderr)
    write_tables(doc, a.out)


def write_tables(doc: dict, out: str) -> None:
    rows = []
    for rec in doc["runs"]:
        r = rec.get("result") or {}
        meth = (r.get("methods") or [{}])[0]
        rows.append({
            "requests": rec["requests"], "trace": rec.get("trace", "synthetic"), "bound": rec["bound"], "exit": rec["exit"],
            "distinct": r.get("distinct_requests"), "chunks": r.get("chunks"),
            "wall_s": rec["wall_s"], "cpu_s": rec["cpu_s"], "peak_rss_mib": rec["peak_rss_mib"],
            "read_s": r.get("read_seconds"), "agglomerative_s": meth.get("seconds"),
            "bound_s": r.get("bound_seconds"), "saved_pct": meth.get("saved_pct"),
            "prefill": meth.get("prefill"), "production": r.get("production"),
            "lower_bound": r.get("lower_bound"), "lower_bound_exact": r.get("lower_bound_exact"),
            "note": meth.get("note", ""), "load_before": rec["load_before"][0], "load_after": rec["load_after"][0]})
    with open(os.path.join(out, "scale.csv"), "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    lines = ["# Serving at scale: `mptsearch layout --method agglomerative` (generated by "
             "benchmarks/bench_serving_scale.py)", "",
             f"Command: `{doc['config']['command']}`; synthetic traces from "
             f"`{doc['config']['generator']}`, seed {doc['config']['seed']}. Machine: "
             f"{doc['machine']['cpus']} CPUs, shared; load average (1 min) before each run in the last column.",
             "", "| requests | trace | MST bound | wall s | CPU s | read s | agglomerative s | bound s | peak RSS MiB | saved vs production | lower bound | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["exit"] != 0:
            lines.append(f"| {r['requests']:,} | {r['trace']} | {'yes' if r['bound'] else 'no'} | {r['wall_s']} | {r['cpu_s']} | "
                         f"failed (exit {r['exit']}) | | | {r['peak_rss_mib']} | | | {r['load_before']} |")
            continue
        lb = "" if r["lower_bound"] is None else (
            f"{100 * (1 - r['lower_bound'] / r['production']):.2f}% max saving"
            + ("" if r["lower_bound_exact"] else " (relaxed)"))
        lines.append(f"| {r['requests']:,} | {r['trace']} | {'yes' if r['bound'] else 'no'} | {r['wall_s']} | {r['cpu_s']} | "
                     f"{r['read_s']} | {r['agglomerative_s']} | {r['bound_s'] if r['bound_s'] is not None else '-'} | "
                     f"{r['peak_rss_mib']} | {r['saved_pct']:.2f}% | {lb} | {r['load_before']} |")
    notes = sorted({r["note"] for r in rows if r["note"]})
    if notes:
        lines += ["", "Notes from the method: " + "; ".join(f"{r['requests']:,} ({r['trace']}): {r['note']}" for r in rows
                                                           if r["note"] and not r["bound"]) + "."]
    with open(os.path.join(out, "scale.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    plot(rows, os.path.join(out, "scale.png"))


def plot(rows, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in rows if r["exit"] == 0 and not r["bound"] and r["trace"] == "synthetic"]
    if not ok:
        return
    M = [r["requests"] for r in ok]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    ax[0].loglog(M, [r["wall_s"] for r in ok], "o-", label="wall (whole command)")
    ax[0].loglog(M, [r["cpu_s"] for r in ok], "s-", label="CPU (whole command)")
    ax[0].loglog(M, [r["agglomerative_s"] for r in ok], "^-", label="agglomerative (wall)")
    ref = ok[0]["cpu_s"]
    ax[0].loglog(M, [ref * m / M[0] for m in M], "k:", label="linear from the first point")
    ax[0].set_xlabel("requests")
    ax[0].set_ylabel("seconds")
    ax[0].legend(fontsize=8)
    ax[1].loglog(M, [r["peak_rss_mib"] for r in ok], "o-", label="peak RSS")
    ax[1].axhline(4096, color="r", ls="--", label="4 GiB")
    ax[1].set_xlabel("requests")
    ax[1].set_ylabel("MiB")
    ax[1].legend(fontsize=8)
    fig.suptitle("mptsearch layout --method agglomerative --no-bound, synthetic retrieval traces")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
