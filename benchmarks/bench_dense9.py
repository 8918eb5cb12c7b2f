"""The 9-chunk dense target side by side: the prefix-set search of two source trees on the same
4- and 5-uniform families on 9 chunks, one instance at a time, CPU seconds.

Instances: for k in (4, 5) and m in ``--m`` (default 63 and 126; C(9, 4) = C(9, 5) = 126, so
m = 126 is the one family of every k-set), ``--samples`` families of m distinct k-sets drawn
with ``random.Random(seed * 1000 + 10 * k + m + 7919 * s)`` (one when m = 126).

Each (tree, instance) runs in a child process (``python -c``, ``PYTHONPATH`` the tree) that
first solves a small 9-chunk family to compile the kernels, then times one call of
``opt_free_prefix_sets`` with ``time.process_time`` and stops itself at ``--limit`` CPU
seconds (``RLIMIT_CPU``; the search has a wall-clock limit only). The children run one at a
time, under the caller's niceness. The trees: ``--tree LABEL=PATH`` (repeatable; ``PATH`` a
checkout, or ``git:REV`` for a commit of this repository, exported to a temporary folder).
Every value two trees prove is compared (assert), and each is checked against the trie cost of
the layout returned.

Usage: nice -n 10 python benchmarks/bench_dense9.py --tree before=git:c792459 --tree after=. \
    [--samples 5] [--m 63 126] [--limit 60] [--out benchmarks/results/dense9.json]
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
lim = float(sys.argv[1])
resource.setrlimit(resource.RLIMIT_CPU, (int(lim) + 1, int(lim) + 3))
from mptsearch.exact.prefix_sets import opt_free_prefix_sets
from mptsearch.instance import from_lists
from mptsearch.trie import trie_cost
opt_free_prefix_sets(from_lists([[0, 1, 2, 3], [0, 1, 2, 8], [4, 5, 6, 7], [1, 3, 5, 7]] * 1 + [[c, (c + 1) % 9, (c + 3) % 9, (c + 4) % 9] for c in range(9)]))
sets = json.loads(sys.argv[2])
inst = from_lists(sets)
c0 = time.process_time()
r = opt_free_prefix_sets(inst)
cpu = time.process_time() - c0
assert trie_cost(inst, r.layout) == r.value
print(json.dumps({"value": r.value, "cpu": cpu}))
"""


def families(ks, ms, samples, seed):
    for k in ks:
        sets = list(combinations(range(9), k))
        for m in ms:
            for s in range(samples if m < len(sets) else 1):
                rng = random.Random(seed * 1000 + 10 * k + m + 7919 * s)
                fam = sorted(rng.sample(sets, m))
                yield f"{k}-uniform m={m} #{s}", [list(c) for c in fam]


def run(tree, sets, limit):
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", CHILD, str(limit), json.dumps(sets)], cwd=str(tree), env=env,
                       capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if p.returncode == 0:
        out = json.loads(p.stdout.strip().splitlines()[-1])
        return {"solved": True, "value": out["value"], "cpu": round(out["cpu"], 3), "wall": round(wall, 2)}
    if p.returncode in (-24, -9):  # SIGXCPU / SIGKILL: the CPU limit
        return {"solved": False, "cpu": None, "limit": limit, "wall": round(wall, 2), "child_cpu": round(child_cpu, 1)}
    raise RuntimeError(f"child failed ({p.returncode}): {p.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", required=True, help="LABEL=PATH or LABEL=git:REV")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--k", type=int, nargs="*", default=[4, 5])
    ap.add_argument("--m", type=int, nargs="*", default=[63, 126])
    ap.add_argument("--seed", type=int, default=33)
    ap.add_argument("--limit", type=float, default=60.0)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    repo = Path(__file__).resolve().parent.parent
    tmp = tempfile.TemporaryDirectory()
    trees = []
    for spec in a.tree:
        label, path = spec.split("=", 1)
        if path.startswith("git:"):
            rev = path[4:]
            dest = Path(tmp.name) / label
            dest.mkdir()
            arch = subprocess.run(["git", "archive", rev], cwd=repo, capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", str(dest)], input=arch, check=True)
            sha = subprocess.run(["git", "rev-parse", rev], cwd=repo, capture_output=True, text=True).stdout.strip()
            trees.append((label, dest, sha))
        else:
            p = Path(path).resolve()
            sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=p, capture_output=True, text=True).stdout.strip()
            dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=p,
                                   capture_output=True, text=True).stdout.strip()
            trees.append((label, p, sha + ("+dirty" if dirty else "")))
    rows = []
    for name, sets in families(a.k, a.m, a.samples, a.seed):
        row = {"instance": name, "load_before": round(os.getloadavg()[0], 2)}
        for label, path, _ in trees:
            row[label] = run(path, sets, a.limit)
        vals = {row[lb]["value"] for lb, _, _ in trees if row[lb]["solved"]}
        assert len(vals) <= 1, (name, row)
        row["value"] = vals.pop() if vals else None
        rows.append(row)
        print(json.dumps(row), flush=True)
    summary = {}
    for label, _, _ in trees:
        for cls in sorted({r["instance"].split(" #")[0] for r in rows}):
            rs = [r[label] for r in rows if r["instance"].split(" #")[0] == cls]
            done = [r["cpu"] for r in rs if r["solved"]]
            summary.setdefault(label, {})[cls] = {"solved": f"{len(done)}/{len(rs)}",
                                                 "max_cpu": max(done) if len(done) == len(rs) else None,
                                                 "cpu": [r["cpu"] for r in rs]}
    print(json.dumps(summary, indent=1))
    if a.out:
        data = {"config": vars(a), "trees": {lb: sha for lb, _, sha in trees}, "date": time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "niceness": os.nice(0),
                "what": "CPU seconds of one opt_free_prefix_sets call per (tree, instance), each in its own "
                        "child process stopped at the CPU limit (cpu None: not finished); load average at start",
                "rows": rows, "summary": summary}
        out = Path(a.out)
        tmpf = out.with_name(f".{out.name}.tmp")
        tmpf.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(tmpf, out)


if __name__ == "__main__":
    main()
