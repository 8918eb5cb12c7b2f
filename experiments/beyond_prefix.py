"""Open problem 4 (docs/beyond_prefix.md): how much blending saves, on families and on traffic.

Writes results/beyond_prefix/:

- ``families.csv``/``families.md``: OPT_free / OPT_blend in the constant model on complete
  graphs K_n, complete 3-uniform families and leave-one-out L_n, by Theorem 1's exact DP,
  checked against Proposition P5's closed form;
- ``frontier.csv``: per trace, prefix-only layout (production, agglomerative, popularity), r and
  beta, the frontier of the one-copy rule (blend the later nodes in increasing context
  difference): prefill cost and total loss at each point;
- ``accounting.md``: the frontier with the loss charged once per blended node or once per
  request through it (beta = 1, r = 0.15);
- ``greedy.csv``: the greedy rule (every full node a copy) at a few prices, against the one-copy
  rule at the same prices;
- ``frontier.png``: prefill saved against total loss, one curve per r (beta = 1), agglomerative
  solid and production dashed, prefix-only and full recompute marked;
- ``search.csv``: ``anneal --objective blend`` (OPT_free / w(U), unit weights) at fixed m for
  3-chunk requests on 6 and 7 chunks, each find certified;
- ``extended.csv``/``extended.md``/``extended.png``: the extended model of section 9 (a menu of
  recompute ratios with a loss per ratio, context mismatch in chunks or tokens, isolated
  copies; :data:`MODELS`, illustrative tables, not measurements): for each trace (at most
  :data:`EXTENDED_MAX_LINES` lines), layout, model and rule (one copy per chunk, greedy), the
  prefill and the total loss as the loss price lambda sweeps :data:`LAMBDAS` (each node takes
  the table's best ratio or is recomputed fully), and the prefill saved at a fixed loss.

Traces: FanOutQA x Wikipedia BM25 at k = 5, 10, 20: ``fanoutqa_k{k}.jsonl`` in the folder of
``--traces DIR`` (or of the environment variable MPTSEARCH_TRACES) when given, as
``mptsearch trace`` builds them; otherwise built into results/beyond_prefix/_work/ with
``mptsearch trace`` when the ``trace`` extra is installed (skipped with a note otherwise); and the
synthetic retrieval trace of :mod:`mptsearch.serving.synthetic` (``--synthetic`` requests, one trace
per size given: ``--synthetic 20000 1000000`` adds the million-request trace), written as JSONL into
results/beyond_prefix/_work/ and read back sparse. A layout is priced by the compiled node table of
:mod:`mptsearch.blend.kernels` (seconds at 1M requests).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from pathlib import Path

from ._common import Run, parser

R_VALUES = (0.0, 0.05, 0.15, 0.3)
BETAS = (0.0, 1.0)
LAYOUTS = ("production", "agglomerative", "popularity")
GREEDY_PRICES = (0.01, 0.05, 0.2)
SEARCH = [(5, 10)] + [(6, m) for m in (4, 6, 8, 10)] + [(7, m) for m in (4, 6, 8, 10)]  # (chunks, requests), k = 3
SEARCH_STEPS = 40_000

# The extended model's frontier (section 9). The tables are illustrative: a menu of three
# ratios whose loss per blended token falls as more is recomputed (q(r): 1, 0.5, 0.2 at
# r = 0.05, 0.15, 0.3), times 1 + beta d for a context mismatch d.
MENU = {0.05: 1.0, 0.15: 0.5, 0.3: 0.2}
MODELS = {  # name: (beta per mismatched chunk or token, mismatch unit, isolated copies)
    "menu, constant": (0.0, "chunks", False),
    "menu, beta=1 per chunk": (1.0, "chunks", False),
    "menu, beta=0.01 per token": (0.01, "tokens", False),
    "menu, beta=1 per chunk, isolated copies": (1.0, "chunks", True),
}
LAMBDAS = (0.0, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0)
EXTENDED_RULES = ("first", "greedy")
EXTENDED_MAX_LINES = 100_000  # the 1M-request trace is left out of the sweep (minutes per model)
EXTENDED_AT = (0.05, 0.25)  # loss per prompt token at which extended.md reads the frontiers


def _families(run, cs=(0.05, 0.15, 0.3)) -> tuple[list, bool]:
    from mptsearch.blend.exact import opt_blend
    from mptsearch.blend.model import BlendParams
    from mptsearch.families import leave_one_out
    from mptsearch.instance import parse_instance

    fams = [(f"K_{n} (k=2)", parse_instance([list(e) for e in itertools.combinations(range(n), 2)])) for n in range(3, 8)]
    fams += [(f"K_{n}^(3)", parse_instance([list(e) for e in itertools.combinations(range(n), 3)])) for n in range(4, 7)]
    fams += [(f"L_{n}", leave_one_out(n)) for n in range(3, 11)]
    rows, ok = [], True
    for name, inst in fams:
        for c in cs:
            res = opt_blend(inst, BlendParams(c, 0.0))
            rho = res.distinct_weight / res.opt_free
            bound = 1 / (c + (1 - c) * rho)
            ratio = res.opt_free / res.value
            ok &= math.isclose(ratio, bound, rel_tol=1e-9) and ratio < 1 / c
            rows.append({"family": name, "m": inst.m, "n": inst.n, "c": c, "opt_free": res.opt_free,
                         "w_U": res.distinct_weight, "opt_blend": round(res.value, 6), "ratio": round(ratio, 6),
                         "p5_bound": round(bound, 6), "one_over_c": round(1 / c, 6)})
    run.write_csv("families.csv", rows)
    lines = ["# OPT_free / OPT_blend in the constant model (lambda = 0, r = c)", "",
             "Generated by experiments/beyond_prefix.py: OPT_free by Theorem 1's DP; OPT_blend by Proposition P2;",
             "`p5_bound` = 1/(c + (1 - c) w(U)/OPT_free) (P5, equality for beta = 0).", "",
             "| family | m | OPT_free | w(U) | " + " | ".join(f"ratio c={c}" for c in cs) + " |",
             "|---|---|---|---|" + "---|" * len(cs)]
    for name, _ in fams:
        rs = [r for r in rows if r["family"] == name]
        lines.append(f"| {name} | {rs[0]['m']} | {rs[0]['opt_free']} | {rs[0]['w_U']} | "
                     + " | ".join(f"{r['ratio']:.4f}" for r in rs) + " |")
    lines += ["", f"1/c: " + ", ".join(f"{1 / c:.2f} (c={c})" for c in cs) + "; every row below it, as P5 says."]
    (run.dir / "families.md").write_text("\n".join(lines) + "\n")
    return rows, ok


def _search(run, seed):
    """Annealing for the largest OPT_free / w(U) at fixed m (P9: without a bound on m the complete
    family wins), one restart per size, each find certified by the public solvers."""
    from mptsearch.search.anneal import AnnealConfig
    from mptsearch.search.certificate import certify
    from mptsearch.search.parallel import anneal

    rows = []
    for n, m in SEARCH:
        cfg = AnnealConfig(n=n, k=(3, 3), m=(m, m), weights=(1, 1), objective="blend",
                           restart_steps=SEARCH_STEPS).validate()
        res = anneal(cfg, seed=seed, steps=SEARCH_STEPS, time_limit=None, jobs=1)
        cert = certify(res.instance, "blend", res.num, res.den)
        rows.append({"n": n, "k": 3, "m": m, "steps": SEARCH_STEPS, "instance": cert["canonical"],
                     "opt_free": cert["opt_free"], "w_U": cert["w_U"], "opt_free_over_w_U": cert["fraction"],
                     "ratio_c0.15": cert["blend_ratio_at_c"]["0.15"], "certified": cert["certified"]})
    run.write_csv("search.csv", rows)
    return rows


def _synthetic(run, work, size: int, seed: int):
    """The synthetic trace of ``size`` requests, written once as JSONL into ``work`` and read
    back as a sparse trace (the in-memory Instance of 1M requests costs minutes and GiB)."""
    import os

    from mptsearch.serving.sparse import read_sparse
    from mptsearch.serving.synthetic import retrieval_trace, write_jsonl

    path = work / f"synthetic_{size}_s{seed}.jsonl"
    if not path.exists():
        with run.timed(f"synthetic_{size}_generate"):
            chunks, tokens = retrieval_trace(size, seed)
            write_jsonl(str(path) + ".part", chunks, tokens)
            del chunks, tokens
            os.replace(str(path) + ".part", path)
    with run.timed(f"synthetic_{size}_read"):
        tr = read_sparse(str(path))
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    run.write_json(f"synthetic_{size}_info.json", {"trace_sha256": digest.hexdigest(), "lines": tr.size,
                                                    "seed": seed, "chunks": tr.n, "positions": int(tr.indptr[-1])})
    return tr


def _traces(run, synthetic, seed: int, traces_dir=None) -> tuple[dict, list]:
    from mptsearch.serving.trace import read_trace

    notes, out = [], {}
    work = run.dir / "_work"
    work.mkdir(exist_ok=True)
    for k in (5, 10, 20):
        path = (traces_dir / f"fanoutqa_k{k}.jsonl") if traces_dir is not None else work / f"trace_k{k}.jsonl"
        if traces_dir is not None and not path.exists():
            notes.append(f"FanOutQA k={k} not available (no {path.name} in the --traces folder)")
            continue
        if not path.exists():
            try:
                from mptsearch.serving.build_trace import build_trace

                with run.timed(f"build_trace_k{k}"):
                    build_trace(str(path), k)
            except Exception as exc:  # the optional extra is missing, or its data
                notes.append(f"FanOutQA k={k} not available ({type(exc).__name__}: {exc})")
                continue
        out[f"fanoutqa_k{k}"] = read_trace(str(path))
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        ref = run.dir.parent / "serving" / f"trace_k{k}_info.json"
        same = json.loads(ref.read_text()).get("trace_sha256") == digest if ref.exists() else None
        run.write_json(f"trace_k{k}_info.json", {"trace_sha256": digest, "same_as_results_serving": same,
                                                  "lines": out[f"fanoutqa_k{k}"].size})
    for size in synthetic:
        out[f"synthetic_{size}"] = _synthetic(run, work, size, seed)
    return out, notes


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--synthetic", type=int, nargs="+", default=[20000], metavar="M",
                   help="requests of each synthetic trace (e.g. 20000 1000000: the million-request trace too, "
                        "about 6 minutes more on 2 cores)")
    p.add_argument("--traces", type=Path, default=None, metavar="DIR",
                   help="read the FanOutQA traces fanoutqa_k5/k10/k20.jsonl (as built by mptsearch trace) from DIR "
                        "instead of building them (default: the environment variable MPTSEARCH_TRACES, if set)")
    args = p.parse_args(argv)
    if min(args.synthetic) < 1:
        p.error("--synthetic sizes must be positive")
    traces_dir = args.traces or (Path(os.environ["MPTSEARCH_TRACES"]) if os.environ.get("MPTSEARCH_TRACES") else None)
    if traces_dir is not None and not traces_dir.is_dir():
        p.error(f"--traces: {traces_dir} is not a folder")
    config = {"r": R_VALUES, "beta": BETAS, "layouts": LAYOUTS, "greedy_prices": GREEDY_PRICES,
              "extended": {"menu": {str(r): q for r, q in MENU.items()}, "models": {k: list(v) for k, v in MODELS.items()},
                           "lambdas": LAMBDAS, "rules": EXTENDED_RULES, "max_lines": EXTENDED_MAX_LINES},
              "traces": "fanoutqa_k*.jsonl from the --traces folder or MPTSEARCH_TRACES" if traces_dir is not None
              else "built into _work/ by mptsearch trace",
              "synthetic_requests": args.synthetic if len(args.synthetic) > 1 else args.synthetic[0], "synthetic": "mptsearch.serving.synthetic.retrieval_trace defaults"}
    run = Run("beyond_prefix", config, args.seed, args.out)
    from mptsearch.blend.heuristic import frontier, node_table, price_first, price_greedy
    from mptsearch.blend.model import BlendParams
    from mptsearch.serving.layout import as_sparse, method_orders

    with run.timed("families"):
        fam_rows, fam_ok = _families(run)
    with run.timed("search"):
        _search(run, args.seed)
    traces, notes = _traces(run, args.synthetic, args.seed, traces_dir)
    rows, greedy_rows, ends, ext_rows = [], [], {}, []
    for name, tr in traces.items():
        sp = as_sparse(tr)
        for meth in LAYOUTS:
            with run.timed(f"{name}_{meth}"):
                lay, _ = method_orders(sp, meth)
                tab = node_table(sp.weights, lay)
                for r in R_VALUES:
                    for beta, per in [(b, False) for b in BETAS] + [(1.0, True)]:
                        for pt in frontier(tab, r, beta, per):
                            rows.append({"trace": name, "layout": meth, "r": r, "beta": beta, "per_answer": per,
                                         "unit_max": pt.unit_max, "cost": pt.cost, "loss": pt.loss,
                                         "tokens": tab.tokens, "saved_pct": 100 * (tab.tokens - pt.cost) / tab.tokens,
                                         "loss_per_token": pt.loss / tab.tokens})
                ends[(name, meth)] = (tab.tokens, tab.prefix_cost, tab.distinct)
                if sp.size <= EXTENDED_MAX_LINES:
                    ext_rows += _extended(name, meth, tab)
                if meth == "agglomerative":
                    for lam in GREEDY_PRICES:
                        prm = BlendParams(0.15, lam, 1.0)
                        fc, fl = price_first(tab, prm)
                        gc, gl = price_greedy(tab, prm)
                        greedy_rows.append({"trace": name, "r": 0.15, "beta": 1.0, "price": lam,
                                            "first_objective": round(fc + lam * fl, 3), "first_cost": round(fc, 3),
                                            "first_loss": round(fl, 3), "greedy_objective": round(gc + lam * gl, 3),
                                            "greedy_cost": round(gc, 3), "greedy_loss": round(gl, 3)})
    run.write_csv("frontier.csv", [_csv_row(x) for x in rows])  # rounded once, here; the tables use the exact values
    run.write_csv("greedy.csv", greedy_rows)
    run.write_csv("extended.csv", [{k: round(v, EXT_DIGITS[k]) if k in EXT_DIGITS else v for k, v in x.items()}
                                   for x in ext_rows])
    ext_summary = _extended_table(run, ext_rows)
    with run.timed("plot"):
        _plot(run, rows, ends)
        _plot_extended(run, ext_rows, ends)
    table = ["| trace | layout | tokens (no reuse) | prefix-only saved | + blend all, r=0.15 (beta=0): saved, loss/token |",
             "|---|---|---|---|---|"]
    for (name, meth), (tok, pref, dist) in ends.items():
        blend_cost = dist + 0.15 * (pref - dist)
        table.append(f"| {name} | {meth} | {tok} | {100 * (tok - pref) / tok:.1f}% | "
                     f"{100 * (tok - blend_cost) / tok:.1f}%, {(pref - dist) / tok:.3f} |")
    (run.dir / "table.md").write_text("\n".join(table) + "\n")
    dominated = _dominance(run, rows)
    agg = {n: ends[(n, "agglomerative")] for n in traces}
    ours = "; ".join(f"{n}: prefix-only agglomerative saves {100 * (t - p) / t:.1f}%, blending every later node at "
                     f"r=0.15 {100 * (t - (d + 0.15 * (p - d))) / t:.1f}% (loss {(p - d) / t:.2f} per token, beta=0)"
                     for n, (t, p, d) in agg.items())
    run.finish([{"claim": "OP4", "what": "beyond exact prefixes: prefill saved vs blend loss (open problem 4)",
                 "paper": "open: one optimisation trading accuracy loss against layout cost",
                 "ours": "model + proofs on docs/beyond_prefix.md (constant loss: OPT_blend = (1-c) w(U) + c OPT_free, "
                         "OPT_free layouts optimal; context loss: computed counterexamples); " + ours,
                 "agree": bool(fam_ok),
                 "agglomerative_frontier_dominates": dominated,
                 "agglomerative_extended_on_top": ext_summary,
                 "detail": "agree = every family ratio equals P5's closed form and stays below 1/c "
                           "(results/beyond_prefix/families.md); frontier.png: one curve per r. "
                           + ("; ".join(notes) if notes else "FanOutQA traces k=5,10,20 "
                              + ("read from the --traces folder (built by mptsearch trace)" if traces_dir is not None
                                 else "built offline"))
                           + "; extended.md: the extended model's sweep (section 9)"}])


def _model(name: str, lam: float):
    """The blend model ``MODELS[name]`` at loss price ``lam``: the table {(r, 0, q(r)), (r, 1,
    q(r) (1 + beta))} per ratio of :data:`MENU` (g(r, d) = q(r) (1 + beta d), linear beyond d = 1),
    built by the commands' builder."""
    from mptsearch.blend.calibration import calibration_from_points
    from mptsearch.blend.spec import make_params

    beta, unit, iso = MODELS[name]
    pts = [(r, 0, q) for r, q in MENU.items()] + [(r, 1, q * (1 + beta)) for r, q in MENU.items() if beta > 0]
    return make_params(None, lam, calibration=calibration_from_points(pts), mismatch=unit, isolated=iso)


def _extended(trace: str, layout: str, tab) -> list:
    """The lambda sweep of every extended model and rule on one layout's node table."""
    from mptsearch.blend.heuristic import price_first, price_greedy

    out = []
    for name in MODELS:
        for rule in EXTENDED_RULES:
            for lam in LAMBDAS:
                cost, loss = (price_first if rule == "first" else price_greedy)(tab, _model(name, lam))
                out.append({"trace": trace, "layout": layout, "model": name, "rule": rule, "lambda": lam,
                            "cost": cost, "loss": loss, "tokens": tab.tokens,
                            "saved_pct": 100 * (tab.tokens - cost) / tab.tokens, "loss_per_token": loss / tab.tokens})
    return out


EXT_DIGITS = {"cost": 3, "loss": 3, "saved_pct": 4, "loss_per_token": 6}


def _ext_curve(rows, trace, layout, model, rule):
    """(loss per token ascending, saved %) of a sweep, with the prefix-only end (no blend) first
    when the sweep's dearest price still blends."""
    pts = sorted({(x["loss_per_token"], x["saved_pct"]) for x in rows if x["trace"] == trace and x["layout"] == layout
                  and x["model"] == model and x["rule"] == rule})
    return [p[0] for p in pts], [p[1] for p in pts]


def _extended_table(run, rows) -> bool:
    """extended.md: prefill saved at the losses :data:`EXTENDED_AT` per trace, model and rule,
    agglomerative against production (linear between the sweep's points), the most blending
    (lambda = 0) and whether the agglomerative sweep lies on or above production's. Returns
    whether it does in every row."""
    import numpy as np

    lines = ["# The extended model (docs/beyond_prefix.md, section 9): prefill saved against total loss", "",
             "Generated by experiments/beyond_prefix.py from extended.csv. Illustrative tables, not measurements: "
             "ratios " + ", ".join(f"{r}" for r in MENU) + " with loss per blended token q(r) (1 + beta d), q = "
             + ", ".join(f"{q}" for q in MENU.values()) + "; each node takes the ratio minimising r + lambda g(r, d) "
             "or is recomputed fully, lambda swept over " + ", ".join(f"{v:g}" for v in LAMBDAS) + ". Saved (%) "
             "against no reuse at a total loss of " + ", ".join(str(a) for a in EXTENDED_AT) + " per prompt token "
             "(linear between the sweep's points; - beyond its range); 'lambda=0' blends every node it can at the "
             "cheapest ratio.", "",
             "| trace | model | rule | " + " | ".join(f"{lay} @ {a}" for a in EXTENDED_AT
                                                      for lay in ("agglomerative", "production"))
             + " | agglomerative at lambda=0: saved, loss/token | agglomerative on top |",
             "|---|---|---|" + "---|" * (2 * len(EXTENDED_AT) + 2)]
    every = True
    for trace in dict.fromkeys(x["trace"] for x in rows):
        for model in MODELS:
            for rule in EXTENDED_RULES:
                cur = {lay: _ext_curve(rows, trace, lay, model, rule) for lay in ("agglomerative", "production")}
                lo = max(c[0][0] for c in cur.values())
                hi = min(c[0][-1] for c in cur.values())
                xs = np.linspace(lo, hi, 400)
                on_top = bool((np.interp(xs, *cur["agglomerative"]) >= np.interp(xs, *cur["production"]) - 1e-9).all())
                every &= on_top
                cells = [f"{np.interp(a, *cur[lay]):.1f}" if cur[lay][0][0] <= a <= cur[lay][0][-1] else "-"
                         for a in EXTENDED_AT for lay in ("agglomerative", "production")]
                zero = next(x for x in rows if x["trace"] == trace and x["layout"] == "agglomerative"
                            and x["model"] == model and x["rule"] == rule and x["lambda"] == 0.0)
                lines.append(f"| {trace} | {model} | {rule} | " + " | ".join(cells)
                             + f" | {zero['saved_pct']:.1f}%, {zero['loss_per_token']:.3f} | {'yes' if on_top else 'no'} |")
    lines += ["", "'on top': the agglomerative sweep lies on or above production's over their common loss range."]
    (run.dir / "extended.md").write_text("\n".join(lines) + "\n")
    return every


def _plot_extended(run, rows, ends):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r["trace"] for r in rows))
    if not names:
        return
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), squeeze=False)
    colors = dict(zip(MODELS, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    for ax, name in zip(axes[0], names):
        for meth, style in (("agglomerative", "-"), ("production", "--")):
            for model in MODELS:
                xs, ys = _ext_curve(rows, name, meth, model, "first")
                ax.plot(xs, ys, style, color=colors[model], marker=".", ms=3,
                        label=f"{model}, {meth}" if name == names[0] else None)
            tok, pref, _ = ends[(name, meth)]
            ax.plot([0], [100 * (tok - pref) / tok], "ks" if meth == "agglomerative" else "k^", ms=5)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("total loss per prompt token")
        ax.set_xscale("symlog", linthresh=0.01)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("prefill saved vs no reuse (%)")
    axes[0][0].legend(fontsize=5, loc="lower right")
    fig.suptitle("extended model (ratio menu 0.05/0.15/0.3, illustrative losses), one-copy rule, lambda swept; "
                 "square/triangle = prefix-only agglomerative/production", fontsize=8)
    fig.tight_layout()
    fig.savefig(run.dir / "extended.png", dpi=110)
    plt.close(fig)


FRONTIER_DIGITS = {"unit_max": 6, "cost": 3, "loss": 3, "saved_pct": 4, "loss_per_token": 6}


def _csv_row(row):
    """A frontier row with its floats rounded for frontier.csv (the tables are computed from the
    unrounded row, so that every printed figure is rounded once)."""
    return {k: round(v, FRONTIER_DIGITS[k]) if k in FRONTIER_DIGITS else v for k, v in row.items()}


def _curve(rows, trace, layout, r, beta, per_answer=False):
    pts = [(x["loss_per_token"], x["saved_pct"]) for x in rows if x["trace"] == trace and x["layout"] == layout
           and x["r"] == r and x["beta"] == beta and x["per_answer"] == per_answer]
    return [p[0] for p in pts], [p[1] for p in pts]


def _dominance(run, rows, at=(0.25, 1.0)) -> bool:
    """dominance.md: prefill saved at fixed loss per token (beta = 1), per layout, read off the
    frontiers by linear interpolation (a segment is reachable by blending part of a group); and
    whether the agglomerative frontier lies on or above the others on their common loss range."""
    import numpy as np

    lines = ["# Prefill saved (%) at a given total loss per prompt token, beta = 1", "",
             "Generated by experiments/beyond_prefix.py from frontier.csv (one-copy rule, linear between points).", "",
             "| trace | r | " + " | ".join(f"{lay} @ {a}" for a in at for lay in LAYOUTS) + " | agglomerative on top |",
             "|---|---|" + "---|" * (len(at) * len(LAYOUTS) + 1)]
    every = True
    for trace in dict.fromkeys(x["trace"] for x in rows):
        for r in R_VALUES:
            curves = {lay: _curve(rows, trace, lay, r, 1.0) for lay in LAYOUTS}
            top = min(c[0][-1] for c in curves.values())
            xs = np.linspace(0.0, top, 400)
            agg = np.interp(xs, *curves["agglomerative"])
            on_top = all(bool((agg >= np.interp(xs, *c) - 1e-9).all()) for c in curves.values())
            every &= on_top
            cells = [f"{np.interp(a, *curves[lay]):.1f}" if a <= curves[lay][0][-1] else "-" for a in at for lay in LAYOUTS]
            lines.append(f"| {trace} | {r} | " + " | ".join(cells) + f" | {'yes' if on_top else 'no'} |")
    (run.dir / "dominance.md").write_text("\n".join(lines) + "\n")
    acc = ["# The two loss accountings (docs/beyond_prefix.md, section 7), beta = 1, r = 0.15", "",
           "Generated by experiments/beyond_prefix.py from frontier.csv: prefill saved (%) at a total loss of "
           + ", ".join(str(a) for a in at) + " per prompt token, loss charged once per blended node or once per "
           "request through it.", "",
           "| trace | layout | " + " | ".join(f"once @ {a} | per answer @ {a}" for a in at) + " |",
           "|---|---|" + "---|---|" * len(at)]
    for trace in dict.fromkeys(x["trace"] for x in rows):
        for lay in ("agglomerative", "production"):
            once, per = _curve(rows, trace, lay, 0.15, 1.0), _curve(rows, trace, lay, 0.15, 1.0, True)
            cells = []
            for a in at:
                for c in (once, per):
                    cells.append(f"{np.interp(a, *c):.1f}" if a <= c[0][-1] else "-")
            acc.append(f"| {trace} | {lay} | " + " | ".join(cells) + " |")
    (run.dir / "accounting.md").write_text("\n".join(acc) + "\n")
    return every


def _plot(run, rows, ends):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r["trace"] for r in rows))
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), squeeze=False)
    colors = dict(zip(R_VALUES, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    for ax, name in zip(axes[0], names):
        for meth, style in (("agglomerative", "-"), ("production", "--")):
            for r in R_VALUES:
                pts = [x for x in rows if x["trace"] == name and x["layout"] == meth and x["r"] == r and x["beta"] == 1.0
                       and not x["per_answer"]]
                ax.plot([x["loss_per_token"] for x in pts], [x["saved_pct"] for x in pts], style, color=colors[r],
                        marker=".", ms=3, label=f"r={r} {meth}" if name == names[0] else None)
            tok, pref, _ = ends[(name, meth)]
            ax.plot([0], [100 * (tok - pref) / tok], "ks" if meth == "agglomerative" else "k^", ms=5)
        ax.plot([0], [0], "ko", ms=5)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("total loss per prompt token (beta = 1)")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("prefill saved vs no reuse (%)")
    axes[0][0].legend(fontsize=6, loc="lower right")
    fig.suptitle("blend frontier: square = prefix-only agglomerative, triangle = prefix-only production, "
                 "circle = full recompute", fontsize=8)
    fig.tight_layout()
    fig.savefig(run.dir / "frontier.png", dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
