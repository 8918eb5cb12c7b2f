"""OPT_free of the FanOutQA k=10 trace by the directed-cut branch-and-cut (``--solver dcut``, the
default) or the closure arborescence (``--solver closure``, what the committed results were
computed with; each row's ``method`` says which): the online ratio's bracket tightened, and exact
ratios on prefixes of the trace (docs/online.md Section 8). ``lower_highs`` is the solver's own
lower bound (HiGHS's, or SCIP's tree for dcut: a solver's word either way).

Writes results/online_exact/:

- ``meta.json`` (config, seed, version, commit, machine) first;
- ``whole.json``: the whole trace (3,228 lines, 2,896 distinct requests, token weights):
  :func:`mptsearch.exact.arborescence.opt_free_closure` within ``--whole-seconds``, then the
  LP-dual certificate of :mod:`mptsearch.verify.lpdual` rechecked in fractions. It records the
  upper bound (the trie cost of the best layout found, recomputed on the trace's lines), HiGHS's
  own lower bound (a solver's word) and the certified lower bound (trusts no solver), and
  OPT_free when the program finished;
- ``prefixes.csv``: the first N lines of the trace in given and shuffled arrival (the shuffle
  of experiments/serving.py, reproduced and checked against its online.csv), OPT_free of each
  prefix by the same program and certificate, and ``online_layout``'s cost on the prefix for
  every window of experiments/serving.py, with the ratio (exact where OPT_free is, else the
  bracket), drawn in ``prefix_ratio.png``;
- ``summary.json`` (timings).

The trace is read from results/serving/_work/trace_k10.jsonl (git-ignored, built by
``python -m experiments.serving``); its sha256 must equal the one results/serving recorded.
Each solve is checkpointed in results/online_exact/_work/ (git-ignored) under a key of the
instance, the time limit and the library version, so ``--part whole`` and ``--part prefixes``
can run apart (each well under ten minutes on one core) and a later run reuses them; every
output row says when and at which commit its solve ran. ``--fresh`` ignores the checkpoints.

    python -m experiments.online_exact --part whole
    python -m experiments.online_exact --part prefixes
    python -m experiments.online_exact            # both, reusing the checkpoints
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from ._common import ROOT, Run, parser

TRACE = ROOT / "results" / "serving" / "_work" / "trace_k10.jsonl"
TRACE_INFO = ROOT / "results" / "serving" / "trace_k10_info.json"
SERVING_SEED = 20240606  # experiments/serving.py's SEED: its shuffle is reproduced here
SERVING_KS = (5, 10)  # the traces shuffled before k = 10's in experiments/serving.py's loop
WINDOWS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]  # experiments/serving.py's
PREFIXES = [50, 100, 200, 400, 800, 1600, 2400]
WHOLE_SECONDS = 360.0
PREFIX_SECONDS = 120.0


def load_trace():
    """The k=10 trace, checked against the sha256 that results/serving recorded."""
    from mptsearch.serving.trace import read_trace

    if not TRACE.exists():
        raise SystemExit(f"{TRACE.relative_to(ROOT)} is missing: build it with `python -m experiments.serving` "
                         f"(needs the optional extra `trace`)")
    want = json.loads(TRACE_INFO.read_text())["trace_sha256"]
    got = hashlib.sha256(TRACE.read_bytes()).hexdigest()
    if got != want:
        raise SystemExit(f"{TRACE.relative_to(ROOT)} has sha256 {got}, results/serving recorded {want}")
    return read_trace(str(TRACE)), got


def shuffled_rows(size: int) -> list:
    """The line order of experiments/serving.py's shuffled k=10 trace: its generator, seeded with
    SERVING_SEED, draws one permutation per k in turn (k = 5 first)."""
    rng = np.random.default_rng(SERVING_SEED)
    perm = None
    for _ in SERVING_KS:
        perm = rng.permutation(size)
    return [int(i) for i in perm]


def online_costs(trace) -> dict:
    """``online_layout``'s prefill on ``trace`` for every window, and offline (W = all lines)."""
    from mptsearch.serving.layout import method_orders
    from mptsearch.serving.trace import sequences_cost

    w = trace.instance.weights
    out = {}
    for W in WINDOWS + [trace.size]:
        label = "offline" if W == trace.size else str(W)
        out[label] = sequences_cost(w, method_orders(trace, "online", window=W)[0].rows())
    return out


#: ``--solver``: the program behind OPT_free (the directed-cut branch-and-cut by default: on the
#: whole trace its cut LP is the stronger bound, docs/exact.md)
SOLVERS = ("dcut", "closure")


def instance_key(inst, seconds: float, solver: str = "closure") -> str:
    import mptsearch

    h = hashlib.sha256()
    for r in sorted(sorted(int(x) for x in o) for o in inst.orders):
        h.update(repr(r).encode())
    h.update(repr([int(x) for x in inst.weights]).encode())
    h.update(f"{seconds}|{mptsearch.__version__}".encode())
    if solver != "closure":  # the closure program's checkpoints keep their keys
        h.update(f"|{solver}".encode())
    return h.hexdigest()[:20]


def solve(trace, seconds: float, work: Path, fresh: bool, commit: str, solver: str = "dcut") -> dict:
    """OPT_free of the trace's distinct requests by ``solver`` (:data:`SOLVERS`: the directed-cut
    branch-and-cut of :mod:`mptsearch.exact.dcut_bnc`, or the closure program) within
    ``seconds``, the LP-dual certificate checked (with the cut rows for dcut), the upper bound
    recomputed on the trace's lines. Checkpointed in ``work`` (module docstring)."""
    from mptsearch.exact.arborescence import opt_free_closure
    from mptsearch.exact.dcut_bnc import METHOD, opt_free_dcut
    from mptsearch.serving.trace import line_orders, sequences_cost
    from mptsearch.trie import trie_cost
    from mptsearch.verify.lpdual import check_dual, dual_certificate

    from importlib.metadata import version

    inst = trace.instance
    if solver not in SOLVERS:
        raise ValueError(f"unknown solver {solver!r}; use one of {', '.join(SOLVERS)}")
    path = work / f"{instance_key(inst, seconds, solver)}.json"
    if path.exists() and not fresh:
        return json.loads(path.read_text()) | {"checkpoint": "reused"}
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    t0, c0 = time.perf_counter(), time.process_time()
    run = opt_free_dcut if solver == "dcut" else opt_free_closure
    r = run(inst, time_limit=seconds, keep_duals=True)
    solve_wall, solve_cpu = time.perf_counter() - t0, time.process_time() - c0
    upper = trie_cost(inst, r.layout)
    on_lines = sequences_cost(inst.weights, line_orders(trace, r.layout))
    if upper != r.upper or on_lines != upper:
        raise RuntimeError(f"upper bound {r.upper} recomputes to {upper} on the trie and {on_lines} on the lines")
    t1 = time.perf_counter()
    cert = dual_certificate(inst, r)
    chk = check_dual(inst, cert)
    if not chk.ok:
        raise RuntimeError(f"the LP-dual certificate was refused: {chk.problem}")
    cert_seconds = time.perf_counter() - t1
    certified = chk.lower
    row = {"lines": trace.size, "requests": inst.m, "chunks": inst.n, "total_weight": inst.total_weight(),
           "method": (f"{METHOD} (highspy {version('highspy')}, PySCIPOpt {version('PySCIPOpt')})" if solver == "dcut"
                      else "closure arborescence (highspy " + version("highspy") + ")"),
           "time_limit_s": seconds, "status": r.status, "optimal": r.optimal,
           "opt_free": r.value, "upper": upper, "lower_highs": r.lower, "lp_bound": round(r.lp_bound, 3),
           "lower_certified": certified, "certificate_rows": chk.rows, "certificate_arcs": chk.arcs,
           "certified_exact": certified >= upper,
           "closure_sets": r.sets, "cover_arcs": r.arcs, "components": r.components,
           "solve_wall_s": round(solve_wall, 2), "solve_cpu_s": round(solve_cpu, 2),
           "certificate_s": round(cert_seconds, 2), "started": started, "commit": commit}
    work.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(row, indent=1) + "\n")
    tmp.replace(path)
    return row | {"checkpoint": "computed"}


def bracket(row: dict) -> tuple[int, int, int, str]:
    """(proved lower, HiGHS lower, upper, how) of OPT_free from a :func:`solve` row. The proved
    lower bound is the certificate's; HiGHS's "Optimal" counts as exact only as a solver's word."""
    if row["certified_exact"]:
        how = "exact, certified by the LP dual"
    elif row["optimal"]:
        how = "exact by HiGHS (LP dual certifies only the lower bound given)"
    else:
        how = "bracket: LP-dual certificate .. best layout"
    return row["lower_certified"], row["lower_highs"], row["upper"], how


def _record(run: Run, label: str, row: dict) -> None:
    """The solve's own wall seconds (program + certificate) in the timings, as recorded when it
    ran: a run that reuses a checkpoint times only the reading."""
    run.timings[f"{label}_solve_and_certificate_as_recorded"] = round(row["solve_wall_s"] + row["certificate_s"], 2)


def whole_part(tr, run: Run, work: Path, args, commit: str) -> dict:
    with run.timed("whole"):
        row = solve(tr, args.whole_seconds, work, args.fresh, commit, args.solver)
    _record(run, "whole", row)
    run.write_json("whole.json", row)
    print(f"whole trace: {row['lower_certified']} (certified) <= {row['lower_highs']} (HiGHS) <= OPT_free "
          f"<= {row['upper']}; {row['status']} in {row['solve_wall_s']} s ({row['checkpoint']})")
    return row


def prefix_part(tr, run: Run, work: Path, args, commit: str) -> list:
    from mptsearch.serving.trace import sequences_cost

    serving = {(r["arrival"], r["W"]): int(r["prefill"])
               for r in csv.DictReader(open(ROOT / "results" / "serving" / "online.csv")) if r["k"] == "10"}
    orders = {"given": list(range(tr.size)), "shuffled": shuffled_rows(tr.size)}
    # the shuffle is serving's: its online cost on the whole trace is online.csv's, for two windows
    from mptsearch.serving.layout import method_orders
    for W in (1, 512):
        whole = tr.subset(orders["shuffled"])
        got = sequences_cost(whole.instance.weights, method_orders(whole, "online", window=W)[0].rows())
        if got != serving[("shuffled", str(W))]:
            raise SystemExit(f"the shuffle is not serving's: online W={W} costs {got}, online.csv says "
                             f"{serving[('shuffled', str(W))]}")
    rows = []
    for arrival, order in orders.items():
        for N in args.prefixes:
            sub = tr.subset(order[:N])
            with run.timed(f"prefix_{arrival}_{N}"):
                sol = solve(sub, args.prefix_seconds, work, args.fresh, commit, args.solver)
                alg = online_costs(sub)
            _record(run, f"prefix_{arrival}_{N}", sol)
            lo, lo_h, up, how = bracket(sol)
            for W, c in alg.items():
                exact = sol["certified_exact"] or sol["optimal"]
                rows.append({"arrival": arrival, "N": N, "requests": sol["requests"], "W": W, "online_prefill": c,
                             "opt_free": sol["opt_free"] if exact else "", "opt_free_lower": lo_h, "opt_free_upper": up,
                             "opt_free_lower_certified": lo, "opt_free_how": how,
                             "ratio": round(c / up, 4) if exact else "",
                             "ratio_at_least": round(c / up, 4), "ratio_at_most": round(c / lo_h, 4),
                             "ratio_at_most_certified": round(c / lo, 4),
                             "solve_wall_s": sol["solve_wall_s"], "solve_started": sol["started"],
                             "solve_commit": sol["commit"]})
            print(f"{arrival} N={N}: m={sol['requests']} {how}: {lo} <= {lo_h} <= OPT_free <= {up} "
                  f"({sol['solve_wall_s']} s, {sol['checkpoint']})", flush=True)
    run.write_csv("prefixes.csv", rows)
    return rows


def plot_prefixes(folder: Path) -> Path:
    """``prefix_ratio.png``: ALG / OPT_free against W on each prefix of ``prefixes.csv``, a line
    where OPT_free is exact (solid: LP-dual certified; dashed: HiGHS's word), the proved band
    where it is not."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in csv.DictReader(open(folder / "prefixes.csv")) if r["W"] != "offline"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for ax, arrival in zip(axes, ("given", "shuffled")):
        for N in sorted({int(r["N"]) for r in rows}):
            sel = [r for r in rows if r["arrival"] == arrival and int(r["N"]) == N]
            if not sel:
                continue
            x = [int(r["W"]) for r in sel]
            m = sel[0]["requests"]
            if sel[0]["ratio"]:
                style = "-" if sel[0]["opt_free_how"].startswith("exact, certified") else "--"
                ax.plot(x, [float(r["ratio"]) for r in sel], "o" + style, ms=3,
                        label=f"N = {N} (m = {m}): exact" + (", certified" if style == "-" else " (HiGHS)"))
            else:
                lo = [float(r["ratio_at_least"]) for r in sel]
                ax.fill_between(x, lo, [float(r["ratio_at_most_certified"]) for r in sel], alpha=0.25)
                ax.plot(x, lo, "s:", ms=3, label=f"N = {N} (m = {m}): proved bracket")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("reorder window W")
        ax.set_title(f"first N lines of the FanOutQA k=10 trace, {arrival} arrival")
        ax.legend(fontsize=7)
    axes[0].set_ylabel("online_layout / OPT_free")
    from ._common import save_figure

    fig.tight_layout()
    return save_figure(fig, folder / "prefix_ratio.png", dpi=110)


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--part", choices=["whole", "prefixes", "all"], default="all")
    p.add_argument("--whole-seconds", type=float, default=WHOLE_SECONDS)
    p.add_argument("--prefix-seconds", type=float, default=PREFIX_SECONDS)
    p.add_argument("--prefixes", type=int, nargs="*", default=PREFIXES)
    p.add_argument("--fresh", action="store_true", help="ignore the checkpoints in results/online_exact/_work")
    p.add_argument("--solver", choices=SOLVERS, default="dcut", help="the program behind OPT_free")
    args = p.parse_args(argv)
    tr, sha = load_trace()
    run = Run("online_exact", {"trace": "results/serving/_work/trace_k10.jsonl", "trace_sha256": sha,
                               "part": args.part, "whole_seconds": args.whole_seconds,
                               "prefix_seconds": args.prefix_seconds, "prefixes": args.prefixes,
                               "windows": WINDOWS, "serving_seed": SERVING_SEED, "threads": 1, "solver": args.solver},
              args.seed, args.out)
    work = run.dir / "_work"
    commit = run.meta["git_commit"]
    if args.part in ("whole", "all"):
        whole_part(tr, run, work, args, commit)
    if args.part in ("prefixes", "all"):
        prefix_part(tr, run, work, args, commit)
        with run.timed("plot"):
            plot_prefixes(run.dir)
    run.finish([])


if __name__ == "__main__":
    main()
