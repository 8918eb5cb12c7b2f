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

Before/after a change (issue 28), side by side in one run::

    git archive BASE_COMMIT | tar -x -C ../serving-base   # the code before
    python benchmarks/bench_serving_scale.py --before-after ../serving-base [--repeats 3]

times every layout method, every simulate schedule (token level and ``--block-size 16``), the
trace reader and the ``-o`` writer, each in a fresh process (``benchmarks/serving_worker.py``)
with ``PYTHONPATH`` set to one tree or the other, the trees alternating on every repeat; tasks
the tree before takes minutes on (greedy, block-level simulation) run before/after on 10,000
requests and after only on 100,000. Then each tree runs the whole 1M command once
(``layout --method agglomerative -o``), and the tree after runs every method and schedule
once on 1M. Writes benchmarks/results/serving_before_after.json (every run) and .txt
(medians of wall and CPU seconds, after/before ratios of the medians, the digests' agreement).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
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


SCHEDULES = ("arrival", "dfs", "window", "lpm", "dfs-weight")
FAST_METHODS = ("production", "popularity", "global", "agglomerative", "online")


def worker(tree: str, job: dict) -> dict:
    """One task in a fresh process on ``tree`` (a source tree holding mptsearch/)."""
    env = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1")
    p = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "serving_worker.py"), json.dumps(job)],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    if p.returncode != 0:
        return {"error": p.stderr.strip()[-400:]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def trace_file(work: str, M: int, seed: int) -> str:
    from mptsearch.serving.synthetic import retrieval_trace, write_jsonl

    path = os.path.join(work, f"syn_{M}_s{seed}.jsonl")
    if not os.path.exists(path):
        ch, tok = retrieval_trace(M, seed)
        write_jsonl(path, ch, tok)
    return path


def _record(a, name: str, **config):
    """(the run's document, the path of benchmarks/results/NAME without suffix, a function
    saving the document there as JSON, atomically)."""
    from mptsearch.provenance import git_commit

    doc = {"config": {"repeats": a.repeats, "seed": a.seed, "numba_threads": 1,
                      "commits": {"before": a.before_commit, "after": git_commit()},
                      "generator": "mptsearch.serving.synthetic.retrieval_trace (defaults)", **config},
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "load_average_start": [round(v, 2) for v in os.getloadavg()]},
           "runs": []}
    path = os.path.join(ROOT, "benchmarks", "results", name)

    def save():
        with open(path + ".json.tmp", "w") as fh:
            json.dump(doc, fh, indent=1)
        os.replace(path + ".json.tmp", path + ".json")
    return doc, path, save


def before_after(a) -> None:
    import statistics

    before, after = os.path.abspath(a.before_after), ROOT
    os.makedirs(a.work, exist_ok=True)
    small, mid, big = (trace_file(a.work, M, a.seed) for M in (10_000, 100_000, 1_000_000))
    out_tmp = os.path.join(a.work, "bench_write.jsonl")
    if a.reader:
        return reader_before_after(a, before, after, mid, big, out_tmp)
    jobs = []  # (label, size, trees, job)
    for meth in FAST_METHODS:
        jobs.append((f"layout {meth}", 100_000, "both", {"task": "layout", "trace": mid, "method": meth}))
    jobs.append(("layout greedy", 10_000, "both", {"task": "layout", "trace": small, "method": "greedy"}))
    jobs.append(("layout greedy", 100_000, "after", {"task": "layout", "trace": mid, "method": "greedy"}))
    for sch in SCHEDULES:
        jobs.append((f"simulate {sch} B=1 4x", 100_000, "both",
                     {"task": "simulate", "trace": mid, "schedule": sch, "block": 1, "capacity": 4.0}))
    for sch in SCHEDULES[:4]:
        job = {"task": "simulate", "schedule": sch, "block": 16, "capacity": 4.0}
        jobs.append((f"simulate {sch} B=16 4x", 10_000, "both", dict(job, trace=small)))
        jobs.append((f"simulate {sch} B=16 4x", 100_000, "after", dict(job, trace=mid)))
    jobs.append(("read trace", 100_000, "both", {"task": "read", "trace": mid}))
    jobs.append(("write -o (agglomerative)", 100_000, "both", {"task": "write", "trace": mid, "out": out_tmp}))
    doc, path, save = _record(a, "serving_before_after")

    for r in range(0 if a.command_only else a.repeats):
        for label, M, trees, job in jobs:
            order = [("before", before), ("after", after)] if r % 2 == 0 else [("after", after), ("before", before)]
            for name, tree in order:
                if trees != "both" and trees != name:
                    continue
                res = worker(tree, job)
                doc["runs"].append({"task": label, "requests": M, "tree": name, "repeat": r, **res})
                print(f"{label} {M} {name}: {res}", file=sys.stderr)
                save()
    if a.command_only:  # add the whole-command runs to the last run's records
        with open(path + ".json") as fh:
            doc = json.load(fh)
        doc["runs"] = [r for r in doc["runs"] if "whole command" not in r["task"]]
    # the whole command at 1M, once per tree; then every method and schedule once, after only
    for name, tree in (("before", before), ("after", after)):
        env_tree = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1")
        load0 = os.getloadavg()[0]
        t0 = time.perf_counter()
        # run from the tree itself: `python -m` puts the working directory first on sys.path
        p = subprocess.run([sys.executable, "-m", "mptsearch", "layout", big, "--method", "agglomerative",
                            "--no-bound", "--json", "-q", "-o", out_tmp], capture_output=True, text=True,
                           env=env_tree, cwd=tree)
        rec = {"task": "layout agglomerative -o (whole command)", "requests": 1_000_000, "tree": name, "repeat": 0,
               "wall": time.perf_counter() - t0, "exit": p.returncode, "load_before": round(load0, 2),
               "load_after": round(os.getloadavg()[0], 2)}
        if p.returncode == 0:
            res = json.loads(p.stdout)
            rec.update({"read_seconds": res["read_seconds"], "write_seconds": res.get("write_seconds"),
                        "method_seconds": res["methods"][0]["seconds"], "seconds": res["seconds"],
                        "prefill": res["methods"][0]["prefill"]})
        else:
            rec["error"] = p.stderr.strip()[-400:]
        doc["runs"].append(rec)
        print(rec, file=sys.stderr)
        save()
    if not a.skip_1m_all and not a.command_only:
        for meth in FAST_METHODS + ("greedy",):
            res = worker(after, {"task": "layout", "trace": big, "method": meth})
            doc["runs"].append({"task": f"layout {meth}", "requests": 1_000_000, "tree": "after", "repeat": 0, **res})
            print(f"layout {meth} 1M: {res}", file=sys.stderr)
            save()
        for sch in SCHEDULES:
            for B in ((1,) if sch == "dfs-weight" else (1, 16)):
                res = worker(after, {"task": "simulate", "trace": big, "schedule": sch, "block": B, "capacity": 4.0})
                doc["runs"].append({"task": f"simulate {sch} B={B} 4x", "requests": 1_000_000, "tree": "after",
                                    "repeat": 0, **res})
                print(f"simulate {sch} B={B} 1M: {res}", file=sys.stderr)
                save()
    doc["machine"]["load_average_end"] = [round(v, 2) for v in os.getloadavg()]
    save()
    with open(path + ".txt", "w") as fh:
        fh.write(before_after_table(doc, statistics.median) + "\n")


def whole_command(tree: str, trace: str, out: str) -> dict:
    """``layout TRACE --method agglomerative --no-bound -o OUT`` run from ``tree`` (wall time of
    the process, its CPU time, and the read, write and method seconds it reports)."""
    env_tree = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1")
    load0 = os.getloadavg()[0]
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu0 = ru.ru_utime + ru.ru_stime
    t0 = time.perf_counter()
    # run from the tree itself: `python -m` puts the working directory first on sys.path
    p = subprocess.Popen([sys.executable, "-m", "mptsearch", "layout", trace, "--method", "agglomerative",
                          "--no-bound", "--json", "-q", "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env_tree, cwd=tree)
    stdout, stderr = p.communicate()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec = {"wall": time.perf_counter() - t0, "exit": p.returncode, "load_before": round(load0, 2),
           "cpu": ru.ru_utime + ru.ru_stime - cpu0,
           "load_after": round(os.getloadavg()[0], 2)}
    if p.returncode == 0:
        res = json.loads(stdout)
        rec.update({"read_seconds": res["read_seconds"], "write_seconds": res.get("write_seconds"),
                    "read_cpu_seconds": res.get("read_cpu_seconds"), "write_cpu_seconds": res.get("write_cpu_seconds"),
                    "method_seconds": res["methods"][0]["seconds"], "seconds": res["seconds"],
                    "prefill": res["methods"][0]["prefill"]})
        with open(out, "rb") as fh:
            import hashlib

            rec["digest"] = hashlib.sha256(fh.read()).hexdigest()
    else:
        rec["error"] = stderr.decode().strip()[-400:]
    return rec


def reader_before_after(a, before: str, after: str, mid: str, big: str, out_tmp: str) -> None:
    """``--reader``: the reader, the writer and the whole 1M command, with the 100k layout
    methods and block-level schedules beside them (nothing else may have slowed down), every
    task on both trees, alternating, ``a.repeats`` times. Writes
    benchmarks/results/serving_reader.json and .txt."""
    import statistics

    jobs = [(f"layout {meth}", 100_000, {"task": "layout", "trace": mid, "method": meth})
            for meth in FAST_METHODS + ("greedy",)]
    jobs += [(f"simulate {sch} B=16 4x", 100_000, {"task": "simulate", "trace": mid, "schedule": sch, "block": 16,
                                                   "capacity": 4.0}) for sch in SCHEDULES[:4]]
    jobs += [("read trace", 100_000, {"task": "read", "trace": mid}), ("read trace", 1_000_000, {"task": "read", "trace": big}),
             ("write -o (agglomerative)", 100_000, {"task": "write", "trace": mid, "out": out_tmp})]
    doc, path, save = _record(a, "serving_reader",
                              command="mptsearch layout TRACE_1M --method agglomerative --no-bound --json -q -o OUT")

    for r in range(a.repeats):
        order = [("before", before), ("after", after)] if r % 2 == 0 else [("after", after), ("before", before)]
        for label, M, job in jobs:
            for name, tree in order:
                res = worker(tree, job)
                doc["runs"].append({"task": label, "requests": M, "tree": name, "repeat": r, **res})
                print(f"{label} {M} {name}: {res}", file=sys.stderr)
                save()
        for name, tree in order:
            rec = whole_command(tree, big, out_tmp)
            doc["runs"].append({"task": "layout agglomerative -o (whole command)", "requests": 1_000_000, "tree": name,
                                "repeat": r, **rec})
            print(rec, file=sys.stderr)
            save()
    doc["machine"]["load_average_end"] = [round(v, 2) for v in os.getloadavg()]
    save()
    with open(path + ".txt", "w") as fh:
        fh.write(before_after_table(doc, statistics.median) + "\n" + io_share_table(doc, statistics.median) + "\n")


def io_share_table(doc: dict, median) -> str:
    """Medians of the whole 1M command per tree: wall, read, write, method, and the share of
    reading + writing in the process's wall time and in the command's own total; by CPU, the
    read and write CPU seconds the command reports (a tree that reports none: "-") against the
    process's CPU seconds."""
    lines = ["", "1M whole command (medians over repeats; read and write as the command reports them):",
             f"{'tree':<8}{'wall s':>9}{'command s':>11}{'read s':>9}{'write s':>9}{'method s':>10}"
             f"{'I/O of wall':>13}{'I/O of command':>16}{'CPU s':>8}{'I/O CPU s':>11}{'I/O of CPU':>12}{'load':>12}"]
    for tree in ("before", "after"):
        rs = [r for r in doc["runs"] if r["task"].endswith("(whole command)") and r["tree"] == tree and "error" not in r]
        if not rs:
            continue
        io = [(r["read_seconds"] + r["write_seconds"]) for r in rs]
        share_w = median([x / r["wall"] for x, r in zip(io, rs)])
        share_c = median([x / r["seconds"] for x, r in zip(io, rs)])
        loads = sorted(r["load_before"] for r in rs)
        io_cpu = [(r["read_cpu_seconds"] + r["write_cpu_seconds"], r["cpu"]) for r in rs
                  if r.get("read_cpu_seconds") is not None and r.get("write_cpu_seconds") is not None]
        cpu_cells = (f"{median([x for x, _ in io_cpu]):>11.2f}{100 * median([x / c for x, c in io_cpu]):>11.1f}%"
                     if io_cpu else f"{'-':>11}{'-':>12}")
        lines.append(f"{tree:<8}{median([r['wall'] for r in rs]):>9.2f}{median([r['seconds'] for r in rs]):>11.2f}"
                     f"{median([r['read_seconds'] for r in rs]):>9.2f}{median([r['write_seconds'] for r in rs]):>9.2f}"
                     f"{median([r['method_seconds'] for r in rs]):>10.2f}{100 * share_w:>12.1f}%{100 * share_c:>15.1f}%"
                     f"{median([r['cpu'] for r in rs]):>8.2f}{cpu_cells}"
                     f"{loads[0]:>6}-{loads[-1]}")
    digests = {r.get("digest") for r in doc["runs"] if r["task"].endswith("(whole command)")}
    lines.append("output files: " + ("identical (one SHA-256 over every run of both trees)" if len(digests) == 1
                                     and None not in digests else f"DIFFER or missing: {sorted(map(str, digests))}"))
    return "\n".join(lines)


def before_after_table(doc: dict, median) -> str:
    c, m = doc["config"], doc["machine"]
    lines = [f"before {c['commits']['before']} vs after {c['commits']['after']}, {c['repeats']} alternating repeats, "
             f"medians, one numba thread, fresh process per run; {m['cpus']} cpus shared with other jobs (load average "
             f"{m['load_average_start'][0]} at start, {m.get('load_average_end', ['?'])[0]} at end). "
             "Generated by benchmarks/bench_serving_scale.py --before-after.", "",
             f"{'task':<34}{'requests':>10}{'wall before':>13}{'wall after':>12}{'ratio':>8}"
             f"{'CPU before':>12}{'CPU after':>11}{'ratio':>8}  outputs"]
    keys = []
    for r in doc["runs"]:
        if (r["task"], r["requests"]) not in keys:
            keys.append((r["task"], r["requests"]))
    for task, M in keys:
        runs = [r for r in doc["runs"] if r["task"] == task and r["requests"] == M and "error" not in r]
        cell = {}
        for tree in ("before", "after"):
            rs = [r for r in runs if r["tree"] == tree]
            cell[tree] = (median([r["wall"] for r in rs]), median([r["cpu"] for r in rs]) if "cpu" in rs[0] else None,
                          {r.get("digest") for r in rs}) if rs else None
        b, f = cell["before"], cell["after"]
        fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
        ratio = lambda x, y: "-" if x is None or y is None or y == 0 else f"{x / y:.1f}x"  # noqa: E731
        same = "-" if not (b and f) or None in b[2] | f[2] else ("equal" if b[2] == f[2] and len(f[2]) == 1 else "DIFFER")
        lines.append(f"{task:<34}{M:>10,}{fmt(b[0] if b else None):>13}{fmt(f[0] if f else None):>12}"
                     f"{ratio(b[0] if b else None, f[0] if f else None):>8}{fmt(b[1] if b else None):>12}"
                     f"{fmt(f[1] if f else None):>11}{ratio(b[1] if b else None, f[1] if f else None):>8}  {same}")
        extra = [r for r in runs if "read_seconds" in r]
        for r in extra:
            lines.append(f"    {r['tree']}: read {r['read_seconds']} s, agglomerative {r['method_seconds']} s, "
                         f"write {r['write_seconds'] if r['write_seconds'] is not None else '(not reported)'} s, "
                         f"command {r['seconds']} s, prefill {r['prefill']}, load average "
                         f"{r.get('load_before', '?')} before, {r.get('load_after', '?')} after")
    return "\n".join(lines)


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
    ap.add_argument("--before-after", metavar="TREE", default=None,
                    help="Compare with the source tree TREE (the code before) instead; see the docstring.")
    ap.add_argument("--before-commit", default="?", help="The commit TREE was made from (recorded).")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-1m-all", action="store_true", help="With --before-after: no 1M run of every method.")
    ap.add_argument("--reader", action="store_true",
                    help="With --before-after: only the reader, the writer, the whole 1M command and the 100k layout "
                         "methods and B=16 schedules (benchmarks/results/serving_reader.*).")
    ap.add_argument("--command-only", action="store_true",
                    help="With --before-after: only the whole 1M command per tree, added to the last run's records.")
    a = ap.parse_args()
    if a.before_after:
        before_after(a)
        return

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
