"""C5 at scale: agglomerative, greedy and heaviest-first against OPT_free on RAG-shaped
instances of m = 100..1000 requests (issue 25, use (b)).

C5 itself (experiments/rag_shaped.py) stops at m = 15: its OPT_free is the subset DP's. Here
OPT_free comes from :func:`mptsearch.exact.auto.opt_free_exact` (whatever exact method main
picks for the size: the closure arborescence of :mod:`mptsearch.exact.arborescence` past the
DP's reach) within a per-instance wall budget. When it finishes, OPT_free is exact (HiGHS's
proof plus a layout whose trie cost is the value, rechecked here); when it does not, the row
keeps the proved bracket lower <= OPT_free <= upper (lower: HiGHS's dual bound; upper: the
trie cost of the best layout found) and every heuristic's ratio is the interval
[cost / upper, cost / lower], never a value. ``--dcut`` narrows the bracketed rows with the
directed-cut solver (:func:`mptsearch.exact.dcut_bnc.opt_free_dcut`); the table says which
method proved each exact row (:func:`proved_by`).

Instances: experiments/rag_shaped.py's generator (4 Zipf topics, token weights 50..400), in
:data:`SHAPES` (request sizes and chunks per topic) x :data:`MS` x ``--instances`` seeds, plus
m = 16 (the subset DP) as the anchor to C5. Instance (shape, m, j) draws from
``numpy.random.default_rng([seed, shape index, m, j])``, so it does not depend on which run or
shard computes it.

Checkpoints: one file per instance in results/rag_scale/_work/ (git-ignored), written whole;
a rerun skips the instances already there, ``--shard i/N`` takes every N-th instance. Once
every instance of the grid is there (or with ``--report``), the data file
results/rag_scale/instances.csv, table.md, ratio_vs_m.png and summary.json are built from the
checkpoints (``--report`` alone rebuilds them, and instances.csv from the checkpoints when
they are all there, without computing anything).

A second pass, ``--dual``, gives every instance the LP-dual lower bound of
:mod:`mptsearch.verify.lpdual` (rechecked in exact arithmetic: it trusts no solver), so the
table can also state each ratio on brackets that lean on no solver (meta_dual.json records it, as
meta_dcut.json the third pass).

    python -m experiments.rag_scale                 # the campaign (resumes), then the report
    python -m experiments.rag_scale --shard 0/2     # half of it (run 1/2 beside it)
A third pass, ``--dcut``, gives every instance the first pass left bracketed the directed-cut
branch-and-cut of :mod:`mptsearch.exact.dcut_bnc` (SCIP's tree; its layout recosted on the trie)
and the LP-dual certificate of its root cut LP (cut rows, rechecked in fractions); the report then
narrows each bracket to the tighter ends of both passes (meta_dcut.json records the last run of the pass,
and every other run, before it or in another shard at the same time, under ``earlier``; checkpoints
``dcut-*.json`` in _work/, the fields :data:`DCUT_FIELDS` in instances.csv).

    python -m experiments.rag_scale --dual          # the solver-free lower bounds (resumes)
    python -m experiments.rag_scale --dcut          # the directed-cut pass on the bracketed ones (resumes)
    python -m experiments.rag_scale --dcut --dcut-time-limit 60 --clock wall   # its limit in wall seconds
    python -m experiments.rag_scale --report        # table, figure, summary from instances.csv

The dcut pass's limit counts this process's CPU seconds unless ``--clock wall`` (its behaviour
before the option): on a shared machine the load then does not shrink the solver's share.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

from ._common import RESULTS, Run, decimals, parser, save_figure
from .rag_shaped import rag_instance

NAME = "rag_scale"
#: name -> (request sizes lo..hi, chunks per topic). "c5" is C5's own shape.
SHAPES = {"k2-4": ((2, 4), 15), "k3-5": ((3, 5), 15), "c5": ((5, 8), 15), "k5 pool50": ((5, 5), 50)}
ANCHOR_M = 16
MS = (100, 200, 500, 1000)
INSTANCES = 4
TIME_LIMIT = 60.0
#: the heuristics measured (mptsearch.heuristics.registry names); the figure shows FIGURE's
HEURISTICS = ("agglomerative", "greedy", "heaviest-first", "best-of", "class-orders")
FIGURE = ("agglomerative", "greedy", "heaviest-first")
FIELDS = ("shape", "k_lo", "k_hi", "pool", "m", "j", "n", "total", "exact", "lower", "upper", "method",
          "status", "closure_sets", "closure_arcs", "solve_wall", "solve_cpu", "time_limit") \
    + tuple(f"cost_{h}" for h in HEURISTICS) + ("heuristics_cpu", "load", "version", "git_commit")
#: the second pass (``--dual``): a lower bound that trusts no solver, per instance
DUAL_FIELDS = ("dual_lower", "dual_rows", "dual_cpu", "dual_git_commit")
DUAL_LIMIT = 20.0
#: the third pass (``--dcut``): the directed-cut branch-and-cut's bracket and certified bound
DCUT_FIELDS = ("dcut_lower", "dcut_certified", "dcut_upper", "dcut_status", "dcut_wall", "dcut_cpu",
               "dcut_time_limit", "dcut_clock", "dcut_git_commit")
DCUT_LIMIT = 60.0
#: what the dcut pass's limit counts by default: this process's CPU seconds (a shared machine's
#: load does not shrink the solver's share); "wall" is the pass's earlier behaviour
DCUT_CLOCK = "cpu"
_DCUT_INTS = ("dcut_lower", "dcut_certified", "dcut_upper")


def cells(instances: int = INSTANCES) -> list[tuple[str, int, int]]:
    """Every (shape, m, j) of the grid, the anchor m = 16 first, then by m."""
    ms = (ANCHOR_M,) + MS
    return [(s, m, j) for m in ms for s in SHAPES for j in range(instances)]


def make_instance(shape: str, m: int, j: int, seed: int):
    """Instance j of (shape, m): rag_instance with the shape's sizes and pool."""
    k, pool = SHAPES[shape]
    rng = np.random.default_rng([seed, list(SHAPES).index(shape), m, j])
    return rag_instance(m, rng, k=k, pool=pool)


def opt_free_bracket(inst, time_limit: float | None, *, max_dp_m: int = 25) -> dict:
    """OPT_free by :func:`mptsearch.exact.auto.opt_free_exact`, as a bracket.

    Returns {exact, lower, upper, method, status, closure_sets, closure_arcs}: lower = upper =
    OPT_free when exact, else lower <= OPT_free <= upper (lower: the solver's bound or the
    chunks' weight, whichever is larger). ``upper`` is the trie cost of the solver's layout, recomputed here (a ValueError if it disagrees with the solver's figure).
    ``max_dp_m`` is passed on (0 sends every instance to the closure program: the tests use it).
    """
    from mptsearch.exact.auto import opt_free_exact
    from mptsearch.trie import trie_cost

    r, method = opt_free_exact(inst, max_dp_m=max_dp_m, time_limit=time_limit)
    exact = bool(getattr(r, "optimal", True))
    upper = trie_cost(inst, r.layout)
    # an unfinished solve may have no dual bound yet (0): every chunk labels a trie node, so
    # OPT_free >= the weight of the chunks used (docs/approximation.md, bound L1)
    lower = int(r.value) if exact else max(int(r.lower), chunk_weight(inst))
    if (exact and upper != r.value) or (not exact and upper != r.upper) or lower > upper:
        raise ValueError(f"{method}: layout costs {upper} on the trie, solver says {r.value or r.upper}")
    return {"exact": exact, "lower": lower, "upper": upper, "method": method,
            "status": getattr(r, "status", "optimal"), "closure_sets": getattr(r, "sets", 0),
            "closure_arcs": getattr(r, "arcs", 0)}


def chunk_weight(inst) -> int:
    """sum_x w(x) over the chunks the requests use: a lower bound on OPT_free (L1)."""
    return sum(int(inst.weights[x]) for x in {x for order in inst.orders for x in order})


def heuristic_costs(inst) -> dict:
    """name -> trie cost of the registered heuristic's layout (rechecked on the trie)."""
    from mptsearch.heuristics.registry import heuristic, layout_and_cost
    from mptsearch.trie import trie_cost

    out = {}
    for h in HEURISTICS:
        layout, cost = layout_and_cost(inst, heuristic(h).function(inst))
        if trie_cost(inst, layout) != cost:
            raise ValueError(f"{h}: layout costs {trie_cost(inst, layout)} on the trie, not {cost}")
        out[h] = cost
    return out


def ratio_interval(cost: int, lower: int, upper: int) -> tuple[Fraction, Fraction]:
    """cost / OPT_free for lower <= OPT_free <= upper: the interval [cost/upper, cost/lower]
    (one point when lower = upper)."""
    return Fraction(cost, upper), Fraction(cost, lower)


def measure(shape: str, m: int, j: int, seed: int, time_limit: float, commit: str = "unknown") -> dict:
    """One row of instances.csv; ``commit`` is the code's, read once when the run starts (HEAD
    may move while a long run goes on)."""
    import os

    import mptsearch

    inst = make_instance(shape, m, j, seed)
    (klo, khi), pool = SHAPES[shape]
    t, c = time.perf_counter(), time.process_time()
    opt = opt_free_bracket(inst, time_limit)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    c = time.process_time()
    costs = heuristic_costs(inst)
    return {"shape": shape, "k_lo": klo, "k_hi": khi, "pool": pool, "m": inst.m, "j": j, "n": inst.n,
            "total": inst.total_weight(), **opt, "solve_wall": round(wall, 3), "solve_cpu": round(cpu, 3),
            "time_limit": time_limit, **{f"cost_{h}": v for h, v in costs.items()},
            "heuristics_cpu": round(time.process_time() - c, 3), "load": round(os.getloadavg()[0], 2),
            "version": mptsearch.__version__, "git_commit": commit[:12]}


def dual_lower(inst, time_limit: float) -> dict:
    """The LP-dual lower bound of :mod:`mptsearch.verify.lpdual` (HiGHS's row duals of the closure
    LP, rounded to fractions and rechecked by :func:`~mptsearch.verify.lpdual.check_dual` in exact
    arithmetic: no solver trusted); ``time_limit`` wall seconds for the closure solve that yields
    the duals. {dual_lower, dual_rows}; a certificate the checker rejects raises ValueError."""
    from mptsearch.exact.arborescence import opt_free_closure
    from mptsearch.verify.lpdual import check_dual, dual_certificate

    r = opt_free_closure(inst, time_limit=time_limit, keep_duals=True)
    cert = dual_certificate(inst, r)
    got = check_dual(inst, cert)
    if not got.ok:
        raise ValueError(f"LP-dual certificate rejected: {got.problem}")
    return {"dual_lower": int(got.lower), "dual_rows": got.rows}


def run_duals(out: Path, seed: int, instances: int, time_limit: float, shard: tuple[int, int], commit: str) -> int:
    """The second pass: dual_lower for every instance of this shard that has none yet."""
    done = 0
    for idx, (shape, m, j) in enumerate(cells(instances)):
        path = _work(out) / ("dual-" + _cell_file(out, shape, m, j).name)
        if idx % shard[1] != shard[0] or path.exists():
            continue
        c = time.process_time()
        row = dual_lower(make_instance(shape, m, j, seed), time_limit)
        row.update(dual_cpu=round(time.process_time() - c, 3), dual_git_commit=commit[:12])
        _write_whole(path, json.dumps(row) + "\n")
        done += 1
        print(f"dual {shape} m={m} j={j}: {row['dual_lower']} [{row['dual_cpu']:.1f} s cpu]", flush=True)
    return done


def dcut_bracket(inst, time_limit: float, clock: str = DCUT_CLOCK) -> dict:
    """OPT_free by :func:`mptsearch.exact.dcut_bnc.opt_free_dcut` within ``time_limit`` seconds of
    ``clock`` ("cpu": this process's CPU seconds; "wall"): the
    solver's lower bound (the tree's, a solver's word), the certified one (the root cut LP's
    dual with its cut rows, rechecked by :func:`~mptsearch.verify.lpdual.check_dual`) and the
    trie cost of its layout. A rejected certificate or an inconsistent bracket raises ValueError."""
    from mptsearch.exact.dcut_bnc import opt_free_dcut
    from mptsearch.trie import trie_cost
    from mptsearch.verify.lpdual import check_dual, dual_certificate

    r = opt_free_dcut(inst, time_limit=time_limit, keep_duals=True, clock=clock)
    upper = trie_cost(inst, r.layout)
    got = check_dual(inst, dual_certificate(inst, r))
    if not got.ok:
        raise ValueError(f"directed-cut LP-dual certificate rejected: {got.problem}")
    if not got.lower <= upper or not r.lower <= upper:
        raise ValueError(f"directed-cut bounds {got.lower}, {r.lower} above the layout's trie cost {upper}")
    return {"dcut_lower": int(max(r.lower, got.lower)), "dcut_certified": int(got.lower), "dcut_upper": int(upper),
            "dcut_status": r.status}


def run_dcut(out: Path, time_limit: float, shard: tuple[int, int], commit: str, seed: int,
             clock: str = DCUT_CLOCK) -> int:
    """The third pass: dcut_bracket for every instance of instances.csv with m >= 100 that the
    first pass left bracketed and that has no checkpoint yet; returns how many were computed."""
    _work(out).mkdir(parents=True, exist_ok=True)
    done = 0
    for idx, r in enumerate(read_rows(out)):
        path = _work(out) / ("dcut-" + _cell_file(out, r["shape"], r["m"], r["j"]).name)
        if r["exact"] or r["m"] < MS[0] or idx % shard[1] != shard[0] or path.exists():
            continue
        t, c = time.perf_counter(), time.process_time()
        row = dcut_bracket(make_instance(r["shape"], r["m"], r["j"], seed), time_limit, clock)
        row.update(dcut_wall=round(time.perf_counter() - t, 3), dcut_cpu=round(time.process_time() - c, 3),
                   dcut_time_limit=time_limit, dcut_clock=clock, dcut_git_commit=commit[:12])
        _write_whole(path, json.dumps(row) + "\n")
        done += 1
        print(f"dcut {r['shape']} m={r['m']} j={r['j']}: {r['lower']}..{r['upper']} -> certified "
              f"{row['dcut_certified']}, {row['dcut_lower']}..{row['dcut_upper']} ({row['dcut_status']}) "
              f"[{row['dcut_wall']:.1f} s wall, {row['dcut_cpu']:.1f} s cpu]", flush=True)
    return done


def merge_dcut(out: Path, rows: list[dict]) -> list[dict]:
    """The rows with their dcut checkpoints (when _work/ has them) merged in."""
    for r in rows:
        path = _work(out) / ("dcut-" + _cell_file(out, r["shape"], r["m"], r["j"]).name)
        if path.exists():
            r.update(json.loads(path.read_text()))
    return rows


def write_pass_meta(path: Path, mine: dict) -> None:
    """meta_dcut.json or meta_dual.json: this run of the pass (``mine``), and under ``earlier`` every other run
    the file and ``mine["earlier"]`` hold, oldest first. The file is re-read just before it is
    rewritten, so shards of the pass running at the same time keep each other's records (a run
    is known by its start, shard and command; the file's newer record of a run wins)."""
    def key(r):
        return r.get("started"), r.get("shard"), r.get("command")

    runs = []
    if path.exists():
        d = json.loads(path.read_text())
        runs = d.pop("earlier", []) + [d]
    seen, earlier = {key(mine)}, []
    for r in runs[::-1] + mine.get("earlier", []):
        if key(r) not in seen:
            seen.add(key(r))
            earlier.append(r)
    mine["earlier"] = sorted(earlier, key=lambda r: (str(r.get("started")), str(r.get("shard"))))
    _write_whole(path, json.dumps(mine, indent=1) + "\n")


def narrowed(r: dict) -> dict:
    """A row with its bracket narrowed by the dcut pass: lower the larger of the two solvers'
    bounds, upper the cheaper layout, the solver-free lower bound the larger of the two
    certificates; the first pass's ends kept as ``first_lower``/``first_upper``."""
    if r.get("dcut_upper") is None:
        return r
    out = dict(r, first_lower=r["lower"], first_upper=r["upper"])
    out["upper"] = min(r["upper"], r["dcut_upper"])
    out["lower"] = max(r["lower"], r["dcut_lower"])
    if r.get("dual_lower") is not None:
        out["dual_lower"] = max(r["dual_lower"], r["dcut_certified"])
    out["exact"] = out["lower"] >= out["upper"]
    if out["exact"]:
        out["method"] = f"{r['method']}+dcut"
    return out


def _work(out: Path) -> Path:
    return out / "_work"


def _cell_file(out: Path, shape: str, m: int, j: int) -> Path:
    return _work(out) / f"{shape.replace(' ', '_')}-m{m}-j{j}.json"


def _write_whole(path: Path, text: str) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def run_cells(out: Path, seed: int, instances: int, time_limit: float, shard: tuple[int, int], commit: str) -> int:
    """Compute the grid's missing instances of this shard; returns how many were computed."""
    _work(out).mkdir(parents=True, exist_ok=True)
    done = 0
    for idx, (shape, m, j) in enumerate(cells(instances)):
        path = _cell_file(out, shape, m, j)
        if idx % shard[1] != shard[0] or path.exists():
            continue
        row = measure(shape, m, j, seed, time_limit, commit)
        _write_whole(path, json.dumps(row) + "\n")
        done += 1
        lo, hi = ratio_interval(row["cost_agglomerative"], row["lower"], row["upper"])
        print(f"{shape} m={m} j={j}: {'exact' if row['exact'] else 'bracket'} {row['lower']}..{row['upper']} "
              f"agglomerative {float(lo):.4f}..{float(hi):.4f} [{row['solve_wall']:.1f} s wall, "
              f"{row['solve_cpu']:.1f} s cpu]", flush=True)
    return done


def collect(out: Path, instances: int) -> list[dict] | None:
    """The grid's rows from the checkpoints, in grid order; None while any is missing."""
    rows = []
    for shape, m, j in cells(instances):
        path = _cell_file(out, shape, m, j)
        if not path.exists():
            return None
        row = json.loads(path.read_text())
        dual = _work(out) / ("dual-" + path.name)
        row.update(json.loads(dual.read_text()) if dual.exists() else dict.fromkeys(DUAL_FIELDS, ""))
        rows.append(row)
    return rows


def write_rows(out: Path, rows: list[dict]) -> None:
    text_rows = [{f: r.get(f, "") for f in FIELDS + DUAL_FIELDS + DCUT_FIELDS} for r in rows]
    tmp = out / "instances.csv.tmp"
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=FIELDS + DUAL_FIELDS + DCUT_FIELDS)
        w.writeheader()
        w.writerows(text_rows)
    tmp.replace(out / "instances.csv")


def read_rows(out: Path) -> list[dict]:
    """instances.csv with its numbers and booleans parsed."""
    with open(out / "instances.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for f in FIELDS + DUAL_FIELDS + DCUT_FIELDS:
            v = r.get(f, "") or ""
            if f == "exact":
                r[f] = v == "True"
            elif f in ("solve_wall", "solve_cpu", "time_limit", "heuristics_cpu", "load", "dual_cpu", "dcut_wall",
                       "dcut_cpu", "dcut_time_limit"):
                r[f] = float(v) if v else None
            elif f == "dual_lower" or f in _DCUT_INTS:
                r[f] = int(v) if v else None
            elif v.lstrip("-").isdigit():
                r[f] = int(v)
    return rows


def _interval(row: dict, h: str, lower: str = "lower") -> tuple[Fraction, Fraction]:
    return ratio_interval(row[f"cost_{h}"], row[lower], row["upper"])


def _groups(rows: list[dict]) -> dict:
    out: dict = {}
    for r in rows:
        out.setdefault((r["shape"], r["m"]), []).append(r)
    return out


def _fmt_interval(lo, hi, pct: bool = False) -> str:
    """A ratio interval [lo, hi] (Fractions): its lower end rounded down and its upper end up, so
    the printed interval holds the exact one; one number, to the nearest, when lo = hi.
    ``pct``: as the percentage above 1 (2 decimals), else the ratio (4 decimals)."""
    def f(x, up):
        return decimals(100 * (x - 1), 2, up) + "%" if pct else decimals(x, 4, up)
    return f(lo, None) if lo == hi else f"[{f(lo, False)}, {f(hi, True)}]"


def _pct_up(x) -> str:
    """A gap or a width (a Fraction) in percent, rounded up: never printed narrower than it is."""
    return decimals(100 * Fraction(x), 2, True)


def cell_stats(group: list[dict], h: str, lower: str = "lower") -> dict:
    """Mean and worst ratio of heuristic h over a cell's instances, each an interval
    [over the lower ends, over the upper ends] (a point when every instance is exact);
    ``lower`` names the field of OPT_free's lower bound ("dual_lower": the LP dual's)."""
    ivs = [_interval(r, h, lower) for r in group]
    return {"mean": (sum(lo for lo, _ in ivs) / len(ivs), sum(hi for _, hi in ivs) / len(ivs)),
            "worst": (max(lo for lo, _ in ivs), max(hi for _, hi in ivs))}


def _dcut_limits(rows: list[dict]) -> str:
    """The dcut pass's limits as run, e.g. "60 CPU s" (rows of before the clock was recorded
    counted wall seconds)."""
    limits = sorted({(r["dcut_time_limit"], r.get("dcut_clock") or "wall") for r in rows
                     if r.get("dcut_upper") is not None})
    return " or ".join(f"{t:g} CPU s" if c == "cpu" else f"{t:g} s wall" for t, c in limits)


#: what proved a directed-cut pass's optimum, by the solver's status (mptsearch.exact.dcut_bnc)
_DCUT_PROOF = {"lp": "its root LP rounded up", "tree": "SCIP's tree", "dual ascent": "its dual ascent",
               "reduction": "its reductions"}


def proved_by(rows: list[dict]) -> str:
    """Which method proved each exact row's optimum, counted (rows after :func:`narrowed`): the
    subset DP, HiGHS's proof for the closure program, or the directed-cut pass (its status says
    how: the root LP rounded up, SCIP's tree, ...)."""
    first, dcut = Counter(), Counter()
    for r in rows:
        if not r["exact"]:
            continue
        if not r["method"].endswith("+dcut"):
            first[r["method"]] += 1
        elif r.get("first_lower", r["lower"]) >= r["upper"]:  # the first pass's bound met the dcut layout
            first["closure bound"] += 1
        else:
            how = r["dcut_status"].partition("(")[2].rstrip(")")
            dcut[" and ".join(_DCUT_PROOF.get(h, h) for h in how.split("+")) or r["dcut_status"]] += 1
    names = {"dp": "the subset DP", "closure": "HiGHS's proof of optimality for the closure program",
             "closure bound": "HiGHS's bound for the closure program and the directed-cut pass's layout"}
    parts = [f"{names.get(k, k)} on {n}" for k, n in sorted(first.items(), key=lambda kv: -kv[1])]
    if dcut:
        parts.append(f"the directed-cut pass on {sum(dcut.values())} ("
                     + ", ".join(f"{k} {n}" for k, n in sorted(dcut.items(), key=lambda kv: -kv[1])) + ")")
    return ", ".join(parts)


def table_md(rows: list[dict], meta: dict) -> str:
    """results/rag_scale/table.md from the rows only."""
    exact = sum(r["exact"] for r in rows)
    commits = sorted({r["git_commit"] for r in rows})
    dcut_rows = [r for r in rows if r.get("dcut_upper") is not None]
    lines = ["# C5 at scale: heuristic cost / OPT_free on RAG-shaped instances",
             "",
             f"Built from `instances.csv` by `python -m experiments.rag_scale --report` (rows computed at "
             f"commit{'s' if len(commits) > 1 else ''} {', '.join(commits)}; seed {meta['seed']}). "
             f"OPT_free by `mptsearch.exact.auto.opt_free_exact` within {meta['config']['time_limit']:g} s wall "
             "per instance (the subset DP at m = 16, the closure arborescence beyond). "
             f"**OPT_free exact on {exact} of {len(rows)} instances** (computed: a proved lower bound equal to "
             f"the trie cost of a layout; {proved_by(rows)}); on the others it is bracketed (lower: "
             + ("the larger of HiGHS's dual bound of the closure program and the directed-cut solver's bound"
                if dcut_rows else "HiGHS's dual bound of the closure program")
             + "; upper: the trie cost of the best layout found) and every ratio there is the interval "
             "[cost/upper, cost/lower]. A cell's mean and worst are intervals over the instances' lower and upper "
             "ends; one number where every instance of the cell is exact."
             + (f" **{len(dcut_rows)} bracketed instances narrowed by the "
                "directed-cut pass** (`--dcut`: `mptsearch.exact.dcut_bnc.opt_free_dcut` within "
                f"{_dcut_limits(dcut_rows)} per instance, at commit "
                f"{', '.join(sorted({r['dcut_git_commit'] for r in dcut_rows}))}; "
                "lower the larger of the two solvers' bounds, upper the cheaper layout; its certified bound in the "
                "next section)."
                if dcut_rows else ""),
             "",
             "| shape (request sizes, chunks per topic) | m | instances | exact | largest gap | "
             + " | ".join(f"{h} mean | {h} worst" for h in HEURISTICS) + " |",
             "|---|---|---|---|---|" + "---|---|" * len(HEURISTICS)]
    for (shape, m), g in _groups(rows).items():
        (klo, khi), pool = SHAPES[shape] if shape in SHAPES else ((g[0]["k_lo"], g[0]["k_hi"]), g[0]["pool"])
        gap = max(Fraction(r["upper"] - r["lower"], r["upper"]) for r in g)
        cols = []
        for h in HEURISTICS:
            s = cell_stats(g, h)
            cols += [_fmt_interval(*s["mean"]), _fmt_interval(*s["worst"])]
        lines.append(f"| {shape} ({klo}..{khi}, {pool}) | {m} | {len(g)} | {sum(r['exact'] for r in g)} | "
                     f"{_pct_up(gap)}% | " + " | ".join(cols) + " |")
    duals = all(r.get("dual_lower") is not None for r in rows)
    if duals:
        lines += ["", "## Trusting no solver", "",
                  "The brackets above lean on the solvers (HiGHS's proofs and dual bounds, SCIP's tree). Here the lower end "
                  "is instead the LP-dual bound of `mptsearch.verify.lpdual` (`python -m experiments.rag_scale "
                  f"--dual`, at commit {', '.join(sorted({r['dual_git_commit'] for r in rows}))}: the closure LP's "
                  "row duals, rounded to fractions and rechecked in exact arithmetic by `check_dual`), with the same "
                  "upper end (a layout's trie cost): proved without trusting any "
                  "solver. Agglomerative's ratio per cell on these brackets:",
                  "",
                  "| shape | m | largest gap (upper - LP dual) / upper | agglomerative mean | agglomerative worst |",
                  "|---|---|---|---|---|"]
        for (shape, m), g in _groups(rows).items():
            gap = max(Fraction(r["upper"] - r["dual_lower"], r["upper"]) for r in g)
            st = cell_stats(g, "agglomerative", lower="dual_lower")
            lines.append(f"| {shape} | {m} | {_pct_up(gap)}% | {_fmt_interval(*st['mean'])} | "
                         f"{_fmt_interval(*st['worst'])} |")
    lines += ["", "## Every instance", "",
              "| shape | m | j | n | OPT_free | method | solve s (wall / cpu) | LP-dual lower bound | "
              + " | ".join(FIGURE) + " |",
              "|---|---|---|---|---|---|---|---|" + "---|" * len(FIGURE)]
    for r in rows:
        opt = str(r["lower"]) if r["exact"] else f"{r['lower']}..{r['upper']}"
        dual = "-" if r.get("dual_lower") is None else str(r["dual_lower"])
        lines.append(f"| {r['shape']} | {r['m']} | {r['j']} | {r['n']} | {opt} | {r['method']} | "
                     f"{r['solve_wall']:.2f} / {r['solve_cpu']:.2f} | {dual} | "
                     + " | ".join(_fmt_interval(*_interval(r, h)) for h in FIGURE) + " |")
    return "\n".join(lines) + "\n"


def plot(rows: list[dict], out: Path) -> Path:
    """ratio_vs_m.png: one panel per shape, each heuristic's mean ratio per m (an error bar
    from the mean of the lower ends to the mean of the upper ends where some OPT_free is only
    bracketed), the instances as faint points or bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shapes = list(dict.fromkeys(r["shape"] for r in rows))
    fig, axes = plt.subplots(1, len(shapes), figsize=(3.4 * len(shapes), 3.6), sharey=True, squeeze=False)
    colors = {"agglomerative": "C0", "greedy": "C1", "heaviest-first": "C2"}
    groups = _groups(rows)
    for ax, shape in zip(axes[0], shapes):
        ms = sorted({m for s, m in groups if s == shape})
        for i, h in enumerate(FIGURE):
            shift = 1 + 0.04 * (i - 1)  # side by side on the log axis
            means, lo_err, hi_err = [], [], []
            for m in ms:
                g = groups[(shape, m)]
                lo, hi = map(float, cell_stats(g, h)["mean"])
                means.append((lo + hi) / 2)
                lo_err.append((hi - lo) / 2)
                hi_err.append((hi - lo) / 2)
                for r in g:
                    a, b = map(float, _interval(r, h))
                    x = m * shift
                    if r["exact"]:
                        ax.plot([x], [a], ".", color=colors[h], alpha=0.25, ms=4)
                    else:
                        ax.plot([x, x], [a, b], "-", color=colors[h], alpha=0.25, lw=1)
            ax.errorbar([m * shift for m in ms], means, yerr=[lo_err, hi_err], color=colors[h], marker="o",
                        ms=4, capsize=3, label=h)
        n_exact = sum(r["exact"] for m in ms for r in groups[(shape, m)])
        n_all = sum(len(groups[(shape, m)]) for m in ms)
        (klo, khi), pool = SHAPES.get(shape, ((0, 0), 0))
        ax.set_title(f"{shape}: k {klo}..{khi}, {pool}/topic\nOPT_free exact on {n_exact}/{n_all}", fontsize=9)
        ax.set_xscale("log")
        ax.set_xticks(ms)
        ax.set_xticklabels([str(m) for m in ms], fontsize=7)
        ax.set_xlabel("m (requests)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("cost / OPT_free (cell mean)")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("RAG-shaped instances: heuristics against the exact optimum (computed)", fontsize=10)
    fig.tight_layout()
    return save_figure(fig, out / "ratio_vs_m.png")


def claims(rows: list[dict], command: str) -> list[dict]:
    """The C5-at-scale row of results/README.md (agglomerative over the instances with m >= 100)."""
    big = [r for r in rows if r["m"] >= MS[0]]
    s = cell_stats(big, "agglomerative")
    exact = sum(r["exact"] for r in big)
    per_m = []
    for m in MS:
        g = [r for r in big if r["m"] == m]
        if g:
            per_m.append(f"m = {m}: agglomerative {_fmt_interval(*cell_stats(g, 'agglomerative')['mean'], pct=True)}, "
                         f"greedy {_fmt_interval(*cell_stats(g, 'greedy')['mean'], pct=True)}, "
                         f"heaviest-first {_fmt_interval(*cell_stats(g, 'heaviest-first')['mean'], pct=True)}")
    if all(r.get("dual_lower") is not None for r in big):
        d = cell_stats(big, "agglomerative", lower="dual_lower")
        per_m.append("trusting no solver (OPT_free's lower end the LP dual rechecked in fractions): agglomerative's "
                     f"mean {_fmt_interval(*d['mean'], pct=True)}, worst {_fmt_interval(*d['worst'], pct=True)}")
    widths = [hi - lo for lo, hi in (_interval(r, "agglomerative") for r in big)]
    gaps = [Fraction(r["upper"] - r["lower"], r["upper"]) for r in big]
    per_m.append(f"interval widths (rounded up): the mean's {_pct_up(s['mean'][1] - s['mean'][0])} points, the widest "
                 f"instance's {_pct_up(max(widths))} points; OPT_free's bracket (upper - lower) / upper at most "
                 f"{_pct_up(max(gaps))}%, over 0.2% on {sum(g > Fraction(1, 500) for g in gaps)} of {len(big)} "
                 "instances"
                 + (f"; {sum(r.get('dcut_upper') is not None for r in big)} brackets narrowed by the directed-cut "
                    f"branch-and-cut (--dcut, {_dcut_limits(big)} each)"
                    if any(r.get("dcut_upper") is not None for r in big) else ""))
    return [{"claim": "C5", "what": f"agglomerative above OPT_free on {len(big)} RAG-shaped instances, "
                                    f"m = {MS[0]}..{MS[-1]} (mean / worst)",
             "paper": "2.6% / 11% (m = 10-15)",
             "ours": f"{_fmt_interval(*s['mean'], pct=True)} / {_fmt_interval(*s['worst'], pct=True)}",
             "agree": None,
             "detail": f"computed; OPT_free exact on {exact} of {len(big)} instances, the rest bracketed (ratios "
                       "as intervals [cost/upper, cost/lower]); our generator in four shapes (table.md); "
                       "mean cost above OPT_free per m over the four shapes: " + "; ".join(per_m),
             "command": command}]


def report(out: Path, meta: dict, rows: list[dict]) -> dict:
    """table.md, ratio_vs_m.png and the claim row from the rows only (each bracket narrowed by
    the dcut pass where it ran: :func:`narrowed`)."""
    rows = [narrowed(r) for r in rows]
    (out / "table.md").write_text(table_md(rows, meta))
    plot(rows, out)
    return claims(rows, "python -m experiments.rag_scale")


def _later_pass(out: Path, args, argv, name: str, settings: dict, run) -> list:
    """A later pass (``--dual``, ``--dcut``): its provenance in meta_<name>.json (the pass, its
    ``settings``, shard, commit, start and command, then what ``run(commit)`` returns to record
    and the seconds; :func:`write_pass_meta`), then the report."""
    from mptsearch.provenance import git_commit

    commit = git_commit() or "unknown"
    meta = {"pass": name, **settings, "shard": args.shard, "git_commit": commit,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": " ".join(
                ["python -m experiments.rag_scale"] + (sys.argv[1:] if argv is None else list(argv)))}
    path = out / f"meta_{name}.json"
    write_pass_meta(path, meta)
    t = time.perf_counter()
    meta.update(run(commit))
    meta["seconds"] = round(time.perf_counter() - t, 1)
    write_pass_meta(path, meta)
    return main(["--report", "--instances", str(args.instances)] + (["--out", str(out)] if args.out else []))


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=INSTANCES, help="instances per (shape, m)")
    p.add_argument("--time-limit", type=float, default=TIME_LIMIT, help="wall seconds per OPT_free")
    p.add_argument("--shard", default="0/1", help="i/N: every N-th instance from the i-th")
    p.add_argument("--dual", action="store_true", help="the second pass: the LP-dual lower bound of every instance")
    p.add_argument("--dual-time-limit", type=float, default=DUAL_LIMIT, help="wall seconds per closure solve")
    p.add_argument("--dcut", action="store_true",
                   help="the third pass: the directed-cut branch-and-cut on every instance left bracketed")
    p.add_argument("--dcut-time-limit", type=float, default=DCUT_LIMIT,
                   help="seconds per directed-cut solve (see --clock)")
    p.add_argument("--clock", choices=("cpu", "wall"), default=DCUT_CLOCK,
                   help="what --dcut-time-limit counts: this process's CPU seconds (the default: fair on a shared "
                        "machine) or wall seconds (the pass's earlier behaviour)")
    p.add_argument("--report", action="store_true",
                   help="table, figure, summary from instances.csv (rebuilt first from complete checkpoints)")
    args = p.parse_args(argv)
    out = Path(args.out) if args.out else RESULTS / NAME
    i, n = (int(x) for x in args.shard.split("/"))
    config = {"shapes": {s: {"k": k, "pool": pool} for s, (k, pool) in SHAPES.items()}, "m": [ANCHOR_M, *MS],
              "instances_per_cell": args.instances, "time_limit": args.time_limit, "heuristics": HEURISTICS,
              "opt_free": "mptsearch.exact.auto.opt_free_exact", "shard": args.shard}
    if args.report:
        meta = json.loads((out / "meta.json").read_text())
        rows = collect(out, args.instances) if _work(out).exists() else None
        if rows is not None:
            write_rows(out, rows)
        rows = merge_dcut(out, read_rows(out))
        write_rows(out, rows)
        rows = read_rows(out)
        summary = json.loads((out / "summary.json").read_text())
        summary["claims"] = report(out, meta, rows)
        _write_whole(out / "summary.json", json.dumps(summary, indent=1) + "\n")
        return summary["claims"]
    if args.dcut:  # its own provenance file, as the dual pass
        def dcut(commit):
            return {"computed": run_dcut(out, args.dcut_time_limit, (i, n), commit, args.seed, args.clock)}

        return _later_pass(out, args, argv, "dcut", {"time_limit": args.dcut_time_limit, "clock": args.clock}, dcut)
    if args.dual:  # its own provenance file: meta.json stays the first pass's
        def dual(commit):
            run_duals(out, args.seed, args.instances, args.dual_time_limit, (i, n), commit)
            return {}

        return _later_pass(out, args, argv, "dual", {"time_limit": args.dual_time_limit}, dual)
    run = Run(NAME, config, args.seed, out)
    with run.timed("instances"):
        computed = run_cells(out, args.seed, args.instances, args.time_limit, (i, n), run.meta["git_commit"])
    rows = collect(out, args.instances)
    if rows is None:
        print(f"computed {computed} instances; the grid is not complete yet (other shards?)")
        return []
    write_rows(out, rows)
    run.timings["solve_cpu_all_rows"] = round(sum(r["solve_cpu"] for r in rows), 1)
    run.timings["solve_wall_all_rows"] = round(sum(r["solve_wall"] for r in rows), 1)
    run.timings["heuristics_cpu_all_rows"] = round(sum(r["heuristics_cpu"] for r in rows), 1)
    c = report(out, run.meta, read_rows(out))
    run.finish(c)
    return c


if __name__ == "__main__":
    main()
