"""Exact OPT_free side by side: the closure arborescence (HiGHS) against the subset DP, the
prefix-set search and a plain CP-SAT arborescence model, one thread each, in one run (issue 25).

Suites (``--suite``, repeatable):

- ``sunflowers``: S(c, k) for every c >= 2, k >= 3 with c(k-1) <= 48 chunks (103 families);
- ``dense``: random k-uniform families (``random.Random`` over all k-sets): k = 4 on 7 chunks
  (m = 15, 25, 35), k = 4 on 8 chunks (m = 20, 35, 50, 60, 65, 70), k = 4 and 5 on 9 chunks
  (m = 63, 126), ``--samples`` of each (one when m is every k-set);
- ``zipfmid``: the same generator at (m, k) = (100, 8), (150, 8), ``--samples`` seeds each, where
  the closure program reaches the optimum: how far the local search and the two LPs are from it;
- ``zipf``: RAG-shaped instances (experiments/rag_shaped.py's generator, 4 topics of 50 chunks,
  token weights 50..400, every request exactly k chunks): (m, k) = (50, 5), (200, 10), (200, 20),
  (500, 10), (1000, 10), one seed each.

Methods: ``closure`` = :func:`mptsearch.exact.arborescence.opt_free_closure` (its time limit
``--closure-limit``, 600 s for m = 1000; out of time it reports the bracket and the gap; it
runs the Steiner-set local search first and the pairs program on closures with at most
``PAIRS_CAP`` containment pairs, and records which program ran and the search's cost);
``dp`` = :func:`mptsearch.exact.free.opt_free` where m <= ``--dp-upto``; ``prefix_sets`` where
:func:`~mptsearch.exact.prefix_sets.opt_free_prefix_sets` applies (unit weights, <= 10 chunks:
one 64-bit word per level on <= 7, four on 8-10);
``cpsat`` = the plain model of issue 25 over the same cover graph (a boolean per set and per
arc, one incoming arc per used set, an arc only from a used set; one worker, ``--cpsat-limit``;
with ``--cpsat-hint`` the local search's sets as a hint)
where the closure has at most ``--cpsat-max-arcs`` arcs and m <= ``--cpsat-max-m``, on the first
sample of each group only (it is the slow one; the machine is shared). Wall seconds of one call each
(``time.perf_counter``) and CPU seconds of this process (``time.process_time``; the machine is
shared, so the CPU figure is the fairer one; the load average is recorded). The time limits are
wall seconds. Every value
any two methods prove is compared (assert).

The directed-cut comparison: ``--dcut M:K:SEED,...`` (repeatable) runs the present program
and :func:`mptsearch.exact.dcut_bnc.opt_free_dcut` on unit-weight Zipf instances
(:func:`zipf_unit`), ``--dcut-dense N:K:M`` on the dense suite's first k-uniform family on N
chunks, and appends to benchmarks/results/closure_dcut.json (``--skip-old``: the directed cuts
only; ``--clock cpu``: their limit in CPU seconds of this process; ``--label``: a word kept with
the rows); ``--dcut-table`` prints its table (``--labelled``: the labelled rows only);
``--dcut-cert M:K:SEED`` runs ``certify --free-by dual`` and ``check`` on one
(benchmarks/results/closure_dcut_cert.json).

Usage: python benchmarks/bench_closure.py --suite sunflowers --suite dense --suite zipf
(the Zipf runs of docs/exact.md: ``--suite zipf --suite zipfmid --cpsat-hint --lp-compare``)
Writes benchmarks/results/closure_<suite>.json and prints one line per instance;
``--table`` prints the markdown crossover table of docs/exact.md from those files only,
``--zipf-table`` its per-instance Zipf table.
"""

import argparse
import itertools
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from experiments.rag_shaped import rag_instance  # noqa: E402
from mptsearch.exact.arborescence import PAIRS_CAP, opt_free_closure  # noqa: E402
from mptsearch.exact.closure_program import component_model, highs_model  # noqa: E402
from mptsearch.exact.pairs_program import pairs_model  # noqa: E402
from mptsearch.exact.closure import closure_graph, reduce_instance  # noqa: E402
from mptsearch.exact.closure_search import closure_poset, search_component  # noqa: E402
from mptsearch.exact.free import opt_free  # noqa: E402
from mptsearch.exact.prefix_sets import opt_free_prefix_sets  # noqa: E402
from mptsearch.families import k4_3, sunflowers  # noqa: E402
from mptsearch.instance import from_lists  # noqa: E402
from mptsearch.provenance import git_commit  # noqa: E402



def append_row(out: Path, row: dict) -> None:
    """Append ``row`` to the ``rows`` of the JSON file ``out``, re-read just before (two runs may
    share the file), written whole to a temporary file and renamed into place."""
    data = json.loads(out.read_text()) if out.exists() else {"rows": []}
    data["rows"].append(row)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, out)

def plain_cpsat(inst, time_limit, max_arcs, hint=False):
    """The plain arborescence model on the closure's cover graph, CP-SAT with one worker.
    Returns (value or None, lower bound, seconds) or None when the graph is too large. With
    ``hint``, the sets used by the Steiner-set local search are given as a hint (the used-set
    booleans only; its time counts)."""
    from ortools.sat.python import cp_model

    red = reduce_instance(inst)
    t0 = time.perf_counter()
    graphs = [closure_graph(masks, red.weights) for idx, masks in red.components if len(idx) > 1]
    if sum(len(g.tails) for g in graphs) > max_arcs:
        return None
    single = sum(sum(red.weights[c] for c in range(masks[0].bit_length()) if masks[0] >> c & 1)
                 for idx, masks in red.components if len(idx) == 1)
    model = cp_model.CpModel()
    cost, ys = [], {}
    for g in graphs:
        y = [None] + [model.NewBoolVar("") for _ in g.sets[1:]]
        ys[id(g)] = y
        x = [model.NewBoolVar("") for _ in g.tails]
        into = [[] for _ in g.sets]
        for a, (t, h) in enumerate(zip(g.tails.tolist(), g.heads.tolist())):
            into[h].append(x[a])
            if t:
                model.AddImplication(x[a], y[t])
        for v in range(1, len(g.sets)):
            model.Add(sum(into[v]) == y[v])
        for r in g.requests:
            model.Add(y[r] == 1)
        cost += [int(c) * x[a] for a, c in enumerate(g.costs.tolist())]
    if hint:
        for g in graphs:
            _, used = search_component(g, closure_poset(g, red.weights), red.weights)
            chosen = set(used)
            for v, y in zip(g.sets[1:], ys[id(g)][1:]):
                model.AddHint(y, v in chosen)
    model.Minimize(sum(cost))
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.max_time_in_seconds = max(0.1, time_limit - (time.perf_counter() - t0))
    st = solver.Solve(model)
    secs = time.perf_counter() - t0
    if st == cp_model.OPTIMAL:
        return int(round(solver.ObjectiveValue())) + single, None, secs
    return None, int(np.ceil(solver.BestObjectiveBound() - 1e-6)) + single, secs


def lp_values(inst, cap):
    """(cover LP, pairs LP) summed over components, or pairs None when a component has more
    than ``cap`` containment pairs: the two relaxations side by side (untimed)."""
    red = reduce_instance(inst)
    cover = pairs = 0.0
    for idx, masks in red.components:
        if len(idx) == 1:
            w = sum(red.weights[c] for c in range(masks[0].bit_length()) if masks[0] >> c & 1)
            cover += w
            pairs = None if pairs is None else pairs + w
            continue
        g = closure_graph(masks, red.weights)
        h = highs_model(component_model(g), integer=False, time_limit=None)
        h.run()
        cover += h.getInfo().objective_function_value
        poset = closure_poset(g, red.weights)
        if pairs is None or len(poset.sub_idx) > cap:
            pairs = None
            continue
        h = highs_model(pairs_model(g, poset), integer=False, time_limit=None, presolve="off")
        h.run()
        pairs += h.getInfo().objective_function_value
    return cover, pairs


def _prefix_child(inst, conn):
    c0 = time.process_time()
    v = opt_free_prefix_sets(inst).value
    conn.send((v, time.process_time() - c0))
    conn.close()


def prefix_sets_limited(inst, limit):
    """The prefix-set search in a forked child (its kernels compiled already), stopped after
    ``limit`` wall seconds (the search itself has no time limit). CPU seconds are the child's."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    here, there = ctx.Pipe(duplex=False)
    t0 = time.perf_counter()
    proc = ctx.Process(target=_prefix_child, args=(inst, there))
    proc.start()
    there.close()
    if here.poll(limit):
        v, cpu = here.recv()
        proc.join()
        return {"seconds": time.perf_counter() - t0, "cpu": cpu, "optimal": True, "value": v}
    proc.kill()
    proc.join()
    return {"seconds": time.perf_counter() - t0, "cpu": None, "optimal": False, "limit": limit}


def sunflower_suite():
    for c in range(2, 25):
        for k in range(3, 48 // c + 2):
            if c * (k - 1) <= 48:
                yield f"S({c},{k})", sunflowers(c, k)


def dense_suite(samples, seed):
    for n, k, ms in [(7, 4, (15, 25, 35)), (8, 4, (20, 35, 50, 60, 65, 70)), (9, 4, (63, 126)), (9, 5, (63, 126))]:
        sets = list(itertools.combinations(range(n), k))
        for m in ms:
            rng = random.Random(seed * 1000 + 100 * n + 10 * k + m)  # the same instances as before for old m
            for s in range(samples if m < len(sets) else 1):
                yield f"{k}-uniform n={n} m={m} #{s}", from_lists([list(c) for c in rng.sample(sets, m)])


def zipf_suite(seed):
    for m, k in [(50, 5), (200, 10), (200, 20), (500, 10), (1000, 10)]:
        yield f"zipf m={m} k={k}", rag_instance(m, np.random.default_rng(seed + m + k), k=(k, k), pool=50)


def zipf_mid_suite(seed, samples):
    """Mid-size RAG-shaped instances where the optimum is reachable: how far each bound is
    from it (the search's cost, the cover LP, the pairs LP)."""
    for m, k in [(100, 8), (150, 8)]:
        for s in range(samples):
            yield f"zipf m={m} k={k} #{s}", rag_instance(m, np.random.default_rng(seed + 1000 * s + m + k),
                                                         k=(k, k), pool=50)


def run_one(name, inst, a):
    row = {"instance": name, "n": inst.n, "m": inst.m, "unit": bool(inst.unit_weights)}
    limit = a.closure_limit if inst.m < 1000 else a.closure_limit_large
    t0, c0 = time.perf_counter(), time.process_time()
    r = opt_free_closure(inst, time_limit=limit)
    row["closure"] = {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                      "optimal": r.optimal, "lower": r.lower,
                      "upper": r.upper, "gap": r.gap, "lp": r.lp_bound, "sets": r.sets, "arcs": r.arcs,
                      "components": r.components, "formulation": r.formulation, "search_upper": r.search_upper}
    if a.lp_compare:
        cover, pairs = lp_values(inst, PAIRS_CAP)
        row["closure"]["lp_cover"], row["closure"]["lp_pairs"] = cover, pairs
    values = {"closure": r.value} if r.optimal else {}
    if inst.m <= a.dp_upto:
        t0, c0 = time.perf_counter(), time.process_time()
        values["dp"] = opt_free(inst).value
        row["dp"] = {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0}
    if inst.unit_weights and inst.n <= 10:
        got = prefix_sets_limited(inst, a.prefix_limit)
        row["prefix_sets"] = got
        if got["optimal"]:
            values["prefix_sets"] = got["value"]
    if a.cpsat_limit > 0 and inst.m <= a.cpsat_max_m and not name.endswith(("#1", "#2", "#3", "#4")):
        c0 = time.process_time()
        got = plain_cpsat(inst, a.cpsat_limit, a.cpsat_max_arcs, hint=a.cpsat_hint)
        if got is not None:
            v, low, secs = got
            row["cpsat"] = {"seconds": secs, "cpu": time.process_time() - c0, "optimal": v is not None, "lower": low}
            if v is not None:
                values["cpsat"] = v
    assert len(set(values.values())) <= 1, (name, values)
    row["value"] = next(iter(values.values()), None)
    return row


def table():
    """The crossover table: per group, each method's median and max CPU seconds and how many
    instances it solved exactly, from benchmarks/results/closure_<suite>.json."""
    folder = Path(__file__).resolve().parent / "results"
    print("| suite | group | instances | m | closure: solved, median / max CPU s | closure gap (unsolved) "
          "| subset DP | prefix sets | plain CP-SAT: solved, median / max CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for suite in ("sunflowers", "dense", "zipf", "zipfmid"):
        path = folder / f"closure_{suite}.json"
        if not path.exists():
            continue
        rows = json.loads(path.read_text())["rows"]
        groups = {}
        for r in rows:
            key = r["instance"].split(" #")[0]
            if suite == "sunflowers":
                c, k = (int(v) for v in key[2:-1].split(","))
                key = f"c(k-1) <= {8 * ((c * (k - 1) + 7) // 8)}"
            groups.setdefault(key, []).append(r)

        def cell(rs, meth):
            got = [r[meth] for r in rs if meth in r]
            if not got:
                return "not run"
            solved = sum(g.get("optimal", True) for g in got)
            # an unfinished prefix-set search has no time of its own: the limit is shown instead
            cpu = [g.get("cpu", g["seconds"]) for g in got if g.get("cpu", 0) is not None]
            past = [g["limit"] for g in got if g.get("cpu", 0) is None]
            tail = f" (unfinished: {len(past)} at {past[0]:g} s wall)" if past else ""
            if not cpu:
                return f"0/{len(got)}{tail}"
            return f"{solved}/{len(got)}, {statistics.median(cpu):.3g} / {max(cpu):.3g}{tail}"

        for key, rs in groups.items():
            gaps = [r["closure"]["gap"] for r in rs if not r["closure"]["optimal"]]
            ms = sorted({r["m"] for r in rs})
            mtxt = str(ms[0]) if len(ms) == 1 else f"{ms[0]}-{ms[-1]}"
            print(f"| {suite} | {key} | {len(rs)} | {mtxt} | {cell(rs, 'closure')} | "
                  f"{'max %.2f%%' % (100 * max(gaps)) if gaps else '-'} | {cell(rs, 'dp')} | "
                  f"{cell(rs, 'prefix_sets')} | {cell(rs, 'cpsat')} |")


def zipf_table():
    """Per Zipf instance: the bracket (or the value), the local search's cost, and how far the
    cover and pairs LPs and the proved lower bound are below the best layout found, from
    benchmarks/results/closure_zipf*.json (rows run with ``--lp-compare``)."""
    folder = Path(__file__).resolve().parent / "results"
    print("| instance | closure sets | program | CPU s | OPT_free or bracket | gap | search above best | "
          "cover LP below best | pairs LP below best |")
    print("|---|---|---|---|---|---|---|---|---|")
    for suite in ("zipf", "zipfmid"):
        path = folder / f"closure_{suite}.json"
        if not path.exists():
            continue
        for r in json.loads(path.read_text())["rows"]:
            c = r["closure"]
            best = c["upper"]

            def below(v):
                return "-" if v is None else f"{100 * (best - v) / best:.2f}%"

            # 0: a run before search_upper became None when the search ran on no component
            found = "-" if not c.get("search_upper") else f"{100 * (c['search_upper'] - best) / best:.2f}%"
            value = f"{c['upper']:,}" if c["optimal"] else f"{c['lower']:,}..{c['upper']:,}"
            print(f"| {r['instance']} | {c['sets']:,} | {c.get('formulation', 'cover')} | {c['cpu']:.3g} | {value} | "
                  f"{100 * c['gap']:.2f}% | {found} | {below(c.get('lp_cover'))} | {below(c.get('lp_pairs'))} |")


def zipf_unit(m, k, seed, n=500, s=1.1):
    """The Zipf suite of the directed-cut comparison: m distinct requests of k distinct chunks
    drawn from n chunks with p(i) proportional to 1/(i+1)^s (numpy's ``default_rng(seed)``),
    unit weights."""
    rng = np.random.default_rng(seed)
    p = 1.0 / (np.arange(n) + 1) ** s
    p /= p.sum()
    reqs = set()
    while len(reqs) < m:
        reqs.add(tuple(sorted(rng.choice(n, size=k, replace=False, p=p).tolist())))
    return from_lists(sorted(reqs))


def run_dcut(argv):
    """``--dcut``: the present closure program and the directed-cut branch-and-cut side by side
    on :func:`zipf_unit` instances, one thread each; rows appended to
    benchmarks/results/closure_dcut.json as each instance finishes."""
    from mptsearch.exact.dcut_bnc import opt_free_dcut

    p = argparse.ArgumentParser()
    p.add_argument("--dcut", action="append", default=[], help="M:K:SEED[,SEED...]")
    p.add_argument("--dcut-dense", action="append", default=[],
                   help="N:K:M: the first sample of the dense suite's k-uniform family on N chunks (seed 25)")
    p.add_argument("--old-limit", type=float, default=120.0, help="wall seconds of the present program")
    p.add_argument("--new-limit", type=float, default=60.0, help="wall seconds of the directed-cut solver")
    p.add_argument("--new-limit-large", type=float, default=600.0, help="for m >= 500")
    p.add_argument("--skip-old", action="store_true")
    p.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                   help="what the directed-cut solver's limit counts (cpu: this process's CPU seconds)")
    p.add_argument("--label", default="", help="a word stored with the rows (which version of the solver ran)")
    a = p.parse_args(argv)
    out = Path(__file__).resolve().parent / "results" / "closure_dcut.json"
    warm = zipf_unit(60, 6, 0, n=80)  # compile every kernel outside the timings
    opt_free_dcut(warm, time_limit=30)
    opt_free_closure(warm, time_limit=30)
    jobs = []
    for spec in a.dcut:
        m, k, seeds = spec.split(":")
        for seed in seeds.split(","):
            m, k, seed = int(m), int(k), int(seed)
            jobs.append((f"zipf-unit m={m} k={k} #{seed}", m, k, seed, lambda m=m, k=k, seed=seed: zipf_unit(m, k, seed)))
    for spec in a.dcut_dense:
        n, k, m = (int(v) for v in spec.split(":"))
        name = f"{k}-uniform n={n} m={m} #0"
        jobs.append((name, m, k, 25, lambda name=name: next(i for nm, i in dense_suite(1, 25) if nm == name)))
    for name, m, k, seed, make in jobs:
        inst = make()
        row = {"instance": name, "m": m, "k": k, "seed": seed,
               "git_commit": git_commit(), "load_average_before": os.getloadavg()}
        if not a.skip_old:
            c0, t0 = time.process_time(), time.perf_counter()
            r = opt_free_closure(inst, time_limit=a.old_limit)
            row["cover"] = {"lower": r.lower, "upper": r.upper, "optimal": r.optimal, "gap": r.gap,
                            "lp": r.lp_bound, "limit": a.old_limit, "seconds": time.perf_counter() - t0,
                            "cpu": time.process_time() - c0, "sets": r.sets}
        limit = a.new_limit_large if m >= 500 else a.new_limit
        c0, t0 = time.process_time(), time.perf_counter()
        r = opt_free_dcut(inst, time_limit=limit, clock=a.clock)
        row["dcut"] = {"lower": r.lower, "upper": r.upper, "optimal": r.optimal, "gap": r.gap,
                       "lp": r.lp_bound, "limit": limit, "clock": a.clock, "seconds": time.perf_counter() - t0,
                       "cpu": time.process_time() - c0, "status": r.status, "sets": r.sets,
                       # per phase: component, phase, clock seconds since the start, its lower bound, best layout
                       "phases": r.phases}
        if a.label:
            row["label"] = a.label
        if "cover" in row:
            o, d = row["cover"], row["dcut"]
            assert o["lower"] <= d["upper"] and d["lower"] <= o["upper"], row  # brackets must meet
        row["load_average_after"] = os.getloadavg()
        print(json.dumps(row), flush=True)
        append_row(out, row)


def run_dcut_cert(argv):
    """``--dcut-cert M:K:SEED``: ``certify --free-by dual`` on a :func:`zipf_unit` instance, then
    ``check`` of the written certificate; appended to benchmarks/results/closure_dcut_cert.json."""
    import tempfile

    from mptsearch.verify.certify import certify, check

    p = argparse.ArgumentParser()
    p.add_argument("--dcut-cert", action="append", required=True, help="M:K:SEED")
    a = p.parse_args(argv)
    out = Path(__file__).resolve().parent / "results" / "closure_dcut_cert.json"
    data = json.loads(out.read_text()) if out.exists() else {"rows": []}
    for spec in a.dcut_cert:
        m, k, seed = (int(v) for v in spec.split(":"))
        inst = zipf_unit(m, k, seed)
        with tempfile.TemporaryDirectory() as d:
            c0, t0 = time.process_time(), time.perf_counter()
            q = certify(inst, d, kinds=("free",), free_by="dual")["quantities"]["free"]
            c1, t1 = time.process_time(), time.perf_counter()
            rep = check(d)
            c2, t2 = time.process_time(), time.perf_counter()
        row = {"instance": f"zipf-unit m={m} k={k} #{seed}", "git_commit": git_commit(),
               "load_average_before": os.getloadavg(), "value": q["value"], "lower": q["lower"],
               "certified": q["optimal"], "rows": q["dual"]["rows"], "bound": q["dual"]["bound"],
               "certify_seconds": t1 - t0, "certify_cpu": c1 - c0, "check_ok": rep.ok, "check_seconds": t2 - t1,
               "check_cpu": c2 - c1, "check_lines": rep.lines}
        print(json.dumps(row), flush=True)
        data["rows"].append(row)
        out.write_text(json.dumps(data, indent=1) + "\n")


def run_dcut_loop(argv):
    """``--dcut-loop M:SEED[,SEED...] CFG [CFG ...]``: the root cut loop of
    :func:`mptsearch.exact.dcut.cut_lp` (tailing off as in ``opt_free_dcut``) on the largest
    component of :func:`zipf_unit` (k = 10), once per configuration (CFG: JSON keyword
    arguments of ``cut_lp``, ``{}`` the defaults) on the same instance in one process; CPU
    seconds of this process (with ``--cpu-limit S`` the loop's deadline, S CPU seconds after its
    start), the loop's value, rounds, cuts and per solved LP its CPU s and simplex iterations;
    rows appended to benchmarks/results/closure_dcut_loop.json as each run finishes."""
    from mptsearch.exact.closure import closure_graph, reduce_instance
    from mptsearch.exact.dcut import cut_lp, request_subdags, separate
    from mptsearch.exact.dcut_bnc import TAIL_ROUNDS

    p = argparse.ArgumentParser()
    p.add_argument("--dcut-loop", required=True, help="M:SEED[,SEED...]")
    p.add_argument("--max-rounds", type=int, default=50)
    p.add_argument("--cpu-limit", type=float, default=None,
                   help="CPU seconds of this process per configuration (cut_lp's deadline, clock=CPU)")
    p.add_argument("configs", nargs="+", help="JSON keyword arguments of cut_lp")
    a = p.parse_args(argv)
    out = Path(__file__).resolve().parent / "results" / "closure_dcut_loop.json"
    m, seeds = a.dcut_loop.split(":")
    for seed in (int(s) for s in seeds.split(",")):
        red = reduce_instance(zipf_unit(int(m), 10, seed))
        idx, masks = max(red.components, key=lambda c: len(c[0]))
        g = closure_graph(masks, red.weights)
        sub = request_subdags(g)
        separate(np.zeros(len(g.tails)), sub)  # compile outside the timings
        for cfg in a.configs:
            kw = json.loads(cfg)
            row = {"instance": f"zipf-unit m={m} k=10 #{seed}", "arcs": len(g.tails), "sets": len(g.sets),
                   "config": kw, "git_commit": git_commit(), "load_average_before": os.getloadavg()}
            c0 = time.process_time()
            deadline = None if a.cpu_limit is None else c0 + a.cpu_limit
            lp = cut_lp(g, subdags=sub, max_rounds=a.max_rounds, tail_rounds=TAIL_ROUNDS, deadline=deadline,
                        clock=time.process_time, **kw)
            row.update(cpu=time.process_time() - c0, cpu_limit=a.cpu_limit, seconds=lp.seconds,
                       lp_seconds=lp.lp_seconds, value=lp.value, cover=lp.cover_value, rounds=lp.rounds,
                       cuts=lp.cuts, converged=lp.converged,
                       # per solved LP: round, value, active cuts, wall s, CPU s, simplex iterations
                       history=[(r, v, c, round(t, 2), cpu, it) for r, v, c, t, cpu, it in lp.history],
                       load_average_after=os.getloadavg())
            print(json.dumps({k: v for k, v in row.items() if k != "history"}), flush=True)
            append_row(out, row)


def dcut_table(labelled=False):
    """The side-by-side table of docs/exact.md from benchmarks/results/closure_dcut.json (with
    ``labelled``, the rows run with a ``--label`` only)."""
    path = Path(__file__).resolve().parent / "results" / "closure_dcut.json"
    print("| instance | closure sets | present: bracket, gap (limit, CPU s) | directed cuts: bracket, gap "
          "(limit, wall / CPU s) | cover LP below best | cut LP below best | run |")
    print("|---|---|---|---|---|---|---|")
    for r in json.loads(path.read_text())["rows"]:
        if labelled and not r.get("label"):
            continue
        d = r["dcut"]
        o = r.get("cover")
        best = min(d["upper"], o["upper"]) if o else d["upper"]

        def br(c):
            return f"{c['upper']:,}" if c["optimal"] else f"{c['lower']:,}..{c['upper']:,}"

        old = "-" if o is None else f"{br(o)}, {100 * o['gap']:.2f}% ({o['limit']:g} s, {o['cpu']:.3g})"
        unit = "CPU s" if d.get("clock") == "cpu" else "s"
        lp_old = "-" if o is None else f"{100 * (best - o['lp']) / best:.2f}%"
        print(f"| {r['instance']} | {d['sets']:,} | {old} | {br(d)}, {100 * d['gap']:.2f}% ({d['limit']:g} {unit}, "
              f"{d['seconds']:.3g} / {d['cpu']:.3g}) | {lp_old} | {100 * (best - d['lp']) / best:.2f}% | "
              f"{r.get('label') or '-'} |")


def main():
    if "--dcut-loop" in sys.argv:
        return run_dcut_loop(sys.argv[1:])
    if "--dcut-cert" in sys.argv:
        return run_dcut_cert(sys.argv[1:])
    if "--dcut" in sys.argv or "--dcut-dense" in sys.argv:
        return run_dcut(sys.argv[1:])
    if "--dcut-table" in sys.argv:
        return dcut_table(labelled="--labelled" in sys.argv)
    if "--table" in sys.argv:
        table()
        return
    if "--zipf-table" in sys.argv:
        zipf_table()
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--suite", action="append", choices=["sunflowers", "dense", "zipf", "zipfmid"], required=True)
    p.add_argument("--samples", type=int, default=3)
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--closure-limit", type=float, default=60.0)
    p.add_argument("--closure-limit-large", type=float, default=600.0, help="for m >= 1000")
    p.add_argument("--dp-upto", type=int, default=20)
    p.add_argument("--prefix-limit", type=float, default=120.0, help="wall seconds of one prefix-set search")
    p.add_argument("--cpsat-limit", type=float, default=30.0)
    p.add_argument("--cpsat-max-m", type=int, default=200)
    p.add_argument("--cpsat-max-arcs", type=int, default=20_000)
    p.add_argument("--cpsat-hint", action="store_true", help="hint CP-SAT with the local search's sets")
    p.add_argument("--lp-compare", action="store_true",
                   help="also record the cover and pairs LP values (untimed, pairs up to PAIRS_CAP)")
    a = p.parse_args()
    opt_free(k4_3())  # compile outside the timings
    opt_free(from_lists([[0, 1], [1, 2], [2, 3], [0, 3], [0, 2], [1, 3], [0, 1, 2], [1, 2, 3]]))
    opt_free_prefix_sets(k4_3())
    opt_free_prefix_sets(sunflowers(4, 3))  # 8 chunks: the multi-word kernels
    opt_free_closure(k4_3())
    for suite in a.suite:
        gen = {"sunflowers": sunflower_suite, "dense": lambda: dense_suite(a.samples, a.seed),
               "zipf": lambda: zipf_suite(a.seed), "zipfmid": lambda: zipf_mid_suite(a.seed, a.samples)}[suite]()
        rows = []
        for name, inst in gen:
            row = run_one(name, inst, a)
            rows.append(row)
            c = row["closure"]
            others = " ".join(f"{meth} {row[meth]['seconds']:.3f}s (cpu {row[meth]['cpu'] or float('nan'):.3f})"
                              for meth in ("dp", "prefix_sets", "cpsat") if meth in row)
            print(f"{name:<28} m={inst.m:<5} closure {c['seconds']:.3f}s (cpu {c['cpu']:.3f}) "
                  f"{'optimal ' + str(row['value']) if c['optimal'] else 'bracket %d..%d' % (c['lower'], c['upper'])}"
                  f" (lp {c['lp']:.1f}, {c['sets']} sets, {c['formulation']}, search {c['search_upper']}) {others}",
                  flush=True)
        out = Path(__file__).resolve().parent / "results" / f"closure_{suite}.json"
        data = {"config": vars(a), "suite": suite, "git_commit": git_commit(), "load_average": os.getloadavg(),
                "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "what": "wall seconds and process CPU seconds of one call per method and instance, one thread each; "
                        "closure brackets where it ran out of time", "rows": rows}
        tmp = out.with_name(f".{out.name}.tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        os.replace(tmp, out)
        summarise(rows, suite)


def summarise(rows, suite):
    """Median and max closure seconds per group (the instance name without its sample index)."""
    groups = {}
    for r in rows:
        groups.setdefault(r["instance"].split(" #")[0], []).append(r)
    for g, rs in groups.items():
        secs = [r["closure"].get("cpu", r["closure"]["seconds"]) for r in rs]
        solved = sum(r["closure"]["optimal"] for r in rs)
        print(f"[{suite}] {g}: closure median {statistics.median(secs):.3f} s max {max(secs):.3f} s (cpu), "
              f"{solved}/{len(rs)} optimal", flush=True)


if __name__ == "__main__":
    main()
