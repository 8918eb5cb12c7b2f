"""C4: agglomerative keeps at least half of the optimal savings.

On random weighted instances, check SAV(agglomerative) >= SAV* / 2 and the per-threshold form
that drives it: for every threshold t, agglomerative's number of internal nodes with
w(I(v)) >= t is at least half the optimum's. "The optimum's" is read two ways, both checked:
(a) the optimal hierarchy the DP returns, (b) the most such nodes any hierarchy has (the
recurrence of Theorem 1 on the table [w(I(B)) >= t]). Also the tight witness ``0123 14 2578 46``
under the worst tie-breaking path, and the worst shortfall SAV*/SAV(agg) seen.

Generator (stated, not tuned): n uniform in 5..12 chunks, m uniform in 3..10 distinct requests,
request sizes uniform in 1..min(6, n), chunk weights uniform in 1..20.
"""

from __future__ import annotations

import numpy as np

from ._common import Run, parser


def threshold_counts(node_weights, thresholds):
    w = np.asarray(node_weights)
    return {t: int((w >= t).sum()) for t in thresholds}


def main(argv=None):
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--instances", type=int, default=3000)
    p.add_argument("--anneal-steps", type=int, default=4_000_000,
                   help="step budget of the annealed search for the worst shortfall")
    args = p.parse_args(argv)
    from mptsearch.exact.free import opt_free, savings_table, solve_table
    from mptsearch.families import random_instance
    from mptsearch.heuristics.agglomerative import agglomerative
    from mptsearch.instance import from_compact

    config = {"instances": args.instances, "n": [5, 12], "m": [3, 10], "k": [1, 6], "weights": [1, 20],
              "tie_breaks": ["first", "random"]}
    run = Run("half_approx", config, args.seed, args.out)
    rng = np.random.default_rng(args.seed)
    violations = {"savings": [], "threshold_vs_dp_hierarchy": [], "threshold_vs_best_possible": []}
    worst = {"shortfall": 1.0, "instance": None}
    shortfalls = []
    with run.timed("random_instances"):
        for trial in range(args.instances):
            n = int(rng.integers(5, 13))
            m = int(rng.integers(3, 11))
            inst = random_instance(n=n, m=m, k=(1, min(6, n)), weights=(1, 20), seed=rng)
            opt = opt_free(inst)
            opt_sav = opt.savings
            opt_nodes = opt.hierarchy.node_savings(inst)
            wI, _ = savings_table(inst)
            for tb in ("first", "random"):
                agg = agglomerative(inst, tie_break=tb, seed=trial)
                if 2 * agg.savings < opt_sav:
                    violations["savings"].append({"instance": inst.to_json(), "tie_break": tb,
                                                  "agg": agg.savings, "opt": opt_sav})
                if agg.savings and tb == "first":
                    s = opt_sav / agg.savings
                    shortfalls.append(s)
                    if s > worst["shortfall"]:
                        worst = {"shortfall": s, "instance": inst.to_json(), "opt": opt_sav, "agg": agg.savings}
                agg_nodes = agg.hierarchy.node_savings(inst)
                thresholds = sorted({v for v in opt_nodes + agg_nodes if v > 0})
                ca = threshold_counts(agg_nodes, thresholds)
                co = threshold_counts(opt_nodes, thresholds)
                for t in thresholds:
                    if 2 * ca[t] < co[t]:
                        violations["threshold_vs_dp_hierarchy"].append(
                            {"instance": inst.to_json(), "tie_break": tb, "t": t, "agg": ca[t], "opt": co[t]})
                    best = int(solve_table((wI >= t).astype(np.int16))[-1])
                    if 2 * ca[t] < best:
                        violations["threshold_vs_best_possible"].append(
                            {"instance": inst.to_json(), "tie_break": tb, "t": t, "agg": ca[t], "best": best})
    witness = from_compact("0123 14 2578 46")
    wit = {"instance": "0123 14 2578 46",
           "opt_savings": opt_free(witness).savings,
           "worst_tie_break_savings": agglomerative(witness, tie_break="worst").savings,
           "best_tie_break_savings": agglomerative(witness, tie_break="best").savings,
           "first_tie_break_savings": agglomerative(witness, tie_break="first").savings}
    with run.timed("annealed_shortfall"):
        annealed = _annealed_shortfall(args.seed, args.anneal_steps)
    data = {"violations": {k: len(v) for k, v in violations.items()}, "witness": wit,
            "annealed_shortfall": annealed,
            "worst_random_shortfall": worst,
            "shortfall_quantiles": {q: float(np.quantile(shortfalls, q)) for q in (0.5, 0.9, 0.99, 1.0)},
            "examples": {k: v[:5] for k, v in violations.items()}}
    run.write_json("half_approx.json", data)
    nv = sum(data["violations"].values())
    claims = [
        {"claim": "C4", "what": f"violations of SAV(agg) >= SAV*/2 and of the per-threshold form, "
                                f"{args.instances} random weighted instances x 2 tie-breaks",
         "paper": "0 of 3000", "ours": data["violations"], "agree": nv == 0},
        {"claim": "C4", "what": "tight witness 0123 14 2578 46 under the worst tie-breaking",
         "paper": "1 against 2", "ours": f"{wit['worst_tie_break_savings']} against {wit['opt_savings']}",
         "agree": (wit["worst_tie_break_savings"], wit["opt_savings"]) == (1, 2)},
        {"claim": "C4", "what": "worst shortfall SAV*/SAV(agg) on these random instances (not annealed)",
         "paper": "annealed worst 1.83", "ours": round(worst["shortfall"], 4), "agree": worst["shortfall"] <= 2,
         "detail": "random sampling, not a search; the annealed search is the next row"},
        {"claim": "C4", "what": f"annealed worst shortfall SAV*/SAV(agg), deterministic tie-breaking "
                                f"({annealed['evaluations']:,} instances evaluated)",
         "paper": "1.83 (proven bound 2)",
         "ours": f"{annealed['shortfall']} = {annealed['value']:.4f} on {annealed['instance']} "
                 f"(weights {annealed['weights']}); {annealed['violations']} below half",
         "agree": annealed["violations"] == 0,
         "detail": "the search reaches the proven bound 2 exactly, through ties of common weight that the "
                   "deterministic rule breaks the unlucky way; the paper's 1.83 is below what adversarial "
                   "ties allow, not a contradiction of the bound"},
    ]
    run.finish(claims)
    return claims


def _annealed_shortfall(seed: int, steps: int) -> dict:
    """Anneal for the worst shortfall (k 2-4 on 7 chunks, m 3-10, weights 1-9), with every
    evaluated instance checked against the 1/2 bound, and re-certify the find with the public
    solvers (the kernel's request order is kept: "first" tie-breaking depends on it)."""
    from fractions import Fraction

    from mptsearch.exact.free import opt_free
    from mptsearch.heuristics.agglomerative import agglomerative
    from mptsearch.instance import compact
    from mptsearch.search.anneal import AnnealConfig
    from mptsearch.search.parallel import anneal

    config = AnnealConfig(n=7, k=(2, 4), m=(3, 10), weights=(1, 9), objective="shortfall", check=True)
    res = anneal(config, seed=seed, steps=steps, time_limit=None, jobs=1)
    inst = res.instance
    opt, agg = opt_free(inst).savings, agglomerative(inst, tie_break="first").savings
    assert Fraction(opt, agg) == Fraction(res.num, res.den)
    return {"shortfall": str(Fraction(opt, agg)), "value": opt / agg, "instance": compact(inst, inst.orders),
            "weights": [int(w) for w in inst.weights], "opt_savings": opt, "agg_savings": agg,
            "evaluations": res.evaluations, "violations": res.violations, "steps": steps,
            "config": {"n": 7, "k": [2, 4], "m": [3, 10], "weights": [1, 9]}}


if __name__ == "__main__":
    main()
