"""Scale of ``mptsearch table``: a seeded synthetic table of ROWS x 20 columns (CSV), laid out by
the default portfolio; wall time and peak memory (max RSS) of the whole command, read and write
included, and its CPU time (user + system: on a loaded shared machine the wall time measures the
load). Writes benchmarks/results/tables_scale.json.

    python benchmarks/bench_tables_scale.py [ROWS]

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


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    with tempfile.TemporaryDirectory() as tmp:
        src, out = os.path.join(tmp, "t.csv"), os.path.join(tmp, "o.csv")
        t0 = time.perf_counter()
        make_table(src, rows)
        t_make = time.perf_counter() - t0
        # warm the kernel cache on a small table so the timed run measures work, not compilation
        small = os.path.join(tmp, "s.csv")
        make_table(small, 1000)
        subprocess.run([sys.executable, "-m", "mptsearch", "table", small, "-q", "--json"], check=True,
                       cwd=ROOT, capture_output=True)
        cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "mptsearch", "table", src, "-o", out, "--json", "-q"]
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if p.returncode:
            raise SystemExit(p.stderr)
        doc = json.loads(p.stdout)
        doc["out"] = os.path.basename(doc["out"])  # a temporary file: no machine path in the results
        rss_kb = next(int(line.split()[-1]) for line in p.stderr.splitlines() if "Maximum resident" in line)
        cpu = sum(float(line.split()[-1]) for line in p.stderr.splitlines()
                  if "User time (seconds)" in line or "System time (seconds)" in line)
        size = os.path.getsize(src)
    res = {"rows": rows, "columns": 20, "csv_bytes": size, "make_seconds": round(t_make, 1),
           "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "max_rss_mb": round(rss_kb / 1024), "command": doc,
           "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "load_avg": os.getloadavg()}}
    os.makedirs(os.path.join(ROOT, "benchmarks", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "benchmarks", "results", f"tables_scale_{rows}.json"), "w") as fh:
        json.dump(res, fh, indent=1)
    print(json.dumps({k: res[k] for k in ("rows", "wall_seconds", "cpu_seconds", "max_rss_mb")}),
          {k: doc[k] for k in ("method", "prefill", "given_prefill", "lower_bound", "read_seconds", "model_seconds",
                               "layout_seconds", "write_seconds")},
          [(m["method"], m["prefill"], m["seconds"]) for m in doc["methods"]])


if __name__ == "__main__":
    main()
