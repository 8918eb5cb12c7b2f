"""Scale of ``mptsearch table``: a seeded synthetic table of ROWS x 20 columns (CSV), laid out by
the default portfolio; wall time and peak memory (max RSS) of the whole command, read and write
included, and its CPU time (user + system: on a loaded shared machine the wall time measures the
load). Writes benchmarks/results/tables_scale.json.

    python benchmarks/bench_tables_scale.py [ROWS] [--baseline TREE]

With ``--baseline TREE`` (another checkout, e.g. ``git worktree add --detach TREE main``) the
same table is laid out by that checkout first, then by this one, in one run; both are recorded
(``runs``), and the two written files compared byte for byte.

The table: 8 categorical columns (4 to 2,000 values, Zipf-like), 6 of two or three words drawn
from 50-500 phrases, 4 columns that depend on one categorical column (one to one: an FD), and 2
near-unique text columns (an id-like code and a sentence of 6-12 words). The command runs with
its default time budget (``--time-limit``): at this size GGR's rule runs, the methods and the
MST bound whose estimates do not fit are skipped, and the bound is the trivial one; the JSON
output names what was skipped and the seconds of each step (read, model, layout, write).
"""

from __future__ import annotations

import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_table(path: str, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(2000)]
    cols = {}
    for j, k in enumerate([4, 8, 16, 50, 100, 300, 1000, 2000]):
        p = 1.0 / np.arange(1, k + 1) ** 1.1
        cols[f"cat{j}"] = rng.choice(k, size=rows, p=p / p.sum())
    for j, k in enumerate([50, 100, 200, 300, 400, 500]):
        cols[f"phrase{j}"] = rng.integers(0, k, size=rows)
    fd = [cols["cat1"], cols["cat3"], cols["cat4"], cols["cat5"]]
    text = {}
    for name, v in cols.items():
        if name.startswith("cat"):
            text[name] = np.array([f"value {i}" for i in range(v.max() + 1)], dtype=object)[v]
        else:
            text[name] = np.array([" ".join(words[(7 * i + t) % 2000] for t in range(2 + i % 2))
                                   for i in range(v.max() + 1)], dtype=object)[v]
    for j, v in enumerate(fd):
        text[f"code{j}"] = np.array([f"C{j}-{i:05d}" for i in range(v.max() + 1)], dtype=object)[v]
    text["ref"] = np.array([f"R{i:08d}" for i in rng.permutation(rows)], dtype=object)
    lens = rng.integers(6, 13, size=rows)
    ids = rng.integers(0, 2000, size=(rows, 12))
    text["note"] = np.array([" ".join(words[x] for x in ids[i, :lens[i]]) for i in range(rows)], dtype=object)
    names = list(text)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerows(zip(*(text[c] for c in names)))


def _git_commit(tree: str) -> str:
    p = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() or "unknown"


def run_command(tree: str, src: str, out: str, small: str) -> dict:
    """``mptsearch table SRC -o OUT`` with the package of the checkout ``tree``, under
    /usr/bin/time -v: wall, CPU (user + system) and peak RSS, and the command's JSON."""
    env = dict(os.environ, PYTHONPATH=tree)
    # warm the kernel cache on a small table so the timed run measures work, not compilation
    subprocess.run([sys.executable, "-m", "mptsearch", "table", small, "-q", "--json"], check=True,
                   cwd=tree, env=env, capture_output=True)
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "mptsearch", "table", src, "-o", out, "--json", "-q"]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode:
        raise SystemExit(p.stderr)
    doc = json.loads(p.stdout)
    doc["out"] = os.path.basename(doc["out"])  # a temporary file: no machine path in the results
    rss_kb = next(int(line.split()[-1]) for line in p.stderr.splitlines() if "Maximum resident" in line)
    cpu = sum(float(line.split()[-1]) for line in p.stderr.splitlines()
              if "User time (seconds)" in line or "System time (seconds)" in line)
    return {"commit": _git_commit(tree), "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "max_rss_mb": round(rss_kb / 1024), "load_avg_before": os.getloadavg(), "command": doc}


def main() -> None:
    """``bench_tables_scale.py [ROWS] [--baseline TREE]``: TREE, another checkout of the project
    (``git worktree add --detach TREE main``), is run on the same table right before this one,
    and the two written files are compared byte for byte."""
    args = sys.argv[1:]
    baseline = None
    if "--baseline" in args:
        k = args.index("--baseline")
        baseline = os.path.abspath(args[k + 1])
        del args[k:k + 2]
    rows = int(args[0]) if args else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "t.csv")
        t0 = time.perf_counter()
        make_table(src, rows)
        t_make = time.perf_counter() - t0
        small = os.path.join(tmp, "s.csv")
        make_table(small, 1000)
        runs = {}
        if baseline is not None:
            runs["baseline"] = run_command(baseline, src, os.path.join(tmp, "b.csv"), small)
        runs["this"] = run_command(ROOT, src, os.path.join(tmp, "o.csv"), small)
        same = None
        if baseline is not None:
            with open(os.path.join(tmp, "b.csv"), "rb") as a, open(os.path.join(tmp, "o.csv"), "rb") as b:
                same = a.read() == b.read()
        size = os.path.getsize(src)
    this = runs["this"]
    res = {"rows": rows, "columns": 20, "csv_bytes": size, "make_seconds": round(t_make, 1),
           "wall_seconds": this["wall_seconds"], "cpu_seconds": this["cpu_seconds"], "max_rss_mb": this["max_rss_mb"],
           "command": this["command"], "runs": runs, "same_output_as_baseline": same,
           "repeat": "python benchmarks/bench_tables_scale.py %d" % rows + (" --baseline TREE" if baseline else ""),
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "load_avg": os.getloadavg()}}
    os.makedirs(os.path.join(ROOT, "benchmarks", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "benchmarks", "results", f"tables_scale_{rows}.json"), "w") as fh:
        json.dump(res, fh, indent=1)
    for name, r in runs.items():
        doc = r["command"]
        print(name, r["commit"], json.dumps({k: r[k] for k in ("wall_seconds", "cpu_seconds", "max_rss_mb")}),
              {k: doc[k] for k in ("method", "prefill", "read_seconds", "model_seconds", "layout_seconds",
                                   "write_seconds")},
              [(m["method"], m["prefill"], m["seconds"]) for m in doc["methods"]])
    if same is not None:
        print("written files byte-identical:", same)


if __name__ == "__main__":
    main()
