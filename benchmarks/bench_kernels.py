"""Before/after the kernel layer (issue 15), side by side in one run.

Usage (from the repository root)::

    git worktree add --detach ../kernels-base e333c48   # the code before (issue 15's base)
    python benchmarks/bench_kernels.py --base ../kernels-base [--repeats 3]
        [--anneal-ms 8,9,10,11,12] [--free-ms 16,18,20,22] [--enum-pieces 4]
        [--out benchmarks/results/kernels_before_after]

Every measurement runs in a fresh subprocess with ``PYTHONPATH`` set to one of the two trees
("before" = ``--base``, "after" = this checkout) and ``NUMBA_NUM_THREADS=1``; the two trees
alternate (before/after, then after/before on the next repeat) so that load changes on the
shared machine hit both alike. Each worker loads its compiled kernels first (from a numba
cache made fresh for this run and filled by a warm-up run) and times only the work, in CPU seconds of the process
(``time.process_time``; one thread, so this is the steadier figure on a loaded machine).
Reported: medians, and after/before ratios of the medians.

Tasks:

- ``anneal``: annealing evaluations per CPU second at k=4, n=7, fixed m (ratio objective,
  unit weights), one restart of a fixed number of steps from seed 0;
- ``free``: the OPT_free DP (``savings_table``, intersection table + blocked DP, one thread)
  on ``random_instance(3m, m, (3, 8))`` ("sparse": many chunks) and
  ``random_instance(14, m, (4, 6))`` ("dense"), seed m, in ns per unordered pair (3^m / 2);
- ``enum``: ``run_enumeration`` of the first ``--enum-pieces`` pieces of the class of
  4-uniform families of 12 requests on 7 chunks (4 of its 510 pieces hold 77,072 of its
  172,933 members; the whole class takes minutes per run on this machine), one process,
  in CPU seconds; the members counted must be equal.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ANNEAL_STEPS = {8: 40_000, 9: 20_000, 10: 8_000, 11: 3_000, 12: 1_200}


# ---- worker side (runs inside the tree under test) ---------------------------------------------

def _evaluations(state) -> int:
    if hasattr(state, "ints"):  # before: counters in an index vector, I_EVALS = 3
        return int(state.ints[3])
    return int(state.evaluations)


def work_anneal(m: int) -> dict:
    from mptsearch.search.anneal import AnnealConfig, new_restart, run_restart

    steps = ANNEAL_STEPS.get(m, 1000)
    cfg = AnnealConfig(n=7, k=(4, 4), m=(m, m), restart_steps=steps).validate()
    run_restart(cfg, new_restart(cfg, 1, 0, 50), 50)  # load the kernels
    st = new_restart(cfg, 0, 0)
    t = time.process_time()
    run_restart(cfg, st, steps)
    cpu = time.process_time() - t
    ev = _evaluations(st)
    return {"evaluations": ev, "cpu": cpu, "rate": ev / cpu}


def work_free(m: int, shape: str) -> dict:
    import zlib

    from mptsearch.exact.free import savings_table
    from mptsearch.families import random_instance
    from mptsearch.instance import compact

    inst = (random_instance(3 * m, m, (3, 8), seed=m) if shape == "sparse"
            else random_instance(14, m, (4, 6), seed=m))
    small = random_instance(10, 9, (3, 5), seed=0)
    savings_table(small, kernel="blocked")  # load the kernels
    t = time.process_time()
    wI, M = savings_table(inst, kernel="blocked")
    cpu = time.process_time() - t
    return {"cpu": cpu, "ns_per_pair": cpu / (3 ** m / 2) * 1e9, "savings": int(M[-1]),
            "dtype": M.dtype.name, "n": inst.n, "instance_crc32": zlib.crc32(compact(inst).encode())}


def work_enum(pieces: int) -> dict:
    from mptsearch.enumerate.generate import EnumClass
    from mptsearch.enumerate.run import run_enumeration

    with tempfile.TemporaryDirectory() as d:
        run_enumeration(EnumClass(7, 4, 4, 5, 5), Path(d) / "warm.sqlite", max_pieces=2)
        t, w = time.process_time(), time.perf_counter()
        res = run_enumeration(EnumClass(7, 4, 4, 12, 12), Path(d) / "s.sqlite", max_pieces=pieces)
        cpu, wall = time.process_time() - t, time.perf_counter() - w
    by = res.by_m.get(12, {"count": 0, "evaluated": 0, "max": None})
    return {"cpu": cpu, "wall": wall, "members": int(by["count"]), "evaluated": int(by["evaluated"]),
            "max": str(by["max"])}


def worker(task: str, args: list[str]) -> None:
    if task == "anneal":
        out = work_anneal(int(args[0]))
    elif task == "free":
        out = work_free(int(args[0]), args[1])
    else:
        out = work_enum(int(args[0]))
    print(json.dumps(out))


# ---- driver --------------------------------------------------------------------------------------

CACHES: dict = {}  # tree -> a fresh NUMBA_CACHE_DIR for this run


def run_in(tree: str, task: str, *args) -> dict:
    # A fresh cache per tree: numba's cache does not notice that a kernel inlined from
    # another file changed, so an old cache could time old code.
    if tree not in CACHES:
        CACHES[tree] = tempfile.mkdtemp(prefix="numba-cache-")
    env = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1", NUMBA_CACHE_DIR=CACHES[tree])
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", task, *map(str, args)]
    out = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"worker {task} {args} in {tree} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def side_by_side(trees: dict, repeats: int, task: str, *args) -> dict:
    """Repeats alternating the order of the trees; all raw results per tree."""
    res = {name: [] for name in trees}
    names = list(trees)
    for r in range(repeats):
        for name in (names if r % 2 == 0 else names[::-1]):
            res[name].append(run_in(trees[name], task, *args))
    return res


def _median(rows, key):
    return statistics.median(r[key] for r in rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", nargs="+")
    ap.add_argument("--base", help="checkout of the code before (a git worktree of main)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--anneal-ms", default="8,9,10,11,12")
    ap.add_argument("--free-ms", default="16,18,20,22")
    ap.add_argument("--enum-pieces", type=int, default=4)
    ap.add_argument("--out", default="benchmarks/results/kernels_before_after")
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker[0], a.worker[1:])
    if not a.base:
        raise SystemExit("--base DIR (a checkout of the code before) is required")
    here = str(Path(__file__).resolve().parent.parent)
    trees = {"before": str(Path(a.base).resolve()), "after": here}
    commits = {k: subprocess.run(["git", "-C", v, "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip() for k, v in trees.items()}
    for name, tree in trees.items():  # fill each tree's numba cache once
        run_in(tree, "anneal", 8)
        run_in(tree, "free", 12, "dense")
        run_in(tree, "enum", 1)
    data = {"commits": commits, "repeats": a.repeats, "cpus": os.cpu_count(),
            "load_average_start": os.getloadavg(), "anneal": {}, "free": {}, "enum": None}
    for m in [int(v) for v in a.anneal_ms.split(",") if v]:
        data["anneal"][m] = side_by_side(trees, a.repeats, "anneal", m)
    for m in [int(v) for v in a.free_ms.split(",") if v]:
        for shape in ("sparse", "dense"):
            data["free"][f"{m} {shape}"] = side_by_side(trees, a.repeats, "free", m, shape)
    if a.enum_pieces:
        data["enum"] = side_by_side(trees, a.repeats, "enum", a.enum_pieces)
    data["load_average_end"] = os.getloadavg()
    report(data, a)


def report(data: dict, a) -> None:
    """Write ``<out>.json`` (raw runs) and ``<out>.txt`` (the table), both from the data."""
    lines = [f"before {data['commits']['before']} vs after {data['commits']['after']}, "
             f"{data['repeats']} alternating repeats, medians of CPU time, one numba thread; "
             f"{data['cpus']} cpus shared with other jobs (load average "
             f"{data['load_average_start'][0]:.1f} at start, {data['load_average_end'][0]:.1f} at end)",
             "", "annealing, k=4 n=7 ratio objective: evaluations per CPU second",
             f"{'m':>4} {'before':>10} {'after':>10} {'after/before':>13}"]
    for m, res in data["anneal"].items():
        b, f = _median(res["before"], "rate"), _median(res["after"], "rate")
        lines.append(f"{m:>4} {b:>10,.0f} {f:>10,.0f} {f / b:>13.2f}")
    lines += ["", "OPT_free DP (savings_table, blocked, one thread): ns per pair (3^m/2 pairs)",
              f"{'m':>4} {'shape':>7} {'n':>4} {'dtype':>6} {'before':>8} {'after':>8} {'after/before':>13}"]
    for key, res in data["free"].items():
        m, shape = key.split()
        b, f = _median(res["before"], "ns_per_pair"), _median(res["after"], "ns_per_pair")
        same = {(r["savings"], r["instance_crc32"]) for r in res["before"] + res["after"]}
        assert len(same) == 1, f"before and after disagree on {key} (instance or OPT_free)"
        r0 = res["after"][0]
        lines.append(f"{m:>4} {shape:>7} {r0['n']:>4} {r0['dtype']:>6} {b:>8.3f} {f:>8.3f} {f / b:>13.2f}")
    by_m = {}
    for key, res in data["free"].items():
        m, shape = key.split()
        by_m.setdefault(m, {})[shape] = {t: _median(res[t], "ns_per_pair") for t in ("before", "after")}
    lines += ["", "dense / sparse time per pair (1.00 = dense as fast as sparse)",
              f"{'m':>4} {'before':>8} {'after':>8}"]
    for m, d in by_m.items():
        if "dense" in d and "sparse" in d:
            lines.append(f"{m:>4} {d['dense']['before'] / d['sparse']['before']:>8.2f} "
                         f"{d['dense']['after'] / d['sparse']['after']:>8.2f}")
    if data["enum"]:
        e = data["enum"]
        counts = {(r["members"], r["evaluated"], r["max"]) for r in e["before"] + e["after"]}
        mem, ev, mx = sorted(counts)[0]
        lines += ["", f"enumeration, k=4 n=7 m=12, first {a.enum_pieces} pieces "
                      f"({mem} members, {ev} through the DP, max ratio {mx}; "
                      f"{'equal' if len(counts) == 1 else 'DIFFERENT'} before and after): seconds",
                  f"{'':>5} {'before':>8} {'after':>8} {'after/before':>13}"]
        for key in ("cpu", "wall"):
            b, f = _median(e["before"], key), _median(e["after"], key)
            lines.append(f"{key:>5} {b:>8.2f} {f:>8.2f} {f / b:>13.2f}")
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    for path, body in ((out.with_suffix(".json"), json.dumps(data, indent=1) + "\n"),
                       (out.with_suffix(".txt"), text)):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(body)
        os.replace(tmp, path)


if __name__ == "__main__":
    main()
